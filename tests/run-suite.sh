#!/usr/bin/env bash
# tests/run-suite.sh DIR: run every DIR/t_*.sh in order, each in its own
# hermetic directory (the e2e ones share build/e2e, in that order). Needs
# KBACKPORT (default build/kbackport). Totals go to build/test-totals; each
# suite's wall time is printed after it (to see where CI's time goes).
set -u
dir=${1:?usage: tests/run-suite.sh DIR}
status=0
for t in "$dir"/t_*.sh; do
	echo "# $(basename "$t")"
	start=$SECONDS
	bash "$t" || status=1
	echo "# $(basename "$t"): $((SECONDS - start)) s"
done
exit $status
