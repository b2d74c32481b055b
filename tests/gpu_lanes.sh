#!/bin/bash
# gpu_lanes.sh: the GPU engine's calls split over lanes (engines on host threads of their
# own, src/pipeline/gpu_lanes.c) give the CPU engine's output byte for byte: scores,
# starts, paths, both strands (whose second pass carries per-pair needs, which each lane
# must take at its own offset), all vs all, every format. NW_GPU_LANE_MIN lowers the pairs
# a lane takes so that these small sets split; -v must report the lanes' engines. Skips
# (77) without a GPU.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

if ! "$NWALIGN" --backend gpu -q "$data/reads.fq" -r "$data/ref.fa" >/dev/null 2>"$tmp/probe"; then
	echo "SKIP: no GPU engine here ($(cat "$tmp/probe"))"
	exit 77
fi
zip_set 5000 "$tmp/zq.fa" "$tmp/zr.fa"
export NW_GPU_LANE_MIN=300

# same NAME LANES ARGS...: --backend gpu with LANES lanes (-v reports as many engines)
# against --backend cpu (SAM's @PG line, which holds the command line, aside)
same() {
	local name=$1 lanes=$2
	shift 2
	"$NWALIGN" "$@" --backend cpu >"$tmp/cpu.out" 2>"$tmp/cpu.err" || bad "$name: the CPU run failed"
	NW_GPU_LANES=$lanes "$NWALIGN" "$@" --backend gpu -v >"$tmp/gpu.out" 2>"$tmp/gpu.err"
	local rc=$? got
	got=$(grep -o '[0-9]* engines\{0,1\} on host threads' "$tmp/gpu.err" | cut -d' ' -f1)
	if [ "$rc" != 0 ]; then
		bad "$name: exit $rc: $(grep -v '^nwalign: [0-9a-z]*[ :]' "$tmp/gpu.err" | head -c 300)"
	elif [ "$got" != "$lanes" ]; then
		bad "$name: $lanes lanes asked for, -v reports '${got:-none}'"
	elif ! cmp -s <(grep -v '^@PG' "$tmp/cpu.out") <(grep -v '^@PG' "$tmp/gpu.out"); then
		bad "$name: the output differs from the CPU engine's ($(cmp "$tmp/cpu.out" "$tmp/gpu.out" 2>&1 | head -n 1))"
	else
		ok
	fi
}

z=(-q "$tmp/zq.fa" -r "$tmp/zr.fa" --pairs zip)
same "global scores" 4 "${z[@]}" -m global
same "local scores and starts" 4 "${z[@]}" -m local
same "local paths" 4 "${z[@]}" -m local -c
same "semiglobal paths, both strands (needs)" 4 "${z[@]}" -m semiglobal --strand both -f paf
same "global SAM" 3 "${z[@]}" -m global -f sam
same "local paths, two lanes" 2 "${z[@]}" -m local -c
same "local paths, eight lanes" 8 "${z[@]}" -m local -c --threads 8
# all vs all: a chunk is whole queries against every reference, cut anywhere by the lanes
same "all vs all, local paths" 4 -q "$data/reads.fq" -r "$tmp/zr.fa" -m local -c --batch-size 40
for ((i = 0; i < 60; i++)); do sed "s/^>\([^ ]*\)/>\1_$i/" "$data/globins.fa"; done >"$tmp/pq.fa"
same "protein all vs all" 4 -q "$tmp/pq.fa" -r "$data/globins.fa" -m global -f paf
# --top ranked on the device, whole queries a lane, their tops joined in query order
same "protein --top" 4 -q "$tmp/pq.fa" -r "$data/globins.fa" -m local --top 2 -f paf
same "DNA --top with paths" 4 -q "$data/reads.fq" -r "$tmp/zr.fa" -m local --top 3 -c
# references that a quarter of the device's memory (here --gpu-memory, which also means
# one engine) does not hold: --top aligns them in ranges, each query's tops merged
awk 'BEGIN {srand(7); for (i = 0; i < 4000; i++) {s = ""; for (k = 0; k < 3000; k++)
     s = s substr("ACGT", int(rand() * 4) + 1, 1); printf ">big%d\n%s\n", i, s}}' >"$tmp/big.fa"
same "--top over ranges of references" 1 -q "$data/reads.fq" -r "$tmp/big.fa" -m local --top 3 \
	--gpu-memory 40M
grep -q 'went in ranges' "$tmp/gpu.err" && ok || bad "--top over ranges: -v does not report ranges"
same "--top over ranges, with paths" 1 -q "$data/reads.fq" -r "$tmp/big.fa" -m semiglobal --top 2 \
	-c --gpu-memory 40M
# one lane: not split
same "one lane" 1 "${z[@]}" -m local -c
# long pairs split by their residues (a lane 8M of them, 1,024 pairs at least), not by
# their number: 2,100 pairs of 4 kb against 4.2 kb, without the test hook, go over 2 lanes
awk 'BEGIN {srand(11); for (i = 0; i < 2100; i++) {s = ""; for (k = 0; k < 4000; k++)
     s = s substr("ACGT", int(rand() * 4) + 1, 1); t = substr(s, 1, 2000) "ACGTTGCA" substr(s, 2001);
     printf ">r%d\n%s\n", i, s >"/dev/stderr"; printf ">w%d\nGGGGCCCC%s\n", i, t}}' \
	>"$tmp/lw.fa" 2>"$tmp/lr.fa"
NW_GPU_LANE_MIN= same "long pairs over lanes by residues" 2 -q "$tmp/lr.fa" -r "$tmp/lw.fa" \
	--pairs zip -m semiglobal -c

echo "gpu_lanes: $pass passed, $fail failed"
[ "$fail" = 0 ]
