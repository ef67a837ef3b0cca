#!/usr/bin/env bash
# make bench: boot-to-verdict per lane under TCG: one QEMU boot running the
# kernel's KUnit suite and the guest's capability suite, the KTAP parsed and
# the verdict decided (`kbackport test`), against the 5 s target. Every lane
# is timed in the same run, RUNS times; medians are printed.
#
#   tests/bench/boot.sh [KBACKPORT]
#   env: RUNS (default 5), CONFIG (default branches.yaml), BRANCHES (default
#        "6.1.y 6.12.y debian-6.1"), WORKDIR (default work/)
# Needs the lanes built first (make demo, or kbackport build).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-5}
config=${CONFIG:-$top/branches.yaml}
workdir=${WORKDIR:-$top/work}
read -r -a branches <<< "${BRANCHES:-6.1.y 6.12.y debian-6.1}"
title="Boot-to-verdict per lane"
args=()
for b in "${branches[@]}"; do args+=(--branch "$b"); done
out=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-boot.XXXXXX")
trap 'rm -rf "$out"' EXIT

for i in $(seq "$runs"); do
	"$kb" test --config "$config" --workdir "$workdir" "${args[@]}" --json \
		> "$out/run$i.json" 2>/dev/null || true
	echo "boot bench: run $i/$runs done" >&2
done
if ! jq -e '[.branches[].lanes[] | select(.boot != null)] | length > 0' "$out/run1.json" >/dev/null; then
	printf '## %s\n\nSkipped: no lane was built (`make demo` builds them).\n\n' "$title"
	jq -r '.branches[] | "  \(.name): \(.verdict) \(.error // "")"' "$out/run1.json" >&2
	exit 0
fi
cat <<MD
## $title

\`kbackport test\` on the lanes \`make demo\` built, every lane in each of
$runs runs: one QEMU boot (TCG, no KVM) running the KUnit suite and the
capability suite, the KTAP parsed and the verdict decided. Target: under
5 s per lane. Debian's kernel is the distribution's own, with its
initramfs of the needed modules.

| branch | lane | verdict | median | runs | of the 5 s target |
|---|---|---|---:|---|---:|
MD
jq -s -r '
	[.[] | .branches[] | .name as $b | .lanes[] | select(.boot != null)
	 | {key: "\($b) \(.kind)", s: .seconds, v: .verdict}]
	| group_by(.key)[]
	| "\(.[0].key) \(.[0].v) \(map(.s | tostring) | join(" "))"' "$out"/run*.json |
while read -r branch lane verdict times; do
	read -r -a t <<< "$times"
	med=$(printf '%s\n' "${t[@]}" | median)
	printf '| %s | %s | %s | %.2f s | %s | %.0f%% |\n' "$branch" "$lane" "$verdict" "$med" \
		"$(list "${t[@]}")" "$(echo "$med * 20" | bc -l)"
done
echo
