#!/usr/bin/env bash
# bench/gact_accuracy.sh: how far GACT paths fall from the optimum, for several tile sizes T
# and overlaps O, on the CPU engine (no GPU needed).
#
#   sim   reads simulated by tests/simreads from E. coli DH10B (seed 1; error rates 5-15%:
#         1/2 substitutions, 1/4 insertions, 1/4 deletions; both strands), each against its
#         window (the origin plus 5% on each side): --pairs zip -m semiglobal --strand both
#   real  dna/lambda_longreads_500.fq.gz against dna/lambda.fa (every read against the one
#         reference): -m local --strand both
#
# For every T/O and set: nwalign --backend cpu -f paf --gact --max-deficit 1 --tile T --overlap O -t THREADS, once,
# timed (wall seconds of the whole command). In the PAF, AS:i is the score of the path and
# GACT paths also carry os:i, the optimal score from the score engine; a record without
# os:i has an exact path (the span was small enough for a full matrix) and counts as
# optimal. The table: records, how many took a GACT path (carry os:i), the fraction with
# AS == os, the mean relative deficit (os - AS) / os over all records (os <= 0: over 1) and
# the worst, and the seconds.
#
# Default size: the simulated set of 200 reads of 5-50 kb takes about 20 minutes for each
# T/O on a 2-core machine (about 2e11 cells; the CPU engine scores and traces such long
# semiglobal pairs, both strands, at some 0.1-0.2 GCUPS there), two hours for the whole
# list. The defaults are therefore smaller: 40 reads of 5-15 kb (about 5e9 cells), 20-35 s
# per T/O for the simulated set and 13 s for the real one on 2 cores, under 4 minutes in
# all. The full set is `-n 200 -L 50000`: with -b gpu on an H200 the whole list takes
# under 2 minutes.
#
# The real reads are short (40-2136 bases, 337 on average): their spans fit the full
# matrix (NW_PATH_FULL_CELLS in src/path.h), so this set runs with the environment's
# NW_PATH_FULL_CELLS=0, which sends every span to GACT (a read shorter than the tile is
# one tile, traced from its far corner).
#
# Usage: bench/gact_accuracy.sh [-d DATA] [-t THREADS] [-n NREADS] [-l MINLEN] [-L MAXLEN]
#                               [-p "T/O ..."] [-w SETS] [-b BACKEND] [-o OUTDIR]
#   -d DIR   the shared data folder, with dna/ecoli_dh10b.fa.gz, dna/lambda.fa and
#            dna/lambda_longreads_500.fq.gz [../shared/data]
#   -t INT   nwalign threads [nproc]
#   -n INT   simulated reads [40]
#   -l INT   shortest simulated read origin [5000]
#   -L INT   longest simulated read origin [15000]
#   -p STR   T/O pairs [128/48 192/64 256/96 320/120 384/128 512/160]
#   -w STR   sets, any of sim,real [sim,real]
#   -b STR   nwalign --backend [cpu]
#   -o DIR   where inputs, PAF files and the table go [bench/out/gact]
# Environment: NWALIGN [./nwalign], SIMREADS [tests/simreads].
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=../shared/data
THREADS=$(nproc)
NREADS=40
MINLEN=5000
MAXLEN=15000
PAIRS="128/48 192/64 256/96 320/120 384/128 512/160"
SETS=sim,real
BACKEND=cpu
OUTDIR=bench/out/gact
NW=${NWALIGN:-./nwalign}
SIMREADS=${SIMREADS:-tests/simreads}

die() { echo "gact_accuracy: $*" >&2; exit 1; }
posint() { case $2 in '' | *[!0-9]* | 0*) die "$1 must be a positive integer, not '$2'" ;; esac; }

while getopts "d:t:n:l:L:p:w:b:o:h" opt; do
	case $opt in
	d) DATA=$OPTARG ;;
	t) THREADS=$OPTARG ;;
	n) NREADS=$OPTARG ;;
	l) MINLEN=$OPTARG ;;
	L) MAXLEN=$OPTARG ;;
	p) PAIRS=$OPTARG ;;
	w) SETS=$OPTARG ;;
	b) BACKEND=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option (try -h)" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || die "unexpected argument '$1' (try -h)"
posint -t "$THREADS"
posint -n "$NREADS"
posint -l "$MINLEN"
posint -L "$MAXLEN"
[ "$MINLEN" -le "$MAXLEN" ] || die "-l must not exceed -L"
for to in $PAIRS; do
	case $to in
	[1-9]*/[0-9]*) case ${to%/*}${to#*/} in *[!0-9]*) die "-p: '$to' is not T/O" ;; esac ;;
	*) die "-p: '$to' is not T/O" ;;
	esac
done
[ -n "$PAIRS" ] || die "-p: no T/O pairs"
DO_SIM=0 DO_REAL=0
IFS=, read -r -a set_list <<<"$SETS"
for s in "${set_list[@]}"; do
	case $s in
	sim) DO_SIM=1 ;;
	real) DO_REAL=1 ;;
	*) die "-w: unknown set '$s' (sim, real)" ;;
	esac
done

[ -x "$NW" ] || die "$NW is not built: run ./configure && make first"
GENOME=$DATA/dna/ecoli_dh10b.fa.gz
LAMBDA_Q=$DATA/dna/lambda_longreads_500.fq.gz
LAMBDA_R=$DATA/dna/lambda.fa
if [ "$DO_SIM" = 1 ]; then
	[ -x "$SIMREADS" ] || die "$SIMREADS is not built: run 'make tests/simreads' (or make check) first"
	[ -r "$GENOME" ] || die "cannot read $GENOME (use -d DIR)"
fi
if [ "$DO_REAL" = 1 ]; then
	for f in "$LAMBDA_Q" "$LAMBDA_R"; do [ -r "$f" ] || die "cannot read $f (use -d DIR)"; done
fi

mkdir -p "$OUTDIR"
TABLE=$OUTDIR/table.txt

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }

# paf_accuracy FILE: "records gact_paths optimal optimal_frac mean_deficit worst_deficit
# above" from AS:i and os:i (above: records whose path scores more than os, a bug)
paf_accuracy() {
	awk -F'\t' '
		{
			as = ""; os = ""
			for (i = 13; i <= NF; i++) {
				if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
				else if ($i ~ /^os:i:/) os = substr($i, 6) + 0
			}
			if (as == "") { printf "record %d has no AS:i\n", NR > "/dev/stderr"; exit 2 }
			n++
			if (os == "") { opt++; next }
			g++
			if (as == os) { opt++; next }
			if (as > os) { above++; next }
			d = (os - as) / (os > 0 ? os : 1)
			sum += d
			if (d > worst) worst = d
		}
		END {
			if (n == 0) exit 3
			printf "%d %d %d %.4f %.6f %.6f %d\n", n, g, opt, opt / n, sum / n, worst, above
		}' "$1"
}

SIM_R=$OUTDIR/sim_reads.fa
SIM_W=$OUTDIR/sim_windows.fa
if [ "$DO_SIM" = 1 ]; then
	"$SIMREADS" -g "$GENOME" -n "$NREADS" -l "$MINLEN" -L "$MAXLEN" -e 0.05 -E 0.15 -w 0.05 -s 1 \
		-r "$SIM_R" -t "$SIM_W" || die "tests/simreads failed"
fi

FMT='%5s %5s %-5s %6s %6s %12s %12s %13s %9s\n'
# shellcheck disable=SC2059
printf "$FMT" T O set reads gact optimal_frac mean_deficit worst_deficit seconds | tee "$TABLE"
ABOVE=0
# one SET T O ARGS...: one timed run, one table line
one() {
	local set=$1 T=$2 O=$3 t0 t1 secs out
	shift 3
	out=$OUTDIR/$set-T$T-O$O.paf
	t0=$(now)
	if ! "$NW" --backend "$BACKEND" -t "$THREADS" -f paf --gact --max-deficit 1 --tile "$T" --overlap "$O" -v "$@" \
		>"$out" 2>"$OUTDIR/$set-T$T-O$O.log"; then
		tail -n 3 "$OUTDIR/$set-T$T-O$O.log" >&2
		die "$set T=$T O=$O: nwalign failed (log: $OUTDIR/$set-T$T-O$O.log)"
	fi
	t1=$(now)
	secs=$(elapsed "$t0" "$t1")
	local n g opt frac mean worst above
	read -r n g opt frac mean worst above < <(paf_accuracy "$out") || die "cannot read AS:i/os:i from $out"
	[ "$above" -eq 0 ] || { echo "gact_accuracy: WARNING: $set T=$T O=$O: $above records score above os:i" >&2; ABOVE=$((ABOVE + above)); }
	# shellcheck disable=SC2059
	printf "$FMT" "$T" "$O" "$set" "$n" "$g" "$frac" "$mean" "$worst" "$secs" | tee -a "$TABLE"
}

for to in $PAIRS; do
	T=${to%/*} O=${to#*/}
	[ "$DO_SIM" = 0 ] || one sim "$T" "$O" -q "$SIM_R" -r "$SIM_W" --pairs zip -m semiglobal --strand both
	[ "$DO_REAL" = 0 ] || NW_PATH_FULL_CELLS=0 one real "$T" "$O" -q "$LAMBDA_Q" -r "$LAMBDA_R" -m local --strand both
done

echo
echo "nwalign --backend $BACKEND -t $THREADS; sim: $NREADS reads of $MINLEN-$MAXLEN bases (seed 1) against their windows, semiglobal, both strands; real: lambda_longreads_500 x lambda, local, both strands, every span GACT (NW_PATH_FULL_CELLS=0)"
echo "gact = records with a GACT path (os:i); deficit = (os - AS) / os; files in $OUTDIR"
[ "$ABOVE" -eq 0 ] || die "$ABOVE records score above their os:i (see the warnings)"
