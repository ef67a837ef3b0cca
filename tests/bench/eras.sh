#!/usr/bin/env bash
# make bench: the era lanes (v2.6.32, v2.6.36, v2.6.38-rc8 from
# ../shared/linux-eras.tar.xz, imported by make demo as eras/* of
# work/linux): per era, the cold as-is build, the backport lane's build
# (a copy of the as-is build, recompiling what the fix's files reach) and
# boot-to-verdict of each lane, from `kbackport run` in a new work
# directory with an empty ccache, RUNS times (default 1: each round is
# three cold kernel builds).
#
#   tests/bench/eras.sh [KBACKPORT]
#   env: RUNS (default 1), ERAS (default "2.6.32 2.6.36 2.6.38-rc8"),
#        JOBS (default: CPUs), KB_LINUX (default work/linux)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-1}
read -r -a eras <<< "${ERAS:-2.6.32 2.6.36 2.6.38-rc8}"
jobs=${JOBS:-$(nproc)}
repo=${KB_LINUX:-$top/work/linux}
title="Era lanes: cold build, backport lane build, boot-to-verdict"
for e in "${eras[@]}"; do
	if ! git -C "$repo" rev-parse -q --verify "eras/$e^{commit}" >/dev/null 2>&1; then
		printf '## %s\n\nSkipped: no eras/%s in %s. `make demo` imports ../shared/linux-eras.tar.xz.\n\n' \
			"$title" "$e" "$repo"
		exit 0
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-eras.XXXXXX")
trap 'rm -rf "$work"' EXIT
export LANG=C LC_ALL=C
{
	echo "repo: $work/linux.git"
	echo "branches:"
	for e in "${eras[@]}"; do printf '  - {name: "%s", ref: eras/%s}\n' "$e" "$e"; done
} > "$work/branches.yaml"
for r in $(seq "$runs"); do
	rm -rf "$work/round" "$work/linux.git"
	bench_clone "$repo" "$work/linux.git"
	mkdir -p "$work/round"
	export CCACHE_DIR=$work/round/ccache
	t0=$(now)
	"$kb" run --config "$work/branches.yaml" --fix "$top/backports/CVE-2011-1019" --jobs "$jobs" \
		--workdir "$work/round/work" --reports "$work/round/reports" > "$work/out-$r" 2>&1 || true
	t1=$(now)
	cp "$work/round/reports/latest/results.json" "$work/cold-$r.json"
	if [ "$(jq -r '[.branches[].verdict] | unique | join(",")' "$work/cold-$r.json")" != verified ]; then
		echo "eras bench: round $r did not verify every era:" >&2
		tail -20 "$work/out-$r" >&2
		exit 1
	fi
	printf 'eras bench, round %d/%d: %.1f s\n' "$r" "$runs" "$(secs "$t0" "$t1")" >&2
done
lane_values() {
	for r in $(seq "$runs"); do
		jq -r --arg b "$1" --arg k "$2" \
			".branches[] | select(.name == \$b) | .lanes[] | select(.kind == \$k) | .$3" "$work/cold-$r.json"
	done
}
lane_row() {
	local v
	mapfile -t v < <(lane_values "$@")
	printf '%.1f s | %s' "$(printf '%s\n' "${v[@]}" | median)" "$(list "${v[@]}")"
}
cat <<MD
## $title

\`kbackport run\` on the three era trees (make -j$jobs), each round from a
new work directory and an empty ccache: the as-is lane is a cold build
(the compatibility rules of tests/kernel/compat/rules applied), the
backport lane starts from a copy of it and recompiles what the fix reaches
(the 2.6.x variants add \`MODULE_ALIAS_NETDEV\` to netdevice.h, which most
of the network code includes), then each lane boots under TCG. Median of
$runs round(s).

| era | variant | lane | build | build runs | boot-to-verdict | boot runs |
|---|---|---|---:|---|---:|---|
MD
for e in "${eras[@]}"; do
	v=$(jq -r --arg b "$e" '.branches[] | select(.name == $b) | .apply.variant' "$work/cold-1.json")
	for k in as-is backport; do
		echo "| $e | $v | $k | $(lane_row "$e" "$k" build_seconds) | $(lane_row "$e" "$k" test_seconds) |"
	done
done
echo
