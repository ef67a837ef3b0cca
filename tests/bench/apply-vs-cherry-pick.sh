#!/usr/bin/env bash
# make bench: the apply stage for 10 branches of a kernel-sized repository
# (72k files, generated) against the usual way, `git worktree add` plus
# `git cherry-pick -x` per branch. Both run side by side in one run,
# alternating, RUNS times; medians and their ratio are printed.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kb=$top/${1:-build/kbackport}
RUNS=${RUNS:-3}
NFILES=${NFILES:-72000}
work=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home LANG=C LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "Bench" && git config --global user.email bench@example.org
repo=$work/linux
era=$top/tests/fixtures/eras/2.6.37

echo "generating a repository with $NFILES files and 10 stable branches..."
git init -q -b master "$repo"
{
	# one commit holding the 2.6.37-shaped files and NFILES filler sources
	echo "commit refs/heads/master"
	echo "mark :1"
	echo "committer Bench <bench@example.org> 1262304000 +0000"
	echo "data 8"; echo "v2.6.37"
	for f in $(cd "$era/tree" && find . -type f | sed 's|^\./||'); do
		echo "M 100644 inline $f"
		echo "data $(stat -c %s "$era/tree/$f")"
		cat "$era/tree/$f"
	done
	awk -v n="$NFILES" 'BEGIN {
		for (i = 0; i < n; i++) {
			body = sprintf("/* filler source %d */\nint filler_%d(void)\n{\n\treturn %d;\n}\n", i, i, i);
			printf "M 100644 inline drivers/d%02d/s%02d/f%d.c\ndata %d\n%s", i % 100, int(i / 100) % 45, i, length(body), body
		}
	}'
	# ten stable branches, each one point release on top
	for b in $(seq 1 10); do
		echo "commit refs/heads/stable-$b"
		echo "committer Bench <bench@example.org> $((1262304000 + b)) +0000"
		echo "data 14"; printf 'point release\n'
		echo "from :1"
		body="/* stable $b */"
		echo "M 100644 inline drivers/d$(printf %03d $b)/stable.c"
		echo "data ${#body}"; echo "$body"
	done
} | git -C "$repo" fast-import --quiet
# the upstream fix as a commit on the base, for cherry-pick
git -C "$repo" checkout -q -b upstream master
cp -r "$era/expected/." "$repo/"
git -C "$repo" add -A && git -C "$repo" commit -q -m "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules"
upstream=$(git -C "$repo" rev-parse HEAD)
git -C "$repo" checkout -q master
echo "files in the tree: $(git -C "$repo" ls-tree -r master | wc -l)"

{
	echo "repo: $repo"
	echo "branches:"
	for b in $(seq 1 10); do printf '  - name: stable-%s\n    ref: stable-%s\n' $b $b; done
} > "$work/branches.yaml"

now() { date +%s.%N; }
drop_refs() {
	git -C "$repo" for-each-ref --format='delete %(refname)' refs/heads/backport refs/heads/pick |
		git -C "$repo" update-ref --stdin
}
run_kbackport() {
	"$kb" apply --config "$work/branches.yaml" --fix "$top/backports" --json > "$work/kb.json"
	[ "$(jq '[.results[] | select(.status == "applied")] | length' "$work/kb.json")" = 10 ]
}
run_git() {
	local b wt
	for b in $(seq 1 10); do
		wt=$work/wt-$b
		git -C "$repo" worktree add -q -b "pick/$b" "$wt" "stable-$b"
		git -C "$wt" cherry-pick -x "$upstream" >/dev/null
		git -C "$repo" worktree remove --force "$wt"
	done
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

kb_times=() git_times=()
for r in $(seq 1 "$RUNS"); do
	drop_refs
	t0=$(now); run_kbackport; t1=$(now)
	kb_times+=("$(echo "$t1 - $t0" | bc -l)")
	t0=$(now); run_git; t1=$(now)
	git_times+=("$(echo "$t1 - $t0" | bc -l)")
	printf 'run %d: kbackport apply %.3f s, worktree + cherry-pick %.3f s\n' "$r" "${kb_times[-1]}" "${git_times[-1]}"
done
kb_med=$(printf '%s\n' "${kb_times[@]}" | median)
git_med=$(printf '%s\n' "${git_times[@]}" | median)
echo
printf 'apply stage, 10 branches x %s files (median of %d):\n' "$NFILES" "$RUNS"
printf '  kbackport apply            %8.3f s\n' "$kb_med"
printf '  git worktree + cherry-pick %8.3f s\n' "$git_med"
printf '  ratio                      %8.1fx faster\n' "$(echo "$git_med / $kb_med" | bc -l)"
