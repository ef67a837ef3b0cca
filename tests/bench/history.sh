#!/usr/bin/env bash
# make bench: the history index (apply's history first) on the real
# 2.6.32.y history of ../shared/stable-history (449 commits of 48 files, 40
# real fixes, 12 tags as branches: 480 answers), RUNS times (default 3),
# one `kbackport apply` of every fix on every branch each time (its refs
# dropped before each):
#   cold        no index yet: one walk of the history, the fixes' paths'
#               commits and patch-ids, then the answers;
#   warm        the index under the work directory read back;
#   extended    warm, after one commit on a branch: only it is read;
#   content     --no-history, the content alone, for comparison.
#
#   tests/bench/history.sh [KBACKPORT]
#   env: RUNS (3), KB_SHARED (../shared)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-3}
set_dir=${KB_SHARED:-$top/../shared}/stable-history
title="History first: the index on real 2.6.32.y history"
if [ ! -d "$set_dir" ]; then
	printf '## %s\n\nSkipped: no %s.\n\n' "$title" "$set_dir"
	exit 0
fi
bench_work history
git clone -q --bare "$set_dir/history.git" "$work/history.git"
tags=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["tags"]))' "$set_dir/expected.json")
{
	printf 'repo: %s\nbranches:\n' "$work/history.git"
	for t in $tags; do printf '  - {name: "%s", ref: %s}\n' "$t" "$t"; done
} > "$work/branches.yaml"
nfix=0
for d in "$set_dir"/fixes/*/; do
	n=$(basename "$d")
	"$kb" fix new -o "$work/backports" --id "fix-$n" "$d/fix.patch" > /dev/null
	nfix=$((nfix + 1))
done
nbr=$(echo $tags | wc -w)
ncommits=$(git -C "$work/history.git" rev-list --all | wc -l)

# timed ARGS...: the seconds one `kbackport apply` takes
timed() {
	local t0
	# not -n: a dry run keeps the index in memory only; the refs the
	# run writes are dropped first, so that every run does the same work
	drop_backport_refs "$work/history.git"
	t0=$(now)
	"$kb" apply -c "$work/branches.yaml" --fix "$work/backports" -w "$work/w" "$@" > /dev/null || true
	secs "$t0" "$(now)"
}
cold=() warm=() ext=() content=()
for i in $(seq 1 "$runs"); do
	echo "bench: history run $i of $runs" >&2
	rm -rf "$work/w"
	cold+=("$(timed)")
	warm+=("$(timed)")
	# one more commit on the newest tag's branch: the index grows by it
	last=${tags##* }
	tree=$(git -C "$work/history.git" rev-parse "$last^{tree}")
	new=$(git -C "$work/history.git" commit-tree "$tree" -p "$last" -m "bench: an empty commit $i")
	git -C "$work/history.git" update-ref "refs/tags/$last" "$new"
	ext+=("$(timed)")
	content+=("$(timed --no-history)")
done
cat <<MD
## $title

\`kbackport apply\` of $nfix real fixes on $nbr branches ($((nfix * nbr)) answers) of
\`../shared/stable-history\` ($ncommits commits), the history index under the
work directory. Median of $runs runs.

| | median | runs |
|---|---:|---|
$(row "cold: no index (walk, paths' patch-ids, answers)" "${cold[@]}")
$(row "warm: the index read back" "${warm[@]}")
$(row "extended: one new commit on a branch" "${ext[@]}")
$(row "--no-history: the content alone" "${content[@]}")
MD
