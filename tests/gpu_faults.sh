#!/bin/bash
# gpu_faults.sh: a failing GPU never costs a record or changes one. With --backend auto, a
# failure of the device (NW_GPU_FAIL makes a chosen GPU stage fail as a device would) or
# of its memory (--gpu-memory too small) hands the chunk and the rest of the run to the
# CPU engine with one warning, and the output is the CPU engine's, byte for byte; with
# --backend gpu it is one error line and exit 2. Skips (77) without a GPU.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

if ! "$NWALIGN" --backend gpu -q "$data/reads.fq" -r "$data/ref.fa" >/dev/null 2>"$tmp/probe"; then
	echo "SKIP: no GPU engine here ($(cat "$tmp/probe"))"
	exit 77
fi
q=$data/reads.fq
r=$data/ref.fa
p=$data/globins.fa
# reads against windows of the reference, enough for several chunks at --batch-size 500
zip_set 3000 "$tmp/zq.fa" "$tmp/zr.fa"

# falls_back NAME FAIL ARGS...: NW_GPU_FAIL=FAIL, --backend auto: one warning, exit 0, the
# CPU engine's output
falls_back() {
	local name=$1 fail=$2
	shift 2
	"$NWALIGN" "$@" --backend cpu >"$tmp/cpu.out" 2>/dev/null || bad "$name: CPU run failed"
	NW_GPU_FAIL=$fail "$NWALIGN" "$@" --backend auto -v >"$tmp/auto.out" 2>"$tmp/auto.err"
	local rc=$?
	if [ "$rc" = 0 ] && [ "$(grep -c 'GPU engine failed' "$tmp/auto.err")" = 1 ] &&
		grep -q "backend gpu, then cpu" "$tmp/auto.err" && cmp -s "$tmp/cpu.out" "$tmp/auto.out"; then
		ok
	else
		bad "$name: exit $rc, output $(cmp -s "$tmp/cpu.out" "$tmp/auto.out" && echo equal || echo differs), stderr: $(grep -v '^nwalign: [0-9a-z]*[ :]' "$tmp/auto.err" | head -c 300)"
	fi
}
falls_back "scores" align -q "$q" -r "$r" -m local
falls_back "scores, paths to come" align -q "$q" -r "$r" -m semiglobal -c --strand both
falls_back "paths" paths -q "$q" -r "$r" -m global -f paf
falls_back "top" top -q "$p" -r "$p" -m local --top 2 -c
falls_back "second chunk" align,2 -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c --batch-size 500
falls_back "third paths call" paths,3 -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c --batch-size 500

# a GPU path that fails its check (NW_GPU_FAIL=badpath: one residue too many in the first
# path of the second paths call) is an internal error: exit 2, one line naming the path,
# one naming the failed check, and none of that chunk's records written
NW_GPU_FAIL=badpath,2 "$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c \
	--batch-size 500 --backend gpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && grep -q "path of query" "$tmp/err" &&
	grep -q "failed its check" "$tmp/err" && [ "$(wc -l <"$tmp/out")" -lt 1000 ] && ok ||
	bad "a path failing its check: exit $rc, $(wc -l <"$tmp/out") records, stderr $(head -c 300 "$tmp/err")"

# --backend gpu: the failure is the run's error
NW_GPU_FAIL=align "$NWALIGN" -q "$q" -r "$r" --backend gpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "NW_GPU_FAIL" "$tmp/err" && ok ||
	bad "--backend gpu with a failing GPU: exit $rc, stderr $(cat "$tmp/err")"

# --gpu-memory: small limits run in smaller chunks or hand over to the CPU, never lose or
# change a record; with --backend gpu, a limit too small for a chunk is a clear error
"$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c --backend cpu >"$tmp/cpu.out" 2>/dev/null
for lim in 1K 64K 1M 16M 256M; do
	"$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c --gpu-memory "$lim" -v \
		>"$tmp/auto.out" 2>"$tmp/auto.err" && cmp -s "$tmp/cpu.out" "$tmp/auto.out" && ok ||
		bad "--gpu-memory $lim (auto): $(grep -v '^nwalign: [0-9a-z]*[ :]' "$tmp/auto.err" | head -c 300)"
	echo "gpu_faults: --gpu-memory $lim: $(grep -o 'backend gpu[^,]*, then cpu[^,]*\|backend gpu,\|backend cpu' "$tmp/auto.err" | head -n 1)"
	"$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c --gpu-memory "$lim" --backend gpu \
		>"$tmp/gpu.out" 2>"$tmp/gpu.err"
	rc=$?
	if [ "$rc" = 0 ]; then
		cmp -s "$tmp/cpu.out" "$tmp/gpu.out" && ok || bad "--gpu-memory $lim (gpu): output differs"
	else
		[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/gpu.err")" = 1 ] && grep -q "GPU memory" "$tmp/gpu.err" && ok ||
			bad "--gpu-memory $lim (gpu): exit $rc, stderr $(head -c 300 "$tmp/gpu.err")"
	fi
done

echo "gpu_faults: $pass passed, $fail failed"
[ "$fail" = 0 ]
