#!/bin/sh
# threads.sh: the threaded pipeline (reader, engine threads, write stage, formatting
# slices) gives the same bytes as one thread, with batches small enough that every stage
# turns over many times. CI also runs it under ThreadSanitizer (.ci/run).
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

# A zip set of 3,000 pairs from the bundled reads: each read against a window of the
# reference around it, so that the records carry paths of every kind of short span.
zip_set 3000 "$tmp/q.fa" "$tmp/r.fa"

# check NAME ARGS...: -t 1 with one batch against -t 4 with batches of 7 records (SAM's
# @PG line holds the command line: it is left out of the comparison)
check() {
	name=$1
	shift
	"$NWALIGN" "$@" -t 1 2>"$tmp/one.err" | grep -v '^@PG' >"$tmp/one"
	"$NWALIGN" "$@" -t 4 --batch-size 7 2>"$tmp/many.err" | grep -v '^@PG' >"$tmp/many"
	if [ -s "$tmp/one.err" ] || [ -s "$tmp/many.err" ]; then
		bad "$name: stderr: $(head -c 300 "$tmp/one.err" "$tmp/many.err")"
	elif ! cmp -s "$tmp/one" "$tmp/many"; then
		bad "$name: -t 4 --batch-size 7 differs from -t 1"
	elif [ "$(grep -vc '^[#@]' "$tmp/one")" -lt 8 ]; then
		bad "$name: too few records"
	else
		ok
	fi
}

z="-q $tmp/q.fa -r $tmp/r.fa --pairs zip"
check "zip TSV" $z
check "zip TSV -c, local" $z -m local -c
check "zip PAF, semiglobal, both strands" $z -m semiglobal -f paf --strand both
check "zip SAM, local" $z -m local -f sam
a="-q $data/reads.fq -r $data/ref.fa"
check "all TSV -c" $a -c
check "all --top 2 PAF" $a -m local --top 2 -f paf
check "all --top 1, both strands, SAM" $a -m local --top 1 --strand both -f sam
check "protein all against all" -q "$data/globins.fa" -r "$data/globins.fa" -m local -c

# One long pair (6,000 x 6,400): its score passes (forward, and the start's reverse pass)
# go over a team of threads in stripes of the query (nw_striped_team), which -v counts;
# the same record as one thread, in every mode. A random sequence and a copy with substitutions, a deletion and an insertion.
awk 'BEGIN {srand(7); split("ACGT", b, ""); for (i = 0; i < 6000; i++) s = s b[int(rand() * 4) + 1]
	r = substr(s, 1, 2500) substr(s, 2701)
	t = ""; for (i = 1; i <= length(r); i++) {c = substr(r, i, 1); if (rand() < 0.03) c = b[int(rand() * 4) + 1]; t = t c}
	u = ""; for (i = 0; i < 600; i++) u = u b[int(rand() * 4) + 1]
	t = substr(t, 1, 4000) u substr(t, 4001)
	print ">long_q\n" s >"'"$tmp/lq.fa"'"; print ">long_r\n" t >"'"$tmp/lr.fa"'"}'
# With -c, the path of the aligned span over the team too (divide and conquer's splits side
# by side).
for mode in global local semiglobal "global -c" "local -c" "semiglobal -f paf"; do
	for t in 2 3 4; do
		"$NWALIGN" -q "$tmp/lq.fa" -r "$tmp/lr.fa" -m $mode -t 1 --backend cpu >"$tmp/one" 2>"$tmp/one.err"
		"$NWALIGN" -q "$tmp/lq.fa" -r "$tmp/lr.fa" -m $mode -t $t --backend cpu -v >"$tmp/many" 2>"$tmp/many.err"
		case $mode in *-c* | *paf*) paths=1 ;; *) paths=0 ;; esac
		# the forward pass, and for local and semiglobal the start's reverse pass
		case $mode in global*) passes="1 score pass" ;; *) passes="2 score passes" ;; esac
		if [ -s "$tmp/one.err" ] || ! grep -q "$passes of long pairs on $t threads" "$tmp/many.err" ||
			[ "$(grep -c "cpu: 1 long path over $t threads" "$tmp/many.err")" != $paths ]; then
			bad "long pair, $mode, -t $t: no team of $t threads: $(grep -i 'cpu\|error' "$tmp/many.err" | head -c 300)"
		elif ! cmp -s "$tmp/one" "$tmp/many" || [ "$(grep -vc '^#' "$tmp/one")" != 1 ]; then
			bad "long pair, $mode: -t $t differs from -t 1"
		else
			ok
		fi
	done
done

echo "threads: $pass passed, $fail failed"
[ "$fail" = 0 ]
