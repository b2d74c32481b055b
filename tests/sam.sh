#!/bin/bash
# sam.sh: SAM output is valid for samtools (view, sort, calmd), NM agrees with calmd, the
# CIGAR covers the query and agrees with PAF columns 10-11, and every query has exactly
# one primary record per run of all-vs-all pairs; the same for the paths of a long pair
# (GACT tiles and --exact, both strands).
set -u
. "${top_srcdir:-.}/tests/testlib.sh"
if ! command -v samtools >/dev/null 2>&1; then
	echo "SKIP: samtools is not installed (Debian: samtools)"
	exit 77
fi

for mode in local semiglobal global; do
	sam=$tmp/$mode.sam
	if ! "$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -m "$mode" -f sam -t 2 >"$sam"; then
		bad "$mode: nwalign failed"
		continue
	fi
	samtools view -h "$sam" >"$tmp/view.sam" 2>"$tmp/view.err" && [ ! -s "$tmp/view.err" ] &&
		ok || bad "$mode: samtools view: $(cat "$tmp/view.err")"
	samtools sort -o "$tmp/$mode.bam" "$sam" 2>"$tmp/sort.err" && ok ||
		bad "$mode: samtools sort: $(cat "$tmp/sort.err")"
	# 8 reads x 3 references, one record each.
	n=$(samtools view -c "$sam")
	[ "$n" = 24 ] && ok || bad "$mode: $n records, expected 24"
	# One primary record per read (flag 256 and 4 clear or unmapped primary).
	p=$(samtools view -F 0x100 "$sam" | cut -f1 | sort | uniq -d | wc -l)
	np=$(samtools view -F 0x100 "$sam" | cut -f1 | sort -u | wc -l)
	[ "$p" = 0 ] && [ "$np" = 8 ] && ok || bad "$mode: primaries per read wrong ($p dup, $np reads)"
	# calmd recomputes NM from the reference; it must agree with ours.
	cp "$data/ref.fa" "$tmp/ref.fa"
	samtools faidx "$tmp/ref.fa"
	samtools calmd "$sam" "$tmp/ref.fa" 2>"$tmp/calmd.err" >"$tmp/calmd.sam"
	# calmd rewrites NM when it differs and says so on stderr.
	grep -qi 'different NM' "$tmp/calmd.err" && bad "$mode: calmd: $(head -3 "$tmp/calmd.err")" || ok
	diff <(grep -v '^@' "$sam" | awk -F'\t' '{for (i = 12; i <= NF; i++) if ($i ~ /^NM:i:/) print $1, $3, $i}') \
		<(grep -v '^@' "$tmp/calmd.sam" | awk -F'\t' '{for (i = 12; i <= NF; i++) if ($i ~ /^NM:i:/) print $1, $3, $i}') \
		>/dev/null 2>&1 && ok || bad "$mode: NM differs from calmd"
	# Every mapped CIGAR consumes the whole query (soft clips included).
	awk -F'\t' '!/^@/ && $6 != "*" {
		n = 0; s = $6
		while (match(s, /^[0-9]+[MIDNSHP=X]/)) {
			len = substr(s, 1, RLENGTH - 1) + 0; op = substr(s, RLENGTH, 1)
			if (op ~ /[MIS=X]/) n += len
			s = substr(s, RLENGTH + 1)
		}
		if (n != length($10)) { print $1, $3, $6; bad = 1 }
	} END { exit bad }' "$sam" && ok || bad "$mode: a CIGAR does not cover its query"
done

# Reverse strand: flag 16, SEQ reverse complemented, clips in that orientation; calmd
# must agree with NM (it compares SEQ against the reference along the CIGAR).
awk 'BEGIN {n = split("A T C G G C T A N N", p, " "); for (i = 1; i < n; i += 2) c[p[i]] = p[i + 1]}
     function rev(s,  r, i) {r = ""; for (i = length(s); i > 0; i--) r = r substr(s, i, 1); return r}
     NR % 4 == 2 {s = rev($0); t = ""; for (i = 1; i <= length(s); i++) t = t c[substr(s, i, 1)]; print t; next}
     NR % 4 == 0 {print rev($0); next}
     {print}' "$data/reads.fq" >"$tmp/rc.fq"
"$NWALIGN" -q "$tmp/rc.fq" -r "$data/ref.fa" -m local -f sam --strand both -t 2 >"$tmp/rc.sam"
n16=$(samtools view -c -f 16 "$tmp/rc.sam")
[ "$n16" -ge 7 ] && ok || bad "reverse strand: only $n16 records with flag 16"
samtools calmd "$tmp/rc.sam" "$tmp/ref.fa" 2>"$tmp/calmd.err" >"$tmp/rc.calmd.sam"
grep -qi 'different NM' "$tmp/calmd.err" && bad "reverse strand: calmd: $(head -3 "$tmp/calmd.err")" || ok
diff <(grep -v '^@' "$tmp/rc.sam" | awk -F'\t' '{for (i = 12; i <= NF; i++) if ($i ~ /^NM:i:/) print $1, $3, $i}') \
	<(grep -v '^@' "$tmp/rc.calmd.sam" | awk -F'\t' '{for (i = 12; i <= NF; i++) if ($i ~ /^NM:i:/) print $1, $3, $i}') \
	>/dev/null 2>&1 && ok || bad "reverse strand: NM differs from calmd"
# The primary records of the reverse-complemented reads carry the reads' own bases again
# once reversed back: SEQ of a flag-16 record is the reverse complement of the FASTQ read.
samtools fastq -F 0x900 "$tmp/rc.sam" 2>/dev/null | awk 'NR % 4 == 2' >"$tmp/back.seq"
awk 'NR % 4 == 2' "$tmp/rc.fq" >"$tmp/rc.seq"
cmp -s "$tmp/back.seq" "$tmp/rc.seq" && ok || bad "samtools fastq does not give back the reads"

# PAF columns 10-11 agree with the path in cg:Z.
"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -m local -f paf -t 2 >"$tmp/out.paf"
awk -F'\t' '{
	cg = ""; for (i = 13; i <= NF; i++) if ($i ~ /^cg:Z:/) cg = substr($i, 6)
	if (cg == "") { if ($10 != 0 || $11 != 0) bad = 1; next }
	m = 0; b = 0; s = cg
	while (match(s, /^[0-9]+[=XID]/)) {
		len = substr(s, 1, RLENGTH - 1) + 0; op = substr(s, RLENGTH, 1)
		if (op == "=") m += len
		b += len; s = substr(s, RLENGTH + 1)
	}
	if (m != $10 || b != $11) { print "PAF", $1, $6, $10, $11, m, b; bad = 1 }
} END { exit bad }' "$tmp/out.paf" && ok || bad "PAF columns 10-11 disagree with cg:Z"

# A long pair (tests/long_pair.awk: a span past 2^22 cells): GACT paths with small tiles
# (many tiles, gaps carried across them) and --exact paths, on both strands. calmd checks
# NM and the = / X of every path against the reference; PAF columns 10-11 the cg:Z.
awk -f "$top/tests/long_pair.awk" >"$tmp/long_ref.fa" 2>"$tmp/long_read.fa"
awk 'BEGIN {c["A"] = "T"; c["C"] = "G"; c["G"] = "C"; c["T"] = "A"}
     /^>/ {print $0 "_rc"; next}
     {t = ""; for (i = length($0); i > 0; i--) t = t c[substr($0, i, 1)]; print t}' "$tmp/long_read.fa" >>"$tmp/long_read.fa.rc"
cat "$tmp/long_read.fa" "$tmp/long_read.fa.rc" >"$tmp/long_reads.fa"
samtools faidx "$tmp/long_ref.fa"
for paths in "--gact --max-deficit 1 --tile 64 --overlap 16" "--exact"; do
	for mode in local semiglobal; do
		what="long pair, $mode, $paths"
		sam=$tmp/long.sam
		"$NWALIGN" -q "$tmp/long_reads.fa" -r "$tmp/long_ref.fa" -m "$mode" --strand both $paths -f sam -t 2 \
			-v >"$sam" 2>"$tmp/long.err" || { bad "$what: nwalign failed"; continue; }
		case $paths in
		--exact) grep -q 'paths: 0 full, 2 exact' "$tmp/long.err" ;;
		*) grep -q 'paths: 0 full, 2 gact (T=64 O=16), 0 recomputed exactly' "$tmp/long.err" ;;
		esac && ok || bad "$what: not the path kinds expected: $(grep paths: "$tmp/long.err")"
		samtools view -h "$sam" >/dev/null 2>"$tmp/view.err" && [ ! -s "$tmp/view.err" ] && ok ||
			bad "$what: samtools view: $(cat "$tmp/view.err")"
		samtools sort -o "$tmp/long.bam" "$sam" 2>"$tmp/sort.err" && ok || bad "$what: samtools sort"
		[ "$(samtools view -c -f 16 "$sam")" = 1 ] && ok || bad "$what: the reverse complement is not on the - strand"
		samtools calmd "$sam" "$tmp/long_ref.fa" 2>"$tmp/calmd.err" >"$tmp/long.calmd.sam"
		grep -qi 'different NM' "$tmp/calmd.err" && bad "$what: calmd: $(head -3 "$tmp/calmd.err")" || ok
		# calmd -e turns matching bases into '=': with =/X in our CIGAR, every = column must
		# come out '=' and every X column not
		samtools calmd -e "$sam" "$tmp/long_ref.fa" 2>/dev/null | awk -F'\t' '!/^@/ {
			n++; s = $6; p = 1
			while (match(s, /^[0-9]+[MIDNSHP=X]/)) {
				len = substr(s, 1, RLENGTH - 1) + 0; op = substr(s, RLENGTH, 1)
				if (op == "=" || op == "X") {
					for (k = 0; k < len; k++) if ((substr($10, p + k, 1) == "=") != (op == "=")) bad = 1
				}
				if (op ~ /[MIS=X]/) p += len
				s = substr(s, RLENGTH + 1)
			}
		} END { exit bad || n != 2 }' && ok || bad "$what: = / X columns disagree with the reference"
		"$NWALIGN" -q "$tmp/long_reads.fa" -r "$tmp/long_ref.fa" -m "$mode" --strand both $paths -f paf -t 2 \
			>"$tmp/long.paf" || bad "$what: nwalign PAF failed"
		awk -F'\t' '{
			cg = ""; for (i = 13; i <= NF; i++) if ($i ~ /^cg:Z:/) cg = substr($i, 6)
			m = 0; b = 0; s = cg
			while (match(s, /^[0-9]+[=XID]/)) {
				len = substr(s, 1, RLENGTH - 1) + 0; op = substr(s, RLENGTH, 1)
				if (op == "=") m += len
				b += len; s = substr(s, RLENGTH + 1)
			}
			if (cg == "" || m != $10 || b != $11) bad = 1
		} END { exit bad || NR != 2 }' "$tmp/long.paf" && ok || bad "$what: PAF columns 10-11 disagree with cg:Z"
	done
done

echo "sam: $pass passed, $fail failed"
[ "$fail" = 0 ]
