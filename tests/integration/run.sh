#!/usr/bin/env bash
# Run every tests/integration/t_*.sh, each in its own hermetic directory.
# Needs KBACKPORT (default build/kbackport). Totals go to build/test-totals.
set -u
here=$(cd "$(dirname "$0")" && pwd)
status=0
for t in "$here"/t_*.sh; do
	echo "# $(basename "$t")"
	bash "$t" || status=1
done
exit $status
