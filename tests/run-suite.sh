#!/usr/bin/env bash
# tests/run-suite.sh DIR: run every DIR/t_*.sh in order, each in its own
# hermetic directory (the e2e ones share build/e2e, in that order). Needs
# KBACKPORT (default build/kbackport). Totals go to build/test-totals.
set -u
dir=${1:?usage: tests/run-suite.sh DIR}
status=0
for t in "$dir"/t_*.sh; do
	echo "# $(basename "$t")"
	bash "$t" || status=1
done
exit $status
