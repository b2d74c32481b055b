#!/usr/bin/env bash
# bench/longreads.sh: workload E of bench/RESULTS.md, long reads against their reference
# windows on the GPU, with paths; run on a machine with an NVIDIA GPU after
# `./configure && make && make tests/simreads` (nwalign built with CUDA).
#
#   E  10,000 reads of exactly 10 kb simulated from E. coli DH10B by tests/simreads (seed 1;
#      error rates uniform in 5-15%: 1/2 substitutions, 1/4 insertions, 1/4 deletions; both
#      strands), each against its 11 kb window (the origin plus 5% on each side):
#        nwalign -q reads -r windows --pairs zip -m semiglobal --strand both -f paf -v \
#                --backend gpu --gact --max-deficit 1   (E-gact: every GACT path kept)
#        ... the same without --gact     (E-exact: pruned Myers-Miller paths, the default)
#      default scoring: match 2, mismatch 4, gap open 4, extend 2.
#
# Every nwalign command runs RUNS times; the median wall time of the whole command (reading
# FASTA, aligning, writing PAF) gives reads/s. stdout goes to OUTDIR/E-*.paf and stderr (the
# -v lines) to OUTDIR/E-*.log.
#
# Accuracy of the GACT paths, from E-gact.paf: every record carries AS:i (the path's score)
# and GACT paths also os:i (the optimal score, from the score engine); a record without
# os:i has an exact path and counts as optimal. optimal_frac = records with AS == os over
# all records; deficit = (os - AS) / os (os <= 0: over 1), mean over all records and worst.
# The script also checks that os:i of E-gact equals AS:i of E-exact record by record.
#
# parasail beside it, when parasail_aligner is on PATH: the first SAMPLE pairs (200), with
# the traceback function PARASAIL_FUNC (sg_dx_trace_striped_32: semiglobal, reference ends
# free, the query end to end, as -m semiglobal here), -d -M 2 -X 4 -o 6 -e 2 (parasail
# charges its open for the first gap position: 6 = 4 + 2) and -O SSW (the output that
# carries the score). parasail_aligner aligns every query with every database sequence and
# has no mode for pairs, so each pair is one process: the read and its reverse complement
# (as --strand both) against the window, -t 1, THREADS processes at a time (16). Its
# pairs/s is SAMPLE over the wall time of all of them; the script counts the pairs whose
# best score equals AS:i of E-exact. Without parasail_aligner or the function, the report
# says "parasail: skipped (reason)" and has no parasail result line.
#
# Usage: bench/longreads.sh [-d DATA] [-n RUNS] [-o OUTDIR] [-c READS] [-s SAMPLE]
#                           [-t THREADS] [-b BACKEND]
#   -d DIR  folder with ecoli_dh10b.fa.gz (or DIR/dna/) [.gpu, as staged by
#           ../shared/device/stage.sh, else ../shared/data/dna]
#   -n INT  runs per nwalign command [3]
#   -o DIR  where inputs, outputs, logs and the report go [bench/out/longreads]
#   -c INT  reads [10000]; fewer for a quick try
#   -s INT  pairs given to parasail_aligner [200]
#   -t INT  parasail_aligner processes at a time [16]
#   -b STR  nwalign --backend [gpu]; cpu only to try the script on a machine without a GPU
# The report (a RESULTS.md section ending in `result` lines) is written to OUTDIR/report.md
# and printed. Environment: COMMIT=HASH names the commit where the tree has no .git;
# NWALIGN [./nwalign], SIMREADS [tests/simreads], PARASAIL_ALIGNER [parasail_aligner],
# PARASAIL_FUNC [sg_dx_trace_striped_32].
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=
RUNS=3
OUTDIR=bench/out/longreads
NREADS=10000
SAMPLE=200
PTHREADS=16
BACKEND=gpu
NW=${NWALIGN:-./nwalign}
SIMREADS=${SIMREADS:-tests/simreads}
PARASAIL_ALIGNER=${PARASAIL_ALIGNER:-parasail_aligner}
PARASAIL_FUNC=${PARASAIL_FUNC:-sg_dx_trace_striped_32}

die() { echo "longreads: $*" >&2; exit 1; }
posint() { case $2 in '' | *[!0-9]* | 0*) die "$1 must be a positive integer, not '$2'" ;; esac; }

while getopts "d:n:o:c:s:t:b:h" opt; do
	case $opt in
	d) DATA=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	c) NREADS=$OPTARG ;;
	s) SAMPLE=$OPTARG ;;
	t) PTHREADS=$OPTARG ;;
	b) BACKEND=$OPTARG ;;
	h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option (try -h)" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || die "unexpected argument '$1' (try -h)"
posint -n "$RUNS"
posint -c "$NREADS"
posint -s "$SAMPLE"
posint -t "$PTHREADS"
[ "$SAMPLE" -le "$NREADS" ] || SAMPLE=$NREADS

GENOME=
if [ -n "$DATA" ]; then DIRS=("$DATA" "$DATA/dna"); else DIRS=(.gpu ../shared/data/dna); fi
for d in "${DIRS[@]}"; do
	if [ -r "$d/ecoli_dh10b.fa.gz" ]; then
		GENOME=$d/ecoli_dh10b.fa.gz
		break
	fi
done
[ -n "$GENOME" ] || die "ecoli_dh10b.fa.gz not found in ${DATA:-.gpu or ../shared/data/dna} (use -d DIR)"
[ -x "$SIMREADS" ] || die "$SIMREADS is not built: run 'make tests/simreads' (or make check) first"
[ -x "$NW" ] || die "$NW is not built: run ./configure && make first"

mkdir -p "$OUTDIR"
IN=$OUTDIR/inputs
mkdir -p "$IN"
REPORT=$OUTDIR/report.md
TABLE=$OUTDIR/table.txt
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
GPU=${GPU:-unknown}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}

now() { date +%s.%N; }
# the reverse complement of each line (rev is util-linux/bsdextrautils; perl-base otherwise)
revcomp() { if command -v rev >/dev/null 2>&1; then rev | tr ACGT TGCA; else perl -pe 'chomp; $_ = reverse($_) . "\n"; tr/ACGT/TGCA/'; fi; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b - a}'; }
median() { sort -g | awk '{v[NR] = $1} END {printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.1f", (t > 0 ? n / t : 0)}'; }

# ---------------------------------------------------------------- inputs
READS=$IN/E_reads.fa
WINDOWS=$IN/E_windows.fa
SIM_CMD=("$SIMREADS" -g "$GENOME" -n "$NREADS" -l 10000 -L 10000 -e 0.05 -E 0.15 -w 0.05 -s 1
	-r "$READS" -t "$WINDOWS")
echo "inputs: ${SIM_CMD[*]}" >&2
"${SIM_CMD[@]}" || die "tests/simreads failed"

# ---------------------------------------------------------------- nwalign
# run_nw NAME ARGS...: RUNS runs; stdout to NAME.paf, stderr appended to NAME.log; the
# median wall time goes to WALL[NAME]
declare -A WALL VLINE
NW_ARGS=(-q "$READS" -r "$WINDOWS" --pairs zip -m semiglobal --strand both -f paf -v --backend "$BACKEND")
run_nw() {
	local name=$1 i t0 t1 walls=()
	shift
	: >"$OUTDIR/$name.log"
	for ((i = 1; i <= RUNS; i++)); do
		echo "== run $i: $NW ${NW_ARGS[*]} $*" >>"$OUTDIR/$name.log"
		t0=$(now)
		if ! "$NW" "${NW_ARGS[@]}" "$@" >"$OUTDIR/$name.paf" 2>>"$OUTDIR/$name.log"; then
			tail -n 5 "$OUTDIR/$name.log" >&2
			die "$name: nwalign failed (log: $OUTDIR/$name.log)"
		fi
		t1=$(now)
		walls+=("$(elapsed "$t0" "$t1")")
	done
	WALL[$name]=$(printf '%s\n' "${walls[@]}" | median)
	VLINE[$name]=$(grep '^nwalign: .* pairs' "$OUTDIR/$name.log" | tail -n 1 || true)
	echo "$name: wall ${walls[*]} s" >&2
	local recs
	recs=$(grep -c . "$OUTDIR/$name.paf" || true)
	[ "$recs" -eq "$NREADS" ] || die "$name: $recs PAF records for $NREADS pairs"
}

run_nw E-gact --gact --max-deficit 1
run_nw E-exact

# paf_accuracy FILE: "records gact_paths optimal optimal_frac mean_deficit worst_deficit
# above", from AS:i and os:i (above: records whose path scores more than os, a bug)
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

# the optimum per record: os:i where present, else AS:i
optimum() { awk -F'\t' '{o = ""; for (i = 13; i <= NF; i++) if ($i ~ /^AS:i:/ && o == "") o = substr($i, 6); else if ($i ~ /^os:i:/) o = substr($i, 6); print o}' "$1"; }

read -r N_REC N_GACT N_OPT OPT_FRAC MEAN_DEF WORST_DEF N_ABOVE < <(paf_accuracy "$OUTDIR/E-gact.paf") ||
	die "cannot read AS:i/os:i from $OUTDIR/E-gact.paf"
[ "$N_ABOVE" -eq 0 ] || echo "longreads: WARNING: $N_ABOVE GACT records score above their os:i" >&2
AGREE=$(paste <(optimum "$OUTDIR/E-gact.paf") <(optimum "$OUTDIR/E-exact.paf") | awk '$1 == $2 {k++} END {printf "%d/%d", k, NR}')

GACT_RPS=$(rate "$NREADS" "${WALL[E-gact]}")
EXACT_RPS=$(rate "$NREADS" "${WALL[E-exact]}")

# ---------------------------------------------------------------- parasail
PARASAIL_NOTE=
PARASAIL_RESULT=
PA_WALL=NA PA_PPS=NA PA_RATIO=NA PA_EQUAL=NA
parasail_skip() { PARASAIL_NOTE="parasail: skipped ($*)"; echo "$PARASAIL_NOTE" >&2; }
if ! command -v "$PARASAIL_ALIGNER" >/dev/null 2>&1; then
	parasail_skip "$PARASAIL_ALIGNER not on PATH; Debian package parasail, or . .gpu/gpu-env.sh"
else
	P=$IN/parasail
	rm -rf "$P"
	mkdir -p "$P"
	# one line per pair: read name, read, window name, window
	paste <(awk -v s="$SAMPLE" '/^>/ {if (n) print n "\t" q; if (++k > s) exit; n = substr($0, 2); q = ""; next} {q = q $0} END {if (n && k <= s) print n "\t" q}' "$READS") \
		<(awk -v s="$SAMPLE" '/^>/ {if (n) print n "\t" q; if (++k > s) exit; n = substr($0, 2); q = ""; next} {q = q $0} END {if (n && k <= s) print n "\t" q}' "$WINDOWS") |
		{
			i=0
			while IFS=$'\t' read -r rn rs wn ws; do
				i=$((i + 1))
				printf '>%s\n%s\n>%s_rc\n%s\n' "$rn" "$rs" "$rn" "$(printf '%s\n' "$rs" | revcomp)" >"$P/q$i.fa"
				printf '>%s\n%s\n' "$wn" "$ws" >"$P/w$i.fa"
			done
		}
	PA_ARGS=(-x -a "$PARASAIL_FUNC" -d -M 2 -X 4 -o 6 -e 2 -t 1 -O SSW)
	if ! "$PARASAIL_ALIGNER" "${PA_ARGS[@]}" -f "$P/w1.fa" -q "$P/q1.fa" -g "$P/probe.ssw" >"$P/probe.err" 2>&1 0<&-; then
		parasail_skip "$PARASAIL_ALIGNER -a $PARASAIL_FUNC fails: $(grep -v '^$' "$P/probe.err" | head -n 1)"
	else
		t0=$(now)
		seq 1 "$SAMPLE" | xargs -P "$PTHREADS" -I{} sh -c 'exec "$@" 0<&-' sh \
			"$PARASAIL_ALIGNER" "${PA_ARGS[@]}" -f "$P/w{}.fa" -q "$P/q{}.fa" -g "$P/o{}.ssw" \
			>"$OUTDIR/E-parasail.log" 2>&1 || die "parasail_aligner failed (log: $OUTDIR/E-parasail.log)"
		t1=$(now)
		PA_WALL=$(elapsed "$t0" "$t1")
		# the best of the two strands per pair, against AS:i of E-exact
		for ((i = 1; i <= SAMPLE; i++)); do
			sed -n 's/^optimal_alignment_score: *\([-0-9]*\).*/\1/p' "$P/o$i.ssw" | sort -g | tail -n 1
		done >"$P/scores.txt"
		PA_EQUAL=$(paste "$P/scores.txt" <(optimum "$OUTDIR/E-exact.paf" | head -n "$SAMPLE") |
			awk '$1 != "" && $1 == $2 {k++} END {printf "%d/%d", k, NR}')
		PA_PPS=$(rate "$SAMPLE" "$PA_WALL")
		PA_RATIO=$(awk -v a="$GACT_RPS" -v b="$PA_PPS" 'BEGIN {printf "%.1f", (b > 0 ? a / b : 0)}')
		PARASAIL_NOTE="parasail: $PARASAIL_FUNC on the first $SAMPLE pairs, both strands, $PTHREADS processes of -t 1: $PA_WALL s, $PA_PPS pairs/s; E-gact is ${PA_RATIO}x that; best scores equal to E-exact: $PA_EQUAL"
		PARASAIL_RESULT="result E-parasail pairs_per_s=$PA_PPS threads=$PTHREADS func=$PARASAIL_FUNC pairs=$SAMPLE gact_ratio=$PA_RATIO scores_equal=$PA_EQUAL commit=$COMMIT"
		echo "$PARASAIL_NOTE" >&2
	fi
fi

# ---------------------------------------------------------------- report
{
	printf '%-9s %-9s %7s %9s %10s %12s %12s %13s\n' workload tool pairs wall_s reads_per_s optimal_frac mean_deficit worst_deficit
	printf '%-9s %-9s %7s %9s %10s %12s %12s %13s\n' E-gact nwalign "$NREADS" "${WALL[E-gact]}" "$GACT_RPS" "$OPT_FRAC" "$MEAN_DEF" "$WORST_DEF"
	printf '%-9s %-9s %7s %9s %10s %12s %12s %13s\n' E-exact nwalign "$NREADS" "${WALL[E-exact]}" "$EXACT_RPS" - - -
	if [ "$PA_PPS" != NA ]; then
		printf '%-9s %-9s %7s %9s %10s %12s %12s %13s\n' E-sample parasail "$SAMPLE" "$PA_WALL" "$PA_PPS" - - -
	fi
} >"$TABLE"
RESULTS=("result E-gact reads_per_s=$GACT_RPS optimal_frac=$OPT_FRAC mean_deficit=$MEAN_DEF worst_deficit=$WORST_DEF gpu=\"$GPU\" commit=$COMMIT"
	"result E-exact reads_per_s=$EXACT_RPS commit=$COMMIT")
[ -z "$PARASAIL_RESULT" ] || RESULTS+=("$PARASAIL_RESULT")
{
	echo "## $(date -u '+%Y-%m-%d %H:%M') UTC, workload E (long reads, paths), commit $COMMIT"
	echo
	echo "- GPU: $GPU; host: $(nproc) CPUs ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1))"
	echo "- inputs: \`${SIM_CMD[*]}\`"
	echo "- nwalign: \`$NW ${NW_ARGS[*]}\` (E-exact, the default) and the same with \`--gact --max-deficit 1\` (E-gact);"
	echo "  median wall time of $RUNS runs of the whole command; reads/s = $NREADS / wall"
	echo "- E-gact \`-v\`: \`${VLINE[E-gact]}\`"
	echo "- E-exact \`-v\`: \`${VLINE[E-exact]}\`"
	echo "- GACT accuracy: $N_OPT of $N_REC records optimal (AS = os; $N_GACT records carry os:i);"
	echo "  mean and worst deficit $MEAN_DEF, $WORST_DEF; os:i of E-gact equals AS:i of E-exact in $AGREE records"
	[ "$N_ABOVE" -eq 0 ] || echo "- WARNING: $N_ABOVE E-gact records score above their os:i"
	echo "- $PARASAIL_NOTE"
	echo "- command: bench/longreads.sh -n $RUNS -c $NREADS -s $SAMPLE -t $PTHREADS -b $BACKEND"
	echo
	echo '```'
	cat "$TABLE"
	echo '```'
	echo
	printf '%s\n' "${RESULTS[@]}"
} >"$REPORT"
cat "$REPORT"
