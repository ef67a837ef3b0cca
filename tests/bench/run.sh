#!/usr/bin/env bash
# make bench: the whole `kbackport run` on the imported kernel repository,
# cold and again with nothing changed, RUNS times (default 3), side by side
# in one run. Each round starts from nothing: a new work directory (no
# source tree, no build, no boot) and an empty ccache, in a shared bare
# clone without backport refs. From the same runs: each lane's build time
# (the as-is lane is built first, cold; a lane with another tree starts from
# a copy of it and rebuilds what differs) and its boot-to-verdict time.
#
#   tests/bench/run.sh [KBACKPORT]
#   env: RUNS (default 3), BRANCHES (default "6.1.y"), JOBS (default: CPUs),
#        KB_LINUX (default work/linux)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-3}
read -r -a branches <<< "${BRANCHES:-6.1.y}"
jobs=${JOBS:-$(nproc)}
repo=${KB_LINUX:-$top/work/linux}
title="Whole kbackport run: cold and with nothing changed"
need_import "$repo" "$title"

work=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
export LANG=C LC_ALL=C
{
	echo "repo: $work/linux.git"
	echo "branches:"
	for b in "${branches[@]}"; do printf '  - name: "%s"\n    ref: stable/%s\n    pre-fix: true\n' "$b" "$b"; done
} > "$work/branches.yaml"
args=(--config "$work/branches.yaml" --fix "$top/backports/CVE-2011-1019" --jobs "$jobs")
for b in "${branches[@]}"; do args+=(--branch "$b"); done

# run ROUND NAME: one `kbackport run`, its results kept as NAME-ROUND.json
run() {
	local dir=$work/round rc=0
	"$kb" run "${args[@]}" --workdir "$dir/work" --reports "$dir/reports" \
		> "$work/$2-$1.out" 2>&1 || rc=$?
	cp "$dir/reports/latest/results.json" "$work/$2-$1.json" 2>/dev/null || true
	if [ $rc != 0 ] || [ "$(jq -r '[.branches[].verdict] | unique | join(",")' "$work/$2-$1.json")" != verified ]; then
		echo "run bench: the $2 run of round $1 did not verify every branch (exit $rc):" >&2
		tail -20 "$work/$2-$1.out" >&2
		exit 1
	fi
}

cold=() warm=()
for r in $(seq "$runs"); do
	rm -rf "$work/round" "$work/linux.git"
	bench_clone "$repo" "$work/linux.git"
	mkdir -p "$work/round"
	export CCACHE_DIR=$work/round/ccache
	t0=$(now); run "$r" cold; t1=$(now)
	cold+=("$(secs "$t0" "$t1")")
	t0=$(now); run "$r" unchanged; t1=$(now)
	warm+=("$(secs "$t0" "$t1")")
	# nothing may have been redone the second time
	if [ "$(jq -r '[.branches[].lanes[] | .build, (.test_reused | tostring)] | unique | join(",")' \
		"$work/unchanged-$r.json")" != "cached,true" ]; then
		echo "run bench: the unchanged run of round $r rebuilt or rebooted something" >&2
		exit 1
	fi
	printf 'run bench, round %d/%d: cold %.1f s, nothing changed %.2f s\n' \
		"$r" "$runs" "${cold[-1]}" "${warm[-1]}" >&2
done
cold_med=$(printf '%s\n' "${cold[@]}" | median)
warm_med=$(printf '%s\n' "${warm[@]}" | median)

# lane_values BRANCH KIND FIELD: a lane's FIELD in each cold run, a line each
lane_values() {
	for r in $(seq "$runs"); do
		jq -r --arg b "$1" --arg k "$2" \
			".branches[] | select(.name == \$b) | .lanes[] | select(.kind == \$k) | .$3" "$work/cold-$r.json"
	done
}
# lane_row BRANCH KIND FIELD: "median s | runs" of a lane's FIELD
lane_row() {
	local v
	mapfile -t v < <(lane_values "$@")
	printf '%.1f s | %s' "$(printf '%s\n' "${v[@]}" | median)" "$(list "${v[@]}")"
}

cat <<MD
## $title

\`kbackport run --branch ${branches[*]}\` (make -j$jobs), each round from
nothing: a new work directory and an empty ccache. The cold run applies
the fix (pre-fix lane and backport), builds the three lanes, boots each
under TCG and writes the report; the second run finds every stage done.
Median of $runs rounds.

| | median | runs |
|---|---:|---|
| cold run | $(printf '%.1f s' "$cold_med") | $(list "${cold[@]}") |
| run with nothing changed | $(printf '%.2f s' "$warm_med") | $(list "${warm[@]}") |
| **ratio** | **$(printf '%.0fx' "$(echo "$cold_med / $warm_med" | bc -l)")** | |

### Lane builds and boots in the cold runs

The as-is lane is built first, from nothing: the cold build. A lane whose
tree differs starts from a copy of that build and recompiles what differs:
an incremental build (\`pass\`). A lane with the same tree as a built one
shares its build (\`cached\`): Debian ships the fix, so the backport lane
has the as-is lane's tree. Boot-to-verdict: one QEMU boot (TCG) running both
suites, the KTAP parsed and the verdict decided.

| branch | lane | build status | build | build runs | boot-to-verdict | boot runs |
|---|---|---|---:|---|---:|---|
MD
for b in "${branches[@]}"; do
	for k in as-is pre-fix backport; do
		st=$(jq -r --arg b "$b" --arg k "$k" \
			'.branches[] | select(.name == $b) | .lanes[] | select(.kind == $k) | .build' "$work/cold-1.json")
		echo "| $b | $k | $st | $(lane_row "$b" "$k" build_seconds) | $(lane_row "$b" "$k" test_seconds) |"
	done
done
echo
for b in "${branches[@]}"; do
	c=$(lane_values "$b" as-is build_seconds | median)
	i=$(lane_values "$b" pre-fix build_seconds | median)
	printf -- '- %s: the incremental lane build (pre-fix, %.1f s) against the cold one (as-is, %.1f s): **%s** faster\n' \
		"$b" "$i" "$c" "$(echo "$i > 0" | bc -l | grep -q 1 && printf '%.0fx' "$(echo "$c / $i" | bc -l)" || echo n/a)"
done
echo
