#!/bin/sh
# Add up build/test-totals (one "suite passed failed [skipped]" line per suite).
set -u
[ -f build/test-totals ] || { echo "0 passed, 0 failed"; exit 1; }
awk '{p += $2; f += $3; s += $4}
     END {printf "%d passed, %d failed%s\n", p, f, s ? sprintf(", %d skipped", s) : ""; exit (f > 0)}' build/test-totals
