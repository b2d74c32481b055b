#!/bin/sh
# signals.sh: SIGTERM and SIGHUP stop a run cleanly (SIGINT too, but a shell's background
# job ignores SIGINT, and nwalign keeps a signal ignored that it was started with). nwalign
# writes the records of the chunks it has aligned, each whole, closes the output and exits
# with 128 + the signal's number (143, 129) and one line on stderr; it does not hang and
# leaves no partial line.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

# A run of minutes uninterrupted: 24,000 reads against 60 windows of 3 kb with CIGARs,
# one thread, in batches of 500 reads.
awk 'NR % 4 == 2 {s[++k] = $0} END {for (i = 0; i < 24000; i++) printf ">r%d\n%s\n", i, s[i % k + 1]}' \
	"$data/reads.fq" >"$tmp/q.fa"
awk '/^>/ {next} {g = g $0} END {for (i = 0; i < 60; i++) {printf ">w%d\n", i;
     for (k = 0; k < 3; k++) printf "%s", substr(g, (i * 7 + k * 11) % (length(g) - 1000) + 1, 1000);
     printf "\n"}}' "$data/ref.fa" >"$tmp/r.fa"

# stop SIGNAL STATUS: start the run, wait for its first records, signal it, and check.
stop() {
	sig=$1 want=$2
	rm -f "$tmp/out.tsv"
	"$NWALIGN" -q "$tmp/q.fa" -r "$tmp/r.fa" -m local -c --backend cpu -t 1 --batch-size 500 \
		-o "$tmp/out.tsv" 2>"$tmp/err" &
	pid=$!
	i=0
	while [ "$i" -lt 600 ] && [ "$(cat "$tmp/out.tsv" 2>/dev/null | wc -l)" -lt 2 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "-$sig" "$pid" 2>/dev/null
	# a watchdog: a run that does not stop within 60 s is killed, and fails below
	(sleep 60 && kill -9 "$pid" 2>/dev/null) &
	dog=$!
	wait "$pid"
	status=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	if [ "$status" -eq 137 ]; then
		bad "$sig: still running 60 s after the signal"
		return
	fi
	lines=$(grep -vc '^#' "$tmp/out.tsv")
	if [ "$status" -ne "$want" ]; then
		bad "$sig: exit status $status, not $want ($(cat "$tmp/err"))"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "^nwalign: error: interrupted" "$tmp/err"; then
		bad "$sig: stderr is not one 'interrupted' line: $(cat "$tmp/err")"
	elif [ "$lines" -lt 1 ] || [ "$lines" -ge 1440000 ]; then
		bad "$sig: $lines records: the run was not stopped part way"
	elif [ -n "$(tail -c 1 "$tmp/out.tsv")" ]; then
		bad "$sig: the output ends inside a line"
	elif awk -F'\t' '!/^#/ && (NF != 13 || $13 !~ /^([0-9]+[=XID])+$/) {bad = 1} END {exit !bad}' "$tmp/out.tsv"; then
		bad "$sig: a record is not whole"
	elif ! grep -q "after $lines records written" "$tmp/err"; then
		bad "$sig: the message does not count the $lines records written: $(cat "$tmp/err")"
	else
		ok
	fi
}

stop TERM 143
# Under nohup SIGHUP is ignored from the start, and nwalign rightly keeps it so: then the
# HUP run would simply finish. The mask of ignored signals says so (bit 0 is SIGHUP).
ign=$(awk '/^SigIgn:/ {print $2}' /proc/$$/status 2>/dev/null)
if [ -n "$ign" ] && [ $((0x$ign & 1)) = 1 ]; then
	echo "note: SIGHUP is ignored in this environment (nohup): the HUP check is not run"
else
	stop HUP 129
fi

echo "signals: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
