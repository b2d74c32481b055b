#!/usr/bin/env bash
# bench/cpu_bench.sh: time nwalign's CPU engine and parasail_aligner side by side.
#
#   protein  mm_query50.fa x mm_db2k.fa, every pair, local, BLOSUM62,
#            nwalign --gap-open 10 --gap-extend 1  =  parasail -o 11 -e 1
#   dna      lambda_reads_2k.fq.gz x lambda.fa, every pair, semiglobal (query end to end,
#            reference overhangs free = parasail sg_dx), match 2, mismatch 4,
#            nwalign --gap-open 4 --gap-extend 2  =  parasail -o 6 -e 2
#
# Both tools get the same thread count and write their results to files under bench/out/;
# each is run RUNS times and the median wall time is kept. cells = sum over pairs of
# qlen * rlen (counted here from the inputs), GCUPS = cells / median wall seconds / 1e9.
# Before timing counts, the script checks that each tool produced one result per pair and
# reports how many scores agree between the two tools.
#
# Usage (from anywhere; paths are relative to the repository root):
#   bench/cpu_bench.sh [-s SHARED] [-t THREADS] [-n RUNS] [-w protein|dna|all] [-N]
#     -s DIR   the shared data folder [env SHARED, else ../shared]
#     -t INT   threads for both tools [env THREADS, else nproc]
#     -n INT   runs per tool and workload, median kept [env RUNS, else 3]
#     -w WHICH workloads to run [all]
#     -N       print only; do not append to bench/RESULTS.md
# Environment: NWALIGN (default ./nwalign), PARASAIL_ALIGNER (default parasail_aligner),
# PARASAIL_SW (default sw_striped_16), PARASAIL_SG (default sg_dx_striped_16).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

SHARED=${SHARED:-../shared}
THREADS=${THREADS:-$(nproc)}
RUNS=${RUNS:-3}
WHICH=all
APPEND=1
NWALIGN=${NWALIGN:-./nwalign}
PARASAIL_ALIGNER=${PARASAIL_ALIGNER:-parasail_aligner}
PARASAIL_SW=${PARASAIL_SW:-sw_striped_16}
PARASAIL_SG=${PARASAIL_SG:-sg_dx_striped_16}

die() { echo "cpu_bench: $*" >&2; exit 1; }

while getopts "s:t:n:w:Nh" opt; do
	case $opt in
	s) SHARED=$OPTARG ;;
	t) THREADS=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	w) WHICH=$OPTARG ;;
	N) APPEND=0 ;;
	h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option (try -h)" ;;
	esac
done
case $WHICH in protein | dna | all) ;; *) die "-w must be protein, dna or all" ;; esac
case $THREADS in '' | *[!0-9]* | 0) die "-t must be a positive integer" ;; esac
case $RUNS in '' | *[!0-9]* | 0) die "-n must be a positive integer" ;; esac

[ -x "$NWALIGN" ] || die "$NWALIGN not found: build first (autoreconf -fi && ./configure && make)"
HAVE_PARASAIL=1
command -v "$PARASAIL_ALIGNER" >/dev/null 2>&1 || {
	echo "cpu_bench: $PARASAIL_ALIGNER not found (Debian: apt-get install parasail); timing nwalign only" >&2
	HAVE_PARASAIL=0
}

PROT_Q=$SHARED/data/protein/mm_query50.fa
PROT_R=$SHARED/data/protein/mm_db2k.fa
DNA_Q=$SHARED/data/dna/lambda_reads_2k.fq.gz
DNA_R=$SHARED/data/dna/lambda.fa
for f in "$PROT_Q" "$PROT_R" "$DNA_Q" "$DNA_R"; do
	[ -r "$f" ] || die "cannot read $f (set -s DIR or SHARED=DIR)"
done

OUT=bench/out
mkdir -p "$OUT"

# "records residues" of a FASTA or FASTQ file (plain or gzip; FASTQ as 4-line records).
count_seqs() {
	gzip -cdf "$1" | awk '
		NR == 1 { fq = ($0 ~ /^@/) }
		fq { if (NR % 4 == 2) { n++; s += length($0) }; next }
		/^>/ { n++; next }
		{ s += length($0) }
		END { printf "%d %d\n", n, s }'
}

now() { date +%s.%N; }

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) printf "%.3f\n", v[(NR + 1) / 2];
		else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# run_timed NAME CMD...: run CMD RUNS times (stdout and stderr to $OUT/NAME.*), print the
# median wall seconds.
run_timed() {
	local name=$1 i t0 t1
	shift
	: >"$OUT/$name.times"
	for i in $(seq 1 "$RUNS"); do
		t0=$(now)
		if ! "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" 0<&-; then
			cat "$OUT/$name.err" >&2
			die "$name: command failed: $*"
		fi
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >>"$OUT/$name.times"
		echo "  $name run $i: $(tail -n 1 "$OUT/$name.times") s" >&2
	done
	median <"$OUT/$name.times"
}

gcups() { awk -v c="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.3f\n", c / s / 1e9; else print "NA" }'; }

# shell-quoted command line for the record
quote() {
	local a out=
	for a in "$@"; do
		out="$out $(printf '%q' "$a")"
	done
	echo "${out# }"
}

# bench WORKLOAD QUERY REF PARASAIL_FUNC "PARASAIL_OPTS" NWALIGN_OPTS...
ROWS=
NOTES=
RESULTS=
COMMANDS=
bench() {
	local w=$1 q=$2 r=$3 pfunc=$4 popts=$5
	shift 5
	local nq rq nr rr cells pairs nw_cmd pa_cmd nw_s pa_s nw_g pa_g lines agree note
	read -r nq rq < <(count_seqs "$q")
	read -r nr rr < <(count_seqs "$r")
	pairs=$((nq * nr))
	cells=$(awk -v a="$rq" -v b="$rr" 'BEGIN { printf "%.0f\n", a * b }')
	echo "== $w: $nq queries ($rq residues) x $nr references ($rr residues), $pairs pairs, $cells cells" >&2

	nw_cmd=("$NWALIGN" -q "$q" -r "$r" "$@" --backend cpu -t "$THREADS" --no-header -v)
	nw_s=$(run_timed "$w-nwalign" "${nw_cmd[@]}")
	lines=$(wc -l <"$OUT/$w-nwalign.out")
	[ "$lines" -eq "$pairs" ] || die "$w: nwalign wrote $lines lines for $pairs pairs"
	nw_g=$(gcups "$cells" "$nw_s")
	echo "  nwalign -v: $(tail -n 1 "$OUT/$w-nwalign.err")" >&2
	NOTES="$NOTES- nwalign -v, $w: \`$(tail -n 1 "$OUT/$w-nwalign.err")\`"$'\n'
	COMMANDS="$COMMANDS$(quote "${nw_cmd[@]}") > $OUT/$w-nwalign.out"$'\n'

	pa_s=NA pa_g=NA agree=NA
	if [ "$HAVE_PARASAIL" = 1 ]; then
		# shellcheck disable=SC2206
		pa_cmd=("$PARASAIL_ALIGNER" -x -a "$pfunc" $popts -t "$THREADS" -f "$r" -q "$q" -g "$OUT/$w-parasail.csv")
		pa_s=$(run_timed "$w-parasail" "${pa_cmd[@]}")
		lines=$(wc -l <"$OUT/$w-parasail.csv")
		[ "$lines" -eq "$pairs" ] || die "$w: parasail_aligner wrote $lines results for $pairs pairs"
		pa_g=$(gcups "$cells" "$pa_s")
		COMMANDS="$COMMANDS$(quote "${pa_cmd[@]}") 0<&-"$'\n'
		# parasail CSV: query index, reference index, qlen, rlen, score, ...; nwalign TSV:
		# query-major, score in column 10.
		agree=$(awk -F'\t' -v nr="$nr" '
			FNR == NR { split($0, c, ","); ps[c[1] * nr + c[2]] = c[5]; next }
			{ k = FNR - 1; if ((k in ps) && ps[k] == $10) same++ }
			END { printf "%d/%d\n", same, FNR }' "$OUT/$w-parasail.csv" "$OUT/$w-nwalign.out")
	fi
	note="scores equal: $agree"
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "$w" nwalign "$THREADS" "$cells" "$nw_s" "$nw_g" "")"$'\n'
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "$w" parasail "$THREADS" "$cells" "$pa_s" "$pa_g" "$note")"$'\n'
	RESULTS="${RESULTS}result cpu-$w gcups=$nw_g parasail_gcups=$pa_g threads=$THREADS commit=$COMMIT"$'\n'
}

COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	DIRTY=" (working tree has uncommitted changes)"
fi

if [ "$WHICH" != dna ]; then
	bench protein "$PROT_Q" "$PROT_R" "$PARASAIL_SW" "-m blosum62 -o 11 -e 1" \
		-a protein -m local --matrix blosum62 --gap-open 10 --gap-extend 1
fi
if [ "$WHICH" != protein ]; then
	bench dna "$DNA_Q" "$DNA_R" "$PARASAIL_SG" "-d -M 2 -X 4 -o 6 -e 2" \
		-a dna -m semiglobal --match 2 --mismatch 4 --gap-open 4 --gap-extend 2
fi

MODEL=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
CORES=$(nproc)
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
PAVER=NA
if [ "$HAVE_PARASAIL" = 1 ]; then
	PAVER=$(dpkg-query -W -f '${Version}' parasail 2>/dev/null || echo unknown)
fi
NWVER=$("$NWALIGN" -V 2>/dev/null | head -n 1 || echo unknown)

TABLE=$(printf '%-8s %-9s %7s %15s %9s %9s  %s\n%s' workload tool threads cells median_s GCUPS check "$ROWS" | sed 's/ *$//')

echo
echo "$TABLE"
echo
printf '%s' "$RESULTS"

if [ "$APPEND" = 1 ]; then
	{
		echo
		echo "## $DATE, commit $COMMIT$DIRTY"
		echo
		echo "- machine: ${MODEL:-unknown CPU}, $CORES online CPUs; threads used: $THREADS"
		echo "- nwalign: $NWVER (--backend cpu); parasail_aligner: $PAVER ($PARASAIL_SW, $PARASAIL_SG)"
		echo "- median of $RUNS runs, wall time of the whole command (reading input and writing results included)"
		printf '%s' "$NOTES"
		echo
		echo "Commands:"
		echo
		echo '```'
		printf '%s' "$COMMANDS"
		echo '```'
		echo
		echo "Results:"
		echo
		echo '```'
		echo "$TABLE" | sed '/^$/d'
		echo '```'
		echo
		printf '%s' "$RESULTS"
	} >>bench/RESULTS.md
	echo "appended to $ROOT/bench/RESULTS.md" >&2
fi
