#!/bin/bash
# blast6.sh: -f blast6 against the tools it imitates, on real proteins: the first 20
# queries of mm_query50 against mm_db2k (BLOSUM62, gaps 11 + L) when the shared data
# folder is there, else the bundled globins all against all.
#  - refused with one line and exit 1: -m global, DNA input, a gap cost without published
#    statistics (the message lists those with), a matrix file;
#  - the columns (identity, length, mismatches, gap openings, coordinates) are those of
#    the path the same run writes as a CIGAR;
#  - ssearch36 (fasta3, exact Smith-Waterman): each query's best hit (--top 1) has
#    ssearch's best score, is one of its subjects of that score, with ssearch's span;
#    most also with its length, mismatches and identities (paths of equal score may differ
#    by the tie rules); ssearch's own statistics differ, so its E-values are not compared;
#  - blastp (ncbi-blast+, -comp_based_stats 0 -seg no, its best HSP per subject): on every
#    pair where both report the same span, the same E-value and bit score (BLAST is
#    heuristic and finds fewer hits, so only shared spans are compared, and most of the
#    top hits must be among them; a path of equal score may differ); and in zip mode the
#    E-values of a pair alone equal blastp -subject's.
# Skips (77) when neither ssearch36 nor blastp is installed.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

have_ss=$(command -v ssearch36 || true)
have_bl=$(command -v blastp && command -v makeblastdb || true)
if [ -z "$have_ss" ] && [ -z "$have_bl" ]; then
	echo "SKIP: neither ssearch36 (Debian: fasta3) nor blastp (Debian: ncbi-blast+) is installed"
	exit 77
fi

q=$tmp/q.fa
db=$tmp/db.fa
protein_set 20 "$q" "$db"
nq=$(grep -c '^>' "$q")

# ---------------------------------------------------------------- refusals
refused() { # WHAT EXPECTED-TEXT ARGS...
	local what=$1 text=$2
	shift 2
	"$NWALIGN" "$@" -f blast6 >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$text" "$tmp/err" &&
		[ ! -s "$tmp/out" ] && ok || bad "$what: exit $rc, '$(cat "$tmp/err")'"
}
refused "global mode" "needs -m local" -q "$q" -r "$db" -m global
refused "DNA input" "protein matrices only" -q "$data/reads.fq" -r "$data/ref.fa" -m local
refused "gap cost" "published for 11/2, 10/2" -q "$q" -r "$db" -m local --gap-open 5
# a complete protein matrix in a file (5 on the diagonal, -1 elsewhere)
awk 'BEGIN {n = split("A R N D C Q E G H I L K M F P S T W Y V B Z X *", a, " ")
	printf " "; for (j = 1; j <= n; j++) printf "  %s", a[j]; print ""
	for (i = 1; i <= n; i++) {printf "%s", a[i]; for (j = 1; j <= n; j++) printf " %2d", i == j ? 5 : -1; print ""}}' \
	>"$tmp/BLOSUM62.txt"
refused "matrix file" "matrix file" -q "$q" -r "$db" -m local --matrix "$tmp/BLOSUM62.txt"

# ---------------------------------------------------------------- nwalign
"$NWALIGN" -q "$q" -r "$db" -m local -f blast6 --top 1 --backend cpu -t 2 >"$tmp/nw.b6" &&
	ok || bad "nwalign -f blast6 failed"
[ "$(wc -l <"$tmp/nw.b6")" = "$nq" ] && ok || bad "$(wc -l <"$tmp/nw.b6") lines for $nq queries"
# every line has 12 columns; coordinates 1-based inside the sequences
awk -F'\t' 'NF != 12 || $7 < 1 || $7 > $8 || $9 < 1 || $9 > $10 {exit 1}' "$tmp/nw.b6" &&
	ok || bad "malformed blast6 lines"

# the alignment's columns are those of its own path (the TSV's CIGAR of the same run)
"$NWALIGN" -q "$q" -r "$db" -m local --top 1 --backend cpu -t 2 -c --no-header >"$tmp/nwc.tsv" &&
	ok || bad "nwalign -c failed"
awk -F'\t' 'FNR == NR {c = $13; len = mm = id = go = 0; last = ""
	     while (match(c, /^[0-9]+[=XID]/)) {l = substr(c, 1, RLENGTH - 1) + 0; op = substr(c, RLENGTH, 1)
		len += l; mm += op == "X" ? l : 0; id += op == "=" ? l : 0; go += (op == "I" || op == "D"); c = substr(c, RLENGTH + 1)}
	     want[FNR] = sprintf("%.3f %d %d %d %d %d %d %d", len ? 100 * id / len : 0, len, mm, go, $3 + 1, $4, $7 + 1, $8); next}
     {got = $3 " " $4 " " $5 " " $6 " " $7 " " $8 " " $9 " " $10
      if (got != want[FNR]) {print "columns differ from the path: " $0 " | " want[FNR]; bad++}}
     END {exit bad > 0}' "$tmp/nwc.tsv" "$tmp/nw.b6" && ok || bad "blast6 columns disagree with the CIGAR"

# ---------------------------------------------------------------- ssearch36
if [ -n "$have_ss" ]; then
	"$NWALIGN" -q "$q" -r "$db" -m local --top 1 --backend cpu -t 2 --no-header >"$tmp/nw.tsv" &&
		ok || bad "nwalign -f tsv failed"
	ssearch36 -q -z 3 -s BL62 -f -11 -g -1 -b 50 -d 0 -T 2 "$q" "$db" >"$tmp/ss.txt" 2>&1 &&
		ssearch36 -q -m 8 -z 3 -s BL62 -f -11 -g -1 -b 50 -d 0 -T 2 "$q" "$db" >"$tmp/ss.m8" \
		2>>"$tmp/ss.txt" && ok || bad "ssearch36 failed: $(tail -n 2 "$tmp/ss.txt")"
	# ssearch's best Smith-Waterman score per query, from its table of best scores (its
	# ranking is by E-value, which depends on the lengths)
	awk '/>>>/ {sub(/^ *[0-9]+>>>/, ""); q = $1; t = 0; next}
	     /^The best scores are/ {t = 1; next}
	     t && $0 !~ /[(] *[0-9]+[)] +[0-9]+ +[0-9.]+ +[-0-9.e]+$/ {t = 0}
	     t {sw = $(NF - 2); if (!(q in best) || sw > best[q]) best[q] = sw; print q "\t" $1 "\t" sw}' \
		"$tmp/ss.txt" >"$tmp/ss.scores"
	# nwalign's hit: ssearch's best score, a subject of that score, and ssearch's span.
	# Paths of equal score may differ in their gaps (tie rules), so the alignment's own
	# columns (length: ssearch's aligned pairs plus its sixth column, the gap residues;
	# mismatches; identities) are only counted, and must agree on most hits.
	awk -F'\t' 'FILENAME ~ /scores$/ {if (!($1 in best) || $3 > best[$1]) best[$1] = $3; sc[$1 SUBSEP $2] = $3; next}
	     FILENAME ~ /m8$/ {if (!(($1 SUBSEP $2) in aln)) aln[$1 SUBSEP $2] = $0; next}
	     FILENAME ~ /tsv$/ {score[$1] = $10; next}
	     {k = $1 SUBSEP $2; n++
	      if (score[$1] != best[$1] || sc[k] != best[$1] || !(k in aln)) {print "not ssearch36 best: " $0 " score " score[$1] " best " best[$1]; bad++; next}
	      split(aln[k], s, "\t")
	      if (s[7] != $7 || s[8] != $8 || s[9] != $9 || s[10] != $10) {print "span differs from ssearch36: " $0 " | " aln[k]; bad++; next}
	      same += s[5] == $5 && s[4] + s[6] == $4 && int(s[3] * s[4] / 100 + 0.5) == int($3 * $4 / 100 + 0.5)}
	     END {printf "blast6: %d of %d top hits with ssearch36'"'"'s best score and span; %d with its length, mismatches and identities\n", n - bad, n, same
	          exit bad > 0 || same * 10 < n * 6}' \
		"$tmp/ss.scores" "$tmp/ss.m8" "$tmp/nw.tsv" "$tmp/nw.b6" && ok || bad "top hits differ from ssearch36"
else
	echo "note: ssearch36 not installed (Debian: fasta3): not compared"
fi

# ---------------------------------------------------------------- blastp
if [ -n "$have_bl" ]; then
	makeblastdb -in "$db" -dbtype prot -out "$tmp/db" >/dev/null 2>&1 && ok || bad "makeblastdb failed"
	blastp -query "$q" -db "$tmp/db" -comp_based_stats 0 -seg no -gapopen 11 -gapextend 1 \
		-outfmt 6 -max_hsps 1 -max_target_seqs 5 -evalue 1000 >"$tmp/bl.b6" 2>/dev/null &&
		ok || bad "blastp failed"
	# the same span: the same score, so the same E-value and bits; the path itself may be
	# another of equal score (tie rules differ), so the other columns are only counted
	awk -F'\t' 'FNR == NR {line[$1 SUBSEP $2 SUBSEP $7 SUBSEP $8 SUBSEP $9 SUBSEP $10] = $0; next}
	     {k = $1 SUBSEP $2 SUBSEP $7 SUBSEP $8 SUBSEP $9 SUBSEP $10
	      if (!(k in line)) next
	      split(line[k], b, "\t"); shared++; whole += line[k] == $0
	      if (b[11] != $11 || b[12] != $12) {print "E-value or bits differ from blastp: " $0 " | " line[k]; bad++}}
	     END {printf "blast6: %d top hits with blastp'"'"'s span, E-value and bits; %d whole lines equal\n", shared - bad, whole
	          exit bad > 0 || shared * 10 < '"$nq"' * 6}' \
		"$tmp/bl.b6" "$tmp/nw.b6" && ok || bad "E-values differ from blastp, or too few shared spans"
	# zip mode: each query against its hit alone (BLAST's two-sequence E-values)
	head -n 3 "$tmp/nw.b6" | while IFS=$'\t' read -r qn sn rest; do
		awk -v n=">$qn" '/^>/ {p = ($1 == n)} p' "$q" >>"$tmp/zq.fa"
		awk -v n=">$sn" '/^>/ {p = ($1 == n)} p' "$db" >>"$tmp/zr.fa"
	done
	"$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -f blast6 >"$tmp/z.b6" &&
		ok || bad "nwalign zip failed"
	k=0
	while IFS=$'\t' read -r qn sn rest; do
		k=$((k + 1))
		awk -v n=">$qn" '/^>/ {p = ($1 == n)} p' "$q" >"$tmp/one_q.fa"
		awk -v n=">$sn" '/^>/ {p = ($1 == n)} p' "$db" >"$tmp/one_r.fa"
		want=$(blastp -query "$tmp/one_q.fa" -subject "$tmp/one_r.fa" -comp_based_stats 0 -seg no \
			-gapopen 11 -gapextend 1 -outfmt 6 -max_hsps 1 2>/dev/null | cut -f 11,12)
		got=$(sed -n "${k}p" "$tmp/z.b6" | cut -f 11,12)
		[ "$got" = "$want" ] && ok || bad "zip pair $k: E-value and bits '$got', blastp -subject '$want'"
	done <"$tmp/z.b6"
else
	echo "note: blastp not installed (Debian: ncbi-blast+): not compared"
fi

echo "blast6: $pass passed, $fail failed"
[ "$fail" = 0 ]
