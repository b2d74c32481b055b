#!/bin/sh
# bad_input.sh: every kind of bad input ends with one line on stderr that says what is
# wrong, a non-zero exit (1 for usage, 2 for input or runtime errors), never a crash
# (signal), a hang or output that looks complete.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

# expect NAME STATUS PATTERN ARGS...: exit status STATUS, exactly one stderr line that
# starts with "nwalign: error:" and contains PATTERN (grep -E).
expect() {
	name=$1 want=$2 pat=$3
	shift 3
	timeout 60 "$NWALIGN" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$got" != "$want" ]; then
		bad "$name: exit $got, expected $want; stderr: $(head -c 300 "$tmp/err")"
	elif [ "$lines" != 1 ] || ! grep -q '^nwalign: error: ' "$tmp/err"; then
		bad "$name: stderr is not one error line: $(head -c 300 "$tmp/err")"
	elif ! grep -Eq -- "$pat" "$tmp/err"; then
		bad "$name: message '$(cat "$tmp/err")' lacks /$pat/"
	else
		ok
	fi
}

q=$data/reads.fq
r=$data/ref.fa

# Usage errors: exit 1.
expect "no arguments" 1 "required" 
expect "no reference" 1 "required" -q "$q"
expect "unknown option" 1 "unknown option '--frobnicate'" -q "$q" -r "$r" --frobnicate
expect "bad mode" 1 "--mode must be" -q "$q" -r "$r" -m fancy
expect "bad format" 1 "--format must be" -q "$q" -r "$r" -f bam
expect "bad pairs" 1 "--pairs must be" -q "$q" -r "$r" --pairs some
expect "non-numeric" 1 "--gap-open needs an integer, not 'x'" -q "$q" -r "$r" --gap-open x
expect "negative open" 1 "--gap-open must be between 0 and 1000" -q "$q" -r "$r" --gap-open -3
expect "zero extend" 1 "--gap-extend must be between 1 and 1000" -q "$q" -r "$r" --gap-extend 0
expect "absurd mismatch" 1 "--match and --mismatch must be between" -q "$q" -r "$r" --mismatch 99999
expect "negative match" 1 "--match and --mismatch must be between" -q "$q" -r "$r" --match -2
expect "huge integer" 1 "needs an integer" -q "$q" -r "$r" --gap-open 99999999999999999999
expect "zero threads" 1 "--threads must be" -q "$q" -r "$r" -t 0
expect "unknown matrix" 1 "unknown matrix 'blosum99'" -q "$q" -r "$r" --matrix blosum99 -a protein
expect "matrix for the other alphabet" 1 "matrix blosum62 is for protein" -q "$q" -r "$r" -a dna --matrix blosum62
expect "match with protein" 1 "--match/--mismatch score DNA" -q "$data/globins.fa" -r "$data/globins.fa" --match 3
expect "two stdins" 1 "only one of" -q - -r -
expect "top with zip" 1 "--top .* needs --pairs all" -q "$q" -r "$r" --pairs zip --top 1
expect "negative top" 1 "--top must be" -q "$q" -r "$r" --top -1
expect "bad strand" 1 "--strand must be forward or both" -q "$q" -r "$r" --strand reverse
expect "strand both with protein" 1 "--strand both needs DNA" -q "$data/globins.fa" -r "$data/globins.fa" --strand both
expect "stray argument" 1 "unexpected argument" -q "$q" -r "$r" extra
expect "tile too small" 1 "--tile must be between 16 and 4096 \(got 8\)" -q "$q" -r "$r" -c --gact --tile 8
expect "tile too large" 1 "--tile must be between 16 and 4096" -q "$q" -r "$r" -f paf --gact --tile 5000
expect "negative tile" 1 "--tile must not be negative" -q "$q" -r "$r" -c --gact --tile -1
expect "non-numeric overlap" 1 "--overlap needs an integer, not 'x'" -q "$q" -r "$r" -c --gact --overlap x
expect "negative overlap" 1 "--overlap must not be negative" -q "$q" -r "$r" -c --gact --overlap -4
expect "gap open -1 (not the default)" 1 "--gap-open must be between 0 and 1000" -q "$q" -r "$r" --gap-open -1
expect "gap extend -1" 1 "--gap-extend must be between 1 and 1000" -q "$q" -r "$r" --gap-extend -1
expect "match -1" 1 "--match and --mismatch must be between" -q "$q" -r "$r" --match -1
# INT_MIN is the options' "not given": typed in, it once gave the default silently
for o in --match --mismatch --gap-open --gap-extend --top --device --tile; do
	expect "$o -2147483648" 1 "$o is out of range \(got -2147483648\)" -q "$q" -r "$r" "$o" -2147483648
done
expect "mismatch -1" 1 "--match and --mismatch must be between" -q "$q" -r "$r" --mismatch -1
expect "overlap above the default tile" 1 "--overlap must be between 0 and 312, the tile size 320 minus 8 \(got 313\)" -q "$q" -r "$r" -c --gact --overlap 313
expect "overlap too close to the tile" 1 "--overlap must be between 0 and 56" -q "$q" -r "$r" -f sam --gact --tile 64 --overlap 60
expect "tile without a value" 1 "--tile needs a value" -q "$q" -r "$r" -c --tile
expect "tile without --gact" 1 "--tile shapes GACT paths, which only --gact asks for" -q "$q" -r "$r" -c --tile 64
expect "overlap without --gact" 1 "--overlap shapes GACT paths, which only --gact asks for" -q "$q" -r "$r" -f paf --overlap 8
expect "max-deficit without --gact" 1 "--max-deficit shapes GACT paths, which only --gact asks for" -q "$q" -r "$r" -c --max-deficit 0.1
expect "gact and exact" 1 "--gact and --exact contradict each other" -q "$q" -r "$r" -c --gact --exact
expect "max-deficit above 1" 1 "--max-deficit needs a fraction from 0 to 1, not '1.5'" -q "$q" -r "$r" -c --gact --max-deficit 1.5
expect "max-deficit not a number" 1 "--max-deficit needs a fraction from 0 to 1, not '5%'" -q "$q" -r "$r" -c --gact --max-deficit 5%
expect "max-deficit negative" 1 "--max-deficit needs a fraction from 0 to 1, not '-0.1'" -q "$q" -r "$r" -c --gact --max-deficit -0.1

# --backend gpu without a GPU engine or a device: one clear line (where a device is
# present the run simply succeeds).
if ! "$NWALIGN" -q "$q" -r "$r" --backend gpu >/dev/null 2>"$tmp/gpu.err"; then
	[ "$(wc -l <"$tmp/gpu.err")" = 1 ] && grep -Eq '^nwalign: error: .*(CUDA|device)' "$tmp/gpu.err" &&
		ok || bad "--backend gpu without a device: $(cat "$tmp/gpu.err")"
else
	ok
fi

# Input errors: exit 2, the message names the file.
expect "missing file" 2 "cannot open '$tmp/nope.fa'" -q "$tmp/nope.fa" -r "$r"
expect "directory" 2 "$tmp" -q "$tmp" -r "$r"
: >"$tmp/empty.fa"
expect "empty file" 2 "empty.fa'?: no sequences" -q "$tmp/empty.fa" -r "$r"
head -c 3000 /dev/urandom >"$tmp/garbage.bin"
expect "binary garbage" 2 "garbage.bin" -q "$tmp/garbage.bin" -r "$r"
printf '@r1\nACGT\n+\nIIII\n@r2\nACGTACGT\n+\nIII\n' >"$tmp/trunc.fq"
expect "truncated FASTQ" 2 "trunc.fq.*r2" -q "$tmp/trunc.fq" -r "$r"
printf '@r1\nACGT\n+\nIIII\n@r2\nACGTACGT\n' >"$tmp/trunc2.fq"
expect "FASTQ cut after the sequence" 2 "trunc2.fq.*r2" -q "$tmp/trunc2.fq" -r "$r"
printf '>ok\nACGT\n>bad\nACGTXACGT\n' >"$tmp/badchar.fa"
expect "invalid character" 2 "badchar.fa.*'bad'.*'X' at position 5" -q "$tmp/badchar.fa" -r "$r" -a dna
printf '>ok\nACGT\n>hollow\n>next\nACGT\n' >"$tmp/emptyrec.fa"
expect "empty record" 2 "emptyrec.fa.*'hollow'.*empty sequence" -q "$tmp/emptyrec.fa" -r "$r"
printf 'ACGT\n' >"$tmp/noheader.fa"
expect "no header" 2 "noheader.fa.*not FASTA or FASTQ" -q "$tmp/noheader.fa" -r "$r"
gzip -c "$q" | head -c 600 >"$tmp/cut.fq.gz"
expect "truncated gzip" 2 "cut.fq.gz" -q "$tmp/cut.fq.gz" -r "$r"
expect "zip count mismatch" 2 "--pairs zip: .*ref.fa' ends after 3 records" -q "$q" -r "$r" --pairs zip
printf '   A C G T\nA 1 -1 -1\n' >"$tmp/bad.mat"
# --max-memory: bad sizes are usage errors; references beyond it a clear error (exit 2)
# before any output, the same set within it runs; zip streams the references: no limit
expect "bad --max-memory" 1 "--max-memory needs a size" -q "$q" -r "$r" --max-memory 5X
expect "zero --max-memory" 1 "--max-memory needs a size" -q "$q" -r "$r" --max-memory 0
awk 'BEGIN {srand(3); for (k = 0; k < 3; k++) {printf ">big%d\n", k; for (i = 0; i < 4000; i++) {
	l = ""; for (j = 0; j < 100; j++) l = l substr("ACGT", int(rand() * 4) + 1, 1); print l}}}' >"$tmp/refs3.fa"
expect "references over --max-memory" 2 "refs3.fa' need more memory than --max-memory 1.0 MiB" \
	-q "$q" -r "$tmp/refs3.fa" --max-memory 1M
[ ! -s "$tmp/out" ] && ok || bad "references over --max-memory: output written"
"$NWALIGN" -q "$q" -r "$tmp/refs3.fa" --max-memory 4M -m local >"$tmp/out" 2>"$tmp/err" &&
	[ "$(grep -vc '^#' "$tmp/out")" = 24 ] && ok || bad "references within --max-memory: $(cat "$tmp/err")"
expect "malformed matrix file" 2 "bad.mat.*3 values for 4 columns" -q "$q" -r "$r" --matrix "$tmp/bad.mat"

# A failed write is an error, for every format.
if [ -w /dev/full ]; then
	for f in tsv paf sam; do
		expect "write error ($f)" 2 "write|No space" -q "$q" -r "$r" -f "$f" -o /dev/full
	done
else
	echo "note: /dev/full not available, write-error checks not run" >&2
fi
expect "unwritable -o" 2 "cannot|write" -q "$q" -r "$r" -o "$tmp/no/such/dir/out.tsv"

# A closed pipe ends quietly: no message, and the reader got its lines.
n=$("$NWALIGN" -q "$q" -r "$r" -t 1 2>"$tmp/pipe.err" | head -n 2 | wc -l)
[ "$n" = 2 ] && [ ! -s "$tmp/pipe.err" ] && ok || bad "closed pipe: $n lines, stderr $(cat "$tmp/pipe.err")"

echo "bad_input: $pass passed, $fail failed"
[ "$fail" = 0 ]
