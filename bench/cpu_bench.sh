#!/usr/bin/env bash
# bench/cpu_bench.sh: time nwalign's CPU engine and parasail_aligner side by side.
#
#   protein  mm_query50.fa x mm_db2k.fa, every pair, local, BLOSUM62,
#            nwalign --gap-open 10 --gap-extend 1  =  parasail -o 11 -e 1; parasail runs
#            its fastest function for this set: each of PARASAIL_SW_TRY once, then the
#            fastest RUNS times (nwalign also reports start coordinates, parasail ends).
#            Then the search form beside ssearch36 (Debian fasta3, exact Smith-Waterman
#            over every pair, each query's best hits with its own statistics):
#              ssearch36 -q -b 50 -d 0 -E 100000 -z 3 -T THREADS -s BL62 -f -10 -g -1
#            (gaps of L cost 10 + L, as nwalign's 10/1; -E 100000 lists hits of any E(),
#            -b 50 the 50 best by E(), -d 0 no alignments) and nwalign --top 1; the check
#            compares each query's best score with the highest s-w of ssearch's list;
#            and the search again with --max-memory half the database's (2 partitions),
#            its output compared with the in-memory one, both max RSS
#   B-global, B-local, B-local-c
#            bench/pairs20k_query150 x pairs20k_target241 of the shared bench folder,
#            --pairs zip (20,000 pairs of 150 x ~241), DNA match 2 mismatch 4 gap 4 + 2L;
#            B-local-c with CIGARs (-c). parasail_aligner has no one-to-one pairing: no
#            peer; GCUPS = sum of qlen * rlen over the pairs / wall seconds
#   long     one 100 kb x 100 kb global pair (the first 100 kb of E. coli and a copy with
#            2% substitutions and 1% indels, made here with a fixed seed), 1 thread, beside
#            parasail's fastest of PARASAIL_NW_TRY (32-bit lanes: the scores pass 16 bits)
#   dna      lambda_reads_2k.fq.gz x lambda.fa, every pair, semiglobal (query end to end,
#            reference overhangs free = parasail sg_dx), match 2, mismatch 4,
#            nwalign --gap-open 4 --gap-extend 2  =  parasail -o 6 -e 2. Most reads hold
#            N: nwalign scores N -mismatch against any base (its documented DNA scoring),
#            parasail's -d matrix does not, so only the reads without N score the same
#   E-cpu    long reads with paths: the first E_CPU_READS (200) reads of workload E of
#            bench/longreads.sh (tests/simreads -l 10000 -L 10000 -e 0.05 -E 0.15 -w 0.05
#            -s 1 on data/dna/ecoli_dh10b.fa.gz: 10 kb, 5-15% errors), each against its
#            11 kb window, semiglobal (the read end to end, window overhangs free), with
#            paths: nwalign --pairs zip -m semiglobal -f paf, match 2, mismatch 4, gap 4 + 2L.
#            Reads from the reverse strand are reverse-complemented first (simreads names
#            the strand), so every tool aligns one given strand per read.
#            WFA2-lib beside it, when WFA2 names its align_benchmark binary (built with
#            `make BUILD_WFA_PARALLEL=1`, without which it has no threads):
#              align_benchmark -a gap-affine-wfa -i E-cpu.seq --affine-penalties 0,4,4,2
#                --wfa-span ends-free,0,0,1.0,1.0 --wfa-memory WFA2_MEMORY -t THREADS
#                --output-full OUT
#            (.seq: per pair a line `>` + read and a line `<` + window; ends-free P0,Pf,T0,Tf:
#            no pattern end free, the whole text free at either end). WFA2 takes a match
#            bonus (M < 0) only end to end: with M != 0 it ignores the free text begin, so
#            it cannot score this semiglobal problem with match 2. It runs with match 0
#            instead (mismatch 4, gap 4 + 2L: the same optimum as nwalign --match 0
#            --mismatch 4 --gap-open 4 --gap-extend 2), and so does a second nwalign run,
#            E-cpu-m0. Its output score is that of its CIGAR, which spells the free window
#            overhangs as insertions: the script adds 4 + 2L back for the leading and the
#            trailing insertion run and compares with AS:i of E-cpu-m0 (pairs matched by
#            the read, as the threads write in any order). speedup = E-cpu-m0 reads/s over
#            WFA2's reads/s (same scoring, same optimum).
#   L-cpu    long global pairs: L_CPU_PAIRS (100) pairs of 10 kb from tests/simreads at the
#            three error levels of bench/long_exact.sh's L (simreads -n L_CPU_PAIRS -l 10000
#            -L 10000 -e 0.01 -E 0.03 -w 0 -S + -s 1, and 0.03-0.06, 0.05-0.15), each
#            against its origin, L's scoring (--match 0 --mismatch 4 --gap-open 6
#            --gap-extend 2): scores (-f tsv) and exact paths (-f paf); the check: every
#            path's AS:i equal to the score-only run's score (pairs/s over the paths' wall
#            time). WFA2-lib beside it, when WFA2 is set (as for E-cpu):
#              align_benchmark -a gap-affine-wfa -i pairs.seq --affine-penalties 0,4,6,2
#                --wfa-memory WFA2_MEMORY -t THREADS --output-full OUT
#            (end to end, with CIGARs; its score, minus the distance, must equal nwalign's)
#
# Both tools get the same thread count and write their results to files under bench/out/;
# each is run RUNS times and the median wall time is kept. cells = sum over pairs of
# qlen * rlen (counted here from the inputs), GCUPS = cells / median wall seconds / 1e9.
# Before timing counts, the script checks that each tool produced one result per pair and
# reports how many scores agree between the two tools.
#
# Usage (from anywhere; paths are relative to the repository root):
#   bench/cpu_bench.sh [-s SHARED] [-t THREADS] [-n RUNS] [-w protein|dna|B|long|E-cpu|L-cpu|all] [-N]
#     -s DIR   the shared data folder [env SHARED, else ../shared]
#     -t INT   threads for both tools [env THREADS, else nproc]
#     -n INT   runs per tool and workload, median kept [env RUNS, else 3]
#     -w WHICH workloads to run: protein, dna, B, long, E-cpu, L-cpu or all [all]
#     -N       print only; do not append to bench/RESULTS.md
# Environment: NWALIGN (default ./nwalign), PARASAIL_ALIGNER (default parasail_aligner),
# PARASAIL_SW_TRY (default: sw_striped_16 sw_striped_sat sw_striped_profile_16
# sw_striped_profile_sat sw_scan_profile_sat; 8-bit functions saturate, so they are left
# out), PARASAIL_NW_TRY (default: nw_scan_32 nw_striped_32 nw_diag_32),
# PARASAIL_SG (default sg_dx_striped_16), SSEARCH (default ssearch36; timed when present); for E-cpu
# SIMREADS (default tests/simreads; also L-cpu), E_CPU_READS (default 200), L_CPU_PAIRS
# (default 100), E_CPU_GENOME (default
# SHARED/data/dna/ecoli_dh10b.fa.gz; .gpu/ecoli_dh10b.fa.gz on the GPU host), WFA2 (unset:
# no WFA2), WFA2_MEMORY (default high: WFA2's own default; med and low are exact too).
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
PARASAIL_SW_TRY=${PARASAIL_SW_TRY:-sw_striped_16 sw_striped_sat sw_striped_profile_16 sw_striped_profile_sat sw_scan_profile_sat}
PARASAIL_NW_TRY=${PARASAIL_NW_TRY:-nw_scan_32 nw_striped_32 nw_diag_32}
PARASAIL_SW=
PARASAIL_SG=${PARASAIL_SG:-sg_dx_striped_16}
SSEARCH=${SSEARCH:-ssearch36}
SIMREADS=${SIMREADS:-tests/simreads}
E_CPU_READS=${E_CPU_READS:-200}
L_CPU_PAIRS=${L_CPU_PAIRS:-100}
WFA2=${WFA2:-}
WFA2_MEMORY=${WFA2_MEMORY:-high}

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
case $WHICH in protein | dna | B | long | E-cpu | L-cpu | all) ;; *) die "-w must be protein, dna, B, long, E-cpu, L-cpu or all" ;; esac
case $THREADS in '' | *[!0-9]* | 0) die "-t must be a positive integer" ;; esac
case $RUNS in '' | *[!0-9]* | 0) die "-n must be a positive integer" ;; esac
case $E_CPU_READS in '' | *[!0-9]* | 0*) die "E_CPU_READS must be a positive integer" ;; esac
case $L_CPU_PAIRS in '' | *[!0-9]* | 0*) die "L_CPU_PAIRS must be a positive integer" ;; esac
want() { [ "$WHICH" = all ] || [ "$WHICH" = "$1" ]; }

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
GENOME=${E_CPU_GENOME:-$SHARED/data/dna/ecoli_dh10b.fa.gz}
NEED=()
B_Q=$SHARED/bench/pairs20k_query150.fa.gz
B_R=$SHARED/bench/pairs20k_target241.fa.gz
want protein && NEED+=("$PROT_Q" "$PROT_R")
want dna && NEED+=("$DNA_Q" "$DNA_R")
want B && NEED+=("$B_Q" "$B_R")
want long && NEED+=("$GENOME")
want E-cpu && NEED+=("$GENOME")
want L-cpu && NEED+=("$GENOME")
for f in "${NEED[@]}"; do
	[ -r "$f" ] || die "cannot read $f (set -s DIR or SHARED=DIR)"
done
if want E-cpu || want L-cpu; then
	[ -x "$SIMREADS" ] || die "$SIMREADS is not built: run 'make tests/simreads' (or make check) first"
	[ -z "$WFA2" ] || [ -x "$WFA2" ] || die "WFA2=$WFA2 is not an executable file"
fi

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

# now VAR: the time into VAR without starting a process (bash 5's EPOCHREALTIME; date
# where it is missing), so that no clock's start-up adds to the wall times of short runs
now() {
	local t=${EPOCHREALTIME:-}
	[ -n "$t" ] || t=$(date +%s.%N)
	printf -v "$1" '%s' "${t/,/.}"
}

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
		now t0
		if ! "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" 0<&-; then
			cat "$OUT/$name.err" >&2
			die "$name: command failed: $*"
		fi
		now t1
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

# fastest_parasail WORKLOAD "FUNCS" "OPTS" THREADS REF QUERY: each function once, the
# fastest one's name on stdout (the probe times go to NOTES through $OUT/WORKLOAD.probe)
fastest_parasail() {
	local w=$1 funcs=$2 popts=$3 t=$4 r=$5 q=$6 f t0 t1 best= best_s=
	: >"$OUT/$w.probe"
	for f in $funcs; do
		now t0
		# shellcheck disable=SC2086
		if ! "$PARASAIL_ALIGNER" -x -a "$f" $popts -t "$t" -f "$r" -q "$q" -g "$OUT/$w-probe.csv" \
			>/dev/null 2>&1 0<&-; then
			echo "$f failed" >>"$OUT/$w.probe"
			continue
		fi
		now t1
		t0=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }')
		echo "$f $t0 s" >>"$OUT/$w.probe"
		if [ -z "$best" ] || awk -v a="$t0" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
			best=$f best_s=$t0
		fi
	done
	[ -n "$best" ] || die "$w: no parasail function of '$funcs' ran"
	echo "$best"
}

# bench WORKLOAD QUERY REF "PARASAIL_FUNCS" "PARASAIL_OPTS" NWALIGN_OPTS...
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
	echo "  nwalign -v: $(grep '^nwalign: .* pairs' "$OUT/$w-nwalign.err" | tail -n 1)" >&2
	NOTES="$NOTES- nwalign -v, $w: \`$(grep '^nwalign: .* pairs' "$OUT/$w-nwalign.err" | tail -n 1)\`"$'\n'
	COMMANDS="$COMMANDS$(quote "${nw_cmd[@]}") > $OUT/$w-nwalign.out"$'\n'

	pa_s=NA pa_g=NA agree=NA
	if [ "$HAVE_PARASAIL" = 1 ]; then
		# shellcheck disable=SC2086
		pfunc=$(fastest_parasail "$w" "$pfunc" "$popts" "$THREADS" "$r" "$q")
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
	note="scores equal: $agree; parasail $pfunc"
	[ "$HAVE_PARASAIL" = 1 ] && NOTES="$NOTES- parasail functions tried on $w, one run each: $(paste -sd, "$OUT/$w.probe" | sed 's/,/, /g')"$'\n'

	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "$w" nwalign "$THREADS" "$cells" "$nw_s" "$nw_g" "")"$'\n'
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "$w" parasail "$THREADS" "$cells" "$pa_s" "$pa_g" "$note")"$'\n'
	RESULTS="${RESULTS}result cpu-$w wall_s=$nw_s parasail_s=$pa_s gcups=$nw_g parasail_gcups=$pa_g parasail=$pfunc threads=$THREADS commit=$COMMIT"$'\n'
}

# bench_zip WORKLOAD QUERY REF NWALIGN_OPTS...: one-to-one pairs, nwalign only
bench_zip() {
	local w=$1 q=$2 r=$3 cells nw_cmd nw_s nw_g lines pairs
	shift 3
	cells=$(paste <(gzip -cdf "$q" | awk '/^>/ {if (s != "") print length(s); s = ""; next} {s = s $0} END {print length(s)}') \
		<(gzip -cdf "$r" | awk '/^>/ {if (s != "") print length(s); s = ""; next} {s = s $0} END {print length(s)}') |
		awk '{ c += $1 * $2; n++ } END { printf "%.0f %d\n", c, n }')
	read -r cells pairs <<<"$cells"
	echo "== $w: $pairs one-to-one pairs, $cells cells" >&2
	nw_cmd=("$NWALIGN" -q "$q" -r "$r" --pairs zip "$@" --backend cpu -t "$THREADS" --no-header -v)
	nw_s=$(run_timed "$w-nwalign" "${nw_cmd[@]}")
	lines=$(wc -l <"$OUT/$w-nwalign.out")
	[ "$lines" -eq "$pairs" ] || die "$w: nwalign wrote $lines lines for $pairs pairs"
	nw_g=$(gcups "$cells" "$nw_s")
	NOTES="$NOTES- nwalign -v, $w: \`$(grep '^nwalign: .* pairs' "$OUT/$w-nwalign.err" | tail -n 1)\`"$'\n'
	COMMANDS="$COMMANDS$(quote "${nw_cmd[@]}") > $OUT/$w-nwalign.out"$'\n'
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "$w" nwalign "$THREADS" "$cells" "$nw_s" "$nw_g" "no peer (parasail has no one-to-one pairing)")"$'\n'
	RESULTS="${RESULTS}result cpu-$w gcups=$nw_g wall_s=$nw_s threads=$THREADS commit=$COMMIT"$'\n'
}

# bench_long: the 100 kb pair, global, 1 thread, beside parasail's fastest 32-bit function
bench_long() {
	local d=$OUT/long cells nw_cmd nw_s nw_g pfunc pa_cmd pa_s pa_g nw_score pa_score
	mkdir -p "$d"
	if [ ! -s "$d/a.fa" ] || [ ! -s "$d/b.fa" ]; then
		# awk stops reading early: gzip's broken pipe is expected
		{ gzip -cdf "$GENOME" 2>/dev/null || true; } | awk 'NR > 1 { s = s $0; if (length(s) >= 100000) exit }
			END { print ">ecoli_100k"; print substr(s, 1, 100000) }' >"$d/a.fa"
		awk 'BEGIN { srand(7) } NR == 1 { print ">ecoli_100k_mut"; next }
			{ n = length($0); o = ""
			  for (i = 1; i <= n; i++) { c = substr($0, i, 1); x = rand()
				if (x < 0.02) o = o substr("ACGT", int(rand() * 4) + 1, 1)
				else if (x < 0.025) continue
				else if (x < 0.03) o = o c substr("ACGT", int(rand() * 4) + 1, 1)
				else o = o c }
			  print o }' "$d/a.fa" >"$d/b.fa"
		[ "$(awk '!/^>/ { print length($0) }' "$d/a.fa")" = 100000 ] || die "long: cannot cut 100 kb from $GENOME"
	fi
	cells=$(awk '!/^>/ { l[++k] = length($0) } END { printf "%.0f\n", l[1] * l[2] }' "$d/a.fa" "$d/b.fa")
	echo "== long: one pair, $cells cells, global, 1 thread" >&2
	nw_cmd=("$NWALIGN" -q "$d/b.fa" -r "$d/a.fa" -a dna -m global --match 2 --mismatch 4 --gap-open 4
		--gap-extend 2 --backend cpu -t 1 --no-header -v)
	nw_s=$(run_timed long-nwalign "${nw_cmd[@]}")
	nw_g=$(gcups "$cells" "$nw_s")
	nw_score=$(cut -f 10 "$OUT/long-nwalign.out")
	COMMANDS="$COMMANDS$(quote "${nw_cmd[@]}") > $OUT/long-nwalign.out"$'\n'
	pa_s=NA pa_g=NA pfunc=NA pa_score=NA
	if [ "$HAVE_PARASAIL" = 1 ]; then
		pfunc=$(fastest_parasail long "$PARASAIL_NW_TRY" "-d -M 2 -X 4 -o 6 -e 2" 1 "$d/a.fa" "$d/b.fa")
		pa_cmd=("$PARASAIL_ALIGNER" -x -d -a "$pfunc" -M 2 -X 4 -o 6 -e 2 -t 1 -f "$d/a.fa" -q "$d/b.fa" -g "$OUT/long-parasail.csv")
		pa_s=$(run_timed long-parasail "${pa_cmd[@]}")
		pa_g=$(gcups "$cells" "$pa_s")
		pa_score=$(cut -d, -f 5 "$OUT/long-parasail.csv")
		COMMANDS="$COMMANDS$(quote "${pa_cmd[@]}") 0<&-"$'\n'
		NOTES="$NOTES- parasail functions tried on long, one run each: $(paste -sd, "$OUT/long.probe" | sed 's/,/, /g')"$'\n'
	fi
	# the genome has IUPAC codes (a Y in these 100 kb): nwalign scores every ambiguity code
	# -mismatch, parasail's -d matrix does not, so the scores may differ by a few points
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' long nwalign 1 "$cells" "$nw_s" "$nw_g" "score $nw_score")"$'\n'
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' long parasail 1 "$cells" "$pa_s" "$pa_g" "score $pa_score ($pfunc)")"$'\n'
	RESULTS="${RESULTS}result cpu-long gcups=$nw_g parasail_gcups=$pa_g wall_s=$nw_s parasail_s=$pa_s parasail=$pfunc commit=$COMMIT"$'\n'
}

# bench_search: protein as a search, each query's best reference: nwalign --top 1 beside
# ssearch36 (when installed)
bench_search() {
	local cells nw_cmd nw_s nw_g ss_cmd ss_s=NA ss_g=NA agree=NA
	cells=$(awk -v a="$(count_seqs "$PROT_Q" | cut -d' ' -f2)" -v b="$(count_seqs "$PROT_R" | cut -d' ' -f2)" 'BEGIN { printf "%.0f\n", a * b }')
	echo "== search: protein, each query's best reference, $cells cells" >&2
	nw_cmd=("$NWALIGN" -q "$PROT_Q" -r "$PROT_R" -a protein -m local --matrix blosum62 --gap-open 10
		--gap-extend 1 --top 1 --backend cpu -t "$THREADS" --no-header -v)
	nw_s=$(run_timed search-nwalign "${nw_cmd[@]}")
	nw_g=$(gcups "$cells" "$nw_s")
	COMMANDS="$COMMANDS$(quote "${nw_cmd[@]}") > $OUT/search-nwalign.out"$'\n'
	if command -v "$SSEARCH" >/dev/null 2>&1; then
		ss_cmd=("$SSEARCH" -q -b 50 -d 0 -E 100000 -z 3 -T "$THREADS" -s BL62 -f -10 -g -1 "$PROT_Q" "$PROT_R")
		ss_s=$(run_timed search-ssearch "${ss_cmd[@]}")
		ss_g=$(gcups "$cells" "$ss_s")
		COMMANDS="$COMMANDS$(quote "${ss_cmd[@]}") > $OUT/search-ssearch.out"$'\n'
		# ssearch's list of best scores of each query (">>>" opens a query): its highest
		# s-w against nwalign's top score (column 10)
		agree=$(awk '
			/>>>/ { sub(/^ *[0-9]+>>>/, ""); q = $1; t = 0; next }
			/^The best scores are/ { t = 1; next }
			t && $0 !~ /[(] *[0-9]+[)] +[0-9]+ +[0-9.]+ +[-0-9.e]+$/ { t = 0 }
			t { sw = $(NF - 2); if (!(q in best) || sw > best[q]) best[q] = sw }
			END { for (q in best) print q "\t" best[q] }' "$OUT/search-ssearch.out" |
			awk -F'\t' 'FNR == NR { b[$1] = $2; next } { n++; same += ($1 in b) && b[$1] == $10 }
				END { printf "%d/%d\n", same, n }' - "$OUT/search-nwalign.out")
	else
		echo "cpu_bench: $SSEARCH not found (Debian: apt-get install fasta3): search timed for nwalign only" >&2
	fi
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' search nwalign "$THREADS" "$cells" "$nw_s" "$nw_g" "--top 1")"$'\n'
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' search ssearch36 "$THREADS" "$cells" "$ss_s" "$ss_g" "best scores equal: $agree")"$'\n'
	RESULTS="${RESULTS}result cpu-search wall_s=$nw_s ssearch_s=$ss_s best_scores_equal=$agree threads=$THREADS commit=$COMMIT"$'\n'
	# the same search with a database twice the memory allowed, read in 2 partitions
	# (--max-memory: 3 bytes a residue): its wall time, its output against the in-memory
	# one, both max RSS
	local residues mem pt_s pt_g same rss_mem=NA rss_pt=NA
	residues=$(count_seqs "$PROT_R" | cut -d' ' -f2)
	mem=$((residues * 3 / 2))
	pt_s=$(run_timed search-part "${nw_cmd[@]}" --max-memory "$mem")
	pt_g=$(gcups "$cells" "$pt_s")
	COMMANDS="$COMMANDS$(quote "${nw_cmd[@]}" --max-memory "$mem") > $OUT/search-part.out"$'\n'
	cmp -s "$OUT/search-nwalign.out" "$OUT/search-part.out" && same=yes || same=no
	if [ -x /usr/bin/time ]; then
		rss_mem=$(/usr/bin/time -f %M "${nw_cmd[@]}" 2>&1 >/dev/null 0<&- | tail -n 1)
		rss_pt=$(/usr/bin/time -f %M "${nw_cmd[@]}" --max-memory "$mem" 2>&1 >/dev/null 0<&- | tail -n 1)
	fi
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' search-part nwalign "$THREADS" "$cells" "$pt_s" "$pt_g" "--top 1 --max-memory $mem: $(grep -o '[0-9][0-9]* partitions aligned' "$OUT/search-part.err" | head -n 1); output equal to in memory: $same; max RSS $rss_pt KB (in memory $rss_mem KB)")"$'\n'
	RESULTS="${RESULTS}result cpu-search-part wall_s=$pt_s in_memory_wall_s=$nw_s same_output=$same max_rss_kb=$rss_pt in_memory_max_rss_kb=$rss_mem threads=$THREADS commit=$COMMIT"$'\n'
}

COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	DIRTY=" (working tree has uncommitted changes)"
fi

if want protein; then
	bench protein "$PROT_Q" "$PROT_R" "$PARASAIL_SW_TRY" "-m blosum62 -o 11 -e 1" \
		-a protein -m local --matrix blosum62 --gap-open 10 --gap-extend 1
	bench_search
fi
if want dna; then
	bench dna "$DNA_Q" "$DNA_R" "$PARASAIL_SG" "-d -M 2 -X 4 -o 6 -e 2" \
		-a dna -m semiglobal --match 2 --mismatch 4 --gap-open 4 --gap-extend 2
fi
if want B; then
	for m in global local; do
		bench_zip "B-$m" "$B_Q" "$B_R" -a dna -m "$m" --match 2 --mismatch 4 --gap-open 4 --gap-extend 2
	done
	bench_zip B-local-c "$B_Q" "$B_R" -a dna -m local -c --match 2 --mismatch 4 --gap-open 4 --gap-extend 2
	# the floor: decompressing both inputs (one thread, as the reader does each file) and
	# writing B-local-c's output bytes
	b_floor=$(run_timed B-floor sh -c "gzip -cd '$B_Q' '$B_R' >/dev/null && cat '$OUT/B-local-c-nwalign.out' >'$OUT/B-floor.copy'")
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' B-floor gzip+cat 1 - "$b_floor" - "reading both inputs, writing B-local-c's output")"$'\n'
	RESULTS="${RESULTS}result cpu-B-floor wall_s=$b_floor commit=$COMMIT"$'\n'
fi
if want long; then
	bench_long
fi

# ---------------------------------------------------------------- E-cpu
# name TAB sequence, one line per FASTA record (simreads wraps lines)
fasta_lines() { awk '/^>/ {if (n != "") print n "\t" s; n = substr($1, 2); s = ""; next} {s = s $0} END {if (n != "") print n "\t" s}' "$1"; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0 && t != "NA") printf "%.2f\n", n / t; else print "NA" }'; }
WFA2_NOTE=
bench_e_cpu() {
	local n=$E_CPU_READS d=$OUT/E-cpu sim_args cells
	mkdir -p "$d"
	# the inputs, kept while $d/sim.cmd holds the same arguments
	sim_args="-n $n -l 10000 -L 10000 -e 0.05 -E 0.15 -w 0.05 -s 1"
	if [ ! -s "$d/reads.fa" ] || [ ! -s "$d/windows.fa" ] || [ ! -s "$d/pairs.seq" ] ||
		[ "$(cat "$d/sim.cmd" 2>/dev/null)" != "$sim_args" ]; then
		echo "== E-cpu inputs: $SIMREADS -g $GENOME $sim_args" >&2
		# shellcheck disable=SC2086
		"$SIMREADS" -g "$GENOME" $sim_args -r "$d/sim_reads.fa" -t "$d/sim_windows.fa" || die "E-cpu: tests/simreads failed"
		# reads of the reverse strand reverse-complemented; one line per sequence
		paste <(fasta_lines "$d/sim_reads.fa") <(fasta_lines "$d/sim_windows.fa") | awk -F'\t' '
			BEGIN { c["A"] = "T"; c["C"] = "G"; c["G"] = "C"; c["T"] = "A" }
			{
				q = $2
				if ($1 ~ /^sim[0-9]+_-_/) {
					r = ""
					for (i = length(q); i > 0; i--) { x = substr(q, i, 1); r = r ((x in c) ? c[x] : x) }
					q = r
				}
				print ">" $1 "\n" q > R
				print ">" $3 "\n" $4 > W
				print ">" q "\n<" $4 > S
			}' R="$d/reads.fa" W="$d/windows.fa" S="$d/pairs.seq"
		rm -f "$d/sim_reads.fa" "$d/sim_windows.fa"
		echo "$sim_args" >"$d/sim.cmd"
	fi
	cells=$(awk '/^>/ {next} {if (FNR % 2 == 0) l[++k] = length($0)} END {for (i = 1; i <= k / 2; i++) s += l[i] * l[i + k / 2]; printf "%.0f\n", s}' "$d/reads.fa" "$d/windows.fa")
	echo "== E-cpu: $n reads of 10 kb against 11 kb windows, semiglobal with paths, $cells cells" >&2

	local nw_args nw_cmd m0_cmd nw_s m0_s nw_g m0_g nw_rps m0_rps lines
	nw_args=(-q "$d/reads.fa" -r "$d/windows.fa" --pairs zip -m semiglobal -f paf --backend cpu -t "$THREADS" -v)
	nw_cmd=("$NWALIGN" "${nw_args[@]}")
	m0_cmd=("$NWALIGN" "${nw_args[@]}" --match 0 --mismatch 4 --gap-open 4 --gap-extend 2)
	nw_s=$(run_timed E-cpu-nwalign "${nw_cmd[@]}")
	lines=$(wc -l <"$OUT/E-cpu-nwalign.out")
	[ "$lines" -eq "$n" ] || die "E-cpu: nwalign wrote $lines records for $n pairs"
	m0_s=$(run_timed E-cpu-m0-nwalign "${m0_cmd[@]}")
	lines=$(wc -l <"$OUT/E-cpu-m0-nwalign.out")
	[ "$lines" -eq "$n" ] || die "E-cpu-m0: nwalign wrote $lines records for $n pairs"
	nw_g=$(gcups "$cells" "$nw_s")
	m0_g=$(gcups "$cells" "$m0_s")
	nw_rps=$(rate "$n" "$nw_s")
	m0_rps=$(rate "$n" "$m0_s")
	NOTES="$NOTES- nwalign -v, E-cpu: \`$(grep '^nwalign: .* pairs' "$OUT/E-cpu-nwalign.err" | tail -n 1)\`"$'\n'
	NOTES="$NOTES- nwalign -v, E-cpu-m0: \`$(grep '^nwalign: .* pairs' "$OUT/E-cpu-m0-nwalign.err" | tail -n 1)\`"$'\n'
	COMMANDS="$COMMANDS$(quote "${nw_cmd[@]}") > $OUT/E-cpu-nwalign.out"$'\n'
	COMMANDS="$COMMANDS$(quote "${m0_cmd[@]}") > $OUT/E-cpu-m0-nwalign.out"$'\n'

	local wf_cmd wf_s=NA wf_g=NA wf_rps=NA speed=NA agree=NA
	if [ -z "$WFA2" ]; then
		WFA2_NOTE="WFA2: not run (set WFA2 to its bin/align_benchmark)"
	else
		# shellcheck disable=SC2054
		wf_cmd=("$WFA2" -a gap-affine-wfa -i "$d/pairs.seq" --affine-penalties 0,4,4,2
			--wfa-span ends-free,0,0,1.0,1.0 --wfa-memory "$WFA2_MEMORY" -t "$THREADS"
			--output-full "$OUT/E-cpu-wfa2.txt")
		# a probe on the first pair: a build without BUILD_WFA_PARALLEL=1 refuses -t > 1
		head -n 2 "$d/pairs.seq" >"$d/probe.seq"
		if ! "$WFA2" -a gap-affine-wfa -i "$d/probe.seq" --affine-penalties 0,4,4,2 \
			--wfa-span ends-free,0,0,1.0,1.0 --wfa-memory "$WFA2_MEMORY" -t "$THREADS" \
			--output-full "$d/probe.txt" >"$d/probe.err" 2>&1 0<&-; then
			WFA2_NOTE="WFA2: skipped ($WFA2 fails: $(grep -v '^$' "$d/probe.err" | head -n 1))"
			echo "cpu_bench: $WFA2_NOTE" >&2
		else
			wf_s=$(run_timed E-cpu-wfa2 "${wf_cmd[@]}")
			lines=$(wc -l <"$OUT/E-cpu-wfa2.txt")
			[ "$lines" -eq "$n" ] || die "E-cpu: WFA2 wrote $lines results for $n pairs"
			wf_g=$(gcups "$cells" "$wf_s")
			wf_rps=$(rate "$n" "$wf_s")
			speed=$(awk -v a="$m0_rps" -v b="$wf_rps" 'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "NA" }')
			# WFA2 --output-full: plen, tlen, score, pattern, text, CIGAR; the score is the
			# CIGAR's, whose leading and trailing insertion runs are the free window
			# overhangs: add their 4 + 2L back, then match the pair by its read
			agree=$(awk -F'\t' '
				FILENAME == ARGV[1] { if (FNR % 2) pair[substr($0, 2)] = (FNR + 1) / 2; next }
				FILENAME == ARGV[2] {
					s = $3 + 0; c = $6
					if (match(c, /^[0-9]+I/)) s += 4 + 2 * substr(c, 1, RLENGTH - 1)
					if (match(c, /[0-9]+I$/)) s += 4 + 2 * substr(c, RSTART, RLENGTH - 1)
					if ($4 in pair) wfa[pair[$4]] = s
					next
				}
				{
					for (i = 13; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6)
					if ((FNR in wfa) && wfa[FNR] == as) same++
				}
				END { printf "%d/%d\n", same, FNR }' "$d/pairs.seq" "$OUT/E-cpu-wfa2.txt" "$OUT/E-cpu-m0-nwalign.out")
			COMMANDS="$COMMANDS$(quote "${wf_cmd[@]}") 0<&-"$'\n'
			WFA2_NOTE="WFA2: $WFA2 ($(cat "$(dirname "$(dirname "$WFA2")")/VERSION.txt" 2>/dev/null || echo "version unknown"); gap-affine-wfa, --wfa-memory $WFA2_MEMORY)"
		fi
	fi
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' E-cpu nwalign "$THREADS" "$cells" "$nw_s" "$nw_g" "$nw_rps reads/s, match 2")"$'\n'
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' E-cpu-m0 nwalign "$THREADS" "$cells" "$m0_s" "$m0_g" "$m0_rps reads/s, match 0")"$'\n'
	ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' E-cpu-m0 wfa2 "$THREADS" "$cells" "$wf_s" "$wf_g" "$wf_rps reads/s, match 0; scores equal: $agree")"$'\n'
	RESULTS="${RESULTS}result E-cpu reads_per_s=$nw_rps peer_reads_per_s=$wf_rps speedup=$speed m0_reads_per_s=$m0_rps peer_scores_equal=$agree peer=wfa2-$WFA2_MEMORY threads=$THREADS reads=$n commit=$COMMIT"$'\n'
}
if want E-cpu; then
	bench_e_cpu
fi

# L-cpu: the three error levels of L, scores and exact paths (see the top of this file)
bench_l_cpu() {
	local level name lo hi d args n cells base s_s p_s agree
	for level in lo:0.01:0.03 mid:0.03:0.06 hi:0.05:0.15; do
		IFS=: read -r name lo hi <<<"$level"
		d=$OUT/L-cpu-$name
		args="-n $L_CPU_PAIRS -l 10000 -L 10000 -e $lo -E $hi -w 0 -S + -s 1"
		mkdir -p "$d"
		if [ ! -s "$d/reads.fa" ] || [ "$(cat "$d/sim.cmd" 2>/dev/null)" != "$args" ]; then
			# shellcheck disable=SC2086
			"$SIMREADS" -g "$GENOME" $args -r "$d/reads.fa" -t "$d/windows.fa" ||
				die "L-cpu-$name: tests/simreads failed"
			echo "$args" >"$d/sim.cmd"
		fi
		n=$(grep -c '^>' "$d/reads.fa")
		cells=$(paste <(fasta_lines "$d/reads.fa") <(fasta_lines "$d/windows.fa") |
			awk -F'\t' '{ s += length($2) * length($4) } END { printf "%.0f\n", s }')
		echo "== L-cpu-$name: $n global pairs of 10 kb, $cells cells" >&2
		base=(-q "$d/reads.fa" -r "$d/windows.fa" --pairs zip -m global --match 0 --mismatch 4
		      --gap-open 6 --gap-extend 2 --backend cpu -t "$THREADS" -v)
		s_s=$(run_timed "L-cpu-$name-score" "$NWALIGN" "${base[@]}" --no-header)
		p_s=$(run_timed "L-cpu-$name-paf" "$NWALIGN" "${base[@]}" -f paf)
		agree=$(awk -F'\t' 'FILENAME == ARGV[1] { score[FNR] = $10; next }
			{ for (i = 13; i <= NF; i++) if ($i ~ /^AS:i:/ && substr($i, 6) == score[FNR]) same++ }
			END { printf "%d/%d\n", same, FNR }' "$OUT/L-cpu-$name-score.out" "$OUT/L-cpu-$name-paf.out")
		COMMANDS="$COMMANDS$(quote "$NWALIGN" "${base[@]}" --no-header) > $OUT/L-cpu-$name-score.out"$'\n'
		COMMANDS="$COMMANDS$(quote "$NWALIGN" "${base[@]}" -f paf) > $OUT/L-cpu-$name-paf.out"$'\n'
		NOTES="$NOTES- nwalign -v, L-cpu-$name: \`$(grep -h '^nwalign: cpu: .* pruned' "$OUT/L-cpu-$name-paf.err" | tail -n 1 || true)\`"$'\n'
		ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "L-$name" nwalign "$THREADS" "$cells" "$s_s" "$(gcups "$cells" "$s_s")" "scores")"$'\n'
		ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "L-$name" nwalign "$THREADS" "$cells" "$p_s" "$(gcups "$cells" "$p_s")" "paths, $(rate "$n" "$p_s") pairs/s; AS:i = score: $agree")"$'\n'
		# WFA2-lib beside it: gap-affine WFA, end to end, with CIGARs (its score is minus
		# the distance, nwalign's score under this scoring); results come in the threads'
		# order, matched to the pairs by the read
		local wf_s=NA wf_eq=NA
		if [ -n "$WFA2" ]; then
			paste <(fasta_lines "$d/reads.fa") <(fasta_lines "$d/windows.fa") |
				awk -F'\t' '{print ">" $2; print "<" $4}' >"$d/pairs.seq"
			local wf_cmd=("$WFA2" -a gap-affine-wfa -i "$d/pairs.seq" --affine-penalties 0,4,6,2
				      --wfa-memory "$WFA2_MEMORY" -t "$THREADS" --output-full "$OUT/L-cpu-$name-wfa2.txt")
			wf_s=$(run_timed "L-cpu-$name-wfa2" "${wf_cmd[@]}")
			wf_eq=$(awk -F'\t' '
				FILENAME == ARGV[1] { if (FNR % 2) pair[substr($0, 2)] = (FNR + 1) / 2; next }
				FILENAME == ARGV[2] { if ($4 in pair) wfa[pair[$4]] = $3 + 0; next }
				(FNR in wfa) && wfa[FNR] == $10 { same++ }
				END { printf "%d/%d\n", same, FNR }' "$d/pairs.seq" "$OUT/L-cpu-$name-wfa2.txt" "$OUT/L-cpu-$name-score.out")
			COMMANDS="$COMMANDS$(quote "${wf_cmd[@]}") 0<&-"$'\n'
			WFA2_NOTE="WFA2: $WFA2 ($(cat "$(dirname "$(dirname "$WFA2")")/VERSION.txt" 2>/dev/null || echo "version unknown"); gap-affine-wfa, --wfa-memory $WFA2_MEMORY)"
			ROWS="$ROWS$(printf '%-8s %-9s %7s %15s %9s %9s  %s' "L-$name" wfa2 "$THREADS" "$cells" "$wf_s" "$(gcups "$cells" "$wf_s")" "paths, $(rate "$n" "$wf_s") pairs/s; scores equal: $wf_eq")"$'\n'
		fi
		RESULTS="${RESULTS}result L-cpu-$name wall_s=$p_s score_wall_s=$s_s pairs_per_s=$(rate "$n" "$p_s") scores_equal=$agree peer_wall_s=$wf_s peer_scores_equal=$wf_eq peer=wfa2-$WFA2_MEMORY threads=$THREADS pairs=$n commit=$COMMIT"$'\n'
	done
}
if want L-cpu; then
	bench_l_cpu
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
		echo "- nwalign: $NWVER (--backend cpu, kernels: $("$NWALIGN" -q "$ROOT/data/reads.fq" -r "$ROOT/data/ref.fa" --backend cpu -v 2>&1 >/dev/null | sed -n 's/.*backend cpu (\([^)]*\)).*/\1/p' | head -n 1)); parasail_aligner: $PAVER"
		[ -z "$WFA2_NOTE" ] || echo "- $WFA2_NOTE"
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
