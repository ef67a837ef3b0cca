#!/usr/bin/env bash
# make bench: the next fix on branches whose lanes
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
# copy of the branch's as-is build directory (work/builds/<key>), the
# incremental build alone, no boot: a lower bound for the by-hand way.
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
trap 'rm -rf "$work"; git -C "$repo" worktree prune' EXIT
export HOME=$work/home LANG=C LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "Bench" && git config --global user.email bench@example.org

# The next fix: a commit of its own, made into a fix directory; a new one
# each run (its own comment, naming this bench's temporary directory and the
# run, so its own trees: nothing of an earlier run's backport lane, nor of
# an earlier bench's, is reused; only the as-is builds of make demo are).
git clone -q --shared --no-checkout "$repo" "$work/src"
next_fix() {
	git -C "$work/src" checkout -q -f --detach "$(git -C "$repo" rev-parse "stable/6.12.y^{commit}")"
	sed -i "0,/^void dev_load(/s//\/* kbackport bench: the next fix, ${work##*.} run $1 *\/\nvoid dev_load(/" \
		"$work/src/net/core/dev_ioctl.c"
	git -C "$work/src" commit -q -am "net: dev_ioctl: say where dev_load starts ($1)"
	"$kb" fix new -o "$work/fixes-$1" --id "next-fix-$1" --from-commit "$work/src" HEAD \
		--upstream "$(git -C "$work/src" rev-parse HEAD)" >&2
}

cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"
kb_times=() git_times=()
for r in $(seq "$runs"); do
	next_fix "$r"
	fix=$work/fixes-$r/next-fix-$r
	args=(--config "$config" --fix "$fix" --workdir "$workdir" --jobs "$jobs")
	for b in "${branches[@]}"; do args+=(--branch "$b"); done
	rm -rf "$work/reports"
	t0=$(now)
	"$kb" run "${args[@]}" --reports "$work/reports" > "$work/run-$r.out" 2>&1 || true
	t1=$(now)
	kb_times+=("$(secs "$t0" "$t1")")
	cp "$work/reports/latest/results.json" "$work/run-$r.json" 2>/dev/null ||
		{ echo "next-fix bench: run $r wrote no results" >&2; tail -20 "$work/run-$r.out" >&2; exit 1; }
	if jq -e '[.branches[] | select(.verdict == "error")] | length > 0' "$work/run-$r.json" > /dev/null; then
		echo "next-fix bench: run $r ended in error:" >&2; cat "$work/run-$r.out" >&2; exit 1
	fi
	# by hand: worktree, git am -3, make in a copy of the as-is build, as in
	# a by-hand tree built before. Only those three are timed. Set-up, not
	# timed: the copy; the copy's recorded source and build paths (its
	# Makefile, the `source` link and the .cmd files' command lines and
	# dependencies: kbuild rebuilds whatever was compiled by another command
	# line) moved to the worktree's and the copy's; and the worktree's files
	# dated older than the objects, as a tree built before would be.
	hand=0
	for b in "${branches[@]}"; do
		asis=$("$kb" build --config "$config" --workdir "$workdir" --branch "$b" --json 2>/dev/null |
			jq -r '.builds[] | select(.lane == "as-is") | .build_dir')
		[ -d "$asis" ] || { echo "next-fix bench: no as-is build of $b in $workdir" >&2; exit 1; }
		oldsrc=$(readlink "$asis/source")
		# where kbackport ran the build (<workdir>/obj/<branch>) before it
		# kept it as $asis: tools/ (objtool) records absolute output paths
		oldobj=$(realpath -m "$workdir/obj/$b")
		ref=$(sed -n "/name: \"\?$b\"\?/,/ref:/s/.*ref:[[:space:]]*//p" "$config" | head -1)
		src=$work/hand/src/$b obj=$work/hand/obj/$b
		rm -rf "$work/hand" && mkdir -p "$work/hand/src" "$work/hand/obj"
		cp -a "$asis" "$obj"
		t0=$(now)
		git -C "$repo" worktree add -q --detach "$src" "$ref"
		t1=$(now)
		find "$src" -path '*/.git' -prune -o -type f -exec touch -h -d '2000-01-01' {} +
		ln -sfn "$src" "$obj/source"
		{ echo "$obj/Makefile"; find "$obj" -name '*.cmd' -type f; } |
			xargs -r grep -lF -e "$oldsrc" -e "$oldobj" |
			xargs -r sed -i -e "s|$oldsrc|$src|g" -e "s|$oldobj|$obj|g"
		t2=$(now)
		git -C "$src" am -q -3 "$fix/fix.patch"
		# the compiler as kbackport's build ran it, or every command line differs
		make -s -C "$obj" -j"$jobs" "CC=$cc" bzImage modules > "$work/hand-make.log" 2>&1 ||
			{ echo "next-fix bench: make by hand failed on $b" >&2; tail -20 "$work/hand-make.log" >&2; exit 1; }
		t3=$(now)
		hand=$(echo "$hand + $(secs "$t0" "$t1") + $(secs "$t2" "$t3")" | bc)
		git -C "$repo" worktree remove --force "$src"
		rm -rf "$work/hand"
	done
	git_times+=("$hand")
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
| **ratio** | **$(printf '%.1fx' "$(echo "$git_med / $kb_med" | bc -l)")** faster, boots and verdicts included | |

MD
