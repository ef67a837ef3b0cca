#!/usr/bin/env bash
# make bench (not yet part of bench.sh: written, never run, since it needs
# the kernel builds of `make demo`): the next fix on branches whose lanes
# are already built. `make demo` ran `kbackport run` for CVE-2011-1019 in
# work/, so each branch's as-is lane is built and cached. A second fix is
# made here with `kbackport fix new --from-commit`: a one-line change to
# net/core/dev_ioctl.c (a comment, so every lane still boots to the same
# verdict), committed on stable/6.12.y in a scratch clone. Then, RUNS times
# (default 3), `kbackport run --fix` of that fix on BRANCHES with the same
# work directory: only the lanes with a new tree are rebuilt (from a copy of
# the as-is build: dev_ioctl.o and the link) and booted. Target: well under
# a minute per branch on 2 CPUs. Beside it, per branch, the same by hand:
# `git worktree add` of the branch, `git am -3` of the fix, and `make` in a
# copy of the branch's build directory (work/obj/<branch>), the incremental build
# alone, no boot: a lower bound for the by-hand way.
#
#   tests/bench/next-fix.sh [KBACKPORT]
#   env: RUNS (3), BRANCHES ("6.1.y 6.12.y"), CONFIG (branches.yaml),
#        WORKDIR (work/), JOBS (CPUs)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-3}
config=${CONFIG:-$top/branches.yaml}
workdir=${WORKDIR:-$top/work}
jobs=${JOBS:-$(nproc)}
read -r -a branches <<< "${BRANCHES:-6.1.y 6.12.y}"
title="The next fix: kbackport run on built lanes"
repo=$(sed -n 's/^repo:[[:space:]]*//p' "$config" | head -1)
case $repo in /*) ;; *) repo=$(cd "$(dirname "$config")" && realpath "$repo") ;; esac
need_import "$repo" "$title"

work=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-next.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home LANG=C LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "Bench" && git config --global user.email bench@example.org

# The second fix: a commit of its own, made into a fix directory.
git clone -q --shared --no-checkout "$repo" "$work/src"
git -C "$work/src" checkout -q --detach stable/6.12.y
sed -i '0,/^void dev_load(/s//\/* kbackport bench: the next fix *\/\nvoid dev_load(/' \
	"$work/src/net/core/dev_ioctl.c"
git -C "$work/src" commit -q -am "net: dev_ioctl: say where dev_load starts"
"$kb" fix new -o "$work/fixes" --from-commit "$work/src" HEAD \
	--upstream "$(git -C "$work/src" rev-parse HEAD)" >&2
fix=$(ls "$work/fixes")
args=(--config "$config" --fix "$work/fixes/$fix" --workdir "$workdir" --jobs "$jobs")
for b in "${branches[@]}"; do args+=(--branch "$b"); done

kb_times=() git_times=()
for r in $(seq "$runs"); do
	rm -rf "$work/reports"
	t0=$(now)
	"$kb" run "${args[@]}" --reports "$work/reports" > "$work/run-$r.out" 2>&1 || true
	t1=$(now)
	kb_times+=("$(secs "$t0" "$t1")")
	cp "$work/reports/latest/results.json" "$work/run-$r.json" 2>/dev/null ||
		{ echo "next-fix bench: run $r wrote no results" >&2; tail -20 "$work/run-$r.out" >&2; exit 1; }
	# by hand: worktree, git am -3, make in a copy of the as-is build
	t0=$(now)
	for b in "${branches[@]}"; do
		asis=$workdir/obj/$b	# the branch's build directory (lib/build.h)
		[ -d "$asis" ] || { echo "next-fix bench: no build directory $asis" >&2; exit 1; }
		git -C "$repo" worktree add -q --detach "$work/wt-$b" "$(sed -n "/name: \"\\?$b\"\\?/,/ref:/s/.*ref:[[:space:]]*//p" "$config" | head -1)"
		git -C "$work/wt-$b" am -q -3 "$work/fixes/$fix/fix.patch"
		cp -a "$asis" "$work/obj-$b"
		make -s -C "$work/wt-$b" O="$work/obj-$b" -j"$jobs" bzImage modules > /dev/null
		git -C "$repo" worktree remove --force "$work/wt-$b"
		rm -rf "$work/obj-$b"
	done
	t1=$(now)
	git_times+=("$(secs "$t0" "$t1")")
	printf 'next-fix bench, run %d/%d: kbackport run %.1f s, worktree + git am -3 + make %.1f s\n' \
		"$r" "$runs" "${kb_times[-1]}" "${git_times[-1]}" >&2
done
kb_med=$(printf '%s\n' "${kb_times[@]}" | median)
git_med=$(printf '%s\n' "${git_times[@]}" | median)
verdicts=$(jq -r '[.branches[] | "\(.name) \(.verdict)"] | join(", ")' "$work/run-$runs.json")

cat <<MD
## $title

A second fix (a one-line change to net/core/dev_ioctl.c, made with
\`kbackport fix new --from-commit\`) run with \`kbackport run\` on
${branches[*]}, whose as-is lanes \`make demo\` built: only what the new
trees change is rebuilt and booted. Beside it, per branch, \`git worktree
add\` + \`git am -3\` + \`make\` in a copy of the as-is build (no boot).
Median of $runs runs; verdicts of the last: $verdicts.

| | median | runs |
|---|---:|---|
| kbackport run, next fix (${#branches[@]} branches; target well under 60 s a branch) | $(printf '%.1f s' "$kb_med") | $(list "${kb_times[@]}") |
| git worktree add + git am -3 + incremental make (no boot) | $(printf '%.1f s' "$git_med") | $(list "${git_times[@]}") |

MD
