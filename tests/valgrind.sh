#!/bin/sh
# Run the unit test binaries given, then the kbackport runs of every
# integration suite (those made through run_kb), under valgrind memcheck:
# any error or leak fails.
set -u
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
status=0
for t in "$@"; do
	if ! $VG "$t" >/dev/null 2>"build/valgrind.log"; then
		echo "not ok - valgrind: $t"; cat build/valgrind.log; status=1
	else
		echo "ok - valgrind: $t"
	fi
done
for t in tests/integration/t_*.sh; do
	KB_VALGRIND="$VG" T_SUITE_PREFIX=valgrind- bash "$t" > build/valgrind-suite.log || status=1
	grep -v '^ok ' build/valgrind-suite.log
done
exit $status
