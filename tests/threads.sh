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

echo "threads: $pass passed, $fail failed"
[ "$fail" = 0 ]
