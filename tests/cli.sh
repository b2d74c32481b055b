#!/bin/sh
# cli.sh: the command line on the bundled data: golden outputs (checked by hand once and
# by the parasail differential test for scores), and properties every run must keep:
# same output from a file, from stdin, from gzip, with 1 or 2 threads, with -o; order;
# help and version.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"
gold=$top/tests/golden

# same NAME FILE1 FILE2
same() {
	if cmp -s "$2" "$3"; then ok; else bad "$1"; diff "$2" "$3" | head -5 >&2; fi
}

# golden NAME ARGS...: the output must equal tests/golden/NAME
golden() {
	name=$1
	shift
	if "$NWALIGN" "$@" >"$tmp/$name" 2>"$tmp/$name.err"; then
		same "golden $name" "$gold/$name" "$tmp/$name"
	else
		bad "golden $name: exit $? ($(cat "$tmp/$name.err"))"
	fi
}

golden global.tsv -q "$data/reads.fq" -r "$data/ref.fa" -t 1
golden local_cigar.tsv -q "$data/reads.fq" -r "$data/ref.fa" -m local -c -t 1
golden semiglobal_cigar.tsv -q "$data/reads.fq" -r "$data/ref.fa" -m semiglobal -c -t 1
golden semiglobal.paf -q "$data/reads.fq" -r "$data/ref.fa" -m semiglobal -f paf -t 1
golden local_linear.tsv -q "$data/reads.fq" -r "$data/ref.fa" -m local --gap-open 0 --gap-extend 3 -c -t 1
golden globins_local.tsv -q "$data/globins.fa" -r "$data/globins.fa" -m local -c -t 1
golden globins_global_pam.tsv -q "$data/globins.fa" -r "$data/globins.fa" --matrix pam250 --gap-open 10 --gap-extend 2 -t 1

# The same run from stdin, from gzip, with two threads and with -o gives the same bytes.
ref=$gold/local_cigar.tsv
"$NWALIGN" -q - -r "$data/ref.fa" -m local -c -t 1 <"$data/reads.fq" >"$tmp/stdin.tsv" 2>&1
same "query from stdin" "$ref" "$tmp/stdin.tsv"
gzip -c "$data/reads.fq" >"$tmp/reads.fq.gz"
gzip -c "$data/ref.fa" >"$tmp/ref.fa.gz"
"$NWALIGN" -q "$tmp/reads.fq.gz" -r "$tmp/ref.fa.gz" -m local -c -t 2 >"$tmp/gz.tsv" 2>&1
same "gzip input, 2 threads" "$ref" "$tmp/gz.tsv"
# gzip through htslib (NWALIGN_GUNZIP=htslib; else ISA-L, where the build has it) and a
# query file of three gzip members one after the other read the same (BGZF: unit_pack).
NWALIGN_GUNZIP=htslib "$NWALIGN" -q "$tmp/reads.fq.gz" -r "$tmp/ref.fa.gz" -m local -c -t 2 >"$tmp/gzh.tsv" 2>&1
same "gzip input through htslib" "$ref" "$tmp/gzh.tsv"
head -n 8 "$data/reads.fq" | gzip -c >"$tmp/multi.fq.gz"
sed -n 9,12p "$data/reads.fq" | gzip -c >>"$tmp/multi.fq.gz"
sed -n '13,$p' "$data/reads.fq" | gzip -c >>"$tmp/multi.fq.gz"
"$NWALIGN" -q "$tmp/multi.fq.gz" -r "$tmp/ref.fa.gz" -m local -c -t 2 >"$tmp/multi.tsv" 2>&1
same "gzip input in three members" "$ref" "$tmp/multi.tsv"
# The reference in lower case, wrapped at 7 columns (lines that end inside a byte of the
# reader's 2-bit text) with CRLF line ends, plain and gzip, reads as the same sequences.
awk 'function flush(  i) {for (i = 1; i <= length(s); i += 7) printf "%s\r\n", substr(s, i, 7); s = ""}
     /^>/ {flush(); printf "%s\r\n", $0; next} {s = s tolower($0)} END {flush()}' \
	"$data/ref.fa" >"$tmp/ref_crlf.fa"
gzip -c "$tmp/ref_crlf.fa" >"$tmp/ref_crlf.fa.gz"
for f in "$tmp/ref_crlf.fa" "$tmp/ref_crlf.fa.gz"; do
	"$NWALIGN" -q "$data/reads.fq" -r "$f" -m local -c -t 1 >"$tmp/crlf.tsv" 2>&1
	same "lower case, 7 columns, CRLF: $(basename "$f")" "$ref" "$tmp/crlf.tsv"
done
"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -m local -c -t 1 --batch-size 3 -o "$tmp/o.tsv" >"$tmp/o.stdout" 2>&1
same "-o FILE with batches of 3" "$ref" "$tmp/o.tsv"
[ -s "$tmp/o.stdout" ] && bad "-o wrote to stdout" || ok

# Query-major order: every query against the references in file order.
awk -F'\t' '!/^#/ {print $1 "\t" $5}' "$gold/global.tsv" >"$tmp/order"
awk 'FNR == 1 {f++}
     f == 1 && FNR % 4 == 1 {q[++nq] = substr($1, 2)}
     f == 2 && /^>/ {r[++nr] = substr($1, 2)}
     END {for (i = 1; i <= nq; i++) for (j = 1; j <= nr; j++) print q[i] "\t" r[j]}' \
	"$data/reads.fq" "$data/ref.fa" >"$tmp/order.want"
same "query-major order" "$tmp/order.want" "$tmp/order"

# --no-header drops exactly the header line.
"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" --no-header -t 1 >"$tmp/nohdr.tsv"
tail -n +2 "$gold/global.tsv" >"$tmp/nohdr.want"
same "--no-header" "$tmp/nohdr.want" "$tmp/nohdr.tsv"

# zip pairs the i-th query with the i-th reference.
head -n 12 "$data/reads.fq" >"$tmp/three.fq"
"$NWALIGN" -q "$tmp/three.fq" -r "$data/ref.fa" --pairs zip --no-header -t 1 >"$tmp/zip.tsv"
awk -F'\t' '{print $1 "\t" $5}' "$tmp/zip.tsv" >"$tmp/zip.names"
printf 'read1_exact\tlambda_1000_1600\nread2_subs\tlambda_20000_20400\nread3_indels\tlambda_40000_40300\n' >"$tmp/zip.want"
same "--pairs zip order" "$tmp/zip.want" "$tmp/zip.names"

# Batches read ahead on a thread give the same output whatever their size, zip included.
"$NWALIGN" -q "$data/reads.fq" -r "$data/reads.fq" --pairs zip -m local -c --strand both -t 2 >"$tmp/zip1.tsv"
"$NWALIGN" -q "$data/reads.fq" -r "$data/reads.fq" --pairs zip -m local -c --strand both -t 2 --batch-size 3 >"$tmp/zip3.tsv"
same "zip with batches of 3" "$tmp/zip1.tsv" "$tmp/zip3.tsv"
[ "$(grep -vc '^#' "$tmp/zip3.tsv")" = 8 ] && ok || bad "zip of 8 reads with themselves: $(grep -vc '^#' "$tmp/zip3.tsv") lines"

# An exact copy aligns with no edits: local score = 2 x length.
line=$(awk -F'\t' '$1 == "read1_exact" && $5 == "lambda_1000_1600"' "$gold/local_cigar.tsv")
case $line in
*"	200	100	100	100=") ok ;;
*) bad "exact read: $line" ;;
esac

# --top N keeps each query's N best references, best first, ties in reference order:
# the same lines as ranking the full output.
"$NWALIGN" -q "$data/globins.fa" -r "$data/globins.fa" -m local --top 3 --no-header -t 2 >"$tmp/top.tsv"
"$NWALIGN" -q "$data/globins.fa" -r "$data/globins.fa" -m local --no-header -t 2 |
	awk -F'\t' '{if ($1 != last) {qi++; ri = 0; last = $1} ri++; print qi "\t" ri "\t" $0}' |
	sort -t "$(printf '\t')" -k1,1n -k12,12nr -k2,2n |
	awk -F'\t' '{if (++seen[$1] <= 3) {sub(/^[^\t]*\t[^\t]*\t/, ""); print}}' >"$tmp/top.want"
same "--top 3" "$tmp/top.want" "$tmp/top.tsv"
[ "$(wc -l <"$tmp/top.tsv")" = 21 ] && ok || bad "--top 3 of 7 queries: $(wc -l <"$tmp/top.tsv") lines"

# --strand both: each pair keeps the better of the read as given and its reverse
# complement (the read as given on ties); a reverse-strand result is the forward result of
# the reverse-complemented read, with query coordinates mirrored onto the read as given.
revcomp_fq() {
	awk 'BEGIN {n = split("A T C G G C T A N N", p, " "); for (i = 1; i < n; i += 2) c[p[i]] = p[i + 1]}
	     function rev(s,  r, i) {r = ""; for (i = length(s); i > 0; i--) r = r substr(s, i, 1); return r}
	     NR % 4 == 2 {s = rev($0); t = ""; for (i = 1; i <= length(s); i++) t = t c[substr(s, i, 1)]; print t; next}
	     NR % 4 == 0 {print rev($0); next}
	     {print}' "$1"
}
revcomp_fq "$data/reads.fq" >"$tmp/rc.fq"
for mode in local semiglobal global; do
	"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -m "$mode" -c --no-header -t 2 >"$tmp/f.tsv"
	"$NWALIGN" -q "$tmp/rc.fq" -r "$data/ref.fa" -m "$mode" -c --no-header -t 2 >"$tmp/r.tsv"
	"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -m "$mode" -c --no-header -t 2 --strand both >"$tmp/both.tsv"
	paste "$tmp/f.tsv" "$tmp/r.tsv" | awk -F'\t' -v OFS='\t' '{
		if ($10 >= $23) print $1, $2, $3, $4, $5, $6, $7, $8, "+", $10, $11, $12, $13
		else print $1, $2, $2 - $17, $2 - $16, $5, $6, $20, $21, "-", $23, $24, $25, $26
	}' >"$tmp/both.want"
	same "--strand both, $mode" "$tmp/both.want" "$tmp/both.tsv"
done
grep -q '	-	' "$tmp/both.tsv" && ok || bad "--strand both found no reverse-strand pair"
# Every read of the reverse-complemented file aligns on the reverse strand as well as the
# original read does on the forward strand (read8_random aside, which is random).
"$NWALIGN" -q "$tmp/rc.fq" -r "$data/ref.fa" -m local --top 1 --no-header -t 2 --strand both |
	awk -F'\t' '$1 != "read8_random" && $9 != "-" {bad = 1; print} END {exit bad}' >&2 && ok ||
	bad "reverse-complemented reads not found on the reverse strand"

# Long pairs: a span above 2^22 cells takes an exact divide-and-conquer path by default, a
# GACT path (heuristic) with --gact. A 2,400 bp reference (random, from a fixed seed) and a
# read made from 2,200 bp of it with ~6% edits (tests/long_pair.awk), plus the read's
# reverse complement.
awk -f "$top/tests/long_pair.awk" >"$tmp/long_ref.fa" 2>"$tmp/long_read.fa"
revcomp_fa() {
	awk 'BEGIN {c["A"] = "T"; c["C"] = "G"; c["G"] = "C"; c["T"] = "A"}
	     /^>/ {print $0 "_rc"; next}
	     {t = ""; for (i = length($0); i > 0; i--) t = t c[substr($0, i, 1)]; print t}' "$1"
}
revcomp_fa "$tmp/long_read.fa" >"$tmp/long_read_rc.fa"
long() { "$NWALIGN" -q "$tmp/long_read.fa" -r "$tmp/long_ref.fa" -m local -t 1 "$@"; }
long --no-header >"$tmp/long.tsv"
long -f paf -v >"$tmp/long_exact.paf" 2>"$tmp/long_exact.err"
long -f paf --exact >"$tmp/long_exact2.paf"
long -f paf --gact --max-deficit 1 -v >"$tmp/long.paf" 2>"$tmp/long.err"
score=$(cut -f10 "$tmp/long.tsv")
awk -F'\t' '{exit !(($4 - $3 + 1) * ($9 - $8 + 1) > 4194304)}' "$tmp/long.paf" && ok ||
	bad "long pair: span not above 2^22 cells: $(cut -f1-12 "$tmp/long.paf")"
# GACT: AS:i is the path's score, os:i the optimum (the TSV score without a path) >= AS:i.
awk -F'\t' -v opt="$score" '{
	for (i = 13; i <= NF; i++) { split($i, t, ":"); v[t[1]] = t[3] }
	exit !(("os" in v) && v["os"] == opt && v["AS"] <= v["os"])
}' "$tmp/long.paf" && ok || bad "long pair, GACT: os:i/AS:i wrong (optimum $score): $(cut -f12-14 "$tmp/long.paf")"
grep -q 'paths: 0 full, 1 gact (T=320 O=120), 0 recomputed exactly (over 1 below the optimum)' "$tmp/long.err" && ok ||
	bad "-v does not count the GACT path: $(grep paths: "$tmp/long.err")"
# The default: the optimum itself, no os:i; --exact asks for the same.
awk -F'\t' -v opt="$score" '$13 == "AS:i:" opt && $14 ~ /^NM:i:/ {found = 1} END {exit !found}' \
	"$tmp/long_exact.paf" && ok || bad "long pair, default: AS:i is not the optimum $score: $(cut -f12-14 "$tmp/long_exact.paf")"
grep -q 'paths: 0 full, 1 exact' "$tmp/long_exact.err" && ok ||
	bad "-v does not count the exact path: $(grep paths: "$tmp/long_exact.err")"
cmp -s "$tmp/long_exact.paf" "$tmp/long_exact2.paf" && ok || bad "--exact differs from the default"
# --max-deficit: 64-residue tiles without overlap miss the optimum by far (a path below it
# is kept with --max-deficit 1); with 0 the path is recomputed exactly (the default path),
# and -v counts it.
long -f paf --gact --tile 64 --overlap 0 --max-deficit 1 >"$tmp/long64.paf"
long -f paf --gact --tile 64 --overlap 0 --max-deficit 0 -v >"$tmp/long_redo.paf" 2>"$tmp/long_redo.err"
if awk -F'\t' '{for (i = 13; i <= NF; i++) if ($i ~ /^os:i:/) os = substr($i, 6) + 0; split($13, a, ":")
	exit !(os != "" && a[3] < os)}' "$tmp/long64.paf"; then
	cmp -s "$tmp/long_redo.paf" "$tmp/long_exact.paf" && ok || bad "--max-deficit 0: not the exact path"
	grep -q '0 gact (T=64 O=0), 1 recomputed exactly (over 0 below' "$tmp/long_redo.err" && ok ||
		bad "--max-deficit 0: -v: $(grep paths: "$tmp/long_redo.err")"
else
	bad "the long pair's GACT path is optimal: it no longer tests --max-deficit"
fi
# --tile/--overlap change the tiles; -v says which.
long -f paf --gact --tile 64 --overlap 0 -v >/dev/null 2>"$tmp/long64.err" &&
	grep -q 'gact (T=64 O=0)' "$tmp/long64.err" && ok ||
	bad "--tile 64 --overlap 0: $(cat "$tmp/long64.err")"
long -f paf --gact --tile 64 -v >/dev/null 2>"$tmp/long64.err" &&
	grep -q 'gact (T=64 O=24)' "$tmp/long64.err" && ok || bad "--tile 64: default overlap 3/8 of the tile"
# SAM carries os:i too.
long -f sam --gact --max-deficit 1 | grep -v '^@' | grep -q "	AS:i:[-0-9]*	os:i:$score	" && ok ||
	bad "long pair, SAM: no os:i:$score"
# The reverse complement with --strand both: the same path (it follows the reference), on
# the - strand, query coordinates mirrored onto the read as given.
"$NWALIGN" -q "$tmp/long_read_rc.fa" -r "$tmp/long_ref.fa" -m local -t 1 -f paf --strand both --gact --max-deficit 1 >"$tmp/long_rc.paf"
paste "$tmp/long.paf" "$tmp/long_rc.paf" | awk -F'\t' '{
	n = NF / 2
	ok = $(n + 5) == "-" && $(n + 3) == $2 - $4 && $(n + 4) == $2 - $3
	for (i = 6; i <= n; i++) if ($i != $(n + i)) ok = 0
	exit !ok
}' && ok || bad "long pair, reverse strand: $(cut -f1-5,13-14 "$tmp/long_rc.paf")"
# Without a path the path options change nothing.
"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -t 1 --gact --tile 64 --overlap 8 --max-deficit 0.5 >"$tmp/nopath.tsv"
same "--gact/--tile/--overlap/--max-deficit without a path" "$gold/global.tsv" "$tmp/nopath.tsv"
"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -t 1 --exact >"$tmp/nopath.tsv"
same "--exact without a path" "$gold/global.tsv" "$tmp/nopath.tsv"

# Help and version go to stdout with exit 0; the help names every option group.
"$NWALIGN" --help >"$tmp/help" 2>"$tmp/help.err" && [ ! -s "$tmp/help.err" ] && ok || bad "--help exit/stdout"
for g in Input: Alignment: Scoring: Output: Paths Engine: --gap-open --matrix --pairs --backend --tile --overlap --exact --gact --max-deficit; do
	grep -q -- "$g" "$tmp/help" && ok || bad "--help lacks $g"
done
"$NWALIGN" -V | grep -q '^nwalign [0-9]' && ok || bad "--version"

# -v prints a one-line summary with pairs, cells, GCUPS and the backend.
"$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" -v -t 1 --backend cpu >/dev/null 2>"$tmp/v.err"
grep -q '24 pairs, 24 records written, .* cells, .* s, .* GCUPS, backend cpu' "$tmp/v.err" && ok || { bad "-v summary"; cat "$tmp/v.err" >&2; }
grep -q 'alphabet dna (detected)' "$tmp/v.err" && ok || bad "-v alphabet"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
