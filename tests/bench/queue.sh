#!/usr/bin/env bash
# make bench: a 100-fix queue onto two branches. The first 100 patches of
# Debian's own 6.1 kernel series (tests/e2e/debian-series.sh fetches it once
# into build/e2e/debian-series) made into fixes with `kbackport fix new`,
# then, side by side in one run, alternating, RUNS times (default 3):
#   kbackport  `kbackport apply --queue` onto 6.1.y and 6.12.y: each fix on
#              top of the previous, skipped where it does not apply or is in
#              already, one ref per branch (target: under 2 s);
#   git        per branch, `git worktree add` of the branch, then
#              `git am -3` of each patch in order (`git am --skip` where it
#              fails), then `git worktree remove`: the same queue by hand.
# Both sides' counts of applied patches are printed; they differ where a
# hunk needs fuzz (git am has none) or a patch is in already (kbackport
# says so, git am fails on it). The repository is not touched (a shared
# bare clone is used).
#
#   tests/bench/queue.sh [KBACKPORT]
#   env: RUNS (default 3), GIT_RUNS (default RUNS: the git side's runs, the
#        first GIT_RUNS rounds; each is minutes on a loaded 2-CPU machine, most
#        of it checking out and removing the two worktrees), QUEUE_FIXES
#        (100), KB_LINUX (default work/linux)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-3}
git_runs=${GIT_RUNS:-$runs}
nfix=${QUEUE_FIXES:-100}
repo=${KB_LINUX:-$top/work/linux}
title="A $nfix-fix queue: kbackport apply --queue vs a git am -3 loop"
need_import "$repo" "$title"

work=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-queue.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! got=$("$top/tests/e2e/debian-series.sh" "$top/build/e2e/debian-series" 2> "$work/fetch.err"); then
	printf '## %s\n\nSkipped: no Debian patch series: %s\n\n' "$title" "$(tr '\n' ' ' < "$work/fetch.err")"
	exit 0
fi
read -r version tarball <<< "$got"
export HOME=$work/home LANG=C LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "Bench" && git config --global user.email bench@example.org
bench_clone "$repo" "$work/linux.git"
cat > "$work/branches.yaml" <<YAML
repo: $work/linux.git
branches:
  - {name: "6.1.y", ref: stable/6.1.y}
  - {name: "6.12.y", ref: stable/6.12.y}
YAML
branches=(6.1.y 6.12.y)

# The first $nfix patches of the series that make a fix, in order.
mkdir "$work/deb" && tar xf "$tarball" -C "$work/deb" debian/patches
P=$work/deb/debian/patches
: > "$work/patches"
for p in $(sed 's/#.*//' "$P/series" | awk 'NF { print $1 }'); do
	"$kb" fix new -o "$work/fixes" "$P/$p" > "$work/made" 2>/dev/null || continue
	echo "$P/$p $(sed -n 's|^created \(.*\)/: .*|\1|p' "$work/made")" >> "$work/patches"
	[ "$(wc -l < "$work/patches")" -lt "$nfix" ] || break
done
[ "$(wc -l < "$work/patches")" = "$nfix" ] ||
	{ echo "queue bench: only $(wc -l < "$work/patches") fixes of $nfix" >&2; exit 1; }
awk '{ print $2 }' "$work/patches" > "$work/debian.series"

run_kbackport() {
	drop_backport_refs "$work/linux.git"
	"$kb" apply --queue "$work/debian.series" --config "$work/branches.yaml" --json > "$work/kb.json" || [ $? = 1 ]
	kb_applied=$(jq -r '[.branches[].applied] | map(tostring) | join(" + ")' "$work/kb.json")
}
run_git() {
	local b wt p
	git_applied=
	for b in "${branches[@]}"; do
		wt=$work/wt-$b
		git -C "$work/linux.git" worktree add -q --detach "$wt" "stable/$b"
		for p in $(awk '{ print $1 }' "$work/patches"); do
			git -C "$wt" am -q -3 "$p" > /dev/null 2>&1 || git -C "$wt" am --skip > /dev/null 2>&1 || true
		done
		git_applied+="${git_applied:+ + }$(git -C "$wt" rev-list --count "stable/$b..HEAD")"
		git -C "$work/linux.git" worktree remove --force "$wt"
	done
}

kb_times=() git_times=()
for r in $(seq "$runs"); do
	t0=$(now); run_kbackport; t1=$(now)
	kb_times+=("$(secs "$t0" "$t1")")
	if [ "$r" -le "$git_runs" ]; then
		t0=$(now); run_git; t1=$(now)
		git_times+=("$(secs "$t0" "$t1")")
	fi
	printf 'queue bench, run %d/%d: kbackport apply --queue %.3f s (%s applied), worktree + git am -3 loop %s (%s applied)\n' \
		"$r" "$runs" "${kb_times[-1]}" "$kb_applied" \
		"$([ "$r" -le "$git_runs" ] && printf '%.1f s' "${git_times[-1]}" || echo 'not run')" "$git_applied" >&2
done
kb_med=$(printf '%s\n' "${kb_times[@]}" | median)
git_med=$(printf '%s\n' "${git_times[@]}" | median)
statuses=$(jq -r '.branches[] | .branch as $b | [.results[].status] | group_by(.) |
	map("\(length) \(.[0])") | "\($b): " + join(", ")' "$work/kb.json" | paste -sd ';' | sed 's/;/; /g')

cat <<MD
## $title

The first $nfix patches of Debian's own kernel series (linux $version,
\`debian/patches/series\`) made into fixes with \`kbackport fix new\`, applied
in order onto 6.1.y and 6.12.y of the imported repository: \`kbackport apply
--queue\` (both branches, one ref each) against, per branch, \`git worktree
add\` + \`git am -3\` of each patch (\`git am --skip\` where it fails) +
\`git worktree remove\`. Median of $runs runs of kbackport and $git_runs of git,
alternating in one run (git's side first rounds only).
Applied (6.1.y + 6.12.y): kbackport $kb_applied, git am $git_applied; git am
has no fuzz, and fails on a patch that is in already where kbackport says
\`already-applied\`. kbackport's statuses: $statuses.

| | median | runs |
|---|---:|---|
| kbackport apply --queue ($nfix fixes, 2 branches; target 2 s) | $(printf '%.3f s' "$kb_med") | $(list "${kb_times[@]}") |
| git worktree add + git am -3 loop (2 branches) | $(printf '%.3f s' "$git_med") | $(list "${git_times[@]}") |
| **ratio** | **$(printf '%.0fx' "$(echo "$git_med / $kb_med" | bc -l)")** faster | |

MD
