#!/usr/bin/env bash
# tests/jobs.sh: the single-threaded passes of make check (the integration
# suites plain, under ASan/UBSan and under valgrind, and the unit tests and
# fuzz replays of the last two) as a queue of jobs, one per pass and suite,
# which workers take in order. make check starts one worker beside the
# kernel stream (unit, then e2e, whose builds use both cores) and, once the
# kernels are done, a second one, so that both cores work until the end
# instead of one pass running alone on one core for the last quarter hour.
#
#   tests/jobs.sh init UNIT_BIN...   write the queue (build/jobs/queue), one
#                                    "PASS SUITE" line per job: PASS plain,
#                                    asan or valgrind; SUITE unit,
#                                    fuzz-replay or an integration t_*.sh
#   tests/jobs.sh work NAME          take jobs until none is left; one line
#                                    per job ("# NAME: PASS SUITE: N s")
#   tests/jobs.sh print              each job's output, in queue order;
#                                    fails when a job failed
#
# Two jobs of one suite (plain and ASan, say) never run at once: a suite's
# caches in build/ (t_ktap's kunit answers, t_gitlab_runner's tools) are
# filled by its first pass and read by the next. A worker that finds only
# such jobs left waits for the other's to end.
set -u
cd "$(dirname "$0")/.." || exit 1
Q=build/jobs
TOP=$(pwd)

# run_job PASS SUITE: the job, its output on stdout
run_job() {
	case "$1 $2" in
	"plain t_"*)
		KBACKPORT=$TOP/build/kbackport tests/run-suite.sh "tests/integration/$2" ;;
	"asan unit")
		# shellcheck disable=SC2046
		KB_PASS=asan tests/run-unit.sh $(sed 's|^build/|build/asan/|' "$Q/unit-bins") ;;
	"asan fuzz-replay")
		env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory SAN=1 fuzz-replay ;;
	"asan t_"*)
		KB_PASS=asan KBACKPORT=$TOP/build/asan/kbackport tests/run-suite.sh "tests/integration/$2" ;;
	"valgrind unit")
		# shellcheck disable=SC2046
		tests/valgrind.sh unit $(cat "$Q/unit-bins") ;;
	"valgrind t_"*)
		tests/valgrind.sh suite "$2" ;;
	*)
		echo "error: no such job '$1 $2'"; return 1 ;;
	esac
}

# take: the next job free to run, in JOB (its line number) and PASS/SUITE,
# marked taken and its suite running; returns 1 when none is left, 2 when
# the jobs left wait for the other worker's suite
take() {
	local n=0 pass suite blocked=0
	exec 9>"$Q/lock"
	flock 9
	JOB=
	while read -r pass suite; do
		n=$((n + 1))
		[ -e "$Q/$n.taken" ] && continue
		if [ -e "$Q/running-$suite" ]; then
			blocked=1
			continue
		fi
		: > "$Q/$n.taken"
		: > "$Q/running-$suite"
		JOB=$n PASS=$pass SUITE=$suite
		break
	done < "$Q/queue"
	flock -u 9
	exec 9>&-
	[ -n "$JOB" ] && return 0
	[ $blocked = 1 ] && return 2
	return 1
}

case "${1:-}" in
init)
	shift
	rm -rf "$Q" && mkdir -p "$Q"
	printf '%s\n' "$@" > "$Q/unit-bins"
	{
		for t in tests/integration/t_*.sh; do echo "plain ${t##*/}"; done
		echo "asan unit"
		for t in tests/integration/t_*.sh; do echo "asan ${t##*/}"; done
		echo "asan fuzz-replay"
		echo "valgrind unit"
		for s in $(tests/valgrind.sh list); do echo "valgrind $s.sh"; done
	} > "$Q/queue"
	;;
work)
	name=${2:?usage: tests/jobs.sh work NAME}
	while :; do
		take
		case $? in
		1) break ;;
		2) sleep 1; continue ;;	# the other worker's suite ends first
		esac
		start=$SECONDS
		run_job "$PASS" "$SUITE" > "$Q/$JOB.log" 2>&1
		echo $? > "$Q/$JOB.status"
		rm -f "$Q/running-$SUITE"
		echo "# $name: $PASS $SUITE: $((SECONDS - start)) s$( [ "$(cat "$Q/$JOB.status")" = 0 ] || echo ", failed")"
	done
	;;
print)
	status=0 n=0
	while read -r pass suite; do
		n=$((n + 1))
		cat "$Q/$n.log" 2>/dev/null
		if [ "$(cat "$Q/$n.status" 2>/dev/null)" != 0 ]; then
			echo "# not ok: $pass $suite"
			status=1
		fi
	done < "$Q/queue"
	exit $status
	;;
*)
	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
