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
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-5}
config=${CONFIG:-$top/branches.yaml}
workdir=${WORKDIR:-$top/work}
read -r -a branches <<< "${BRANCHES:-6.1.y 6.12.y debian-6.1}"
args=()
for b in "${branches[@]}"; do args+=(--branch "$b"); done
out=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-boot.XXXXXX")
trap 'rm -rf "$out"' EXIT

for i in $(seq "$runs"); do
	"$kb" test --config "$config" --workdir "$workdir" "${args[@]}" --json \
		> "$out/run$i.json" 2>/dev/null || true
done
if ! jq -e '[.branches[].lanes[] | select(.boot != null)] | length > 0' "$out/run1.json" >/dev/null; then
	echo "boot bench: no lane was booted (build them first: make demo); skipped."
	jq -r '.branches[] | "  \(.name): \(.verdict) \(.error // "")"' "$out/run1.json"
	exit 0
fi
echo "boot-to-verdict per lane, TCG, median of $runs (target: under 5 s)"
printf '%-12s %-9s %-10s %8s %8s\n' BRANCH LANE VERDICT SECONDS "/ 5 s"
jq -s -r '
	[.[] | .branches[] | .name as $b | .lanes[] | select(.boot != null)
	 | {key: "\($b) \(.kind)", s: .seconds, v: .verdict}]
	| group_by(.key)[]
	| (map(.s) | sort) as $s
	| "\(.[0].key) \(.[0].v) \($s[(($s | length) / 2 | floor)])"' "$out"/run*.json |
while read -r branch lane verdict secs; do
	printf '%-12s %-9s %-10s %8.2f %8.2f\n' "$branch" "$lane" "$verdict" "$secs" \
		"$(echo "$secs / 5" | bc -l)"
done
