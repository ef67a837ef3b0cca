#!/usr/bin/env bash
# Run every tests/e2e/t_*.sh in order (they share build/e2e).
set -u
here=$(cd "$(dirname "$0")" && pwd)
status=0
for t in "$here"/t_*.sh; do
	echo "# $(basename "$t")"
	bash "$t" || status=1
done
exit $status
