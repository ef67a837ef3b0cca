#!/usr/bin/env bash
# make bench: the apply stage on the imported kernel repository (work/linux,
# Debian's 6.1 and 6.12 sources) against the usual way. Side by side in one
# run, alternating, RUNS times (default 5):
#   kbackport  `kbackport apply` on 6.1.y and 6.12.y, each with its pre-fix
#              lane: the fix reverse-applied, then the backport onto that,
#              two commits per branch, made in memory;
#   git        per branch, `git worktree add` of the pre-fix commit,
#              `git cherry-pick -x` of the backport commit kbackport made,
#              `git worktree remove`. The picked commit's parent is the
#              worktree's HEAD, so git resolves nothing: the best case for git.
# Both sides' results are checked: git's commit has the same tree as
# kbackport's. The repository is not touched (a shared bare clone is used).
#
#   tests/bench/apply-vs-cherry-pick.sh [KBACKPORT]
#   env: RUNS (default 5), KB_LINUX (default work/linux)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-5}
repo=${KB_LINUX:-$top/work/linux}
title="Apply stage vs git worktree + cherry-pick"
need_import "$repo" "$title"

work=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-apply.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home LANG=C LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "Bench" && git config --global user.email bench@example.org
bench_clone "$repo" "$work/linux.git"
cat > "$work/branches.yaml" <<YAML
repo: $work/linux.git
branches:
  - name: "6.1.y"
    ref: stable/6.1.y
    pre-fix: true
  - name: "6.12.y"
    ref: stable/6.12.y
    pre-fix: true
YAML
branches=(6.1.y 6.12.y)
nfiles=$(git -C "$work/linux.git" ls-tree -r --name-only stable/6.12.y | wc -l)

run_kbackport() {
	drop_backport_refs "$work/linux.git"
	"$kb" apply --config "$work/branches.yaml" --fix "$top/backports/CVE-2011-1019" --json > "$work/kb.json"
	[ "$(jq '[.[0].results[] | select(.status == "applied")] | length' "$work/kb.json")" = 2 ] ||
		{ echo "apply bench: kbackport apply did not apply to both branches" >&2; cat "$work/kb.json" >&2; exit 1; }
}
run_git() {
	local b wt pre fix
	for b in "${branches[@]}"; do
		wt=$work/wt-$b
		pre=$(git -C "$work/linux.git" rev-parse "backport/CVE-2011-1019/$b.pre-fix")
		fix=$(git -C "$work/linux.git" rev-parse "backport/CVE-2011-1019/$b")
		git -C "$work/linux.git" worktree add -q -b "pick/$b" "$wt" "$pre"
		git -C "$wt" cherry-pick -x "$fix" >/dev/null
		[ "$(git -C "$wt" rev-parse HEAD^{tree})" = "$(git -C "$wt" rev-parse "$fix^{tree}")" ] ||
			{ echo "apply bench: git's pick of $b differs from kbackport's commit" >&2; exit 1; }
		git -C "$work/linux.git" worktree remove --force "$wt"
	done
}

kb_times=() git_times=()
for r in $(seq "$runs"); do
	git -C "$work/linux.git" for-each-ref --format='delete %(refname)' refs/heads/pick |
		git -C "$work/linux.git" update-ref --stdin
	t0=$(now); run_kbackport; t1=$(now)
	kb_times+=("$(secs "$t0" "$t1")")
	t0=$(now); run_git; t1=$(now)
	git_times+=("$(secs "$t0" "$t1")")
	printf 'apply bench, run %d/%d: kbackport apply %.3f s, worktree + cherry-pick %.3f s\n' \
		"$r" "$runs" "${kb_times[-1]}" "${git_times[-1]}" >&2
done
kb_med=$(printf '%s\n' "${kb_times[@]}" | median)
git_med=$(printf '%s\n' "${git_times[@]}" | median)

cat <<MD
## $title

\`kbackport apply\` on 6.1.y and 6.12.y of the imported repository
($nfiles files in the 6.12 tree), each with its pre-fix lane (two commits
per branch), against \`git worktree add\` + \`git cherry-pick -x\` of the same
backport onto the same pre-fix commit, per branch. Median of $runs runs,
alternating in one run.

| | median | runs |
|---|---:|---|
| kbackport apply (2 branches, 4 commits) | $(printf '%.3f s' "$kb_med") | $(list "${kb_times[@]}") |
| git worktree add + cherry-pick -x (2 branches) | $(printf '%.3f s' "$git_med") | $(list "${git_times[@]}") |
| **ratio** | **$(printf '%.0fx' "$(echo "$git_med / $kb_med" | bc -l)")** faster | |

MD
