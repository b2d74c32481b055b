#!/bin/sh
# fuzz_smoke.sh: every fuzz harness (fuzz/), built without libFuzzer, over its kept inputs
# in tests/fuzz/HARNESS/: the seeds and every input that ever crashed it. Each must run
# to the end (no crash, no sanitizer report in sanitizer builds, no hang); and each
# harness's dictionary (fuzz/HARNESS.dict) is there and well formed.
set -u
top=${top_srcdir:-.}
bin=${top_builddir:-.}/tests
fail=0
n=0
for h in reader matrix options pipeline nwdb; do
	set -- "$top"/tests/fuzz/$h/*
	if [ ! -e "$1" ]; then
		echo "FAIL: no inputs in tests/fuzz/$h" >&2
		fail=$((fail + 1))
		continue
	fi
	if out=$(timeout 300 "$bin/fuzz_$h" "$@" 2>&1 >/dev/null; echo "exit $?") && [ "${out##*exit }" = 0 ]; then
		n=$((n + $#))
	else
		echo "FAIL: fuzz_$h: $(printf '%s' "$out" | tail -n 5)" >&2
		fail=$((fail + 1))
	fi
	# its dictionary (make fuzz's runs take -dict=fuzz/HARNESS.dict): comments, blank lines
	# and quoted tokens whose escapes libFuzzer reads (\\, \", \xHH)
	d=$top/fuzz/$h.dict
	if [ ! -s "$d" ] || grep -v '^#' "$d" | grep -v '^$' |
		grep -Evq '^"([^"\\]|\\\\|\\"|\\x[0-9a-fA-F]{2})+"$'; then
		echo "FAIL: fuzz/$h.dict is missing or has a line libFuzzer would not read" >&2
		fail=$((fail + 1))
	fi
done
echo "fuzz_smoke: $n inputs replayed, $fail harnesses failed"
[ "$fail" = 0 ]
