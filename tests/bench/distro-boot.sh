#!/usr/bin/env bash
# make bench: Debian's own kernel, boot-to-verdict through PVH (the vmlinux
# extracted from the bzImage) against the bzImage as shipped, RUNS boots
# each way, alternating so that the machine's load falls on both alike.
# Min/median/max of each, the ratio, and the slow boots looked into: the
# host's load average when each started, the guest's own clock (printk
# timestamps) against QEMU's wall time, and the largest gap between two
# console lines of the slowest boot.
#
#   tests/bench/distro-boot.sh [KBACKPORT]
#   env: RUNS (default 30), CONFIG (default branches.yaml), BRANCH (default
#        debian-6.1), WORKDIR (default work/), KEEP (a directory to keep
#        every boot's JSON, console log and load average in; default: a
#        temporary one, removed), SUMMARY_ONLY=1 (no boots: the section
#        from the boots already in KEEP)
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
# what was booted into $out/WAY.I.json, its console log kept beside, and
# the 1-minute load average when it started.
boot() {
	local way=$1 i=$2 env=() log
	[ "$way" = bzimage ] && env=(KBACKPORT_DISTRO_BOOT=bzimage)
	cut -d' ' -f1 /proc/loadavg > "$out/$way.$i.load"
	env "${env[@]}" "$kb" test --config "$config" --workdir "$workdir" --branch "$branch" \
		--json > "$out/$way.$i.json" 2>/dev/null || true
	log=$(jq -r '.branches[0].lanes[0].console // empty' "$out/$way.$i.json")
	[ -n "$log" ] && cp "$log" "$out/$way.$i.console.log"
}

if [ "${SUMMARY_ONLY:-0}" = 1 ]; then
	runs=$(find "$out" -name 'bzimage.*.json' | wc -l)
else
	for i in $(seq "$runs"); do
		boot pvh "$i"
		boot bzimage "$i"
		echo "distro boot bench: $i/$runs" >&2
	done
fi
if ! jq -e '.branches[0].lanes[0].boot == "exited"' "$out/pvh.1.json" >/dev/null 2>&1; then
	printf '## %s\n\nSkipped: %s did not boot (`make demo` fetches it).\n\n' "$title" "$branch"
	exit 0
fi

# NAME: seconds, guest seconds (the last printk time), load average, name
row() {
	local f=$out/$1
	printf '%.2f %.2f %s %s\n' "$(jq -r '.branches[0].lanes[0].seconds' "$f.json")" \
		"$(awk 'match($0, /^\[ *[0-9]+\.[0-9]+\]/) { t = substr($0, 2, RLENGTH - 2) }
			END { print t + 0 }' "$f.console.log" 2>/dev/null || echo 0)" \
		"$(cat "$f.load" 2>/dev/null || echo '?')" "$1"
}
rows() { local i; for i in $(seq "$runs"); do row "$1.$i"; done; }
stat3() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f\n", v[1],
	(NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }'; }
rows pvh > "$out/pvh.rows"
rows bzimage > "$out/bzimage.rows"
read -r pmin pmed pmax < <(cut -d' ' -f1 "$out/pvh.rows" | stat3)
read -r bmin bmed bmax < <(cut -d' ' -f1 "$out/bzimage.rows" | stat3)
# before the guest's clock starts and after its last line: QEMU, firmware,
# the decompressor (bzImage only), the power-off
pre() { awk '{ print $1 - $2 }' "$out/$1.rows" | stat3 | cut -d' ' -f2; }
verdicts() { cat "$out/$1".*.json | jq -r '"\(.branches[0].lanes[0].verdict) \(.branches[0].lanes[0].boot_image)"' |
	sort | uniq -c | awk '{ printf "%s%s x%s (%s)", sep, $2, $1, $3; sep = ", " }'; }
ratio() { echo "scale=2; $1 / $2" | bc; }

read -r ssec sguest sload sname < <(sort -g "$out/pvh.rows" "$out/bzimage.rows" | tail -1)
gap=$(awk 'match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
		t = substr($0, 2, RLENGTH - 2) + 0
		if (n++ && t - last > max) { max = t - last; before = prev; after = $0 }
		last = t; prev = $0 }
	END { printf "%.2f\t%s\t%s\n", max, before, after }' "$out/$sname.console.log")
IFS=$'\t' read -r gmax gbefore gafter <<< "$gap"
slow=$(cat "$out/pvh.rows" "$out/bzimage.rows" | awk -v p="$pmed" -v b="$bmed" \
	'{ m = ($4 ~ /^pvh/) ? p : b } $1 > 1.5 * m { n++ } END { print n + 0 }')

cat <<MD
## $title

\`kbackport test --branch $branch\` (TCG), $runs boots each way,
alternating: \`pvh\` boots the vmlinux extracted from the bzImage through
PVH (\`-kernel vmlinux\`, cached under \`work/pvh/\`), \`bzimage\` the
bzImage as shipped (\`KBACKPORT_DISTRO_BOOT=bzimage\`). Seconds: QEMU's
wall time from start to exit, the verdict decided from its console.

| | min | median | max | median before and after the guest's clock | verdicts |
|---|---:|---:|---:|---:|---|
| PVH vmlinux | $pmin s | **$pmed s** | $pmax s | $(pre pvh) s | $(verdicts pvh) |
| bzImage | $bmin s | $bmed s | $bmax s | $(pre bzimage) s | $(verdicts bzimage) |
| **ratio** (bzImage / PVH) | $(ratio "$bmin" "$pmin")x | **$(ratio "$bmed" "$pmed")x** | $(ratio "$bmax" "$pmax")x | | |

"Before and after the guest's clock": QEMU's wall time less the guest's
last printk timestamp (QEMU starting, the firmware, the decompressor for
the bzImage, the power-off).

Boots over 1.5 times their way's median: $slow of $((2 * runs)). The five
slowest, with the host's 1-minute load average when each started (2 CPUs):

| boot | wall | guest clock at its last line | load average |
|---|---:|---:|---:|
$(sort -gr "$out/pvh.rows" "$out/bzimage.rows" | head -5 | awk '{ printf "| %s | %s s | %s s | %s |\n", $4, $1, $2, $3 }')

The five fastest:

| boot | wall | guest clock at its last line | load average |
|---|---:|---:|---:|
$(sort -g "$out/pvh.rows" "$out/bzimage.rows" | head -5 | awk '{ printf "| %s | %s s | %s s | %s |\n", $4, $1, $2, $3 }')

The slowest boot, \`$sname\` ($ssec s): its largest gap between two
console lines was $gmax s, before:

    $gbefore
    $gafter

MD
