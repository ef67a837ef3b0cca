#!/usr/bin/env bash
# make bench: every benchmark, side by side in one run, into BENCHMARKS.md
# (with the command, the machine and the commit that produced the figures).
#
#   tests/bench/bench.sh [KBACKPORT]
#   env: OUT (default BENCHMARKS.md at the top), and each bench's own (see
#        apply-vs-cherry-pick.sh, queue.sh, run.sh, boot.sh): APPLY_RUNS (3),
#        QUEUE_RUNS (3, and GIT_RUNS for queue.sh's git side),
#        RUN_RUNS (3), BOOT_RUNS (5), DISTRO_RUNS (30, distro-boot.sh),
#        ERAS_RUNS (1, eras.sh), NEXT_RUNS (3, next-fix.sh),
#        HISTORY_RUNS (3, history.sh), HISTORY_BIG_RUNS (1, history-big.sh,
#        which needs KB_LINUX_2635_REPO),
#        RUN_BRANCHES for run.sh ("6.1.y"),
#        KB_SHARED (../shared: the real data sets for real-data.py).
# Needs `make demo` done first (make bench does it): the imported
# repository and the built lanes.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kb=$(realpath "${1:-$top/build/kbackport}")
out=${OUT:-$top/BENCHMARKS.md}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
started=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)

RUNS=${APPLY_RUNS:-3} "$top/tests/bench/apply-vs-cherry-pick.sh" "$kb" > "$tmp/1-apply.md"
# a 100-fix queue (Debian's own series) against a git am -3 loop
RUNS=${QUEUE_RUNS:-3} "$top/tests/bench/queue.sh" "$kb" > "$tmp/1-queue.md"
RUNS=${RUN_RUNS:-3} BRANCHES=${RUN_BRANCHES:-6.1.y} "$top/tests/bench/run.sh" "$kb" > "$tmp/2-run.md"
RUNS=${BOOT_RUNS:-5} BRANCHES= "$top/tests/bench/boot.sh" "$kb" > "$tmp/3-boot.md"
# the next fix on the lanes make demo built: kbackport run against worktree + git am -3 + make
RUNS=${NEXT_RUNS:-3} "$top/tests/bench/next-fix.sh" "$kb" > "$tmp/2-next-fix.md"
# the v2.6.x era lanes: cold build, backport lane build, boot-to-verdict
RUNS=${ERAS_RUNS:-1} "$top/tests/bench/eras.sh" "$kb" > "$tmp/3-eras.md"
# Debian's kernel through PVH against its bzImage, 30 boots each
RUNS=${DISTRO_RUNS:-30} "$top/tests/bench/distro-boot.sh" "$kb" > "$tmp/3-distro-boot.md"
# the real data sets beside GNU patch and git apply -3 (skipped without them)
shared=${KB_SHARED:-$top/../shared}
if [ -d "$shared/real-trees" ] && [ -d "$shared/stable-training" ]; then
	python3 "$top/tests/bench/real-data.py" "$kb" "$shared" "$tmp/real-data" > "$tmp/4-real-data.md"
else
	echo "bench: no real data at $shared, its section is left out" >&2
fi

# history first: the index on the real 2.6.32.y history of stable-history/
RUNS=${HISTORY_RUNS:-3} "$top/tests/bench/history.sh" "$kb" > "$tmp/4-history.md"
# ...and at scale, on the real 2.6.35.y history (skipped without KB_LINUX_2635_REPO)
RUNS=${HISTORY_BIG_RUNS:-1} "$top/tests/bench/history-big.sh" "$kb" > "$tmp/5-history-big.md"

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
{
	cat <<MD
# kbackport benchmarks

Written by \`make bench\` (tests/bench/bench.sh); do not edit by hand. Each
figure is the median of several runs measured in one \`make bench\` run,
side by side; the single runs are listed next to it.

- command: \`make bench\`${APPLY_RUNS:+ APPLY_RUNS=$APPLY_RUNS}${QUEUE_RUNS:+ QUEUE_RUNS=$QUEUE_RUNS}${GIT_RUNS:+ GIT_RUNS=$GIT_RUNS}${RUN_RUNS:+ RUN_RUNS=$RUN_RUNS}${BOOT_RUNS:+ BOOT_RUNS=$BOOT_RUNS}${DISTRO_RUNS:+ DISTRO_RUNS=$DISTRO_RUNS}${ERAS_RUNS:+ ERAS_RUNS=$ERAS_RUNS}${NEXT_RUNS:+ NEXT_RUNS=$NEXT_RUNS}${RUN_BRANCHES:+ RUN_BRANCHES=\"$RUN_BRANCHES\"}
- started: $started, took $(( ($(date +%s) - t0) / 60 )) min
- commit: $commit
- machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(free -g | awk '/^Mem:/ {print $2}') GiB, $(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)
- tools: $(gcc --version | head -1), $(git --version), $(qemu-system-x86_64 --version | head -1)

MD
	cat "$tmp"/*.md
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "bench: wrote $out" >&2
