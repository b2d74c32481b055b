# testlib.sh: sourced by the shell tests (after their own `set -u`): the program under
# test, the bundled data, a temporary folder removed at exit, and the pass/fail counters.
NWALIGN=${NWALIGN:-./nwalign}
top=${top_srcdir:-.}
data=$top/data
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
