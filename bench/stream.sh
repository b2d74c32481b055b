#!/usr/bin/env bash
# bench/stream.sh: memory bounded by the batch, not the input. A stream of random 150 bp
# reads (bench/wgen.c, through a pipe: no file is ever that large) is aligned against a
# 200 bp reference, all against all, local, default options; /usr/bin/time reports the
# largest RSS and the wall time.
#
# Usage: bench/stream.sh [GB] [-- nwalign options...]   (GB of FASTA, default 5)
# Prints `result stream-<GB>g max_rss_mb=... wall_s=... records=... commit=...`.
set -euo pipefail
cd "$(dirname "$0")/.."
GB=${1:-5}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
NW=${NWALIGN:-./nwalign}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nwstream.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/wgen" bench/wgen.c
"$tmp/wgen" random 200 9 ref >"$tmp/ref.fa"
# a record is ">r<k>\n" and 151 bytes: about 160 bytes
count=$(awk -v g="$GB" 'BEGIN {printf "%.0f", g * 1e9 / 160}')
set +e
"$tmp/wgen" reads "$count" 150 7 |
	/usr/bin/time -f '%M %e' -o "$tmp/time" "$NW" -q - -r "$tmp/ref.fa" -m local "$@" -v \
		-o "$tmp/out.tsv" 2>"$tmp/err"
st=$?
set -e
[ "$st" = 0 ] || { echo "nwalign failed ($st): $(tail -n 3 "$tmp/err")" >&2; exit 1; }
grep 'records written' "$tmp/err" >&2
records=$(wc -l <"$tmp/out.tsv")
[ "$records" = $((count + 1)) ] || { echo "records: $records lines for $count reads" >&2; exit 1; }
read -r rss_kb wall <"$tmp/time"
echo "result stream-${GB}g max_rss_mb=$((rss_kb / 1024)) wall_s=$wall records=$count commit=$COMMIT"
