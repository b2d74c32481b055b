#!/bin/bash
# gpu_sanitize.sh: compute-sanitizer over the GPU engine, on the GPU host (not part of make
# check, which has no device in CI). Run after `make nwalign tests/gpu_diff tests/path_diff`.
#
#  - memcheck over tests/gpu_diff's quick sets (NW_GPU_DIFF_QUICK=1: the batch, long,
#    --top and reverse kernels, 16-bit overflow re-runs, real data) and over tests/
#    path_diff whole (the path kernels);
#  - synccheck over the same sets as memcheck;
#  - racecheck over gpu_diff's smallest sets (NW_GPU_DIFF_QUICK=2: every kernel and shape
#    of the quick sets, fewer pairs of each, since racecheck tracks every shared-memory
#    access and takes hours over the quick sets) and over path_diff's sets thinned to the
#    first pair of each and every PATH_STRIDE-th after it (NW_PATH_DIFF_QUICK, default 20);
#  - racecheck over whole commands whose calls split over engine lanes (NW_GPU_LANE_MIN:
#    engines on threads of their own, launching at once, sharing one upload of the
#    references): zip pairs with paths, --top with paths, all vs all, each also compared
#    with --backend cpu byte for byte.
#
# TOOLS="memcheck synccheck racecheck lanes" chooses (all by default); QUICK_MEM,
# QUICK_RACE and PATH_STRIDE override the sets' sizes. On an H100 host racecheck takes
# about 12 minutes over gpu_diff's smallest sets, the rest a few minutes together. Prints
# a line per program and tool, then a `result` line; exit 1 when any run reported an error
# or a hazard or failed its checks.
set -u
. "${top_srcdir:-.}/tests/testlib.sh" # NWALIGN, data, tmp (removed at exit), zip_set
build=${top_builddir:-.}
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$CS" >/dev/null 2>&1 || CS=/usr/local/cuda/bin/compute-sanitizer
[ -x "$CS" ] || command -v "$CS" >/dev/null 2>&1 || { echo "gpu_sanitize: no compute-sanitizer" >&2; exit 77; }
log=$tmp/log
fail=0
summary=

# sanitize NAME TOOL COMMAND...: one run; its errors and hazards counted
sanitize() {
	local name=$1 tool=$2 st errs hz t0
	shift 2
	t0=$(date +%s)
	"$CS" --tool "$tool" --error-exitcode 99 "$@" >"$log" 2>&1
	st=$?
	if [ "$tool" = racecheck ]; then # "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)"
		errs=$(sed -n 's/^========= RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$log" | tail -n 1)
		hz=$(sed -n 's/^========= RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$log" | tail -n 1)
	else
		errs=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | tail -n 1)
		hz=
	fi
	echo "$name $tool: exit $st, errors ${errs:-?}${hz:+, hazards $hz}, $(($(date +%s) - t0)) s;" \
		"$(grep -E 'passed|failed' "$log" | tail -n 1)"
	if [ "$st" != 0 ] || [ "${errs:-1}" != 0 ] || [ "${hz:-0}" != 0 ]; then
		fail=$((fail + 1))
		grep '^=========' "$log" | head -n 20
	fi
	summary="$summary $name-$tool=${errs:-?}${hz:+/$hz}"
}

for t in ${TOOLS:-memcheck synccheck racecheck lanes}; do
	case $t in
	memcheck | synccheck)
		NW_GPU_DIFF_QUICK=${QUICK_MEM:-1} sanitize gpu_diff "$t" "$build/tests/gpu_diff"
		sanitize path_diff "$t" "$build/tests/path_diff"
		;;
	racecheck)
		NW_GPU_DIFF_QUICK=${QUICK_RACE:-2} sanitize gpu_diff racecheck "$build/tests/gpu_diff"
		NW_PATH_DIFF_QUICK=${PATH_STRIDE:-20} sanitize path_diff racecheck "$build/tests/path_diff"
		;;
	lanes)
		zip_set 600 "$tmp/zq.fa" "$tmp/zr.fa"
		for args in "-q $tmp/zq.fa -r $tmp/zr.fa --pairs zip -m local -c" \
			"-q $data/reads.fq -r $tmp/zr.fa -m semiglobal --top 3 -c --strand both" \
			"-q $data/globins.fa -r $data/globins.fa -m global -c -f paf"; do
			# shellcheck disable=SC2086
			"$NWALIGN" $args --backend cpu >"$tmp/cpu.out" 2>/dev/null
			# shellcheck disable=SC2086
			NW_GPU_LANE_MIN=40 NW_GPU_LANES=4 sanitize "nwalign-lanes" racecheck "$NWALIGN" $args \
				--backend gpu -o "$tmp/gpu.out"
			if ! cmp -s "$tmp/cpu.out" "$tmp/gpu.out"; then
				echo "nwalign-lanes: $args: output differs from --backend cpu"
				fail=$((fail + 1))
			fi
		done
		;;
	esac
done
echo "result gpu-sanitize failed_runs=$fail$summary"
[ "$fail" = 0 ]
