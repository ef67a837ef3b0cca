#!/usr/bin/env bash
# make bench: the build stage on a real 6.1 kernel, three figures from one run:
#   cold      the as-is lane, nothing built before (fresh work dir and ccache)
#   lane      a backport lane one file (net/core/dev_ioctl.c) away from it
#   re-run    the whole build stage again, nothing changed
#
#   tests/bench/build.sh [KBACKPORT [REPO [REF]]]
#   env: KB_LINUX (REPO, default work/linux), KB_REF (default stable/6.1.y),
#        JOBS (default 2), BENCH_DIR (default a temporary directory, removed),
# REPO is left as it is: the bench works in a shared bare clone of it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kb=$(realpath "${1:-$top/build/kbackport}")
repo=${2:-${KB_LINUX:-$top/work/linux}}
ref=${3:-${KB_REF:-stable/6.1.y}}
jobs=${JOBS:-2}

if ! git -C "$repo" rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1; then
	cat <<-EOF
	build bench: no kernel repository with '$ref' at '$repo'; skipped.
	  Import Debian's 6.1 sources first:  build/kbackport import
	  (creates work/linux with branch stable/6.1.y), or point KB_LINUX at a
	  repository and KB_REF at a 6.1 commit of it.
	EOF
	exit 0
fi
repo=$(cd "$repo" && pwd)
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-build.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
export CCACHE_DIR=$work/ccache LANG=C LC_ALL=C
for tool in flex bison bc gcc make; do
	command -v "$tool" >/dev/null || { echo "build bench: '$tool' is missing (make deps)"; exit 1; }
done

# A bare clone sharing the repository's objects: the bench's refs go there.
git clone -q --bare --shared "$repo" "$work/linux.git"
git -C "$work/linux.git" update-ref refs/heads/bench "$(git -C "$repo" rev-parse "$ref^{commit}")"
# lanes kbackport apply made in REPO are not part of this bench
git -C "$work/linux.git" for-each-ref --format='delete %(refname)' refs/heads/backport |
	git -C "$work/linux.git" update-ref --stdin
cat > "$work/branches.yaml" <<EOF
repo: $work/linux.git
branches:
  - name: 6.1.y
    ref: bench
EOF
build() {
	"$kb" build --config "$work/branches.yaml" --fix "$top/backports/CVE-2011-1019" \
		--fragment "$top/tests/kernel/kbackport.config" --jobs "$jobs" --json \
		> "$work/out.json" 2> "$work/err.txt" || { cat "$work/err.txt"; jq -r '.builds[].reason // empty' "$work/out.json"; exit 1; }
}
lane() { jq -r ".builds[] | select(.lane == \"$1\") | .$2" "$work/out.json"; }
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }

# A backport commit: dev_ioctl.c changed, as a fix would change it.
backport_commit() {
	local idx=$work/bench.index blob tree
	blob=$( { git -C "$work/linux.git" show "bench:net/core/dev_ioctl.c"; echo "/* kbackport bench */"; } |
		git -C "$work/linux.git" hash-object -w --stdin)
	GIT_INDEX_FILE=$idx git -C "$work/linux.git" read-tree bench
	GIT_INDEX_FILE=$idx git -C "$work/linux.git" update-index --cacheinfo "100644,$blob,net/core/dev_ioctl.c"
	tree=$(GIT_INDEX_FILE=$idx git -C "$work/linux.git" write-tree)
	git -C "$work/linux.git" -c user.name=bench -c user.email=bench@example.org \
		commit-tree "$tree" -p bench -m "bench: touch dev_ioctl.c"
}

echo "build bench: $ref of $repo, make -j$jobs, work in $work"
t0=$(now); build; t1=$(now)
cold=$(secs "$t0" "$t1") cold_objs=$(lane as-is rebuilt) cold_lane=$(lane as-is seconds)
git -C "$work/linux.git" update-ref refs/heads/backport/CVE-2011-1019/6.1.y "$(backport_commit)"
t0=$(now); build; t1=$(now)
incr=$(secs "$t0" "$t1") incr_lane=$(lane backport seconds) incr_objs=$(lane backport rebuilt)
t0=$(now); build; t1=$(now)
rerun=$(secs "$t0" "$t1")
statuses=$(jq -r '[.builds[].status] | join(",")' "$work/out.json")

printf '\n%-46s %8.1f s   (target < 300 s; %s objects, lane %.1f s)\n' \
	"cold test-kernel build of 6.1 (-j$jobs):" "$cold" "$cold_objs" "$cold_lane"
printf '%-46s %8.1f s   (target < 30 s; %s objects, whole stage %.1f s)\n' \
	"incremental lane rebuild (dev_ioctl.c):" "$incr_lane" "$incr_objs" "$incr"
printf '%-46s %8.1f s   (target < 5 s; lanes: %s)\n' \
	"no-change re-run of the build stage:" "$rerun" "$statuses"
