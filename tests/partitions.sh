#!/bin/sh
# partitions.sh: --top against references larger than --max-memory, read in partitions,
# and against references streamed in partitions (one query set).
# Every output must equal, byte for byte, the same run with every reference in memory:
#  - real proteins (the first 12 queries of mm_query50 against mm_db2k when the shared
#    data folder is there, else the bundled globins against themselves), local, BLOSUM62,
#    TSV with paths, PAF, blast6 (its E-values need the whole database's residues);
#  - the database repeated under new names, so that equal scores fall in different
#    partitions (ties go to the earlier reference in the file);
#  - several query sets (--batch-size), each reading the reference file again;
#  - DNA reads against windows of the bundled reference, semiglobal, --strand both, PAF;
#  - tops that change in every partition (references mutated less and less down the file),
#    so that the records of the references pushed out are dropped on the way;
#  - a database made by nwalign index, read a range of records at a time (a damaged one
#    is refused before any record), its checksum read on threads in parts;
#  - references on stdin: one query set works; several fail with one line and no record;
#  - -f sam (its header lists every reference first) and all vs all without --top are
#    refused with one line;
#  - with a GPU: --backend gpu over partitions equals --backend cpu in memory.
# -v must report more than one partition, so that the comparisons are not of two runs in
# memory.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

q=$tmp/q.fa
db=$tmp/db.fa
protein_set 12 "$q" "$db"
# the memory that gives about 8 partitions: 3 bytes a residue
residues=$(awk '!/^>/ {n += length($0)} END {print n}' "$db")
mem=$((residues * 3 / 8))

# same NAME QUERIES REFS MEM ARGS...: in memory and in partitions of MEM bytes, one output.
# MEM stream:N: read first, and streamed (one query set against a large reference file
# aligns each partition while the next is read, the partitions growing from the first of
# N residues; NW_STREAM_FIRST, a test hook, streams any file).
same() {
	name=$1 qf=$2 rf=$3 m=$4
	shift 4
	NW_STREAM_FIRST=0 "$NWALIGN" -q "$qf" -r "$rf" "$@" >"$tmp/mem.out" 2>"$tmp/mem.err" ||
		{ bad "$name: in memory: $(cat "$tmp/mem.err")"; return; }
	same_first=0 same_least=2 same_count='s/.*references, \([0-9]*\) partitions aligned.*/\1/p'
	case $m in
	stream:*)
		same_first=${m#stream:} same_least=3
		same_count='s/.*references streamed: [0-9]* references in \([0-9]*\) partitions.*/\1/p' ;;
	*) set -- "$@" --max-memory "$m" ;;
	esac
	NW_STREAM_FIRST=$same_first "$NWALIGN" -q "$qf" -r "$rf" "$@" -v >"$tmp/part.out" 2>"$tmp/part.err" ||
		{ bad "$name: in partitions: $(grep error "$tmp/part.err")"; return; }
	parts=$(sed -n "$same_count" "$tmp/part.err")
	if [ -z "$parts" ] || [ "$parts" -lt $same_least ]; then
		bad "$name: not read in partitions (-v: $(grep references "$tmp/part.err"))"
	elif ! cmp -s "$tmp/mem.out" "$tmp/part.out"; then
		bad "$name: the outputs differ"
	elif [ "$(grep -vc '^#' "$tmp/part.out")" -lt 3 ]; then
		bad "$name: too few records"
	else
		ok
	fi
}

P="-m local --matrix blosum62 --gap-open 10 --gap-extend 1"
same "protein, TSV with paths" "$q" "$db" "$mem" $P --top 3 -c
same "protein, PAF, top 1" "$q" "$db" "$mem" $P --top 1 -f paf
if [ "$(awk '/^>/ {n++} END {print n}' "$db")" -gt 100 ]; then
	same "protein, blast6" "$q" "$db" "$mem" $P --top 5 -f blast6
fi
same "protein, several query sets" "$q" "$db" "$mem" $P --top 2 --batch-size 5 -c

# ties across partitions: the database three times over, renamed
awk '/^>/ {n++} n <= 40' "$db" >"$tmp/head.fa"
for k in 1 2 3; do sed "s/^>\([^ ]*\).*/>\1_r$k/" "$tmp/head.fa"; done >"$tmp/dup.fa"
dres=$(awk '!/^>/ {n += length($0)} END {print n}' "$tmp/dup.fa")
same "equal scores in different partitions" "$q" "$tmp/dup.fa" $((dres * 3 / 10)) $P --top 7
# a --top beyond the file's references (every pair kept): the tops' rows widen with each
# partition, moving the results already held; it once allocated --top results a query up
# front (56 GB for --top 777777777)
same "--top beyond the references, paths" "$q" "$tmp/dup.fa" $((dres * 3 / 10)) $P --top 2000000000 -c \
	--batch-size 5

# DNA: reads against overlapping windows of the reference, both strands
awk '/^>/ {next} {g = g $0} END {for (o = 0; o + 400 <= length(g); o += 100)
	printf ">w%d\n%s\n", o, substr(g, o + 1, 400)}' "$data/ref.fa" >"$tmp/win.fa"
wres=$(awk '!/^>/ {n += length($0)} END {print n}' "$tmp/win.fa")
same "DNA, semiglobal, both strands, PAF" "$data/reads.fq" "$tmp/win.fa" $((wres * 3 / 5)) \
	-m semiglobal --strand both --top 2 -f paf
same "DNA, several query sets" "$data/reads.fq" "$tmp/win.fa" $((wres * 3 / 5)) \
	-m local --top 3 --batch-size 2 -c

# a database made by nwalign index: read a range of records at a time, the same output;
# damaged, it is refused before any record
"$NWALIGN" index -o "$tmp/db.nwdb" "$db" 2>"$tmp/err" || bad "nwalign index: $(cat "$tmp/err")"
same "database, TSV with paths" "$q" "$tmp/db.nwdb" "$mem" $P --top 3 -c
same "database, several query sets" "$q" "$tmp/db.nwdb" "$mem" $P --top 2 --batch-size 5 -f paf
"$NWALIGN" -q "$q" -r "$db" $P --top 2 >"$tmp/mem.out" 2>/dev/null
"$NWALIGN" -q "$q" -r "$tmp/db.nwdb" $P --top 2 >"$tmp/dbmem.out" 2>"$tmp/err"
cmp -s "$tmp/mem.out" "$tmp/dbmem.out" && ok || bad "database in memory differs from FASTA: $(cat "$tmp/err")"
cp "$tmp/db.nwdb" "$tmp/bad.nwdb"
printf 'Z' | dd of="$tmp/bad.nwdb" bs=1 seek=200 conv=notrunc 2>/dev/null
"$NWALIGN" -q "$q" -r "$tmp/bad.nwdb" $P --top 2 --max-memory "$mem" >"$tmp/bad.out" 2>"$tmp/err"
st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "damaged (checksum)" "$tmp/err" &&
	[ "$(grep -vc '^#' "$tmp/bad.out")" = 0 ] && ok ||
	bad "a damaged database in partitions: exit $st, $(cat "$tmp/err")"
# its checksum read on 4 threads in parts of 37 bytes (whose sums combine): the same
# output, and a byte damaged near its end (in the last part) still refused
NW_DB_LOAD_PART=37
export NW_DB_LOAD_PART
same "database, checksum in parts" "$q" "$tmp/db.nwdb" "$mem" $P --top 3 -c -t 4
cp "$tmp/db.nwdb" "$tmp/bad2.nwdb"
printf 'Z' | dd of="$tmp/bad2.nwdb" bs=1 seek=$(($(wc -c <"$tmp/db.nwdb") - 3)) conv=notrunc 2>/dev/null
"$NWALIGN" -q "$q" -r "$tmp/bad2.nwdb" $P --top 2 --max-memory "$mem" -t 4 >"$tmp/bad.out" 2>"$tmp/err"
st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "damaged (checksum)" "$tmp/err" &&
	[ "$(grep -vc '^#' "$tmp/bad.out")" = 0 ] && ok ||
	bad "a database damaged in its last part, in partitions: exit $st, $(cat "$tmp/err")"
unset NW_DB_LOAD_PART

# tops that change in every partition: copies of six reads mutated less and less down the
# file, so that each partition's copies beat the last; the kept references' records are
# then rebuilt without those pushed out (-v counts it), and the output must not change
awk 'NR % 4 == 1 && n < 6 {print ">" substr($1, 2); getline; print; n++}' "$data/reads.fq" >"$tmp/cq.fa"
awk 'NR % 4 == 2 && n < 6 {s[n++] = $0} END {
	m["A"] = "C"; m["C"] = "A"; m["G"] = "T"; m["T"] = "G"
	for (L = 9; L >= 0; L--) for (i = 0; i < n; i++) {
		t = ""
		for (p = 1; p <= length(s[i]); p++) {
			c = substr(s[i], p, 1)
			if ((p * 13 + L) % 10 < L && (c in m)) c = m[c]
			t = t c
		}
		printf ">m%d_%d\n%s\n", L, i, t
	}}' "$data/reads.fq" >"$tmp/churn.fa"
cres=$(awk '!/^>/ {n += length($0)} END {print n}' "$tmp/churn.fa")
same "tops changed by every partition" "$tmp/cq.fa" "$tmp/churn.fa" $((cres * 3 / 10)) -m local --top 2 -c
compacted=$(sed -n 's/.*records compacted \([0-9]*\) times.*/\1/p' "$tmp/part.err")
[ "${compacted:-0}" -ge 1 ] && ok || bad "tops changed by every partition: the kept records were not compacted ($(grep partitions "$tmp/part.err"))"

# references on stdin: they are read once, so one query set only
"$NWALIGN" -q "$q" -r "$db" $P --top 2 >"$tmp/mem.out" 2>/dev/null
"$NWALIGN" -q "$q" -r - $P --top 2 --max-memory "$mem" <"$db" >"$tmp/stdin.out" 2>"$tmp/err"
[ $? = 0 ] && cmp -s "$tmp/mem.out" "$tmp/stdin.out" && ok ||
	bad "references on stdin, one query set: $(cat "$tmp/err")"
"$NWALIGN" -q "$q" -r - $P --top 2 --max-memory "$mem" --batch-size 5 <"$db" >"$tmp/stdin.out" 2>"$tmp/err"
st=$?
[ "$st" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "standard input.*more than one batch" "$tmp/err" &&
	[ "$(grep -vc '^#' "$tmp/stdin.out")" = 0 ] && ok ||
	bad "references on stdin, several query sets: exit $st, $(cat "$tmp/err")"

# streamed: the output of a run with every reference read first
first=$((residues / 100 + 1))
same "streamed, TSV with paths" "$q" "$db" stream:$first $P --top 3 -c
same "streamed, blast6 (the database's size known at its end)" "$q" "$db" stream:$first $P --top 5 -f blast6
same "streamed, equal scores in different partitions" "$q" "$tmp/dup.fa" stream:$((dres / 60 + 1)) $P --top 7
same "streamed, DNA, semiglobal, both strands, PAF" "$data/reads.fq" "$tmp/win.fa" stream:$((wres / 30 + 1)) \
	-m semiglobal --strand both --top 2 -f paf
# under --max-memory: partitions of at most half the memory allowed (a sixteenth of the
# residues here), two at a time; with enough records, more than 8 of them
same "streamed within --max-memory" "$q" "$db" stream:$first $P --top 2 --max-memory "$mem"
if [ "$(awk '/^>/ {n++} END {print n}' "$db")" -gt 100 ]; then
	[ "$(sed -n 's/.*references in \([0-9]*\) partitions.*/\1/p' "$tmp/part.err")" -ge 9 ] && ok ||
		bad "streamed within --max-memory: fewer partitions than half the memory allows ($(grep streamed "$tmp/part.err"))"
fi
NW_STREAM_FIRST=0 "$NWALIGN" -q "$q" -r "$db" $P --top 2 >"$tmp/mem.out" 2>/dev/null
NW_STREAM_FIRST=$first "$NWALIGN" -q "$q" -r - $P --top 2 -v <"$db" >"$tmp/str.out" 2>"$tmp/err"
[ $? = 0 ] && grep -q "references streamed" "$tmp/err" && cmp -s "$tmp/mem.out" "$tmp/str.out" && ok ||
	bad "streamed from stdin: $(grep -v '^nwalign: [a-z]' "$tmp/err" | head -3)"
# a bad record in a partition read ahead: its error, and no records
{ cat "$db"; printf '>bad\nAC1DE\n'; } >"$tmp/dbbad.fa"
NW_STREAM_FIRST=$first "$NWALIGN" -q "$q" -r "$tmp/dbbad.fa" $P --top 2 >"$tmp/bad.out" 2>"$tmp/err"
st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "record 'bad'.*invalid character '1'" "$tmp/err" &&
	[ "$(grep -vc '^#' "$tmp/bad.out")" = 0 ] && ok ||
	bad "a bad record streamed: exit $st, $(cat "$tmp/err")"
# several query sets would read the references again: they are read first, as without it
NW_STREAM_FIRST=0 "$NWALIGN" -q "$q" -r "$db" $P --top 2 --batch-size 5 >"$tmp/mem.out" 2>/dev/null
NW_STREAM_FIRST=$first "$NWALIGN" -q "$q" -r "$db" $P --top 2 --batch-size 5 -v >"$tmp/str.out" 2>"$tmp/err"
[ $? = 0 ] && ! grep -q "references streamed\|partitions aligned" "$tmp/err" && cmp -s "$tmp/mem.out" "$tmp/str.out" &&
	ok || bad "several query sets with streaming asked for: $(grep references "$tmp/err")"
NW_STREAM_FIRST=$first "$NWALIGN" -q "$q" -r "$db" $P --top 2 --batch-size 5 --max-memory "$mem" -v \
	>"$tmp/str.out" 2>"$tmp/err"
[ $? = 0 ] && grep -q "partitions aligned" "$tmp/err" && cmp -s "$tmp/mem.out" "$tmp/str.out" && ok ||
	bad "several query sets with streaming asked for, over --max-memory: $(grep references "$tmp/err")"

# refused: SAM (exit 1), and all vs all without --top (exit 2)
"$NWALIGN" -q "$q" -r "$db" $P --top 2 -f sam --max-memory "$mem" >/dev/null 2>"$tmp/err"
st=$?
[ "$st" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "partitions.*-f sam" "$tmp/err" && ok ||
	bad "-f sam over partitions: exit $st, $(cat "$tmp/err")"
"$NWALIGN" -q "$q" -r "$db" $P --max-memory "$mem" >/dev/null 2>"$tmp/err"
st=$?
[ "$st" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "use --top N" "$tmp/err" && ok ||
	bad "no --top over --max-memory: exit $st, $(cat "$tmp/err")"

# the GPU engine, where there is one
if "$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" --backend gpu >/dev/null 2>&1; then
	"$NWALIGN" -q "$q" -r "$db" $P --top 3 -c --backend cpu >"$tmp/cpu.out" 2>/dev/null
	"$NWALIGN" -q "$q" -r "$db" $P --top 3 -c --backend gpu --max-memory "$mem" >"$tmp/gpu.out" 2>"$tmp/err"
	[ $? = 0 ] && cmp -s "$tmp/cpu.out" "$tmp/gpu.out" && ok ||
		bad "GPU over partitions differs from the CPU in memory: $(cat "$tmp/err")"
	NW_STREAM_FIRST=$first "$NWALIGN" -q "$q" -r "$db" $P --top 3 -c --backend gpu -v >"$tmp/gpu.out" 2>"$tmp/err"
	[ $? = 0 ] && grep -q "references streamed" "$tmp/err" && cmp -s "$tmp/cpu.out" "$tmp/gpu.out" && ok ||
		bad "GPU streamed differs from the CPU in memory: $(grep -v '^nwalign: [a-z]' "$tmp/err" | head -3)"
else
	echo "note: no GPU engine or device: the GPU comparison is not run"
fi

echo "partitions: $pass passed, $fail failed"
[ "$fail" = 0 ]
