#!/bin/sh
# sv_paths.sh: default alignment paths are optimal on reads with structural changes. Reads
# simulated by tests/simreads from the E. coli genome carry one deletion, insertion, tandem
# duplication or inversion of 100-800 bp, or are rotated copies of their origin (two
# circular genomes that start at different places: a global alignment needs a long gap at
# each end); both need gaps about as long as a GACT tile (320) or longer, which a tiled
# heuristic path misses. Every pair is aligned three times, with the same options but the
# output:
#   score only (TSV, no path): column 10 is the optimum, from the score engine;
#   -c (TSV with the path): column 10 is the path's score and must equal the optimum, the
#      coordinates (columns 3, 4, 7, 8) and the strand must be the same, and the CIGAR must
#      span exactly those coordinates;
#   -f paf: AS:i (the path's score) must equal the optimum, the coordinates the same, and
#      no os:i tag (which marks a path that may score below the optimum).
# The semiglobal sets align reads with their windows (origin plus a 5 % flank, --strand
# both); the rotated sets align forward reads globally with windows equal to their origin
# (-w 0). Each set runs with the default backend and with --backend cpu -t 2.
# NW_PATH_FULL_CELLS=20000 sends spans over 20,000 cells to the long-span path code, so
# that these short reads take it.
# NW_SV_EXTRA_OPTS: options appended to every command that computes a path (for example
# --exact or --gact, to compare the path kinds by hand).
# Skips (77) when the genome is missing: it is looked for in $NW_DATA (the data folder, or
# its dna/ subfolder) and in $top_srcdir/../shared/data/dna.
set -u
NWALIGN=${NWALIGN:-./nwalign}
top=${top_srcdir:-.}
SIMREADS=${SIMREADS:-${top_builddir:-.}/tests/simreads}
extra=${NW_SV_EXTRA_OPTS:-}
NW_PATH_FULL_CELLS=20000
export NW_PATH_FULL_CELLS
. "$top/tests/ecoli_genome.sh"
for p in "$SIMREADS" "$NWALIGN"; do
	if [ ! -x "$p" ]; then
		echo "FAIL: $p not built" >&2
		exit 1
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nwsv.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pairs=0
pairs_failed=0
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# sim TAG ARGS...: reads to $tmp/TAG.r.fa, windows to $tmp/TAG.w.fa
sim() {
	tag=$1
	shift
	"$SIMREADS" -g "$genome" "$@" -r "$tmp/$tag.r.fa" -t "$tmp/$tag.w.fa" 2>"$tmp/$tag.err"
	st=$?
	if [ "$st" -ne 0 ]; then
		bad "simreads $*: exit $st ($(cat "$tmp/$tag.err"))"
		return 1
	fi
}

# run OUT ARGS...: nwalign ARGS > OUT; a failed run is a failure of the test
run() {
	out=$1
	shift
	"$NWALIGN" "$@" >"$out" 2>"$out.err"
	st=$?
	if [ "$st" -ne 0 ]; then
		bad "nwalign $*: exit $st ($(head -n 3 "$out.err"))"
		return 1
	fi
}

# check TAG MODE N BACKEND_OPTS...: align set TAG's N pairs three times and compare
check() {
	tag=$1 mode=$2 n=$3
	shift 3
	what="$tag ($mode${*:+ $*})"
	r=$tmp/$tag.r.fa w=$tmp/$tag.w.fa o=$tmp/$tag.out
	strand=
	[ "$mode" = semiglobal ] && strand="--strand both"
	# shellcheck disable=SC2086 # $strand and $extra are lists of options
	run "$o.s" -q "$r" -r "$w" --pairs zip -m "$mode" $strand --no-header "$@" || return
	# shellcheck disable=SC2086
	run "$o.c" -q "$r" -r "$w" --pairs zip -m "$mode" $strand --no-header -c "$@" $extra || return
	# shellcheck disable=SC2086
	run "$o.p" -q "$r" -r "$w" --pairs zip -m "$mode" $strand -f paf "$@" $extra || return
	# one line per failure (the first few), then the count of failed pairs on the last line
	awk -F'\t' -v n="$n" '
		function err(m) {
			if (!(FNR in failed)) { failed[FNR] = 1; nfail++ }
			if (++nmsg <= 5) print "pair " FNR " (" $1 "): " m; else if (nmsg == 6) print "..."
		}
		FILENAME ~ /\.s$/ {
			if (NF != 10 || $10 !~ /^-?[0-9]+$/) err("score-only line: " $0)
			name[FNR] = $1 "\t" $5; opt[FNR] = $10; co[FNR] = $3 " " $4 " " $7 " " $8 " " $9
			ns = FNR; next
		}
		FILENAME ~ /\.c$/ {
			nc = FNR
			if (name[FNR] != $1 "\t" $5) { err("path line out of order: " $1 " " $5); next }
			if ($10 != opt[FNR]) err("path score " $10 ", optimum " opt[FNR])
			if ($3 " " $4 " " $7 " " $8 " " $9 != co[FNR])
				err("path span " $3 " " $4 " " $7 " " $8 " " $9 ", score engine " co[FNR])
			# the CIGAR spans the coordinates: M = X I consume the query, M = X D the reference
			cg = $13; ql = 0; rl = 0
			while (match(cg, /^[0-9]+[MIDNSHP=X]/)) {
				len = substr(cg, 1, RLENGTH - 1) + 0; op = substr(cg, RLENGTH, 1)
				if (op ~ /[M=XI]/) ql += len
				if (op ~ /[M=XDN]/) rl += len
				cg = substr(cg, RLENGTH + 1)
			}
			if (cg != "" || $13 == "") err("CIGAR " substr($13, 1, 40))
			else if (ql != $4 - $3 || rl != $8 - $7)
				err("CIGAR spans " ql " x " rl ", coordinates " $4 - $3 " x " $8 - $7)
			next
		}
		{
			np = FNR
			if (name[FNR] != $1 "\t" $6) { err("PAF line out of order: " $1 " " $6); next }
			as = ""; os = ""
			for (i = 13; i <= NF; i++) {
				if ($i ~ /^AS:i:/) as = substr($i, 6)
				if ($i ~ /^os:i:/) os = substr($i, 6)
			}
			if (as != opt[FNR]) err("PAF AS:i " as ", optimum " opt[FNR])
			if (os != "") err("PAF os:i:" os " (a path that may not be optimal)")
			if ($3 " " $4 " " $8 " " $9 " " $5 != co[FNR])
				err("PAF span " $3 " " $4 " " $8 " " $9 " " $5 ", score engine " co[FNR])
		}
		END {
			if (ns != n || nc != n || np != n) {
				print ns + 0 ", " nc + 0 " and " np + 0 " lines, not " n
				nfail = n
			}
			print "checked " n " " nfail + 0 # the last line: the count of failed pairs
		}' "$o.s" "$o.c" "$o.p" >"$o.res"
	nfail=$(awk 'END {print $3}' "$o.res")
	nfail=${nfail:-$n}
	pairs=$((pairs + n))
	pairs_failed=$((pairs_failed + nfail))
	if [ "$nfail" -ne 0 ]; then
		bad "$what: $nfail of $n pairs:"
		sed '$d' "$o.res" >&2
	fi
	echo "$what: $n pairs, $nfail failed"
	# the score engine gives the same optimum with every backend
	if [ -s "$tmp/$tag.opt" ]; then
		cut -f 1-10 "$o.s" >"$o.opt"
		cmp -s "$tmp/$tag.opt" "$o.opt" || bad "$what: scores differ from the default backend's"
	else
		cut -f 1-10 "$o.s" >"$tmp/$tag.opt"
	fi
}

# semiglobal: 10 reads of 1500-3000 bp with 5-15 % errors and one change of each kind,
# reads on both strands, windows with the default 5 % flank
for kind in del ins dup inv; do
	if sim "$kind" -n 10 -l 1500 -L 3000 -e 0.05 -E 0.15 -v 100 -V 800 -k "$kind" -s 11; then
		check "$kind" semiglobal 10
		check "$kind" semiglobal 10 --backend cpu -t 2
	fi
done

# global: rotated forward reads, alone and with a change of any kind, against windows that
# are their origin
for set in "rot -s 12" "rotsv -v 100 -V 800 -s 13"; do
	# shellcheck disable=SC2086 # $set: the tag, then simreads options
	set -- $set
	tag=$1
	shift
	sim "$tag" -n 15 -l 1500 -L 3000 -e 0.05 -E 0.15 -S + -R -w 0 "$@" || continue
	# sim<k>_+_<start>_<end>_... pairs with win<k>_<start>_<end>
	grep '^>' "$tmp/$tag.r.fa" >"$tmp/$tag.rn"
	grep '^>' "$tmp/$tag.w.fa" >"$tmp/$tag.wn"
	if ! paste "$tmp/$tag.rn" "$tmp/$tag.wn" | awk -F'\t' '{split($1, a, "_"); split($2, b, "_")
		if (a[3] != b[2] || a[4] != b[3]) bad++} END {exit (bad > 0 || NR != 15)}'; then
		bad "$tag: simreads -w 0 windows are not the origins"
	fi
	check "$tag" global 15
	check "$tag" global 15 --backend cpu -t 2
done

echo "sv_paths: $pairs pairs checked, $pairs_failed failed"
[ "$fail" -eq 0 ] && [ "$pairs" -gt 0 ]
