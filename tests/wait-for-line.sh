#!/bin/sh
# wait-for-line.sh FILE ERE [SECONDS]: return once FILE has a line matching
# ERE (grep -E); exit 1 when none came within SECONDS (30). The tests' fake
# programs run it where they would otherwise sleep: they wait for what the
# sleep was to give time for (a progress line said), not a guessed delay
# that a loaded machine overruns or an idle one wastes.
file=$1 re=$2 limit=${3:-30}
i=0
until grep -q -E -e "$re" "$file" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -gt $((limit * 20)) ] && exit 1
	sleep 0.05
done
exit 0
