#!/usr/bin/env bash
# tests/run-suite.sh DIR|FILE: run every DIR/t_*.sh in order (or FILE), each in its own
# hermetic directory (the e2e ones share build/e2e, in that order). Needs
# KBACKPORT (default build/kbackport). Totals go to build/test-totals; each
# suite's wall time is printed after it and added to build/test-times as
# "[KB_PASS/]suite seconds" (tests/summary.sh shows the slowest).
set -u
dir=${1:?usage: tests/run-suite.sh DIR|FILE}
status=0
if [ -f "$dir" ]; then set -- "$dir"; else set -- "$dir"/t_*.sh; fi
for t; do
	echo "# $(basename "$t")"
	start=$SECONDS
	bash "$t" || status=1
	echo "# $(basename "$t"): $((SECONDS - start)) s"
	echo "${KB_PASS:+$KB_PASS/}$(basename "$t") $((SECONDS - start))" >> build/test-times
done
exit $status
