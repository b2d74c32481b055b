#!/bin/sh
# simreads.sh: the read simulator tests/simreads on the E. coli genome: the same seed gives
# the same files, another seed other files; origin lengths, error rates and strands as
# asked; every window holds its read's origin plus the flank; reads and windows pair in
# zip order; error-free reads are exact copies of their origin; read lengths stay within
# the error budget; -S sets the strand and leaves the other draws alone; structural changes
# (-v/-V/-k) and rotations (-R) are the ones their names give, with sizes, positions and
# offsets in range, and error-free reads equal their origin so changed and rotated; bad
# arguments fail with a message.
# Skips (77) when the genome is missing: it is looked for in $NW_DATA (the data folder, or
# its dna/ subfolder) and in $top_srcdir/../shared/data/dna.
set -u
top=${top_srcdir:-.}
SIMREADS=${SIMREADS:-${top_builddir:-.}/tests/simreads}
. "$top/tests/ecoli_genome.sh"
if [ ! -x "$SIMREADS" ]; then
	echo "FAIL: $SIMREADS not built" >&2
	exit 1
fi
. "$top/tests/testlib.sh"

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

# -S: every read on the strand asked; the strand is still drawn, so the other fields and
# the reads whose drawn strand was the one asked stay those of the default run (a)
sim sp -n $N -l $L -L $H -s 1 -S +
sim sm -n $N -l $L -L $H -s 1 -S -
for st in + -; do
	tag=sp
	[ "$st" = - ] && tag=sm
	if pairs $tag | paste - "$tmp/a.tab" | awk -F'\t' -v st="$st" '
		{
			split($1, r, "_"); split($5, d, "_")
			if (r[2] != st) { print "strand of " $1; bad++ }
			if (r[1] != d[1] || r[3] != d[3] || r[4] != d[4] || r[5] != d[5] || $3 != $7 || $4 != $8)
				{ print $1 " differs from " $5; bad++ }
			if (d[2] == st && $2 != $6) { print "read " $1 " differs from " $5; bad++ }
		}
		END { exit (bad > 0 || NR == 0) }' >"$tmp/$tag.bad"; then ok; else bad "-S $st:"; head -n 3 "$tmp/$tag.bad" >&2; fi
done

# svcheck TAG KINDS MINSV MAXSV ROT: each read names one change of a kind of KINDS (a
# comma list), of a size in [MINSV, MAXSV] clipped to the origin less a margin of a tenth
# on each side, and with ROT = 1 a rotation in [len/10, 9 len/10]; the read's length is
# the changed origin's within the error budget; the window is the unchanged origin plus
# the default flank; every kind of KINDS occurs.
svcheck() {
	pairs "$1" | awk -F'\t' -v kinds="$2" -v lo="$3" -v hi="$4" -v rot="$5" '
		function err(m) { print $1 ": " m; bad++ }
		BEGIN { nk = split(kinds, kl, ","); for (i = 1; i <= nk; i++) want[kl[i]] = 1 }
		{
			nf = split($1, r, "_")
			len = r[4] - r[3]; rate = substr(r[5], 2)
			if (nf != 7 + rot) { err("fields"); next }
			kind = substr(r[6], 1, 3); size = substr(r[6], 4) + 0; pos = substr(r[7], 3) + 0
			if (!(kind in want) || r[6] !~ /^[a-z][a-z][a-z][0-9]+$/ || r[7] !~ /^at[0-9]+$/)
				err("change " r[6] "_" r[7])
			seen[kind]++
			m = int((len + 9) / 10)
			if (size > hi || (size < lo && size < len - 2 * m)) err("size " size)
			if (pos < m || pos + size > len - m) err("position " pos " size " size " in " len)
			if (rot) {
				k = substr(r[8], 4) + 0
				if (r[8] !~ /^rot[0-9]+$/ || k < int(len / 10) || k > int(9 * len / 10))
					err("rotation " r[8])
			}
			want_len = len + (kind == "del" ? -size : kind == "ins" || kind == "dup" ? size : 0)
			d = length($2) - want_len
			if (d < 0) d = -d
			if (d > rate * want_len) err("read length " length($2) " vs " want_len)
			if ($2 !~ /^[ACGT]+$/) err("letters other than ACGT")
			split($3, w, "_"); f = int(len * 0.05)
			if (w[2] != (r[3] > f ? r[3] - f : 0) || w[3] < r[4] || w[3] > r[4] + f ||
			    length($4) != w[3] - w[2])
				err("window " $3)
		}
		END {
			for (i = 1; i <= nk; i++) if (!seen[kl[i]]) err("no " kl[i])
			for (x in seen) if (!(x in want)) err("kind " x)
			exit (bad > 0 || NR == 0)
		}' >"$tmp/$1.bad"
	if [ -s "$tmp/$1.bad" ]; then bad "structural changes ($1):"; head -n 5 "$tmp/$1.bad" >&2; else ok; fi
}
sim v -n 60 -l 1500 -L 3000 -v 100 -V 800 -s 5
sim v2 -n 60 -l 1500 -L 3000 -v 100 -V 800 -s 5
if cmp -s "$tmp/v.r.fa" "$tmp/v2.r.fa" && cmp -s "$tmp/v.w.fa" "$tmp/v2.w.fa"; then ok; else bad "-V: same seed, different output"; fi
svcheck v del,ins,dup,inv 100 800 0
sim vk -n 30 -l 1500 -L 3000 -v 200 -V 400 -k inv,del -R -s 6
sim vk2 -n 30 -l 1500 -L 3000 -v 200 -V 400 -k inv,del -R -s 6
if cmp -s "$tmp/vk.r.fa" "$tmp/vk2.r.fa"; then ok; else bad "-k -R: same seed, different output"; fi
svcheck vk del,inv 200 400 1
# sizes larger than the origin allows are clipped to 80 % of it
sim vc -n 20 -l 300 -L 600 -v 5000 -V 9000 -k del,dup -s 7
svcheck vc del,dup 5000 9000 0

# error-free reads with a change and a rotation on both strands: undoing the rotation and
# the reverse complement gives the origin with exactly the change named (the inserted bases
# of ins are random: there only the origin around them is checked)
sim x -n 60 -l 300 -L 2000 -e 0 -E 0 -v 1 -V 500 -R -s 8
pairs x | awk -F'\t' '
	BEGIN { c["A"] = "T"; c["C"] = "G"; c["G"] = "C"; c["T"] = "A" }
	function rc(s,  t, i) { t = ""; for (i = length(s); i > 0; i--) t = t c[substr(s, i, 1)]; return t }
	{
		split($1, r, "_"); split($3, w, "_")
		o = substr($4, r[3] - w[2] + 1, r[4] - r[3])
		kind = substr(r[6], 1, 3); size = substr(r[6], 4) + 0; pos = substr(r[7], 3) + 0
		k = substr(r[8], 4) + 0; n = length($2)
		x = substr($2, n - k + 1) substr($2, 1, n - k)
		if (r[2] == "-") x = rc(x)
		head = substr(o, 1, pos); seg = substr(o, pos + 1, size); tail = substr(o, pos + size + 1)
		if (kind == "del") e = head tail
		else if (kind == "ins") e = head substr(x, pos + 1, size) seg tail
		else if (kind == "dup") e = head seg seg tail
		else e = head rc(seg) tail
		if (x != e) { print "read " $1 " is not its changed origin"; bad++ }
		if (!(kind in seen)) nseen++
		seen[kind]++
	}
	END { if (nseen != 4) { print "kinds seen: " nseen; bad++ }; exit (bad > 0) }' >"$tmp/x.bad"
if [ -s "$tmp/x.bad" ]; then bad "error-free changed reads:"; head -n 3 "$tmp/x.bad" >&2; else ok; fi

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
expect_fail -g "$genome" -n 5 -S x
expect_fail -g "$genome" -n 5 -v 10
expect_fail -g "$genome" -n 5 -V 10 -k del,foo
expect_fail -g "$genome" -n 5 -V 10 -k del,

echo "simreads: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
