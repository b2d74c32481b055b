# testlib.sh: sourced by the shell tests (after their own `set -u`): the program under
# test, the bundled data, a temporary folder removed at exit, and the pass/fail counters.
NWALIGN=${NWALIGN:-./nwalign}
top=${top_srcdir:-.}
data=$top/data
# --backend auto gives small runs to the CPU engine rather than wait for the GPU to open;
# the tests' inputs are small, and the GPU tests among them are there to run the GPU:
# off, except where a test asks for it (small_runs.sh)
NWALIGN_AUTO_CPU_S=${NWALIGN_AUTO_CPU_S-0}
export NWALIGN_AUTO_CPU_S
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nwtest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# zip_set N QUERIES WINDOWS: N reads of the bundled reads.fq (cycled) and, for each, a
# window of 300 bp of ref.fa: a one-to-one set whose records carry short spans of every
# kind.
zip_set() {
	awk -v n="$1" 'NR % 4 == 1 {nm[++k] = substr($1, 2)} NR % 4 == 2 {s[k] = $0}
	     END {for (i = 0; i < n; i++) {j = i % k + 1; printf ">%s_%d\n%s\n", nm[j], i, s[j]}}' \
		"$data/reads.fq" >"$2"
	awk -v n="$1" '/^>/ {next} {g = g $0} END {for (i = 0; i < n; i++) {o = (i * 97) % (length(g) - 400);
	     printf ">w%d\n%s\n", i, substr(g, o + 1, 300)}}' "$data/ref.fa" >"$3"
}

# protein_set N QUERIES DB: real proteins for a test, the first N queries of mm_query50
# and all of mm_db2k when the shared data folder is there ($NW_DATA, or ../shared/data
# beside the source tree), else the bundled globins as both.
protein_set() {
	for d in ${NW_DATA:+"$NW_DATA/protein" "$NW_DATA"} "$top/../shared/data/protein"; do
		if [ -r "$d/mm_query50.fa" ] && [ -r "$d/mm_db2k.fa" ]; then
			awk -v n="$1" '/^>/ {k++} k <= n' "$d/mm_query50.fa" >"$2"
			cp "$d/mm_db2k.fa" "$3"
			return
		fi
	done
	echo "note: shared protein data not found (NW_DATA): the bundled globins instead"
	cp "$data/globins.fa" "$2"
	cp "$data/globins.fa" "$3"
}
