#!/bin/sh
# simreads.sh: the read simulator tests/simreads on the E. coli genome: the same seed gives
# the same files, another seed other files; origin lengths, error rates and strands as
# asked; every window holds its read's origin plus the flank; reads and windows pair in
# zip order; error-free reads are exact copies of their origin; read lengths stay within
# the error budget; bad arguments fail with a message.
# Skips (77) when the genome is missing: it is looked for in $NW_DATA (the data folder, or
# its dna/ subfolder) and in $top_srcdir/../shared/data/dna.
set -u
top=${top_srcdir:-.}
SIMREADS=${SIMREADS:-${top_builddir:-.}/tests/simreads}
genome=
for d in ${NW_DATA:+"$NW_DATA/dna" "$NW_DATA"} "$top/../shared/data/dna"; do
	if [ -r "$d/ecoli_dh10b.fa.gz" ]; then
		genome=$d/ecoli_dh10b.fa.gz
		break
	fi
done
if [ -z "$genome" ]; then
	echo "SKIP: ecoli_dh10b.fa.gz not found (set NW_DATA to the shared data folder)"
	exit 77
fi
if [ ! -x "$SIMREADS" ]; then
	echo "FAIL: $SIMREADS not built" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nwsim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# sim TAG ARGS...: reads to $tmp/TAG.r.fa, windows to $tmp/TAG.w.fa
sim() {
	tag=$1
	shift
	if "$SIMREADS" -g "$genome" "$@" -r "$tmp/$tag.r.fa" -t "$tmp/$tag.w.fa" 2>"$tmp/$tag.err"; then
		ok
	else
		bad "simreads $*: exit $? ($(cat "$tmp/$tag.err"))"
	fi
}

# one line per pair: name, sequence (reads), name, sequence (windows)
pairs() {
	for f in "$tmp/$1.r.fa" "$tmp/$1.w.fa"; do
		awk '/^>/ {if (n) print n "\t" s; n = substr($0, 2); s = ""; next} {s = s $0}
			END {if (n) print n "\t" s}' "$f" >"$f.tab"
	done
	paste "$tmp/$1.r.fa.tab" "$tmp/$1.w.fa.tab"
}

L=500 H=3000 N=40
sim a -n $N -l $L -L $H -s 1
sim b -n $N -l $L -L $H -s 1
sim c -n $N -l $L -L $H -s 2
if cmp -s "$tmp/a.r.fa" "$tmp/b.r.fa" && cmp -s "$tmp/a.w.fa" "$tmp/b.w.fa"; then ok; else bad "same seed, different output"; fi
if cmp -s "$tmp/a.r.fa" "$tmp/c.r.fa" || cmp -s "$tmp/a.w.fa" "$tmp/c.w.fa"; then bad "seeds 1 and 2 give the same output"; else ok; fi

# the properties of every pair; awk prints one line per violation
pairs a >"$tmp/a.tab"
awk -F'\t' -v n=$N -v lo=$L -v hi=$H -v emin=0.05 -v emax=0.15 -v flank=0.05 '
	function err(m) { print "pair " NR ": " m; bad++ }
	{
		split($1, r, "_"); split($3, w, "_")
		k = substr(r[1], 4); st = r[2]; s = r[3]; e = r[4]; rate = substr(r[5], 2)
		if (r[1] != "sim" NR || w[1] != "win" NR) err("names " $1 " " $3 " out of zip order")
		if (st != "+" && st != "-") err("strand " st)
		plus += (st == "+"); minus += (st == "-")
		len = e - s
		if (len < lo || len > hi) err("origin length " len " outside [" lo ", " hi "]")
		if (rate !~ /^0\.[0-9][0-9][0-9]$/ || rate < emin || rate > emax) err("error rate " rate)
		f = int(len * flank)
		if (w[2] > s || w[3] < e) err("window " $3 " does not hold " $1)
		if (w[2] != (s > f ? s - f : 0) || w[3] > e + f) err("window " $3 " is not origin +- " f)
		if (length($4) != w[3] - w[2]) err("window length " length($4) " for " $3)
		d = length($2) - len
		if (d < 0) d = -d
		if (d > rate * len) err("read length " length($2) " vs origin " len " exceeds the error budget")
		if ($2 !~ /^[ACGT]+$/ || $4 !~ /^[ACGT]+$/) err("letters other than ACGT")
	}
	END {
		if (NR != n) err(NR " pairs, not " n)
		if (!plus || !minus) err("strands: " plus " +, " minus " -")
		exit (bad > 0)
	}' "$tmp/a.tab" >"$tmp/a.bad"
if [ -s "$tmp/a.bad" ]; then bad "pair properties:"; head -n 5 "$tmp/a.bad" >&2; else ok; fi
if awk 'length($0) > 80 {exit 1}' "$tmp/a.r.fa" "$tmp/a.w.fa"; then ok; else bad "FASTA lines longer than 80"; fi

# error-free reads: + strand reads equal their origin, - strand reads its reverse complement
sim z -n 20 -l 200 -L 1000 -e 0 -E 0 -s 3
pairs z | awk -F'\t' '
	BEGIN { c["A"] = "T"; c["C"] = "G"; c["G"] = "C"; c["T"] = "A" }
	{
		split($1, r, "_"); split($3, w, "_")
		o = substr($4, r[3] - w[2] + 1, r[4] - r[3])
		if (r[2] == "-") { t = ""; for (i = length(o); i > 0; i--) t = t c[substr(o, i, 1)]; o = t }
		if ($2 != o) { print "read " $1 " is not its origin"; bad++ }
	}
	END { exit (bad > 0) }' >"$tmp/z.bad"
if [ -s "$tmp/z.bad" ]; then bad "error-free reads:"; head -n 3 "$tmp/z.bad" >&2; else ok; fi

# a fixed length and a wide flank: the benchmark's shape, windows clipped to the genome
sim f -n 10 -l 1000 -L 1000 -w 0.5 -s 4
if pairs f | awk -F'\t' '{split($1, r, "_"); split($3, w, "_")
	if (r[4] - r[3] != 1000 || (w[2] > 0 && r[3] - w[2] != 500)) exit 1}'; then ok; else bad "fixed length or flank"; fi

# usage: -h exits 0 on stdout; bad arguments and input exit non-zero with one line
if "$SIMREADS" -h | grep -q Usage; then ok; else bad "-h"; fi
expect_fail() {
	if "$SIMREADS" "$@" -r "$tmp/x.r.fa" -t "$tmp/x.w.fa" 2>"$tmp/x.err"; then
		bad "accepted: $*"
	elif [ "$(wc -l <"$tmp/x.err")" -ne 1 ] || ! grep -q '^simreads: ' "$tmp/x.err"; then
		bad "no one-line message for: $*"
	else
		ok
	fi
}
expect_fail -g "$genome" -n 0
expect_fail -g "$genome" -n 5 -l 2000 -L 1000
expect_fail -g "$genome" -n 5 -e 0.2 -E 0.1
expect_fail -g "$genome" -n 5 -E 0.9
expect_fail -g "$genome" -n 5 -s x
expect_fail -g "$genome" -n 5 -l 10000000
expect_fail -g "$tmp/missing.fa.gz" -n 5
expect_fail -g "$top/README.md" -n 5
expect_fail -n 5

echo "simreads: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
