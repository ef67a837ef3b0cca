#!/bin/sh
# Run the unit test binaries given, then the kbackport runs of the era,
# error, bad-input, audit, build, run, report and CI suites, under valgrind
# memcheck: any error or leak fails.
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
for t in t_eras t_errors t_bad_input t_audit t_build t_run t_report t_ci; do
	KB_VALGRIND="$VG" T_SUITE_PREFIX=valgrind- bash "tests/integration/$t.sh" | grep -v '^ok ' || status=1
done
exit $status
