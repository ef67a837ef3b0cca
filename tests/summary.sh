#!/bin/sh
# The end of make check: add up build/test-totals (one "suite passed failed
# [skipped]" line per suite), then say where the time went: the slowest
# suites (build/test-times, one "pass/suite seconds" line each, written by
# run-suite.sh, run-unit.sh and valgrind.sh), the time of each pass, and
# when each stream of make check ended (build/check-streams), and how much
# of the kernel builds ccache served (build/ccache-before, written
# when make check started, against the statistics now).
set -u
[ -f build/test-totals ] || { echo "0 passed, 0 failed"; exit 1; }
if [ -s build/test-times ]; then
	echo "# the slowest suites (seconds):"
	sort -k2,2nr build/test-times | head -${KB_SLOWEST:-15} |
		awk '{ printf "#   %6d  %s\n", $2, $1 }'
	echo "# each pass (seconds, suites run one after the other):"
	awk '{ p = ($1 ~ /\//) ? substr($1, 1, index($1, "/") - 1) : "plain"; t[p] += $2 }
	     END { for (p in t) printf "#   %6d  %s\n", t[p], p }' build/test-times | sort -k2,2nr -k3
fi
if [ -s build/check-streams ]; then	# make check: when each stream ended
	awk '{ t[$1] = $2 }
	     END {
		printf "# the streams: the kernels (unit, e2e) took %d s", t["kernels"]
		if ("side" in t) printf ", the worker beside them %d s", t["side"]
		printf "; all %d s\n", t["all"]
	     }' build/check-streams
fi
if [ -s build/ccache-before ] && command -v ccache >/dev/null 2>&1; then
	ccache --print-stats 2>/dev/null > build/ccache-after
	awk -F'\t' 'FNR == NR { before[$1] = $2; next }
		{ d[$1] = $2 - before[$1] }
		END {
			hits = d["direct_cache_hit"] + d["preprocessed_cache_hit"]
			all = hits + d["cache_miss"]
			if (all > 0)
				printf "# ccache: %d of %d compiles served from the cache (%d%%)\n", hits, all, 100 * hits / all
			else
				print "# ccache: no compile went through ccache"
		}' build/ccache-before build/ccache-after
fi
awk '{p += $2; f += $3; s += $4}
     END {printf "%d passed, %d failed%s\n", p, f, s ? sprintf(", %d skipped", s) : ""; exit (f > 0)}' build/test-totals
