#!/bin/sh
# Run the unit test binaries given, then the kbackport runs of the
# integration suites in $VALGRIND_SUITES (made through run_kb), under
# valgrind memcheck: any error or leak fails.
#
# Every integration suite already runs once more under ASan, UBSan and
# LeakSanitizer (make check-asan), which fail on the same leaks and bad
# accesses; what valgrind adds is uninitialised reads, which depend on the
# code path, not on the data. So by default valgrind runs the suites that
# together reach every command and its error paths, and leaves out the ones
# that repeat those paths on more data or time things (real trees, races,
# interrupts, the CI runner, install): about half the time of all of them.
# VALGRIND_SUITES=all runs every suite.
set -u
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
: "${VALGRIND_SUITES:=t_apply_queue t_audit t_bad_input t_build t_ci t_errors t_fix_new t_import t_import_trees t_ktap t_report t_run t_run_queue t_skip_missing t_threeway t_placement t_history t_identity}"
status=0
start=$(date +%s)
for t in "$@"; do
	if ! $VG "$t" >/dev/null 2>"build/valgrind.log"; then
		echo "not ok - valgrind: $t"; cat build/valgrind.log; status=1
	else
		echo "ok - valgrind: $t"
	fi
done
mkdir -p build
echo "valgrind/unit $(($(date +%s) - start))" >> build/test-times
if [ "$VALGRIND_SUITES" = all ]; then
	suites=$(ls tests/integration/t_*.sh)
else
	suites=$(for s in $VALGRIND_SUITES; do echo "tests/integration/$s.sh"; done)
fi
for t in $suites; do
	[ -f "$t" ] || { echo "not ok - valgrind: no suite $t"; status=1; continue; }
	start=$(date +%s)
	KB_VALGRIND="$VG" T_SUITE_PREFIX=valgrind- bash "$t" > build/valgrind-suite.log || status=1
	grep -v '^ok ' build/valgrind-suite.log
	echo "# valgrind: $(basename "$t"): $(($(date +%s) - start)) s"
	echo "valgrind/$(basename "$t") $(($(date +%s) - start))" >> build/test-times
done
exit $status
