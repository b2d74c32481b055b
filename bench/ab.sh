#!/usr/bin/env bash
# bench/ab.sh: whole-command wall times of two nwalign builds on one machine, alternating
# (old, new) for ROUNDS rounds, so that a slower or busier host does not pass for a slower
# build. The commands are those of bench/run.sh A and B (local, and local with paths) and
# one on the tiny bundled data (what remains is start-up).
#
# Usage: bench/ab.sh OLD_NWALIGN NEW_NWALIGN [DATA] [ROUNDS]
#   DATA: folder with mm_query500.fa.gz, mm_db20k.fa.gz, pairs20k_query150.fa.gz and
#         pairs20k_target241.fa.gz [.gpu]; ROUNDS [3]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 1; }
OLD=$1 NEW=$2 DATA=${3:-.gpu} ROUNDS=${4:-3}
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "ab: $b is not an executable" >&2; exit 1; }; done
IN=$(mktemp -d)
trap 'rm -rf "$IN"' EXIT
for ((i = 0; i < 50; i++)); do gzip -cd "$DATA/pairs20k_query150.fa.gz"; done >"$IN/B_q.fa"
for ((i = 0; i < 50; i++)); do gzip -cd "$DATA/pairs20k_target241.fa.gz"; done >"$IN/B_t.fa"
gzip -cd "$DATA/mm_query500.fa.gz" >"$IN/A_q.fa"
gzip -cd "$DATA/mm_db20k.fa.gz" >"$IN/A_db.fa"
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}'; }
for ((r = 1; r <= ROUNDS; r++)); do
	for v in old new; do
		nw=$OLD
		[ $v = new ] && nw=$NEW
		a=$(t "$nw" -q "$IN/A_q.fa" -r "$IN/A_db.fa" -m local --matrix blosum62 --gap-open 10 --gap-extend 1 --top 1 --no-header)
		b=$(t "$nw" -q "$IN/B_q.fa" -r "$IN/B_t.fa" --pairs zip -m local --no-header -o "$IN/B.tsv")
		c=$(t "$nw" -q "$IN/B_q.fa" -r "$IN/B_t.fa" --pairs zip -m local -c --no-header -o "$IN/Bc.tsv")
		g=$(t "$nw" -q data/reads.fq -r data/ref.fa --backend gpu)
		echo "round $r $v: A $a s  B-local $b s  B-cigar $c s  tiny $g s"
	done
done
