#!/bin/bash
# gpu_held.sh: the device's memory held by another process (tests/gpu_hog, built with
# CUDA) never costs a record or changes one. Not part of make check: while it runs, every
# other program on the device finds its memory gone, and make -j check runs tests side by
# side. Run it on the GPU host after `make nwalign tests/gpu_hog`, alone on the device.
# Skips (77) without a GPU engine or tests/gpu_hog.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

hog=${top_builddir:-.}/tests/gpu_hog
if [ ! -x "$hog" ] || ! "$NWALIGN" --backend gpu -q "$data/reads.fq" -r "$data/ref.fa" >/dev/null 2>"$tmp/probe"; then
	echo "SKIP: no GPU engine or no tests/gpu_hog here ($(cat "$tmp/probe" 2>/dev/null))"
	exit 77
fi
# start_hog LEAVE: tests/gpu_hog in the background (hog_pid), holding all the device's
# memory but LEAVE MiB until fd 4 closes; its one line goes to $tmp/hog.out
start_hog() {
	rm -f "$tmp/hog.in"
	mkfifo "$tmp/hog.in"
	"$hog" "$1" <"$tmp/hog.in" >"$tmp/hog.out" 2>&1 &
	hog_pid=$!
	exec 4>"$tmp/hog.in"
}
stop_hog() {
	exec 4>&-
	wait "$hog_pid"
}
# backend_of FILE: what -v's summary line in FILE says of the backend ("gpu", "cpu (...)",
# "gpu, then cpu (...)")
backend_of() {
	sed -n 's/.*records written.*, backend \(.*\), [0-9]* threads*$/\1/p' "$1"
}

# reads against windows of the reference, in several chunks
zip_set 3000 "$tmp/zq.fa" "$tmp/zr.fa"
"$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c --backend cpu >"$tmp/cpu.out" 2>/dev/null

# Another process holding the device's memory (tests/gpu_hog, built with CUDA): all of it
# (the context itself may not open), all but 400 MiB (the engine's buffers do not fit)
# and all but 4 GiB (enough for these pairs: the GPU must run them). --backend auto: exit 0
# and the CPU engine's output, with one warning when the GPU gave way; --backend gpu: the
# same output, or one error line and exit 2.
for leave in 0 400 4096; do
	start_hog "$leave"
	for _ in $(seq 600); do
		grep -q '^held' "$tmp/hog.out" && break
		kill -0 "$hog_pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^held' "$tmp/hog.out"; then
		bad "gpu_hog $leave: $(head -c 300 "$tmp/hog.out")"
	else
		"$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c -v \
			>"$tmp/auto.out" 2>"$tmp/auto.err"
		rc=$?
		warned=$(grep -c '^nwalign: warning: the GPU' "$tmp/auto.err")
		backend=$(backend_of "$tmp/auto.err")
		echo "gpu_held: another process holds all but $leave MiB ($(cat "$tmp/hog.out")): backend $backend"
		# 4 GiB are plenty for these pairs: the GPU must run them
		if [ "$backend" = gpu ]; then
			gave_way=0
		elif [ -n "$backend" ] && [ "$leave" != 4096 ]; then
			gave_way=1
		else
			gave_way=
		fi
		if [ "$rc" = 0 ] && cmp -s "$tmp/cpu.out" "$tmp/auto.out" && [ "$warned" = "$gave_way" ]; then
			ok
		else
			bad "held memory, $leave MiB left (auto): exit $rc, $warned warnings, $backend, output $(cmp -s "$tmp/cpu.out" "$tmp/auto.out" && echo equal || echo differs): $(grep -v '^nwalign: [0-9a-z]*[ :]' "$tmp/auto.err" | head -c 300)"
		fi
		"$NWALIGN" -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -c --backend gpu \
			>"$tmp/gpu.out" 2>"$tmp/gpu.err"
		rc=$?
		if [ "$rc" = 0 ]; then
			cmp -s "$tmp/cpu.out" "$tmp/gpu.out" && ok || bad "held memory, $leave MiB left (gpu): output differs"
		else
			[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/gpu.err")" = 1 ] && ok ||
				bad "held memory, $leave MiB left (gpu): exit $rc, stderr $(head -c 300 "$tmp/gpu.err")"
		fi
		echo "gpu_held: the same, --backend gpu: exit $rc $(head -c 200 "$tmp/gpu.err")"
	fi
	stop_hog
done

# The memory taken while a run is under way (30,000 pairs in chunks of 300, the hog started
# once the run has begun): whether the GPU finishes or gives way, exit 0 and the CPU engine's output.
zip_set 30000 "$tmp/bq.fa" "$tmp/br.fa"
"$NWALIGN" -q "$tmp/bq.fa" -r "$tmp/br.fa" --pairs zip -m local -c --backend cpu >"$tmp/cpu.out" 2>/dev/null
"$NWALIGN" -q "$tmp/bq.fa" -r "$tmp/br.fa" --pairs zip -m local -c -v --batch-size 300 \
	>"$tmp/auto.out" 2>"$tmp/auto.err" &
run_pid=$!
sleep 0.3
start_hog 0
wait "$run_pid"
rc=$?
stop_hog
backend=$(backend_of "$tmp/auto.err")
echo "gpu_held: memory taken during the run ($(cat "$tmp/hog.out")): backend $backend"
[ "$rc" = 0 ] && cmp -s "$tmp/cpu.out" "$tmp/auto.out" && [ "$(grep -c '^nwalign: warning' "$tmp/auto.err")" -le 1 ] && ok ||
	bad "memory taken during the run: exit $rc, output $(cmp -s "$tmp/cpu.out" "$tmp/auto.out" && echo equal || echo differs): $(grep -v '^nwalign: [0-9a-z]*[ :]' "$tmp/auto.err" | head -c 300)"

echo "gpu_held: $pass passed, $fail failed"
[ "$fail" = 0 ]
