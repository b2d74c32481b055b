#!/bin/sh
# gpu_sanitize.sh: compute-sanitizer's memcheck, racecheck and synccheck over the GPU
# differential test's quick sets (tests/gpu_diff with NW_GPU_DIFF_QUICK=1: the batch,
# long, --top and reverse kernels), and memcheck over the path kernels' sets (tests/
# path_diff, whole; PATH_TOOLS="memcheck racecheck" for more, hours under racecheck).
# Run on the GPU host after `make tests/gpu_diff tests/path_diff`; not part of make check,
# which has no device in CI. Prints a line per program and tool, then a `result` line.
set -u
top=${top_builddir:-.}
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$CS" >/dev/null 2>&1 || CS=/usr/local/cuda/bin/compute-sanitizer
[ -x "$CS" ] || command -v "$CS" >/dev/null 2>&1 || { echo "gpu_sanitize: no compute-sanitizer" >&2; exit 77; }
log=${TMPDIR:-/tmp}/gpu_sanitize.$$
fail=0
summary=
for run in gpu_diff:memcheck gpu_diff:racecheck gpu_diff:synccheck $(for t in ${PATH_TOOLS:-memcheck}; do echo path_diff:$t; done); do
	prog=${run%%:*} tool=${run#*:}
	{
		NW_GPU_DIFF_QUICK=1 "$CS" --tool "$tool" --error-exitcode 99 \
			"$top/tests/$prog" >"$log" 2>&1
		st=$?
		errs=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | tail -n 1)
		hz=$(sed -n 's/^========= RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$log" | tail -n 1)
		echo "$prog $tool: exit $st, errors ${errs:-?}${hz:+, hazards $hz}; $(grep -E 'passed|failed' "$log" | tail -n 1)"
		if [ "$st" != 0 ] || [ "${errs:-1}" != 0 ] || [ "${hz:-0}" != 0 ]; then
			fail=$((fail + 1))
			grep '^=========' "$log" | head -n 20
		fi
		summary="$summary $prog-$tool=${errs:-?}"
	}
done
rm -f "$log"
echo "result gpu-sanitize failed_runs=$fail$summary"
[ "$fail" = 0 ]
