#!/bin/sh
# small_runs.sh: with --backend auto, a run whose whole input is small goes to the CPU
# engine instead of waiting for the GPU to open (NWALIGN_AUTO_CPU_S, 0.1 s of estimated
# work by default), and says so under -v; in larger runs, and runs whose input goes on
# past the first batch, the CPU engine aligns the first pairs while the GPU opens, which
# takes the rest once open (NWALIGN_AUTO_CPU_S=0: none of that). Every output is the same
# bytes whichever engine ran, and the process ends at once, without waiting for a GPU it
# did not use. Skips (77) without a GPU.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

if ! "$NWALIGN" --backend gpu -q "$data/reads.fq" -r "$data/ref.fa" >/dev/null 2>"$tmp/probe"; then
	echo "SKIP: no GPU engine here ($(cat "$tmp/probe"))"
	exit 77
fi
zip_set 3000 "$tmp/zq.fa" "$tmp/zr.fa"
# one long pair (6,000 x 6,400): its forward pass also goes over a team of threads
awk 'BEGIN {srand(7); split("ACGT", b, ""); for (i = 0; i < 6000; i++) s = s b[int(rand() * 4) + 1]
	t = ""; for (i = 1; i <= length(s); i++) {c = substr(s, i, 1); if (rand() < 0.03) c = b[int(rand() * 4) + 1]; t = t c}
	u = ""; for (i = 0; i < 400; i++) u = u b[int(rand() * 4) + 1]
	print ">long_q\n" s >"'"$tmp/lq.fa"'"; print ">long_r\n" substr(t, 1, 3000) u substr(t, 3001) >"'"$tmp/lr.fa"'"}'

# backend_of FILE: what -v's summary line says of the backend
backend_of() {
	sed -n 's/.*records written.*, backend \(.*\), [0-9]* threads*$/\1/p' "$1"
}

# runs NAME WANT LIMIT ARGS...: --backend auto with NWALIGN_AUTO_CPU_S=LIMIT ('' for the
# default) and the environment in HOOKS must run on WANT (cpu: the small-run route; gpu;
# share: the CPU engine while the GPU opened, then the GPU; cpu-shared: the CPU engine
# while the GPU opened, to the end; any-share: one of these or gpu, as the timing falls)
# and give --backend cpu's and --backend gpu's bytes
HOOKS=
runs() {
	name=$1 want=$2 limit=$3
	shift 3
	"$NWALIGN" "$@" --backend cpu >"$tmp/cpu" 2>"$tmp/cpu.err" || bad "$name: --backend cpu failed"
	"$NWALIGN" "$@" --backend gpu >"$tmp/gpu" 2>"$tmp/gpu.err" || bad "$name: --backend gpu failed"
	t_auto=$(date +%s%N)
	env NWALIGN_AUTO_CPU_S=$limit $HOOKS "$NWALIGN" "$@" -v >"$tmp/auto" 2>"$tmp/auto.err"
	rc=$?
	auto_ms=$((($(date +%s%N) - t_auto) / 1000000)) # the auto run's wall time
	got=$(backend_of "$tmp/auto.err")
	said=$(grep -c 'a small run: the CPU engine aligns it' "$tmp/auto.err")
	shared=$(grep -c 'pairs aligned while the GPU opened' "$tmp/auto.err")
	case $want in
	cpu) [ "$got" = "cpu (a small run)" ] && [ "$said" = 1 ] ;;
	gpu) [ "$got" = gpu ] && [ "$said" = 0 ] ;;
	share) [ "$got" = "gpu, and cpu while it opened" ] && [ "$shared" = 1 ] ;;
	cpu-shared) [ "$got" = "cpu (the run ended before the GPU opened)" ] ;;
	any-share) case $got in gpu | "gpu, and cpu while it opened" | \
		"cpu (the run ended before the GPU opened)") [ "$said" = 0 ] ;; *) false ;; esac ;;
	esac
	if [ $? != 0 ] || [ "$rc" != 0 ]; then
		bad "$name: exit $rc, backend '$got' (want $want), $said small-run lines: $(grep -v '^nwalign: [0-9a-z]*[ :]' "$tmp/auto.err" | head -c 300)"
	elif ! cmp -s "$tmp/cpu" "$tmp/auto" || ! cmp -s "$tmp/gpu" "$tmp/auto"; then
		bad "$name: outputs differ between the engines"
	else
		ok
	fi
	echo "small_runs: $name: backend $got; $(grep -o 'about [0-9.]* s on [0-9]* threads*' "$tmp/auto.err")"
}

runs "one long pair, global" cpu '' -q "$tmp/lq.fa" -r "$tmp/lr.fa"
runs "one long pair, local, paths" cpu '' -q "$tmp/lq.fa" -r "$tmp/lr.fa" -m local -c
runs "3,000 zip pairs, PAF" cpu '' -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip -m local -f paf
runs "protein all against all" cpu '' -q "$data/globins.fa" -r "$data/globins.fa" -m local -c
# compressed files: their sizes say nothing, the first set read (the whole input) does
gzip -c "$tmp/zq.fa" >"$tmp/zq.fa.gz"
runs "3,000 zip pairs, gzip" cpu '' -q "$tmp/zq.fa.gz" -r "$tmp/zr.fa" --pairs zip -m local -c
grep -q "by the files' sizes" "$tmp/auto.err" && bad "gzip: estimated by the files' sizes" || ok
# the route off: the GPU alone; a limit below the estimate, and an input that goes on
# past the first batch: the CPU engine while the GPU opens, the GPU after
runs "limit 0" gpu 0 -q "$tmp/lq.fa" -r "$tmp/lr.fa"
runs "limit 0, more than one batch" gpu 0 -q "$tmp/zq.fa.gz" -r "$tmp/zr.fa" --pairs zip --batch-size 500
runs "limit below the estimate" any-share 0.000001 -q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip
runs "more than one batch" any-share '' -q "$tmp/zq.fa.gz" -r "$tmp/zr.fa" --pairs zip --batch-size 500
# the GPU opening 2 s late (a test hook): the CPU engine aligns it all, and the process
# ends without waiting; one slice of the CPU engine's (a test hook), then the GPU
HOOKS="NW_GPU_OPEN_DELAY=2"
runs "GPU late, scores" cpu-shared '' -q "$tmp/zq.fa.gz" -r "$tmp/zr.fa" --pairs zip --batch-size 500
# the auto run alone, to the millisecond: one that waited for the GPU took the 2 s delay
[ "$auto_ms" -lt 2000 ] && ok || bad "GPU late: the run waited for the GPU ($auto_ms ms)"
runs "GPU late, paths" cpu-shared '' -q "$tmp/zq.fa.gz" -r "$tmp/zr.fa" --pairs zip --batch-size 500 -m local -c
HOOKS="NW_GPU_OPEN_DELAY=0.3 NW_SHARE_SLICES=1"
runs "one slice, then the GPU" share '' -q "$tmp/zq.fa.gz" -r "$tmp/zr.fa" --pairs zip --batch-size 500
runs "one slice, then the GPU, paths" share '' -q "$tmp/zq.fa.gz" -r "$tmp/zr.fa" --pairs zip --batch-size 500 -m local -f paf
HOOKS=

echo "small_runs: $pass passed, $fail failed"
[ "$fail" = 0 ]
