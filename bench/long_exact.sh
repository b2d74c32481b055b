#!/usr/bin/env bash
# bench/long_exact.sh: long exact paths on the GPU, beside WFA-GPU; run on a machine with an
# NVIDIA GPU after `./configure && make && make tests/simreads` (nwalign built with CUDA).
#
#   L-lo, L-mid, L-hi  2,000 global pairs of 10 kb: segments of E. coli DH10B simulated by
#      tests/simreads (seed 1; forward strand; error rates uniform in 1-3%, 3-6% and 5-15%:
#      1/2 substitutions, 1/4 insertions, 1/4 deletions), each against its origin (flank 0):
#        simreads -n 2000 -l 10000 -L 10000 -e 0.01 -E 0.03 -w 0 -S + -s 1   (L-lo)
#      scoring --match 0 --mismatch 4 --gap-open 6 --gap-extend 2 (WFA's 4,6,2), and
#        nwalign -q reads -r windows --pairs zip -m global <scoring> -v --backend gpu
#          -f tsv        score only (L-*-score)
#          -f paf        default paths, exact (L-*-exact)
#          -f paf --gact GACT paths, default tile and --max-deficit (a path more than 1%
#                        below the optimum is recomputed exactly) (L-*-gact)
#   E  10,000 reads of 10 kb, 5-15% errors, both strands, against their 11 kb windows, as
#      workload E of bench/longreads.sh (simreads -l 10000 -L 10000 -e 0.05 -E 0.15
#      -w 0.05 -s 1): nwalign ... --pairs zip -m semiglobal --strand both -f paf, default
#      scoring (match 2, mismatch 4, gap open 4, extend 2), default (exact) paths
#   E-SV  as E, and every read carries one structural change of 200-2,000 bases (deletion,
#      insertion, duplication or inversion; simreads -v 200 -V 2000), against windows
#      with 25% flanks (-w 0.25) so that the read fits
# E and E-SV also run score only (-f tsv) on the same pairs.
#
# Every command runs RUNS times; the figure is the median wall time of the whole command
# (reading FASTA, aligning, writing), measured by /usr/bin/time -f %e,%M where present
# (also the peak RSS, the largest of the runs) and by bash's time otherwise. nwalign's
# stdout goes to OUTDIR/NAME.{tsv,paf}, its stderr (the -v lines) to OUTDIR/NAME.log.
#
# Checks, from the PAF tags: AS:i is the path's score; --gact paths also carry os:i, the
# optimum from the score engine. optimal_frac = records without os:i or with AS == os, over
# all records: every default path must be optimal (1.0000). Each record's AS:i (default
# paths) and os:i (GACT paths; AS:i where absent) must equal the score of the score-only
# run (TSV column 10) on the same pair; the report gives the count.
#
# WFA-GPU beside L, when the environment variable WFAGPU names its aligner binary (the
# `aligner` target of its Makefile builds bin/wfa.affine.gpu). Its FASTA input path
# crashes, so it gets a .seq file: per pair a line `>` + the read and a line `<` + the
# window. Command: $WFAGPU -i L.seq $WFAGPU_ARGS -o OUT, WFAGPU_ARGS by default
# "-g 4,6,2 -x -b 500 -t 512 -e 9000" (mismatch 4, gap 6 + 2L, match 0; -x: with CIGAR;
# 500 pairs a batch, 512 threads a block; -e: the largest number of wavefront steps the
# kernel can take, pairs beyond it are aligned on the CPU by WFA2). The first column of
# its output is minus the gap-affine distance, which equals nwalign's score under this
# scoring: the report counts the pairs where they agree, of all and of those made of ACGT
# alone (E. coli DH10B has one Y and one R: nwalign scores them as mismatches, even Y
# against Y, while WFA-GPU packs every character into 2 bits).
# speedup = WFA-GPU's wall time / nwalign's with default paths. -e sizes WFA-GPU's buffers
# and work (in steps: under 4,6,2 every penalty is even, so a pair of distance D takes
# about D/2 steps); WFAGPU_E=auto gives each workload -e = half the largest distance that
# nwalign's score-only run found, plus 32, and WFAGPU_E=N gives -e N.
#
# The floor (with -b gpu): bench/cuda_open.c (a process that opens the GPU and exits),
# built with nvcc when it is on PATH (CUDA_OPEN names a built one instead), and nwalign on
# the 8 bundled reads with --backend gpu, each timed RUNS times: what every command that
# uses the GPU pays on this host, whatever it aligns (the report's last table; a peer
# pays it too).
#
# Usage: bench/long_exact.sh [-d DATA] [-n RUNS] [-o OUTDIR] [-c PAIRS] [-b BACKEND]
#                            [-w WORKLOADS]
#   -d DIR  folder with ecoli_dh10b.fa.gz (or DIR/dna/) [.gpu, as staged by
#           ../shared/device/stage.sh, else ../shared/data/dna]
#   -n INT  runs per command [3]
#   -o DIR  where inputs, outputs, logs and the report go [bench/out/long_exact]
#   -c INT  at most INT pairs per workload (L: 2,000, E and E-SV: 10,000); for a quick try
#   -b STR  nwalign --backend [gpu]; cpu only to try the script on a machine without a GPU
#   -w STR  workloads, comma-separated, of L-lo,L-mid,L-hi,E,E-SV; L = the three L-*
#           [L-lo,L-mid,L-hi,E,E-SV]
# Inputs are kept in OUTDIR/inputs and made again only when missing (or when the command
# that made them changed). The report (a RESULTS.md section ending in `result` lines) is
# written to OUTDIR/report.md and printed.
# Environment: COMMIT=HASH names the commit where the tree has no .git; NWALIGN
# [./nwalign], SIMREADS [tests/simreads], WFAGPU [unset: no peer], WFAGPU_ARGS (above),
# WFAGPU_E [unset: -e as in WFAGPU_ARGS; auto; or a number],
# NW_GACT_OPT [--gact; empty: no GACT runs], SIM_STRAND_OPT [-S +], SIM_SV_OPT
# [-v 200 -V 2000] (the last three for builds that lack those options).
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=
RUNS=3
OUTDIR=bench/out/long_exact
CAP=
BACKEND=gpu
WORKLOADS=L-lo,L-mid,L-hi,E,E-SV
NW=${NWALIGN:-./nwalign}
SIMREADS=${SIMREADS:-tests/simreads}
WFAGPU=${WFAGPU:-}
WFAGPU_ARGS=${WFAGPU_ARGS:--g 4,6,2 -x -b 500 -t 512 -e 9000}
WFAGPU_E=${WFAGPU_E:-}
NW_GACT_OPT=${NW_GACT_OPT---gact}
SIM_STRAND_OPT=${SIM_STRAND_OPT--S +}
SIM_SV_OPT=${SIM_SV_OPT--v 200 -V 2000}

die() { echo "long_exact: $*" >&2; exit 1; }
note() { echo "long_exact: $*" >&2; }
posint() { case $2 in '' | *[!0-9]* | 0*) die "$1 must be a positive integer, not '$2'" ;; esac; }

while getopts "d:n:o:c:b:w:h" opt; do
	case $opt in
	d) DATA=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	c) CAP=$OPTARG ;;
	b) BACKEND=$OPTARG ;;
	w) WORKLOADS=$OPTARG ;;
	h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option (try -h)" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || die "unexpected argument '$1' (try -h)"
posint -n "$RUNS"
[ -z "$CAP" ] || posint -c "$CAP"
[ -z "$WFAGPU_E" ] || [ "$WFAGPU_E" = auto ] || posint WFAGPU_E "$WFAGPU_E"

# the workloads, in a fixed order
declare -A WANT
IFS=, read -r -a WLIST <<<"$WORKLOADS"
for w in "${WLIST[@]}"; do
	case $w in
	L) WANT[L-lo]=1 WANT[L-mid]=1 WANT[L-hi]=1 ;;
	L-lo | L-mid | L-hi | E | E-SV) WANT[$w]=1 ;;
	all) WANT[L-lo]=1 WANT[L-mid]=1 WANT[L-hi]=1 WANT[E]=1 WANT[E-SV]=1 ;;
	'') ;;
	*) die "unknown workload '$w' (L-lo, L-mid, L-hi, E, E-SV, L)" ;;
	esac
done
ORDER=()
for w in L-lo L-mid L-hi E E-SV; do [ -z "${WANT[$w]:-}" ] || ORDER+=("$w"); done
[ ${#ORDER[@]} -gt 0 ] || die "no workload given (-w)"

# pairs per workload: its own count, or -c where smaller
count() { if [ -n "$CAP" ] && [ "$CAP" -lt "$1" ]; then echo "$CAP"; else echo "$1"; fi; }

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
if [ -n "$WFAGPU" ]; then
	[ -x "$WFAGPU" ] || die "WFAGPU=$WFAGPU is not an executable file"
fi

mkdir -p "$OUTDIR"
IN=$OUTDIR/inputs
mkdir -p "$IN"
REPORT=$OUTDIR/report.md
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
GPU=${GPU:-unknown}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
DIRTY=
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null || true)" ]; then
	DIRTY=" (working tree has uncommitted changes)"
fi

median() { sort -g | awk '{v[NR] = $1} END {printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.1f", (t > 0 ? n / t : 0)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "NA" || b == "NA" || b <= 0) print "NA"; else printf "%.2f", a / b}'; }
# a command line for the report, arguments quoted where the shell needs it
quote() {
	local a out=
	for a in "$@"; do
		case $a in
		'' | *[!A-Za-z0-9_./,:=+-]*) out="$out $(printf '%q' "$a")" ;;
		*) out="$out $a" ;;
		esac
	done
	echo "${out# }"
}
# name TAB sequence, one line per FASTA record (simreads wraps lines)
fasta_lines() { awk '/^>/ {if (n != "") print n "\t" s; n = substr($1, 2); s = ""; next} {s = s $0} END {if (n != "") print n "\t" s}' "$1"; }

# GNU time gives the wall time and the peak RSS; bash's time the wall time only
GTIME=
if [ -x /usr/bin/time ] && /usr/bin/time -f '%e,%M' -o /dev/null true 2>/dev/null; then GTIME=/usr/bin/time; fi

# ---------------------------------------------------------------- inputs
# simulate NAME ARGS...: IN/NAME.reads.fa and IN/NAME.windows.fa from tests/simreads, kept
# while IN/NAME.cmd holds the same arguments
declare -A READS WINDOWS SIMCMD
simulate() {
	local name=$1 base=$IN/$1
	shift
	local args="$*"
	READS[$name]=$base.reads.fa
	WINDOWS[$name]=$base.windows.fa
	SIMCMD[$name]="$SIMREADS -g $GENOME $args -r $base.reads.fa -t $base.windows.fa"
	if [ -s "$base.reads.fa" ] && [ -s "$base.windows.fa" ] && [ -r "$base.cmd" ] &&
		[ "$(cat "$base.cmd")" = "$args" ]; then
		note "$name: inputs cached in $base.*"
		return
	fi
	note "$name: ${SIMCMD[$name]}"
	# shellcheck disable=SC2086
	"$SIMREADS" -g "$GENOME" $args -r "$base.reads.fa.tmp" -t "$base.windows.fa.tmp" ||
		die "$name: tests/simreads failed (does it know '$args'?)"
	mv "$base.reads.fa.tmp" "$base.reads.fa"
	mv "$base.windows.fa.tmp" "$base.windows.fa"
	printf '%s\n' "$args" >"$base.cmd"
}

# ---------------------------------------------------------------- timing
# timed NAME OUT CMD...: CMD RUNS times, stdout to OUT, stderr appended to OUTDIR/NAME.log;
# WALL[NAME] = the median wall seconds, RSS[NAME] = the largest peak RSS (MiB) or NA
declare -A WALL RSS CMDLINE
timed() {
	local name=$1 out=$2 i w m walls=() rss=NA tf=$OUTDIR/$1.time log=$OUTDIR/$1.log
	shift 2
	CMDLINE[$name]=$(quote "$@")
	: >"$log"
	for ((i = 1; i <= RUNS; i++)); do
		echo "== run $i: ${CMDLINE[$name]} > $out" >>"$log"
		if [ -n "$GTIME" ]; then
			if ! "$GTIME" -f '%e,%M' -o "$tf" "$@" >"$out" 2>>"$log" </dev/null; then
				tail -n 5 "$log" >&2
				die "$name: command failed (log: $log)"
			fi
			IFS=, read -r w m <"$tf"
			rss=$(awk -v a="$rss" -v m="$m" 'BEGIN {m /= 1024; if (a == "NA" || m > a) printf "%.0f", m; else print a}')
		else
			local TIMEFORMAT=%3R
			if ! { time "$@" >"$out" 2>>"$log" </dev/null; } 2>"$tf"; then
				tail -n 5 "$log" >&2
				die "$name: command failed (log: $log)"
			fi
			w=$(tail -n 1 "$tf")
		fi
		walls+=("$w")
	done
	rm -f "$tf"
	WALL[$name]=$(printf '%s\n' "${walls[@]}" | median)
	RSS[$name]=$rss
	note "$name: wall ${walls[*]} s, peak RSS ${rss} MiB"
}

# the `nwalign: N pairs, ...` and `nwalign: paths: ...` lines of the last run
vline() {
	local v p
	v=$(grep '^nwalign: .* pairs' "$OUTDIR/$1.log" | tail -n 1 || true)
	p=$(grep '^nwalign: paths' "$OUTDIR/$1.log" | tail -n 1 || true)
	echo "$v${p:+\`, \`$p}"
}

# records FILE N NAME: FILE (comments aside) must hold N records
records() {
	local k
	k=$(grep -vc '^#' "$1" || true)
	[ "$k" -eq "$2" ] || die "$3: $k records in $1 for $2 pairs"
}

# paf_optimal FILE: "records optimal optimal_frac above" (above: AS > os, a bug)
paf_optimal() {
	awk -F'\t' '
		{
			as = ""; os = ""
			for (i = 13; i <= NF; i++) {
				if ($i ~ /^AS:i:/) as = substr($i, 6) + 0
				else if ($i ~ /^os:i:/) os = substr($i, 6) + 0
			}
			if (as == "") { printf "record %d has no AS:i\n", NR > "/dev/stderr"; exit 2 }
			n++
			if (os == "" || as == os) opt++
			else if (as > os) above++
		}
		END { if (n == 0) exit 3; printf "%d %d %.4f %d\n", n, opt, opt / n, above }' "$1"
}
# the optimum per PAF record: os:i where present, else AS:i
paf_optimum() { awk -F'\t' '{as = ""; os = ""; for (i = 13; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6); else if ($i ~ /^os:i:/) os = substr($i, 6); print (os != "" ? os : as)}' "$1"; }
# equal A B: "k/n", lines of the two streams (files) equal as numbers
equal() { paste "$1" "$2" | awk -F'\t' '$1 != "" && $1 == $2 + 0 {k++} END {printf "%d/%d", k, NR}'; }
tsv_scores() { awk -F'\t' '!/^#/ {print $10}' "$1"; }

# optimal NAME: "optimal_frac (k/n)" of OUTDIR/NAME.paf, with a warning for AS > os
declare -A OPTF
optimal() {
	local n opt frac above
	read -r n opt frac above < <(paf_optimal "$OUTDIR/$1.paf") || die "$1: cannot read AS:i/os:i from $OUTDIR/$1.paf"
	[ "$above" -eq 0 ] || note "WARNING: $1: $above records score above their os:i"
	OPTF[$1]=$frac
}

declare -A PAIRS ROW_SCORE ROW_EXACT ROW_GACT ROW_PEER ROW_SPEED ROW_OPT ROW_GOPT ROW_CHECK ROW_PEQ ROW_RSS
NOTES=()
RESULTS=()

# ---------------------------------------------------------------- L: global pairs
L_SCORING=(--match 0 --mismatch 4 --gap-open 6 --gap-extend 2)
# shellcheck disable=SC2206
WFAGPU_ARGV=($WFAGPU_ARGS)

# seq_file NAME: IN/NAME.seq for WFA-GPU (`>` read, `<` window, a pair per two lines) and
# IN/NAME.acgt, a line per pair: 1 where both hold ACGT alone, else 0
seq_file() {
	local s=$IN/$1.seq
	if [ ! -s "$s" ] || [ "$s" -ot "${READS[$1]}" ] || [ "$s" -ot "${WINDOWS[$1]}" ]; then
		paste <(fasta_lines "${READS[$1]}") <(fasta_lines "${WINDOWS[$1]}") |
			awk -F'\t' '{print ">" $2; print "<" $4}' >"$s.tmp"
		mv "$s.tmp" "$s"
	fi
	awk 'NR % 2 {a = (substr($0, 2) !~ /[^ACGT]/); next} {print (a && substr($0, 2) !~ /[^ACGT]/) ? 1 : 0}' "$s" >"$IN/$1.acgt"
}
# equal_acgt A B MASK: "k/n" as equal, over the pairs whose MASK line is 1
equal_acgt() { paste "$1" "$2" "$3" | awk -F'\t' '$3 == 1 {n++; if ($1 != "" && $1 == $2 + 0) k++} END {printf "%d/%d", k, n}'; }

run_L() {
	local w=$1 lo=$2 hi=$3 n
	n=$(count 2000)
	PAIRS[$w]=$n
	# shellcheck disable=SC2086
	simulate "$w" -n "$n" -l 10000 -L 10000 -e "$lo" -E "$hi" -w 0 $SIM_STRAND_OPT -s 1
	local args=(-q "${READS[$w]}" -r "${WINDOWS[$w]}" --pairs zip -m global "${L_SCORING[@]}" -v --backend "$BACKEND")
	timed "$w-score" "$OUTDIR/$w-score.tsv" "$NW" "${args[@]}" -f tsv --no-header
	records "$OUTDIR/$w-score.tsv" "$n" "$w-score"
	timed "$w-exact" "$OUTDIR/$w-exact.paf" "$NW" "${args[@]}" -f paf
	records "$OUTDIR/$w-exact.paf" "$n" "$w-exact"
	optimal "$w-exact"
	local as_eq gact_eq=NA
	as_eq=$(equal <(paf_optimum "$OUTDIR/$w-exact.paf") <(tsv_scores "$OUTDIR/$w-score.tsv"))
	ROW_SCORE[$w]=${WALL[$w-score]}
	ROW_EXACT[$w]=${WALL[$w-exact]}
	ROW_RSS[$w]=${RSS[$w-exact]}
	ROW_OPT[$w]=${OPTF[$w-exact]}
	ROW_GACT[$w]=-
	ROW_GOPT[$w]=-
	NOTES+=("$w: \`${CMDLINE[$w-exact]}\`; \`-v\`: \`$(vline "$w-exact")\`")
	if [ -n "$NW_GACT_OPT" ]; then
		# shellcheck disable=SC2086
		timed "$w-gact" "$OUTDIR/$w-gact.paf" "$NW" "${args[@]}" -f paf $NW_GACT_OPT
		records "$OUTDIR/$w-gact.paf" "$n" "$w-gact"
		optimal "$w-gact"
		gact_eq=$(equal <(paf_optimum "$OUTDIR/$w-gact.paf") <(tsv_scores "$OUTDIR/$w-score.tsv"))
		ROW_GACT[$w]=${WALL[$w-gact]}
		ROW_GOPT[$w]=${OPTF[$w-gact]}
		NOTES+=("$w-gact \`-v\`: \`$(vline "$w-gact")\`")
	fi
	ROW_CHECK[$w]="AS $as_eq, gact os $gact_eq"

	local peer=NA speed=NA peq=NA
	if [ -n "$WFAGPU" ]; then
		seq_file "$w"
		# the last -e on WFA-GPU's command line counts
		local eopt=()
		case $WFAGPU_E in
		'') ;;
		auto) eopt=(-e "$(tsv_scores "$OUTDIR/$w-score.tsv" | awk '{d = -$1; if (d > m) m = d} END {printf "%d", int((m + 1) / 2) + 32}')") ;;
		*) eopt=(-e "$WFAGPU_E") ;;
		esac
		timed "$w-wfagpu" "$OUTDIR/$w-wfagpu.stdout" "$WFAGPU" -i "$IN/$w.seq" "${WFAGPU_ARGV[@]}" "${eopt[@]}" -o "$OUTDIR/$w-wfagpu.out"
		records "$OUTDIR/$w-wfagpu.out" "$n" "$w-wfagpu"
		peer=${WALL[$w-wfagpu]}
		speed=$(ratio "$peer" "${WALL[$w-exact]}")
		peq=$(equal <(cut -f1 "$OUTDIR/$w-wfagpu.out") <(tsv_scores "$OUTDIR/$w-score.tsv"))
		local peq_acgt
		peq_acgt=$(equal_acgt <(cut -f1 "$OUTDIR/$w-wfagpu.out") <(tsv_scores "$OUTDIR/$w-score.tsv") "$IN/$w.acgt")
		NOTES+=("$w WFA-GPU: \`${CMDLINE[$w-wfagpu]}\`; scores equal to nwalign's: $peq, $peq_acgt of the pairs of ACGT alone; its own line: $(grep -m 1 'Alignment computed' "$OUTDIR/$w-wfagpu.stdout" || echo none)")
	fi
	ROW_PEER[$w]=$peer
	ROW_SPEED[$w]=$speed
	ROW_PEQ[$w]=$peq
	RESULTS+=("result $w wall_s=${WALL[$w-exact]} peer_wall_s=$peer speedup=$speed score_wall_s=${WALL[$w-score]} gact_wall_s=${ROW_GACT[$w]/-/NA} optimal_frac=${OPTF[$w-exact]} gact_optimal_frac=${ROW_GOPT[$w]/-/NA} as_equal_score=$as_eq peer_scores_equal=$peq pairs=$n gpu=\"$GPU\" commit=$COMMIT")
}

# ---------------------------------------------------------------- E, E-SV: semiglobal reads
run_E() {
	local w=$1 label=$2 n
	shift 2
	n=$(count 10000)
	PAIRS[$w]=$n
	simulate "$w" -n "$n" -l 10000 -L 10000 -e 0.05 -E 0.15 "$@" -s 1
	local args=(-q "${READS[$w]}" -r "${WINDOWS[$w]}" --pairs zip -m semiglobal --strand both -v --backend "$BACKEND")
	timed "$w-score" "$OUTDIR/$w-score.tsv" "$NW" "${args[@]}" -f tsv --no-header
	records "$OUTDIR/$w-score.tsv" "$n" "$w-score"
	timed "$w-exact" "$OUTDIR/$w-exact.paf" "$NW" "${args[@]}" -f paf
	records "$OUTDIR/$w-exact.paf" "$n" "$w-exact"
	optimal "$w-exact"
	local as_eq rps
	as_eq=$(equal <(paf_optimum "$OUTDIR/$w-exact.paf") <(tsv_scores "$OUTDIR/$w-score.tsv"))
	rps=$(rate "$n" "${WALL[$w-exact]}")
	ROW_SCORE[$w]=${WALL[$w-score]}
	ROW_EXACT[$w]=${WALL[$w-exact]}
	ROW_RSS[$w]=${RSS[$w-exact]}
	ROW_OPT[$w]=${OPTF[$w-exact]}
	ROW_GACT[$w]=- ROW_GOPT[$w]=- ROW_PEER[$w]=- ROW_SPEED[$w]=- ROW_PEQ[$w]=-
	ROW_CHECK[$w]="AS $as_eq"
	NOTES+=("$w: \`${CMDLINE[$w-exact]}\`; $rps reads/s; \`-v\`: \`$(vline "$w-exact")\`")
	RESULTS+=("result $label reads_per_s=$rps optimal_frac=${OPTF[$w-exact]} commit=$COMMIT as_equal_score=$as_eq score_wall_s=${WALL[$w-score]} wall_s=${WALL[$w-exact]} pairs=$n gpu=\"$GPU\"")
}

# ---------------------------------------------------------------- the floor of a GPU process
FLOOR_OPEN=NA FLOOR_NW=NA
run_floor() {
	[ "$BACKEND" = gpu ] || return 0
	local co=${CUDA_OPEN:-}
	if [ -z "$co" ] && command -v nvcc >/dev/null 2>&1; then
		co=$OUTDIR/cuda_open
		nvcc -O2 -x cu bench/cuda_open.c -o "$co" 2>"$OUTDIR/cuda_open.build.log" || {
			note "cuda_open: nvcc failed (log: $OUTDIR/cuda_open.build.log)"
			co=
		}
	fi
	if [ -n "$co" ]; then
		timed cuda-open /dev/null "$co"
		FLOOR_OPEN=${WALL[cuda-open]}
	fi
	timed nwalign-8-reads /dev/null "$NW" -q data/reads.fq -r data/ref.fa --backend gpu
	FLOOR_NW=${WALL[nwalign-8-reads]}
	RESULTS+=("result gpu-floor cuda_open_wall_s=$FLOOR_OPEN nwalign_8_reads_wall_s=$FLOOR_NW gpu=\"$GPU\" commit=$COMMIT")
}
run_floor

# shellcheck disable=SC2086
for w in "${ORDER[@]}"; do
	case $w in
	L-lo) run_L L-lo 0.01 0.03 ;;
	L-mid) run_L L-mid 0.03 0.06 ;;
	L-hi) run_L L-hi 0.05 0.15 ;;
	E) run_E E E-exact -w 0.05 ;;
	E-SV) run_E E-SV E-SV -w 0.25 $SIM_SV_OPT ;;
	esac
done

# ---------------------------------------------------------------- report
PEER_NOTE="WFA-GPU: not run (set WFAGPU to its bin/wfa.affine.gpu)"
[ -z "$WFAGPU" ] || PEER_NOTE="WFA-GPU: \`$WFAGPU\`, arguments \`$WFAGPU_ARGS\`${WFAGPU_E:+, -e $WFAGPU_E}"
TIMER="/usr/bin/time -f %e,%M"
[ -n "$GTIME" ] || TIMER="bash time (no /usr/bin/time: peak RSS not measured)"
{
	echo "## $(date -u '+%Y-%m-%d %H:%M') UTC, long exact paths (L, E, E-SV), commit $COMMIT$DIRTY"
	echo
	echo "- GPU: $GPU; host: $(nproc) CPUs ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)); nwalign --backend $BACKEND"
	echo "- median wall time of $RUNS runs of the whole command ($TIMER); peak RSS: the largest of the runs"
	for w in "${ORDER[@]}"; do echo "- $w inputs: \`${SIMCMD[$w]}\`"; done
	for n in "${NOTES[@]}"; do echo "- $n"; done
	echo "- $PEER_NOTE"
	echo "- command: bench/long_exact.sh -n $RUNS${CAP:+ -c $CAP} -b $BACKEND -w $(IFS=,; echo "${ORDER[*]}")"
	echo
	echo "| workload | pairs | score only s | default paths s | --gact s | WFA-GPU s | speedup (WFA-GPU / default) | optimal default | optimal --gact | = score only | WFA-GPU = nwalign | RSS MiB |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|"
	for w in "${ORDER[@]}"; do
		echo "| $w | ${PAIRS[$w]} | ${ROW_SCORE[$w]} | ${ROW_EXACT[$w]} | ${ROW_GACT[$w]} | ${ROW_PEER[$w]} | ${ROW_SPEED[$w]} | ${ROW_OPT[$w]} | ${ROW_GOPT[$w]} | ${ROW_CHECK[$w]} | ${ROW_PEQ[$w]} | ${ROW_RSS[$w]} |"
	done
	echo
	echo "| the floor of a GPU process | wall s |"
	echo "|---|---:|"
	echo "| bench/cuda_open.c: open the device, exit | $FLOOR_OPEN |"
	echo "| nwalign on the 8 bundled reads, --backend gpu | $FLOOR_NW |"
	echo
	printf '%s\n' "${RESULTS[@]}"
} >"$REPORT"
cat "$REPORT"
