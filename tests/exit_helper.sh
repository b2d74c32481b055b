#!/bin/sh
# exit_helper.sh: the end of a command that used the GPU (src/process_exit.c): the process
# ends once its output is complete, and a helper holding the device's descriptors ends
# after it, so that the driver's release of the device does not delay the caller. Checked
# everywhere through the hook NW_EXIT_HELPER=1 (the same end without a GPU) and, on a GPU
# host, with the device itself (--backend gpu):
#  - the output, the status and stderr equal a run's that waits for the release
#    (NWALIGN_WAIT_RELEASE=1): a clean run with -v, an error found after the first records
#    (status 2, one line), output through a pipe and through a command substitution (whose
#    end of file comes only when every holder of stdout has closed it);
#  - no process is left behind once the command has returned (the helper ends with it);
#  - an error found while the next query set is read ahead ends in one line, every time.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"

zip_set 3000 "$tmp/q.fa" "$tmp/r.fa"
# the same queries, the last record's sequence malformed: an error after the first chunks
cp "$tmp/q.fa" "$tmp/bad.fa"
printf '>broken\nACGT!!ACGT\n' >>"$tmp/bad.fa"

# left_behind MARK: 0 when no process's command line holds MARK within 5 s
left_behind() {
	i=0
	while [ "$i" -lt 50 ]; do
		found=0
		for f in /proc/[0-9]*/cmdline; do
			if cat "$f" 2>/dev/null | tr '\0' ' ' | grep -q -- "$1"; then
				found=1
				break
			fi
		done
		[ "$found" -eq 0 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

# check NAME ENV... -- ARGS...: the run with the helper's end (ENV) against the same run
# waiting for the release, output to a file, through a pipe and through $(...)
check() {
	name=$1
	shift
	envs=
	while [ "$1" != "--" ]; do
		envs="$envs $1"
		shift
	done
	shift
	NWALIGN_WAIT_RELEASE=1 "$NWALIGN" "$@" >"$tmp/want.out" 2>"$tmp/want.err"
	want=$?
	mark="$tmp/mark-$name"
	ln -sf "$tmp/q.fa" "$mark.fa" 2>/dev/null
	env $envs "$NWALIGN" "$@" >"$tmp/got.out" 2>"$tmp/got.err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		bad "$name: exit status $got, waiting for the release $want"
	elif ! cmp -s "$tmp/want.out" "$tmp/got.out"; then
		bad "$name: the output differs from the run that waits for the release"
	elif ! cmp -s "$tmp/want.err" "$tmp/got.err" &&
		[ "$(grep -v 'closed in\|wall s\|GCUPS\|gpu opened\|gpu kernels' "$tmp/want.err")" != \
		  "$(grep -v 'closed in\|wall s\|GCUPS\|gpu opened\|gpu kernels' "$tmp/got.err")" ]; then
		bad "$name: stderr differs: $(head -c 300 "$tmp/got.err")"
	else
		ok
	fi
	# a pipe, and a command substitution: both end (a watchdog fails a hang)
	env $envs "$NWALIGN" "$@" 2>/dev/null | cat >"$tmp/pipe.out" &
	p=$!
	(sleep 60 && kill -9 "$p" 2>/dev/null) &
	dog=$!
	wait "$p"
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	if cmp -s "$tmp/want.out" "$tmp/pipe.out"; then ok; else bad "$name: the output through a pipe differs"; fi
	sub=$(env $envs "$NWALIGN" "$@" 2>/dev/null; echo "status $?")
	if [ "$(printf '%s\n' "$sub" | tail -n 1)" = "status $want" ] &&
		[ "$(printf '%s\n' "$sub" | sed '$d' | cksum)" = "$(cksum <"$tmp/want.out")" ]; then
		ok
	else
		bad "$name: the output or status through \$(...) differs"
	fi
	# nothing left running: the run's inputs name the mark
	env $envs "$NWALIGN" -q "$mark.fa" -r "$tmp/r.fa" --pairs zip >/dev/null 2>&1
	if left_behind "$mark"; then bad "$name: a process is still running 5 s after the command"; else ok; fi
}

Z="-q $tmp/q.fa -r $tmp/r.fa --pairs zip -m local -c -t 2"
B="-q $tmp/bad.fa -r $tmp/r.fa --pairs zip -m local -t 2 --batch-size 500"
# shellcheck disable=SC2086
check hook NW_EXIT_HELPER=1 -- $Z -v --backend cpu
# shellcheck disable=SC2086
check hook-error NW_EXIT_HELPER=1 -- $B --backend cpu

# An error while the next query set is read ahead (references on stdin that two query sets
# would read twice, found as the second set begins): the read ahead, already reading the
# third set, must end before the run's memory is left to the process's end (a run that
# left it running crashed now and then as the thread wrote into the ended run): 100 runs
# with third sets of several sizes, each its status and its one line.
awk 'BEGIN {
	srand(7)
	aa = "ACDEFGHIKLMNPQRSTVWY"
	for (k = 0; k < 5; k++) {
		printf ">short%d\n", k
		for (i = 0; i < 3; i++) { s = ""; for (j = 0; j < 50; j++) s = s substr(aa, int(rand() * 20) + 1, 1); print s }
	}
	for (k = 0; k < 10; k++) {
		printf ">long%d\n", k
		n = 20000 + 10000 * k
		for (i = 0; i < n; i += 60) { s = ""; for (j = 0; j < 60; j++) s = s substr(aa, int(rand() * 20) + 1, 1); print s }
	}
}' >"$tmp/sets.fa"
head -n 16 "$tmp/sets.fa" >"$tmp/refs.fa"
runs=0 crashed=0
while [ "$runs" -lt 100 ]; do
	NW_EXIT_HELPER=1 "$NWALIGN" -q "$tmp/sets.fa" -r - -a protein -m local --top 1 --max-memory 200 \
		--batch-size $((3 + runs % 4)) --backend cpu -t 2 <"$tmp/refs.fa" >"$tmp/ahead.out" 2>"$tmp/ahead.err"
	st=$?
	if [ "$st" != 1 ] || [ "$(wc -l <"$tmp/ahead.err")" != 1 ] || ! grep -q "more than one batch" "$tmp/ahead.err"; then
		crashed=$((crashed + 1))
		last="exit $st, $(tail -n 1 "$tmp/ahead.err")"
	fi
	runs=$((runs + 1))
done
if [ "$crashed" -eq 0 ]; then ok; else bad "an error with a set read ahead: $crashed of 100 runs ended badly ($last)"; fi

if "$NWALIGN" -q "$data/reads.fq" -r "$data/ref.fa" --backend gpu >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	check gpu NWALIGN_WAIT_RELEASE=0 -- $Z -v --backend gpu
	# shellcheck disable=SC2086
	check gpu-error NWALIGN_WAIT_RELEASE=0 -- $B --backend gpu
	if "$NWALIGN" $Z --backend gpu -v 2>&1 >/dev/null | grep -q "the GPU is released after the process ends"; then
		ok
	else
		bad "gpu: -v does not say that the GPU is released after the process ends"
	fi
else
	echo "note: no GPU: the device's own end is not checked"
fi

echo "exit_helper: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
