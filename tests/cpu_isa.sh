#!/bin/sh
# cpu_isa.sh: the whole command under every instruction set this processor runs
# (NWALIGN_CPU_ISA: generic, sse41, avx2, avx512) gives the bytes of the per-pair engine
# (NWALIGN_CPU_INTER=0, the engine that diff_parasail and unit_cpu check against parasail
# and the full-matrix oracle): scores, coordinates and CIGARs, on the bundled reads, on the
# bundled globins all against all, and, when the shared data folder is there, on real
# proteins (mm_query50 x mm_db2k samples, BLOSUM62). -v must name the set that ran, its
# names must be taken as well, and an unknown name must be refused. unit_pack passes under
# each set (the reader's packing).
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

# 2,000 reads against windows of the reference around them (zip), as in threads.sh
zip_set 2000 "$tmp/q.fa" "$tmp/r.fa"

prot=
for d in ${NW_DATA:+"$NW_DATA/protein" "$NW_DATA"} "$top/../shared/data/protein"; do
	if [ -r "$d/mm_query50.fa" ] && [ -r "$d/mm_db2k.fa" ]; then
		awk '/^>/ {n++} n <= 6' "$d/mm_query50.fa" >"$tmp/pq.fa"
		awk '/^>/ {n++} n <= 400' "$d/mm_db2k.fa" >"$tmp/pr.fa"
		prot=1
		break
	fi
done
[ -n "$prot" ] || echo "note: shared protein data not found (NW_DATA): real proteins not run"

isas=
for isa in generic sse41 avx2 avx512; do
	NWALIGN_CPU_ISA=$isa "$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" --backend cpu -v \
		>/dev/null 2>"$tmp/v.err"
	case $(head -n 1 "$tmp/v.err") in
	*"backend cpu (generic)"*) ran=generic ;;
	*"backend cpu (sse4.1)"*) ran=sse41 ;;
	*"backend cpu (avx2)"*) ran=avx2 ;;
	*"backend cpu (avx512bw)"*) ran=avx512 ;;
	*) ran=unknown ;;
	esac
	if [ "$ran" = "$isa" ]; then
		isas="$isas $isa"
	elif grep -q "cannot run" "$tmp/v.err"; then
		echo "note: this processor has no $isa: not run"
	else
		bad "NWALIGN_CPU_ISA=$isa: -v says $(head -n 1 "$tmp/v.err")"
	fi
done
case $isas in *generic*) ok ;; *) bad "the generic kernels did not run" ;; esac
# the names -v prints are taken too
for shown in sse4.1 avx512bw; do
	case $shown in sse4.1) isa=sse41 ;; *) isa=avx512 ;; esac
	case " $isas " in *" $isa "*) ;; *) continue ;; esac
	if NWALIGN_CPU_ISA=$shown "$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" --backend cpu -v \
		>/dev/null 2>"$tmp/v.err" && head -n 1 "$tmp/v.err" | grep -q "backend cpu ($shown)"; then
		ok
	else
		bad "NWALIGN_CPU_ISA=$shown (as -v names $isa): $(head -n 1 "$tmp/v.err")"
	fi
done

# check NAME ARGS...: every set against the per-pair engine
check() {
	name=$1
	shift
	NWALIGN_CPU_INTER=0 "$NWALIGN" "$@" --backend cpu -t 2 >"$tmp/ref" 2>"$tmp/ref.err"
	if [ -s "$tmp/ref.err" ] || [ "$(grep -vc '^[#@]' "$tmp/ref")" -lt 8 ]; then
		bad "$name: per-pair engine: $(head -c 300 "$tmp/ref.err")"
		return
	fi
	for isa in $isas; do
		NWALIGN_CPU_ISA=$isa "$NWALIGN" "$@" --backend cpu -t 2 >"$tmp/out" 2>"$tmp/out.err"
		if [ -s "$tmp/out.err" ]; then
			bad "$name, $isa: stderr: $(head -c 300 "$tmp/out.err")"
		elif ! cmp -s "$tmp/ref" "$tmp/out"; then
			bad "$name, $isa: differs from the per-pair engine ($(diff "$tmp/ref" "$tmp/out" | head -n 3))"
		else
			ok
		fi
	done
}

for m in global local semiglobal; do
	check "reads zip $m" -q "$tmp/q.fa" -r "$tmp/r.fa" --pairs zip -m "$m" -c
	check "reads zip $m scores" -q "$tmp/q.fa" -r "$tmp/r.fa" --pairs zip -m "$m"
	check "globins $m" -q "$data/globins.fa" -r "$data/globins.fa" -m "$m" -c
done
check "reads zip local linear 1/1" -q "$tmp/q.fa" -r "$tmp/r.fa" --pairs zip -m local -c \
	--match 1 --mismatch 1 --gap-open 0 --gap-extend 1
check "reads zip ednafull" -q "$tmp/q.fa" -r "$tmp/r.fa" --pairs zip -m semiglobal -c \
	--matrix ednafull --gap-open 10 --gap-extend 1
check "reads paf" -q "$tmp/q.fa" -r "$tmp/r.fa" --pairs zip -m local -f paf
if [ -n "$prot" ]; then
	check "proteins local" -q "$tmp/pq.fa" -r "$tmp/pr.fa" -m local -c --matrix blosum62 \
		--gap-open 10 --gap-extend 1
	check "proteins semiglobal" -q "$tmp/pq.fa" -r "$tmp/pr.fa" -m semiglobal --matrix blosum62
	check "proteins zip global" -q "$tmp/pr.fa" -r "$tmp/pr.fa" --pairs zip -m global -c \
		--matrix blosum62
	# -v counts the pairs of the 8-bit lanes: all of them here (6 x 400, local), none in
	# 16-bit lanes only
	"$NWALIGN" -q "$tmp/pq.fa" -r "$tmp/pr.fa" -m local --matrix blosum62 --backend cpu -v \
		>/dev/null 2>"$tmp/v8.err"
	NWALIGN_CPU_INTER=16 "$NWALIGN" -q "$tmp/pq.fa" -r "$tmp/pr.fa" -m local --matrix blosum62 \
		--backend cpu -v >/dev/null 2>"$tmp/v16.err"
	if ! grep -q '^nwalign: cpu: 2400 pairs in 8-bit lanes ([^)]*), [0-9]* of them aligned again in 16 bits' "$tmp/v8.err"; then
		bad "-v does not count 2400 pairs in 8-bit lanes: $(grep 8-bit "$tmp/v8.err")"
	elif grep -q '8-bit' "$tmp/v16.err"; then
		bad "NWALIGN_CPU_INTER=16: -v still reports 8-bit lanes"
	else
		ok
	fi
fi

if NWALIGN_CPU_ISA=avx9 "$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" >/dev/null 2>"$tmp/e"; then
	bad "NWALIGN_CPU_ISA=avx9 was accepted"
elif [ "$(wc -l <"$tmp/e")" -ne 1 ] || ! grep -q "NWALIGN_CPU_ISA=avx9" "$tmp/e"; then
	bad "NWALIGN_CPU_ISA=avx9: not one clear line: $(cat "$tmp/e")"
else
	ok
fi

# the reader's 2-bit packing takes the set's widest steps (src/io/pack2_text.c): unit_pack's
# checks under each
for isa in $isas; do
	if NWALIGN_CPU_ISA=$isa "${top_builddir:-.}/tests/unit_pack" >"$tmp/pack.log" 2>&1; then
		ok
	else
		bad "unit_pack under NWALIGN_CPU_ISA=$isa: $(grep -v passed "$tmp/pack.log" | head -n 3)"
	fi
done

echo "cpu_isa: sets run:$isas; $pass passed, $fail failed"
[ "$fail" -eq 0 ]
