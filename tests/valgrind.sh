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
# Each kbackport run starts a valgrind (about a thousand in all), whose
# start is most of its time: no gdbserver (--vgdb=no, nothing attaches
# here) and no inlined frames in the debug info read (--read-inline-info=no:
# a report still names the file and line, under the function it was
# inlined into) take a tenth off each start (0.76 s to 0.69 s for
# `kbackport --version`, measured side by side).
VG="valgrind -q --vgdb=no --read-inline-info=no --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
: "${VALGRIND_SUITES:=t_apply_queue t_audit t_bad_input t_build t_ci t_errors t_fix_new t_import t_import_trees t_ktap t_report t_run t_run_queue t_skip_missing t_threeway t_placement t_history t_identity}"
# tests/valgrind.sh list: the suites it runs by default (for tests/jobs.sh);
# tests/valgrind.sh unit BIN...: the unit binaries only;
# tests/valgrind.sh suite t_NAME.sh: one integration suite only.
VALGRIND_ALL=$(cd tests/integration && ls t_*.sh | sed 's/\.sh$//')
[ "$VALGRIND_SUITES" = all ] && VALGRIND_SUITES=$VALGRIND_ALL
log=build/valgrind.$$.log

unit() {	# unit BIN...
	local t st=0 start
	start=$(date +%s)
	for t in "$@"; do
		if ! $VG "$t" >/dev/null 2>"$log"; then
			echo "not ok - valgrind: $t"; cat "$log"; st=1
		else
			echo "ok - valgrind: $t"
		fi
	done
	rm -f "$log"
	echo "valgrind/unit $(($(date +%s) - start))" >> build/test-times
	return $st
}

suite() {	# suite t_NAME[.sh]
	local t=tests/integration/${1%.sh}.sh st=0 start
	[ -f "$t" ] || { echo "not ok - valgrind: no suite $t"; return 1; }
	start=$(date +%s)
	KB_VALGRIND="$VG" T_SUITE_PREFIX=valgrind- bash "$t" > "$log" || st=1
	grep -v '^ok ' "$log"
	rm -f "$log"
	echo "# valgrind: $(basename "$t"): $(($(date +%s) - start)) s"
	echo "valgrind/$(basename "$t") $(($(date +%s) - start))" >> build/test-times
	return $st
}

mkdir -p build
case "${1:-}" in
list) printf '%s\n' $VALGRIND_SUITES; exit 0 ;;
unit) shift; unit "$@"; exit ;;
suite) suite "${2:?usage: tests/valgrind.sh suite t_NAME.sh}"; exit ;;
esac
status=0
unit "$@" || status=1
for s in $VALGRIND_SUITES; do
	suite "$s" || status=1
done
exit $status
