#!/usr/bin/env bash
# make bench: Debian's own kernel, boot-to-verdict through PVH (the vmlinux
# extracted from the bzImage) against the bzImage as shipped, RUNS boots
# each way, alternating so that the machine's load falls on both alike.
# Min/median/max of each, the ratio, and the slowest boot looked into: the
# guest's own clock (printk timestamps) against QEMU's wall time, and the
# largest gap between two console lines of that boot.
#
#   tests/bench/distro-boot.sh [KBACKPORT]
#   env: RUNS (default 30), CONFIG (default branches.yaml), BRANCH (default
#        debian-6.1), WORKDIR (default work/), KEEP (a directory to keep
#        every boot's console log in; default: a temporary one, removed)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-30}
config=${CONFIG:-$top/branches.yaml}
branch=${BRANCH:-debian-6.1}
workdir=${WORKDIR:-$top/work}
title="Debian's kernel: PVH vmlinux against bzImage"
out=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-distro.XXXXXX")}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"

# boot WAY I: one `kbackport test` of the branch; its seconds, verdict and
# what was booted into $out/WAY.I.json, its console log kept beside.
boot() {
	local way=$1 i=$2 env=()
	[ "$way" = bzimage ] && env=(KBACKPORT_DISTRO_BOOT=bzimage)
	env "${env[@]}" "$kb" test --config "$config" --workdir "$workdir" --branch "$branch" \
		--json > "$out/$way.$i.json" 2>/dev/null || true
	local log
	log=$(jq -r '.branches[0].lanes[0].console // empty' "$out/$way.$i.json")
	[ -n "$log" ] && cp "$log" "$out/$way.$i.console.log"
}

for i in $(seq "$runs"); do
	boot pvh "$i"
	boot bzimage "$i"
	echo "distro boot bench: $i/$runs" >&2
done
if ! jq -e '.branches[0].lanes[0].boot == "exited"' "$out/pvh.1.json" >/dev/null 2>&1; then
	printf '## %s\n\nSkipped: %s did not boot (`make demo` fetches it).\n\n' "$title" "$branch"
	exit 0
fi

# WAY: the seconds of each boot, one a line.
times() { cat "$out/$1".*.json | jq -r '.branches[0].lanes[0].seconds'; }
stat3() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f\n", v[1],
	(NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }'; }
read -r pmin pmed pmax < <(times pvh | stat3)
read -r bmin bmed bmax < <(times bzimage | stat3)
verdicts() { cat "$out/$1".*.json | jq -r '"\(.branches[0].lanes[0].verdict) \(.branches[0].lanes[0].boot_image)"' |
	sort | uniq -c | awk '{ printf "%s%s x%s (%s)", sep, $2, $1, $3; sep = ", " }'; }

# The slowest boot: its wall time, the guest's last printk time, and the
# largest gap between two timestamped console lines.
slowest=$(for f in "$out"/*.json; do
	printf '%s %s\n' "$(jq -r '.branches[0].lanes[0].seconds' "$f")" "$(basename "$f" .json)"
done | sort -g | tail -1)
read -r ssec sname <<< "$slowest"
ssec=$(printf '%.2f' "$ssec")
gap=$(awk 'match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
		t = substr($0, 2, RLENGTH - 2) + 0
		if (n++ && t - last > max) { max = t - last; before = prev; after = $0 }
		last = t; prev = $0 }
	END { printf "%.2f\t%.2f\t%s\t%s\n", last, max, before, after }' "$out/$sname.console.log")
IFS=$'\t' read -r glast gmax gbefore gafter <<< "$gap"
over=$(for w in pvh bzimage; do times "$w"; done | awk -v m="$pmed" -v b="$bmed" '$1 > 2 * (m > b ? m : b)' | wc -l)

cat <<MD
## $title

\`kbackport test --branch $branch\` (TCG), $runs boots each way,
alternating: \`pvh\` boots the vmlinux extracted from the bzImage through
PVH (\`-kernel vmlinux\`, cached under \`work/pvh/\`), \`bzimage\` the
bzImage as shipped (\`KBACKPORT_DISTRO_BOOT=bzimage\`). Seconds: QEMU's
wall time from start to exit, the verdict decided from its console.
The machine's load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).

| | min | median | max | verdicts |
|---|---:|---:|---:|---|
| PVH vmlinux | $pmin s | **$pmed s** | $pmax s | $(verdicts pvh) |
| bzImage | $bmin s | $bmed s | $bmax s | $(verdicts bzimage) |
| **ratio** (bzImage / PVH) | $(echo "scale=2; $bmin / $pmin" | bc)x | **$(echo "scale=2; $bmed / $pmed" | bc)x** | $(echo "scale=2; $bmax / $pmax" | bc)x | |

Boots over twice the slower median: $over of $((2 * runs)).
The slowest boot, \`$sname\`: $ssec s of wall time, of which the guest's
own clock saw $glast s up to its last console line; its largest gap
between two console lines was $gmax s, before:

    $gbefore
    $gafter

MD
