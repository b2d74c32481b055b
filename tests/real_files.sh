#!/bin/sh
# real_files.sh: FASTA and FASTQ as they come from real collections. Each quirk is read
# the way the established readers (EMBOSS, BLAST, Biopython, htslib) read it, and gives
# the same records as the clean file, or it is refused with one clear line and exit 2.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

# same NAME QUIRKY CLEAN [ARGS...]: the quirky query file aligns to exactly the output of
# the clean one, against data/ref.fa (or the ARGS' -r), with exit 0 and a quiet stderr.
same() {
	name=$1 quirky=$2 clean=$3
	shift 3
	"$NWALIGN" -q "$clean" -r "$data/ref.fa" "$@" >"$tmp/clean.out" 2>"$tmp/clean.err" ||
		{ bad "$name: the clean file fails: $(cat "$tmp/clean.err")"; return; }
	"$NWALIGN" -q "$quirky" -r "$data/ref.fa" "$@" >"$tmp/quirky.out" 2>"$tmp/quirky.err"
	st=$?
	if [ "$st" != 0 ]; then
		bad "$name: exit $st: $(head -c 300 "$tmp/quirky.err")"
	elif [ -s "$tmp/quirky.err" ]; then
		bad "$name: stderr: $(head -c 300 "$tmp/quirky.err")"
	elif ! cmp -s "$tmp/clean.out" "$tmp/quirky.out"; then
		bad "$name: output differs from the clean file's"
	elif [ "$(wc -l <"$tmp/quirky.out")" -lt 3 ]; then
		bad "$name: too few records"
	else
		ok
	fi
}

# refused NAME PATTERN FILE [REF]: exit 2, one error line matching PATTERN.
refused() {
	name=$1 pat=$2 file=$3 ref=${4:-$data/ref.fa}
	"$NWALIGN" -q "$file" -r "$ref" >/dev/null 2>"$tmp/err"
	st=$?
	if [ "$st" != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -Eq -- "$pat" "$tmp/err"; then
		bad "$name: exit $st, stderr: $(head -c 300 "$tmp/err")"
	else
		ok
	fi
}

printf '>r1 first read\nACGTACGTTAGCATCGATCGA\n>r2\nTTGACCGATCGATCGGATC\n>r3 x\nGGCATCGATCGATTTACG\n' >"$tmp/clean.fa"

# "> NAME description": the name is the first word after the blanks
sed 's/^>/> /; s/^> r3/>\t r3/' "$tmp/clean.fa" >"$tmp/space.fa"
same "blank after '>'" "$tmp/space.fa" "$tmp/clean.fa"
# Windows line ends
sed 's/$/\r/' "$tmp/clean.fa" >"$tmp/crlf.fa"
same "CRLF line ends" "$tmp/crlf.fa" "$tmp/clean.fa"
# blank lines before, between and inside records, and no newline at the end
{ printf '\n\n'; sed 's/^>r2/\n\n>r2/; s/^GGC/GGC\n\n/' "$tmp/clean.fa"; } | head -c -1 >"$tmp/blank.fa"
same "blank lines" "$tmp/blank.fa" "$tmp/clean.fa"
# lower case, and sequence lines of every width
tr 'ACGT' 'acgt' <"$tmp/clean.fa" | sed '/^>/!s/\(.....\)/\1\n/g' >"$tmp/lower.fa"
same "lower case, 5-column lines" "$tmp/lower.fa" "$tmp/clean.fa"
# a header of 200,000 characters (the name is its first word)
awk 'NR == 1 {printf "%s ", $0; for (i = 0; i < 20000; i++) printf "0123456789"; print ""; next} {print}' \
	"$tmp/clean.fa" >"$tmp/longhdr.fa"
same "200 kB header" "$tmp/longhdr.fa" "$tmp/clean.fa"
# FASTQ: sequence and quality over several lines, and the same with '+name'
printf '@r1\nACGTACGTTAG\nCATCGATCGA\n+\nIIIIIIIIIII\nIIIIIIIIII\n@r2\nTTGACCGATCGATCGGATC\n+r2\nIIIIIIIIIIIIIIIIIII\n@r3\nGGCATCGATC\nGATTTACG\n+\nIIIII\nIIIII\nIIIIIIII\n' >"$tmp/multi.fq"
printf '@r1\nACGTACGTTAGCATCGATCGA\n+\nIIIIIIIIIIIIIIIIIIIII\n@r2\nTTGACCGATCGATCGGATC\n+\nIIIIIIIIIIIIIIIIIII\n@r3\nGGCATCGATCGATTTACG\n+\nIIIIIIIIIIIIIIIIII\n' >"$tmp/single.fq"
same "multi-line FASTQ" "$tmp/multi.fq" "$tmp/single.fq"
for f in multi single; do
	"$NWALIGN" -q "$tmp/$f.fq" -r "$data/ref.fa" -f sam 2>/dev/null | grep -v '^@PG' >"$tmp/$f.sam"
done
[ -s "$tmp/single.sam" ] && cmp -s "$tmp/multi.sam" "$tmp/single.sam" && ok ||
	bad "multi-line FASTQ: SAM (SEQ and QUAL) differs from the single-line file's"
# proteins with '*' stop codons: read as the matrices' '*' (BLOSUM scores it)
printf '>p1\nMVHLTPEEKSAVTALWGKV*\n>p2\nMVLSPADKTNVKAAWGKVGA*\n>p3\nMKVLAAGIV\n' >"$tmp/stop.fa"
"$NWALIGN" -q "$tmp/stop.fa" -r "$data/globins.fa" -m local >"$tmp/stop.out" 2>"$tmp/stop.err" &&
	[ "$(wc -l <"$tmp/stop.out")" -ge 4 ] && [ ! -s "$tmp/stop.err" ] && ok ||
	bad "'*' in proteins: $(head -c 300 "$tmp/stop.err")"

# Refused, with a line that says what to do.
tr '\n' '\r' <"$tmp/clean.fa" >"$tmp/mac.fa"
refused "classic Mac line ends" "carriage return.*tr" "$tmp/mac.fa"
printf '>r1\nACGT-ACGT.TAGC\n>r2\nACGTTT\n' >"$tmp/gapped.fa"
refused "gap characters of aligned FASTA" "'r1'.*gap character '-' at position 5.*remove the gaps" "$tmp/gapped.fa"
printf '>p1\nMVHLTPEE--KSAVTAL\n' >"$tmp/gapped_prot.fa"
refused "gaps in an aligned protein" "gap character '-' at position 9" "$tmp/gapped_prot.fa" "$data/globins.fa"

# DNA against proteins: aligned as protein, with a warning that names both files.
"$NWALIGN" -q "$tmp/clean.fa" -r "$data/globins.fa" >/dev/null 2>"$tmp/mix.err"
[ $? = 0 ] && grep -q "warning: '.*clean.fa' looks like dna and '.*globins.fa' like protein" "$tmp/mix.err" &&
	ok || bad "DNA against protein: no warning ($(cat "$tmp/mix.err"))"
"$NWALIGN" -q "$tmp/clean.fa" -r "$data/globins.fa" -a protein >/dev/null 2>"$tmp/mix2.err"
[ ! -s "$tmp/mix2.err" ] && ok || bad "--alphabet given: still warned ($(cat "$tmp/mix2.err"))"

echo "real_files: $pass passed, $fail failed"
[ "$fail" = 0 ]
