#!/bin/bash
# nwdb.sh: databases made by `nwalign index` (src/io/nwdb.h).
#  - the file as earlier builds wrote it: a kept database of globins.fa
#    (tests/fuzz/nwdb/globins.nwdb) equals a new index of it byte for byte, and loads;
#  - the same output from a database as from its FASTA file: DNA (both strands, paths,
#    SAM) and protein (--top, blast6), plain and gzip input, and with a tiny chunk size so
#    that the database is written in many pieces (NWALIGN_INDEX_CHUNK);
#  - refused with one line and the documented status: a damaged byte in the residues or in
#    the header, a truncated or extended file, another format version, a file that is not
#    a database, a database as the query or with --pairs zip, an --alphabet or --matrix of
#    the other alphabet, a database larger than --max-memory; nwalign index with no
#    output, bad input (and then no file is left behind).
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

q=$data/reads.fq
r=$data/ref.fa
p=$data/globins.fa

# expect NAME STATUS PATTERN ARGS...: exit STATUS, one stderr line with PATTERN, no output
expect() {
	local name=$1 want=$2 pat=$3
	shift 3
	"$NWALIGN" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	local got=$?
	if [ "$got" = "$want" ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -Eq -- "$pat" "$tmp/err" &&
		[ ! -s "$tmp/out" ]; then
		ok
	else
		bad "$name: exit $got (want $want), stderr '$(head -c 300 "$tmp/err")'"
	fi
}

"$NWALIGN" index -o "$tmp/ref.nwdb" "$r" && ok || bad "index DNA failed"
gzip -c "$p" >"$tmp/globins.fa.gz"
"$NWALIGN" index -v -o "$tmp/glob.nwdb" "$tmp/globins.fa.gz" 2>"$tmp/v" && ok || bad "index protein failed"
grep -q "7 protein records" "$tmp/v" && ok || bad "index -v: $(cat "$tmp/v")"
# the format and its checksum stay as earlier builds wrote them (zlib's Adler-32, whatever
# computes it now): a database of globins.fa kept from one of them is byte for byte the
# one written now, and it loads
old_db=${top_srcdir:-.}/tests/fuzz/nwdb/globins.nwdb
"$NWALIGN" index -o "$tmp/glob_plain.nwdb" "$p" && cmp -s "$tmp/glob_plain.nwdb" "$old_db" && ok ||
	bad "index of globins.fa differs from the one an earlier build wrote ($old_db)"
"$NWALIGN" -q "$p" -r "$old_db" --top 2 -m local >"$tmp/old_db.out" 2>"$tmp/e" &&
	"$NWALIGN" -q "$p" -r "$p" --top 2 -m local >"$tmp/old_fa.out" 2>>"$tmp/e" &&
	cmp -s "$tmp/old_db.out" "$tmp/old_fa.out" && ok || bad "the earlier build's database: $(head -c 300 "$tmp/e")"

same() { # NAME ARGS... (with REF standing for the reference): FASTA and database agree
	local name=$1
	shift
	"$NWALIGN" "$@" >"$tmp/a" 2>"$tmp/ea" || bad "$name: FASTA run failed: $(cat "$tmp/ea")"
	local args=() prev=
	for a in "$@"; do
		if [ "$prev" = -r ]; then
			case $a in "$r") a=$tmp/ref.nwdb ;; "$p") a=$tmp/glob.nwdb ;; esac
		fi
		args+=("$a")
		prev=$a
	done
	"$NWALIGN" "${args[@]}" >"$tmp/b" 2>"$tmp/eb" || bad "$name: database run failed: $(cat "$tmp/eb")"
	# SAM's @PG line holds the command line
	if diff <(grep -v '^@PG' "$tmp/a") <(grep -v '^@PG' "$tmp/b") >/dev/null && [ -s "$tmp/a" ]; then
		ok
	else
		bad "$name: the database gives another output"
	fi
}
same "dna local -c" -q "$q" -r "$r" -m local -c
same "dna semiglobal both strands sam" -q "$q" -r "$r" -m semiglobal --strand both -f sam
same "dna global paf" -q "$q" -r "$r" -f paf -t 1
same "protein top 2" -q "$p" -r "$p" -m local --top 2 -c
same "protein blast6" -q "$p" -r "$p" -m local -f blast6 --top 3
# read on 4 threads in parts of 37 bytes (whose checksums combine): the same output
NW_DB_LOAD_PART=37 same "protein top 2, loaded in parts" -q "$p" -r "$p" -m local --top 2 -c -t 4
NW_DB_LOAD_PART=37 same "dna local, loaded in parts" -q "$q" -r "$r" -m local -t 4

# many chunks: the same database as one chunk gives
NW_INDEX_CHUNK=50 "$NWALIGN" index -o "$tmp/ref_small.nwdb" "$r" && cmp -s "$tmp/ref_small.nwdb" "$tmp/ref.nwdb" &&
	ok || bad "a database written in chunks of 50 residues differs"

# damage
cp "$tmp/ref.nwdb" "$tmp/d1.nwdb"
printf '\x55' | dd of="$tmp/d1.nwdb" bs=1 seek=200 conv=notrunc 2>/dev/null
expect "damaged residues" 2 "damaged \\(checksum\\)" -q "$q" -r "$tmp/d1.nwdb"
NW_DB_LOAD_PART=37 expect "damaged residues, loaded in parts" 2 "damaged \\(checksum\\)" -q "$q" -r "$tmp/d1.nwdb" -t 4
cp "$tmp/ref.nwdb" "$tmp/d2.nwdb"
printf '\x07' | dd of="$tmp/d2.nwdb" bs=1 seek=20 conv=notrunc 2>/dev/null
expect "damaged header" 2 "header is damaged" -q "$q" -r "$tmp/d2.nwdb"
head -c 300 "$tmp/ref.nwdb" >"$tmp/d3.nwdb"
expect "truncated" 2 "truncated" -q "$q" -r "$tmp/d3.nwdb"
cat "$tmp/ref.nwdb" "$r" >"$tmp/d4.nwdb"
expect "extended" 2 "appended" -q "$q" -r "$tmp/d4.nwdb"
cp "$tmp/ref.nwdb" "$tmp/d5.nwdb"
printf '\x02' | dd of="$tmp/d5.nwdb" bs=1 seek=8 conv=notrunc 2>/dev/null
expect "other version" 2 "format version 2" -q "$q" -r "$tmp/d5.nwdb"
head -c 8 "$tmp/ref.nwdb" >"$tmp/d6.nwdb"
expect "header only" 2 "shorter than its header" -q "$q" -r "$tmp/d6.nwdb"

# misuse
expect "database as query" 1 "only -r takes" -q "$tmp/ref.nwdb" -r "$r"
expect "database with zip" 1 "for --pairs all" -q "$q" -r "$tmp/ref.nwdb" --pairs zip
expect "other alphabet" 1 "holds dna sequences, but --alphabet asks for protein" -q "$q" -r "$tmp/ref.nwdb" -a protein
expect "other matrix" 1 "holds protein sequences, but --matrix asks for dna" -q "$p" -r "$tmp/glob.nwdb" --matrix ednafull
expect "over --max-memory" 2 "needs more memory than --max-memory" -q "$q" -r "$tmp/ref.nwdb" --max-memory 100
expect "index without -o" 1 "needs one input FILE and -o" index "$r"
expect "index to stdout" 1 "writes a file, not standard output" index -o - "$r"
expect "index bad alphabet" 1 "--alphabet must be" index -a rna -o "$tmp/x.nwdb" "$r"
printf '>a\nACGT\n>b\nAC!GT\n' >"$tmp/bad.fa"
expect "index of bad input" 2 "bad.fa" index -o "$tmp/bad.nwdb" "$tmp/bad.fa"
[ ! -e "$tmp/bad.nwdb" ] && ok || bad "index of bad input left a file behind"

echo "nwdb: $pass passed, $fail failed"
[ "$fail" = 0 ]
