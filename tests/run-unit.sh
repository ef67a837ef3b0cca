#!/bin/sh
# Run each cmocka unit test binary; record totals for tests/summary.sh.
set -u
pass=0 fail=0
start=$(date +%s)
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	if [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		fail=$((fail + 1))
		echo "error: $t exited $rc"
	fi
done
mkdir -p build
echo "unit $pass $fail" >> build/test-totals
echo "${KB_PASS:+$KB_PASS/}unit $(($(date +%s) - start))" >> build/test-times
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
