#!/usr/bin/env bash
# bench/run.sh: the GPU workloads of bench/RESULTS.md, run on a machine with an NVIDIA GPU
# after `./configure && make` (nwalign built with CUDA).
#
#   A  protein search: mm_query500 x mm_db20k, local, BLOSUM62, --gap-open 10 --gap-extend 1
#      --top 1 (parasail's and CUDASW++'s 11/1); parasail_aligner beside it, same run
#   B  DNA pairs: pairs20k_query150 with pairs20k_target241, --pairs zip, repeated 50 times
#      (1M pairs), local and global, match 2 mismatch 4, gaps 4/2; B-cigar: local with paths
#      (-c); parasail_aligner sw_trace_striped_16 beside it on 300 x 300 of the same reads,
#      and GASAL2's test program on the same 1M pairs when GASAL2_TEST names it
#   C  one long pair: E. coli DH10B [0, 1 Mb) against a mutated copy (1% substitutions,
#      0.2% indels) and against the unrelated [2, 3 Mb), global and local
#   D  global, linear gaps (--gap-open 0), two random 40,000-base sequences: by default (a
#      small run, on the CPU engine's threads) and with --backend gpu (D-gpu); parasail
#      nw_scan_32 on one core beside it
#   S  protein search at scale: the first 100 queries of mm_query500 against mm_db20k
#      repeated 10 times (A-large: 200k sequences, 90.6M residues) and 50 times (A-50x: 1M
#      sequences, 453M residues), each copy's records renamed (NAME_rK), as A; A-large also
#      with -f blast6 (its paths and E-values); both also from a database made once by
#      nwalign index (A-large-nwdb, A-50x-nwdb; the index's own time on its row); and
#      A-large with --max-memory half its database, read in 2 partitions (A-oversize, from
#      FASTA and from the database), its output checked against A-large's
#   A, A-large and A-50x also run CUDASW++4.0 beside nwalign when CUDASW4 names the folder
#   where its `align` and `makedb` were built (github.com/asbschmidt/CUDASW4, `make align
#   makedb` with -arch=sm_90): makedb once per database (its own row, as nwalign index),
#   then `align --dpx --top 1 --mat blosum62 --gop -11 --gex -1 --tsv --of FILE` on it
#   (its gaps of L cost 11 + (L - 1), nwalign's 10/1), RUNS runs, median kept; each
#   query's best score is compared with nwalign's --top 1 line, and the nwalign row's
#   result line gets peer_wall_s (CUDASW++'s whole command, reading its prebuilt database)
#
# Every nwalign command runs RUNS times (median kept; peak RSS by /usr/bin/time where
# present, the largest of the runs), and once more on one engine (NW_GPU_LANES=1), whose
# -v gives the kernel time (with several engines their kernels overlap and -v sums them),
# so the table has GCUPS over kernel time and over the wall time of the whole command
# (reading FASTA, packing, transfers, writing TSV). Inputs are made by bench/wgen.c with
# fixed seeds.
# B's rows are followed by their floor (run_floor): reading the inputs and writing the
# output's bytes with cat, the least any aligner must spend on this host.
#
# Usage: bench/run.sh [-d DATA] [-n RUNS] [-w WORKLOADS] [-o OUTDIR]
#   -d DIR  folder with mm_query500.fa.gz, mm_db20k.fa.gz, pairs20k_query150.fa.gz,
#           pairs20k_target241.fa.gz, ecoli_dh10b.fa.gz [.gpu, as staged by
#           ../shared/device/stage.sh]
#   -n INT  runs per command [3]
#   -w STR  workloads, any of ABCDS [ABCD]
#   -o DIR  where inputs, outputs and the report go [bench/out]
# The report (a RESULTS.md section ending in `result` lines) is written to OUTDIR/report.md.
# COMMIT=HASH names the commit where the tree has no .git (a copied working tree).
# CUDASW4=DIR: CUDASW++4.0's build folder (see above); unset, no CUDASW++ rows.
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=.gpu
RUNS=3
WHICH=ABCD
OUTDIR=bench/out
NW=${NWALIGN:-./nwalign}
while getopts "d:n:w:o:h" opt; do
	case $opt in
	d) DATA=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	w) WHICH=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	esac
done
mkdir -p "$OUTDIR"
IN=$OUTDIR/inputs
mkdir -p "$IN"
REPORT=$OUTDIR/report.md
TABLE=$OUTDIR/table.txt
THREADS=$(nproc)
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo unknown)
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
cc -O2 -o "$OUTDIR/wgen" bench/wgen.c
# peak RSS of every nwalign run (the largest of a row's runs, max_rss_gb on its result line)
GTIME=
if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then GTIME=/usr/bin/time; fi
WGEN=$OUTDIR/wgen

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f", b - a}'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# cells of all-vs-all or zip pairs, from FASTA lengths
lengths() { gzip -cdf "$1" | awk '/^>/ {if (n) print n; n = 0; next} {n += length($0)} END {if (n) print n}'; }
cells_all() { paste <(lengths "$1" | awk '{s += $1} END {print s}') <(lengths "$2" | awk '{s += $1} END {print s}') | awk '{printf "%.0f\n", $1 * $2}'; }
cells_zip() { paste <(lengths "$1") <(lengths "$2") | awk '{s += $1 * $2} END {printf "%.0f\n", s}'; }

printf '%-10s %-9s %14s %9s %9s %10s %10s %12s\n' workload tool cells wall_s kernel_s GCUPS_kern GCUPS_wall pairs_per_s >"$TABLE"
RESULTS=()

# run_nw NAME CELLS PAIRS ARGS...: RUNS runs of nwalign, medians into the table
run_nw() {
	local name=$1 cells=$2 pairs=$3
	shift 3
	local walls=() t0 t1 rss=0 r
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now)
		if [ -n "$GTIME" ]; then
			"$GTIME" -f %M -o "$OUTDIR/$name.rss" "$NW" "$@" -v >"$OUTDIR/$name.out" 2>"$OUTDIR/$name.err"
		else
			"$NW" "$@" -v >"$OUTDIR/$name.out" 2>"$OUTDIR/$name.err"
		fi
		t1=$(now)
		walls+=("$(elapsed "$t0" "$t1")")
		r=$([ -n "$GTIME" ] && tail -n 1 "$OUTDIR/$name.rss")
		[ "${r:-0}" -gt "$rss" ] 2>/dev/null && rss=$r
	done
	# the kernels' time from a run on one engine: with several (src/pipeline/gpu_lanes.c)
	# their kernels overlap, and -v sums them
	NW_GPU_LANES=1 "$NW" "$@" -v >/dev/null 2>"$OUTDIR/$name.err1"
	local wall kern gk gw pps
	kern=$(sed -n 's/.*gpu kernels \([0-9.]*\) s.*/\1/p' "$OUTDIR/$name.err1" | tail -n 1)
	kern=${kern:-NA}
	wall=$(printf '%s\n' "${walls[@]}" | median)
	gw=$(awk -v c="$cells" -v t="$wall" 'BEGIN {printf "%.1f", c / t / 1e9}')
	gk=NA
	[ "$kern" != NA ] && gk=$(awk -v c="$cells" -v t="$kern" 'BEGIN {printf "%.1f", (t > 0 ? c / t / 1e9 : 0)}')
	pps=$(awk -v p="$pairs" -v t="$wall" 'BEGIN {printf "%.0f", p / t}')
	printf '%-10s %-9s %14s %9.3f %9s %10s %10s %12s\n' "$name" nwalign "$cells" "$wall" "$kern" "$gk" "$gw" "$pps" >>"$TABLE"
	local rss_gb=
	[ "$rss" -gt 0 ] && rss_gb=" max_rss_gb=$(awk -v k="$rss" 'BEGIN {printf "%.2f", k / 1048576}')"
	RESULTS+=("result $name gcups=$gk wall_gcups=$gw wall_s=$wall pairs_per_s=$pps$rss_gb gpu=\"$GPU\" commit=$COMMIT")
	echo "$name: wall ${walls[*]} kernel $kern" >&2
}

# run_floor NAME OUTPUT INPUTS...: the floor of a command, the median over RUNS of the time
# to read its inputs (cat > /dev/null) plus the time to write its output's bytes again (cat
# into a file beside it): what no aligner can beat on this host. After run_nw NAME.
run_floor() {
	local name=$1 out=$2 t0 t1 t2 reads=() writes=()
	shift 2
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now)
		cat "$@" >/dev/null
		t1=$(now)
		cat "$out" >"$OUTDIR/floor.copy"
		t2=$(now)
		reads+=("$(elapsed "$t0" "$t1")")
		writes+=("$(elapsed "$t1" "$t2")")
	done
	rm -f "$OUTDIR/floor.copy"
	local r w
	r=$(printf '%s\n' "${reads[@]}" | median)
	w=$(printf '%s\n' "${writes[@]}" | median)
	printf '%-10s %-9s %14s %9.3f %9s %10s %10s %12s\n' "$name" floor - "$(awk -v r="$r" -v w="$w" 'BEGIN {print r + w}')" - - - - >>"$TABLE"
	RESULTS+=("result $name-floor floor_s=$(awk -v r="$r" -v w="$w" 'BEGIN {printf "%.4f", r + w}') read_s=$r write_s=$w commit=$COMMIT")
}

# run_peer NAME TOOL CELLS THREADS COMMAND...: a timed run of a peer (PEER_RUNS runs, the
# median kept; one by default); PEER_WALL: that median, empty when the peer failed
run_peer() {
	local name=$1 tool=$2 cells=$3 threads=$4 t0 t1 wall gw walls=() k
	shift 4
	PEER_WALL=
	for ((k = 0; k < ${PEER_RUNS:-1}; k++)); do
		t0=$(now)
		if ! "$@" >"$OUTDIR/$name.$tool.out" 2>"$OUTDIR/$name.$tool.err" 0<&-; then
			echo "$name $tool: failed, left out: $(grep -v '^$' "$OUTDIR/$name.$tool.err" | head -n 1)" >&2
			printf '%-10s %-9s %14s %9s %9s %10s %10s %12s\n' "$name" "$tool" "$cells" failed - - - - >>"$TABLE"
			return 0
		fi
		t1=$(now)
		walls+=("$(elapsed "$t0" "$t1")")
	done
	wall=$(printf '%s\n' "${walls[@]}" | median)
	gw=$(awk -v c="$cells" -v t="$wall" 'BEGIN {printf "%.1f", c / t / 1e9}')
	printf '%-10s %-9s %14s %9.3f %9s %10s %10s %12s\n' "$name" "$tool" "$cells" "$wall" - - "$gw" - >>"$TABLE"
	RESULTS+=("result $name-$tool wall_gcups=$gw wall_s=$wall threads=$threads commit=$COMMIT")
	PEER_WALL=$wall
}

# tophits NAME PEER LABEL: each query's best score by a peer (OUTDIR/NAME.PEER.top, lines
# "query score", queries from 0) against column 10 of nwalign's --top 1 line for that query
# (OUTDIR/NAME.out): a result line, and the first queries that differ
tophits() {
	local name=$1 peer=$2 label=$3 eq nq
	awk -F'\t' '{print NR - 1, $10}' "$OUTDIR/$name.out" >"$OUTDIR/$name.nwalign.top"
	eq=$(awk 'NR == FNR {best[$1] = $2; next} ($1 in best) && best[$1] == $2' \
		"$OUTDIR/$name.$peer.top" "$OUTDIR/$name.nwalign.top" | wc -l)
	nq=$(wc -l <"$OUTDIR/$name.nwalign.top")
	RESULTS+=("result $name-tophits equal=$eq queries=$nq peer=$label commit=$COMMIT")
	echo "$name top-hit scores equal to $label's: $eq of $nq queries" >&2
	awk -v p="$label" 'NR == FNR {best[$1] = $2; next}
		!($1 in best) || best[$1] != $2 {print "  query " $1 ": nwalign " $2 ", " p " " (($1 in best) ? best[$1] : "none")}' \
		"$OUTDIR/$name.$peer.top" "$OUTDIR/$name.nwalign.top" | head -n 5 >&2
}

# run_cudasw NAME CELLS QUERIES DB_FASTA: CUDASW++4.0 beside nwalign's row NAME (when
# CUDASW4 is set): its database made once (timed once), RUNS runs of align, the top-hit
# scores against nwalign's NAME.out, and peer_wall_s on NAME's result line
run_cudasw() {
	local name=$1 cells=$2 q=$3 dbfa=$4 t0 t1
	[ -n "${CUDASW4:-}" ] && [ -x "$CUDASW4/align" ] && [ -x "$CUDASW4/makedb" ] || return 0
	mkdir -p "$IN/cudasw"
	t0=$(now)
	if ! "$CUDASW4/makedb" "$dbfa" "$IN/cudasw/$name" >"$OUTDIR/$name.makedb.err" 2>&1; then
		echo "$name cudasw4: makedb failed, left out: $(tail -n 1 "$OUTDIR/$name.makedb.err")" >&2
		return 0
	fi
	t1=$(now)
	printf '%-10s %-9s %14s %9.3f %9s %10s %10s %12s\n' "$name-makedb" cudasw4 - "$(elapsed "$t0" "$t1")" - - - - >>"$TABLE"
	RESULTS+=("result $name-cudasw4-makedb wall_s=$(elapsed "$t0" "$t1") commit=$COMMIT")
	PEER_RUNS=$RUNS run_peer "$name" cudasw4 "$cells" "$THREADS" "$CUDASW4/align" --dpx --top 1 --mat blosum62 \
		--gop -11 --gex -1 --tsv --of "$OUTDIR/$name.cudasw4.tsv" --query "$q" --db "$IN/cudasw/$name"
	[ -n "$PEER_WALL" ] && [ -s "$OUTDIR/$name.cudasw4.tsv" ] || return 0 # run_peer said why
	# CUDASW++'s TSV (--of; its progress goes to standard output): query number, query
	# length, header, result number, score, ...
	awk -F'\t' '$1 ~ /^[0-9]+$/ && $4 == 0 {print $1, $5}' "$OUTDIR/$name.cudasw4.tsv" >"$OUTDIR/$name.cudasw4.top"
	tophits "$name" cudasw4 cudasw4
	local k
	for k in "${!RESULTS[@]}"; do
		case ${RESULTS[$k]} in
		"result $name gcups="*) RESULTS[$k]="${RESULTS[$k]/ gpu=/ peer_wall_s=$PEER_WALL peer=cudasw4 gpu=}" ;;
		esac
	done
}

if [[ $WHICH == *A* ]]; then
	q=$DATA/mm_query500.fa.gz db=$DATA/mm_db20k.fa.gz
	cells=$(cells_all "$q" "$db")
	run_nw A "$cells" 500 -q "$q" -r "$db" -m local --matrix blosum62 --gap-open 10 --gap-extend 1 --top 1 --no-header
	if command -v parasail_aligner >/dev/null; then
		gzip -cd "$q" >"$IN/A_q.fa"
		gzip -cd "$db" >"$IN/A_db.fa"
		run_peer A parasail "$cells" "$THREADS" parasail_aligner -x -a sw_striped_16 -m blosum62 -o 11 -e 1 \
			-t "$THREADS" -f "$IN/A_db.fa" -q "$IN/A_q.fa" -g "$OUTDIR/A.parasail.csv"
		# top-hit scores: each query's best score in parasail's CSV (query index, reference
		# index, lengths, score, ...) against nwalign's --top 1 line of that query
		if [ -s "$OUTDIR/A.parasail.csv" ]; then
			awk -F, '!($1 in m) || $5 > m[$1] {m[$1] = $5} END {for (q in m) print q, m[q]}' \
				"$OUTDIR/A.parasail.csv" >"$OUTDIR/A.parasail.top"
			tophits A parasail parasail_sw_striped_16
		fi
	fi
	if [ -n "${CUDASW4:-}" ]; then
		[ -s "$IN/A_db.fa" ] || gzip -cd "$db" >"$IN/A_db.fa"
		run_cudasw A "$cells" "$q" "$IN/A_db.fa"
	fi
fi

if [[ $WHICH == *S* ]]; then
	gzip -cd "$DATA/mm_query500.fa.gz" | awk '/^>/ {n++} n <= 100' >"$IN/S_q100.fa"
	for k in 10 50; do
		[ -s "$IN/S_db$k.fa" ] || gzip -cd "$DATA/mm_db20k.fa.gz" | awk -v k="$k" '{l[NR] = $0}
			END {for (r = 1; r <= k; r++) for (i = 1; i <= NR; i++) {s = l[i]; if (s ~ /^>/) sub(/^>[^ \t]*/, "&_r" r, s); print s}}' \
			>"$IN/S_db$k.fa"
	done
	for k in 10 50; do
		name=A-large
		[ "$k" = 50 ] && name=A-50x
		cells=$(cells_all "$IN/S_q100.fa" "$IN/S_db$k.fa")
		run_nw "$name" "$cells" $((100 * 20000 * k)) -q "$IN/S_q100.fa" -r "$IN/S_db$k.fa" -m local \
			--matrix blosum62 --gap-open 10 --gap-extend 1 --top 1 --no-header
		run_cudasw "$name" "$cells" "$IN/S_q100.fa" "$IN/S_db$k.fa"
		[ "$k" = 10 ] && run_nw A-large-blast6 "$cells" $((100 * 20000 * k)) -q "$IN/S_q100.fa" \
			-r "$IN/S_db$k.fa" -m local --matrix blosum62 --gap-open 10 --gap-extend 1 --top 1 -f blast6
		# the same database packed once by nwalign index (made once, timed once)
		t0=$(now)
		"$NW" index -o "$IN/S_db$k.nwdb" "$IN/S_db$k.fa"
		t1=$(now)
		printf '%-10s %-9s %14s %9.3f %9s %10s %10s %12s\n' "$name-index" nwalign - "$(elapsed "$t0" "$t1")" - - - - >>"$TABLE"
		RESULTS+=("result $name-index wall_s=$(elapsed "$t0" "$t1") commit=$COMMIT")
		run_nw "$name-nwdb" "$cells" $((100 * 20000 * k)) -q "$IN/S_q100.fa" -r "$IN/S_db$k.nwdb" -m local \
			--matrix blosum62 --gap-open 10 --gap-extend 1 --top 1 --no-header
		cmp -s "$OUTDIR/$name.out" "$OUTDIR/$name-nwdb.out" || echo "$name: the database's output differs from the FASTA's" >&2
	done
	# A-oversize: A-large's database twice the memory allowed (--max-memory: half of 3 bytes
	# a FASTA residue, half of the database file), read in 2 partitions, from FASTA and
	# from its nwalign database; the rate against A-large's in memory, the output the same
	res=$(awk '!/^>/ {n += length($0)} END {print n}' "$IN/S_db10.fa")
	cells=$(cells_all "$IN/S_q100.fa" "$IN/S_db10.fa")
	for src in fa nwdb; do
		name=A-oversize
		mem=$((res * 3 / 2))
		[ "$src" = nwdb ] && name=A-oversize-nwdb && mem=$(($(stat -c %s "$IN/S_db10.nwdb") / 2))
		run_nw "$name" "$cells" $((100 * 20000 * 10)) -q "$IN/S_q100.fa" -r "$IN/S_db10.$src" -m local \
			--matrix blosum62 --gap-open 10 --gap-extend 1 --top 1 --no-header --max-memory "$mem"
		cmp -s "$OUTDIR/A-large.out" "$OUTDIR/$name.out" || echo "$name: the output differs from A-large's in memory" >&2
		grep -h "partitions" "$OUTDIR/$name.err" >&2 || echo "$name: not read in partitions" >&2
	done
fi

if [[ $WHICH == *B* ]]; then
	: >"$IN/B_q.fa"
	: >"$IN/B_t.fa"
	for ((i = 0; i < 50; i++)); do
		gzip -cd "$DATA/pairs20k_query150.fa.gz" >>"$IN/B_q.fa"
		gzip -cd "$DATA/pairs20k_target241.fa.gz" >>"$IN/B_t.fa"
	done
	cells=$(cells_zip "$IN/B_q.fa" "$IN/B_t.fa")
	for mode in local global; do
		run_nw "B-$mode" "$cells" 1000000 -q "$IN/B_q.fa" -r "$IN/B_t.fa" --pairs zip -m "$mode" \
			--match 2 --mismatch 4 --gap-open 4 --gap-extend 2 --no-header -o "$OUTDIR/B-$mode.tsv"
		run_floor "B-$mode" "$OUTDIR/B-$mode.tsv" "$IN/B_q.fa" "$IN/B_t.fa"
	done
	# with paths: the score passes, then full tracebacks on the GPU (kernel GCUPS are cells of
	# the pairs over the time of all kernels: GCUPS-equivalent)
	run_nw B-cigar "$cells" 1000000 -q "$IN/B_q.fa" -r "$IN/B_t.fa" --pairs zip -m local -c \
		--match 2 --mismatch 4 --gap-open 4 --gap-extend 2 --no-header -o "$OUTDIR/B-cigar.tsv"
	run_floor B-cigar "$OUTDIR/B-cigar.tsv" "$IN/B_q.fa" "$IN/B_t.fa"
	# GASAL2's test program on the same 1M pairs (GASAL2_TEST: its test_prog.out, built with
	# MAX_QUERY_LEN=160 N_CODE=0x4E for the GPU), one CPU thread a core; its -q 4 -r 2 is our
	# gap open 4 extend 2 (a gap of L costs 4 + 2L); B-cigar's peer computes starts and
	# tracebacks (-t)
	if [ -n "${GASAL2_TEST:-}" ] && [ -x "$GASAL2_TEST" ]; then
		G=(-a 2 -b 4 -q 4 -r 2 -n "$THREADS")
		PEER_RUNS=$RUNS run_peer B-global gasal2 "$cells" "$THREADS" "$GASAL2_TEST" "${G[@]}" -y global "$IN/B_q.fa" "$IN/B_t.fa"
		PEER_RUNS=$RUNS run_peer B-local gasal2 "$cells" "$THREADS" "$GASAL2_TEST" "${G[@]}" -y local "$IN/B_q.fa" "$IN/B_t.fa"
		PEER_RUNS=$RUNS run_peer B-cigar gasal2 "$cells" "$THREADS" "$GASAL2_TEST" "${G[@]}" -y local -t "$IN/B_q.fa" "$IN/B_t.fa"
	fi
	if command -v parasail_aligner >/dev/null; then
		# parasail_aligner aligns all against all: the first 300 queries against the first 300
		# targets (90,000 pairs of the same lengths), local with traceback, 16-bit striped;
		# its open 6 is our open 4 plus the first extension 2
		gzip -cd "$DATA/pairs20k_query150.fa.gz" | awk '/^>/ {k++} k <= 300' >"$IN/Bs_q.fa"
		gzip -cd "$DATA/pairs20k_target241.fa.gz" | awk '/^>/ {k++} k <= 300' >"$IN/Bs_t.fa"
		run_peer B-cigar parasail "$(cells_all "$IN/Bs_q.fa" "$IN/Bs_t.fa")" "$THREADS" parasail_aligner -x \
			-a sw_trace_striped_16 -d -M 2 -X 4 -o 6 -e 2 -t "$THREADS" -O SSW -f "$IN/Bs_t.fa" \
			-q "$IN/Bs_q.fa" -g "$OUTDIR/B-cigar.parasail.ssw"
	fi
fi

if [[ $WHICH == *C* ]]; then
	gzip -cd "$DATA/ecoli_dh10b.fa.gz" | "$WGEN" cut 0 1000000 ecoli_0_1M >"$IN/C_a.fa"
	"$WGEN" mutate 11 0.01 0.002 ecoli_0_1M_mut <"$IN/C_a.fa" >"$IN/C_mut.fa"
	gzip -cd "$DATA/ecoli_dh10b.fa.gz" | "$WGEN" cut 2000000 1000000 ecoli_2M_3M >"$IN/C_b.fa"
	for mode in global local; do
		run_nw "C-$mode-mut" "$(cells_all "$IN/C_a.fa" "$IN/C_mut.fa")" 1 -q "$IN/C_mut.fa" -r "$IN/C_a.fa" -m "$mode" --no-header
		run_nw "C-$mode-unrel" "$(cells_all "$IN/C_a.fa" "$IN/C_b.fa")" 1 -q "$IN/C_b.fa" -r "$IN/C_a.fa" -m "$mode" --no-header
	done
fi

if [[ $WHICH == *D* ]]; then
	"$WGEN" random 40000 1 D_a >"$IN/D_a.fa"
	"$WGEN" random 40000 2 D_b >"$IN/D_b.fa"
	cells=$(cells_all "$IN/D_a.fa" "$IN/D_b.fa")
	# --backend auto sends this run to the CPU engine (a small run: README); D-gpu is the GPU
	run_nw D "$cells" 1 -q "$IN/D_a.fa" -r "$IN/D_b.fa" -m global --match 1 --mismatch 1 --gap-open 0 --gap-extend 1 --no-header
	run_nw D-gpu "$cells" 1 -q "$IN/D_a.fa" -r "$IN/D_b.fa" -m global --match 1 --mismatch 1 --gap-open 0 --gap-extend 1 --no-header --backend gpu
	cmp -s "$OUTDIR/D.out" "$OUTDIR/D-gpu.out" || echo "D: the GPU's output differs from the CPU's" >&2
	if command -v parasail_aligner >/dev/null; then
		run_peer D parasail "$cells" 1 parasail_aligner -x -a nw_scan_32 -M 1 -X 1 -o 1 -e 1 -d -t 1 \
			-f "$IN/D_b.fa" -q "$IN/D_a.fa" -g "$OUTDIR/D.parasail.csv"
	fi
fi

{
	echo "## $(date -u '+%Y-%m-%d %H:%M') UTC, GPU workloads, commit $COMMIT"
	echo
	echo "- GPU: $GPU; host: $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | head -n 1))"
	echo "- nwalign: median of $RUNS runs; peers: one run (GASAL2, CUDASW++4.0: median of $RUNS), $THREADS threads unless noted"
	echo "- command: bench/run.sh -n $RUNS -w $WHICH"
	echo
	echo '```'
	cat "$TABLE"
	echo '```'
	echo
	printf '%s\n' "${RESULTS[@]}"
} >"$REPORT"
cat "$REPORT"
