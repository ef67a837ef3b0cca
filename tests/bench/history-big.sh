#!/usr/bin/env bash
# make bench: history first at scale, on the real 2.6.35.y stable history
# that ../shared/stable-training was drawn from (github.com/buglabs/
# bug20-2.6.35-linaro, about 203 thousand commits): its 100 real stable
# fixes on the 10 stable releases 2.6.35.1 .. 2.6.35.10 (1,000 answers),
# RUNS times (default 1: a cold run walks the whole history):
#   cold      no index yet: one walk of the history (messages), one walk
#             for the paths of all 100 fixes, then the answers;
#   warm      the index read back from the work directory;
#   content   --no-history, the content alone, for comparison.
# Each answer is also checked against the history itself (is the fix's
# stable commit an ancestor of the release?), and every prerequisite a
# conflict names against it (an ancestor of the fix, not of the release).
# Writes refs into a shared bare clone only, never into the repository.
#
#   KB_LINUX_2635_REPO=DIR tests/bench/history-big.sh [KBACKPORT]
#   env: RUNS (1), KB_SHARED (../shared)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib.sh"
kb=$(realpath "${1:-$top/build/kbackport}")
runs=${RUNS:-1}
set_dir=${KB_SHARED:-$top/../shared}/stable-training
src=${KB_LINUX_2635_REPO:-}
title="History first at scale: 100 real fixes on 10 releases of 2.6.35.y"
if [ -z "$src" ] || [ ! -d "$src" ] || [ ! -d "$set_dir" ]; then
	printf '## %s\n\nSkipped: set KB_LINUX_2635_REPO to a clone of github.com/buglabs/bug20-2.6.35-linaro (and have %s).\n\n' \
		"$title" "$set_dir"
	exit 0
fi
bench_work history-big
bench_clone "$src" "$work/repo.git"
ncommits=$(git -C "$work/repo.git" rev-list --count --all)
# the releases, from the set's README table ("| 2.6.35.N | `sha` |")
{
	printf 'repo: %s\nbranches:\n' "$work/repo.git"
	grep -E '^\| 2\.6\.35\.[0-9]+ \| `[0-9a-f]{40}` \|' "$set_dir/README.md" |
		sed -E 's/^\| ([0-9.]+) \| `([0-9a-f]+)`.*/  - {name: "\1", ref: \2}/'
} > "$work/branches.yaml"
nbr=$(grep -c 'name:' "$work/branches.yaml")
for d in "$set_dir"/[0-9]*/; do
	n=$(basename "$d")
	"$kb" fix new -o "$work/backports" --id "s${n%%-*}" "$d/fix.patch" > /dev/null
done
nfix=$(ls "$work/backports" | wc -l)

# timed OUT ARGS...: the seconds one `kbackport apply --json` takes; the answers in OUT
timed() {
	local t0 out=$1
	shift
	drop_backport_refs "$work/repo.git"
	t0=$(now)
	"$kb" apply -c "$work/branches.yaml" --fix "$work/backports" -w "$work/w" --json "$@" \
		> "$out" 2>/dev/null || true
	secs "$t0" "$(now)"
}
cold=() warm=() content=()
for i in $(seq 1 "$runs"); do
	echo "bench: history at scale, run $i of $runs" >&2
	rm -rf "$work/w"
	cold+=("$(timed "$work/cold.json")")
	warm+=("$(timed "$work/warm.json")")
	content+=("$(timed "$work/content.json" --no-history)")
done

# judge JSON: "<right> <false already-applied> <wrong other> <needs> <needs wrong>"
judge() {
	python3 - "$1" "$set_dir" "$work/repo.git" "$work/branches.yaml" <<'PY'
import json, os, re, subprocess, sys
res, set_dir, repo, yaml = sys.argv[1:5]
rel = dict(re.findall(r'name: "([^"]+)", ref: ([0-9a-f]+)', open(yaml).read()))
commit = {}
for d in os.listdir(set_dir):
    m = re.match(r'(\d+)-', d)
    if m:
        y = open(os.path.join(set_dir, d, 'expected.yaml')).read()
        commit['s' + m.group(1)] = re.search(r'^commit: ([0-9a-f]+)', y, re.M).group(1)
memo = {}
def anc(a, b):
    if (a, b) not in memo:
        memo[a, b] = subprocess.run(['git', '-C', repo, 'merge-base', '--is-ancestor', a, b]).returncode == 0
    return memo[a, b]
right = faa = other = needs = bad = 0
for fx in json.load(open(res)):
    for r in fx['results']:
        inside = anc(commit[fx['fix']], rel[r['branch']])
        st = r['status']
        if inside == (st == 'already-applied'):
            right += 1
        elif st == 'already-applied':
            faa += 1
        else:
            other += 1
        for h in r['hunks']:
            for n in h['needs']:
                needs += 1
                bad += anc(n['commit'], rel[r['branch']]) or not anc(n['commit'], commit[fx['fix']])
print(right, faa, other, needs, bad)
PY
}
read -r h_right h_faa h_other h_needs h_bad < <(judge "$work/warm.json")
read -r c_right c_faa c_other _ _ < <(judge "$work/content.json")
nconf=$(jq '[.[].results[] | select(.status == "conflict")] | length' "$work/warm.json")
nnamed=$(jq '[.[].results[] | select(.status == "conflict") | select([.hunks[].needs[]] | length > 0)] | length' "$work/warm.json")
cat <<MD
## $title

\`kbackport apply\` of the $nfix real stable fixes of \`../shared/stable-training\`
on the $nbr stable releases 2.6.35.1 .. 2.6.35.10 ($((nfix * nbr)) answers) of the
real history they come from ($ncommits commits), the history index under the
work directory. Median of $runs run(s).

| | median | runs |
|---|---:|---|
$(row "cold: no index (one walk of the messages, one of the 100 fixes' paths, answers)" "${cold[@]}")
$(row "warm: the index read back" "${warm[@]}")
$(row "--no-history: the content alone" "${content[@]}")

Right answers against the history itself (the fix's stable commit is an
ancestor of the release, or not): with the history $h_right of $((nfix * nbr)), false
\`already-applied\` $h_faa, other wrong $h_other; the content alone $c_right, false
\`already-applied\` $c_faa, other wrong $c_other (fixes that are in, answered
\`applied\`, \`partial\` or \`conflict\`). Of the $nconf conflicts, $nnamed name the
commits their hunks need ($h_needs names, $h_bad of them wrong: a named commit is
always an ancestor of the fix and not of the release).

MD
