#!/usr/bin/env bash
# kbackport apply on repositories shaped like each era of CVE-2011-1019:
# exact statuses, variants, file contents, messages and refs, and the
# user's refs, HEAD, index and working tree untouched.
source "$(dirname "$0")/../lib.sh"
T_SUITE=eras
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
REF=refs/heads/backport/CVE-2011-1019
UPSTREAM=8909c9ad8ff03611c9c96c9a92656213e4bb495b
before_linux=$(user_state repos/linux)
before_vendor=$(user_state repos/vendor.git)

run_kb 1 apply --json
echo "$OUT" > "$TMP/first.json"
field() { jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2" "$TMP/first.json"; }

expect_status() { # branch status variant
	T_NAME=$1
	assert_eq "status" "$2" "$(field "$1" .status)"
	assert_eq "variant" "$3" "$(field "$1" .variant)"
}
expect_status 2.6.31.y not-affected null
expect_status 2.6.32.y applied 2.6.32
expect_status 2.6.35.y applied 2.6.33
expect_status 2.6.37.y applied upstream
expect_status 4.19.y applied 3.9
expect_status vendor-fixed already-applied 2.6.32
expect_status vendor-reworked conflict null
T_NAME=

assert_eq "one document for one fix" "CVE-2011-1019" "$(jq -r '.[].fix' "$TMP/first.json")"
assert_eq "results in config order" \
	"2.6.31.y 2.6.32.y 2.6.35.y 2.6.37.y 4.19.y vendor-fixed vendor-reworked" \
	"$(jq -r '[.[0].results[].branch] | join(" ")' "$TMP/first.json")"

# branch fixture-era of each applied lane
check_applied() {
	local branch=$1 era=$2 repo=repos/linux ref=$REF/$1 f expected
	T_NAME=$branch
	assert_eq "ref" "$ref" "$(field "$branch" .ref)"
	assert_eq "commit is the ref's target" "$(git -C $repo rev-parse "$ref")" "$(field "$branch" .commit)"
	assert_eq "base is the branch tip" "$(git -C $repo rev-parse "linux-$branch")" "$(field "$branch" .base)"
	assert_eq "parent is the base" "$(git -C $repo rev-parse "linux-$branch")" "$(git -C $repo rev-parse "$ref^")"
	assert_eq "created" true "$(field "$branch" .created)"
	# every file: the expected result where the fix changes it, else as it was
	# (the point release only bumped SUBLEVEL in the Makefile)
	for f in $(cd "$FIXTURES/eras/$era/tree" && find . -type f ! -name Makefile | sed 's|^\./||' | sort); do
		expected=$FIXTURES/eras/$era/expected/$f
		[ -f "$expected" ] || expected=$FIXTURES/eras/$era/tree/$f
		git -C $repo show "$ref:$f" > "$TMP/actual"
		assert_file_eq "contents of $f" "$expected" "$TMP/actual"
	done
	assert_eq "only the fix's files changed" \
		"$(cd "$FIXTURES/eras/$era/expected" && find . -type f | sed 's|^\./||' | sort)" \
		"$(git -C $repo diff --name-only "linux-$branch" "$ref" | sort)"
	git -C $repo log -1 --format=%B "$ref" > "$TMP/msg"
	assert_file_eq "message" "$FIXTURES/eras/$era/expected.msg" "$TMP/msg"
	assert_eq "author is upstream's" "Vasiliy Kulikov <segoon@openwall.com> 1299015193 +0300" \
		"$(git -C $repo log -1 --format='%an <%ae> %at %ad' --date=format:%z "$ref")"
	assert_eq "committer from git config" "Stable Maintainer <stable@example.org> 1700000000" \
		"$(git -C $repo log -1 --format='%cn <%ce> %ct' "$ref")"
	if git -C $repo cat-file -e "$ref:include/linux/netdevice.h" 2>/dev/null; then
		assert_eq "MODULE_ALIAS_NETDEV defined once, inside __KERNEL__" "1 yes" \
			"$(git -C $repo show "$ref:include/linux/netdevice.h" | grep -c '^#define MODULE_ALIAS_NETDEV') $(
			   git -C $repo show "$ref:include/linux/netdevice.h" | awk '/^#define MODULE_ALIAS_NETDEV/{m=NR} /^#endif \/\* __KERNEL__ \*\//{k=NR} END{print (k == 0 || m < k) ? "yes" : "no"}')"
	fi
	T_NAME=
}
check_applied 2.6.32.y 2.6.32
check_applied 2.6.35.y 2.6.35
check_applied 2.6.37.y 2.6.37
check_applied 4.19.y 4.19

T_NAME=2.6.37.y
assert_contains "fuzz reported" "hunk 1 of 'include/linux/netdevice.h' applied at line 21 (offset -2371, fuzz 1)" "$(field 2.6.37.y '.notes | join("\n")')"
T_NAME=2.6.35.y
assert_contains "whitespace tolerance reported" "hunk 1 of 'net/ipv4/ipip.c' applied at line 16 (offset -861, ignoring whitespace)" "$(field 2.6.35.y '.notes | join("\n")')"
T_NAME=2.6.32.y
assert_contains "offset reported" "hunk 1 of 'net/core/dev.c' applied at line 31 (offset -995)" "$(field 2.6.32.y '.notes | join("\n")')"

T_NAME=not-affected
assert_eq "no commit, no ref" "null null" "$(field 2.6.31.y '"\(.commit) \(.ref)"')"
assert_eq "why" "the vulnerable code is not in 'linux-2.6.31.y'" "$(field 2.6.31.y .detail)"
T_NAME=already-applied
assert_eq "no commit, no ref" "null null" "$(field vendor-fixed '"\(.commit) \(.ref)"')"
assert_eq "why" "the changes of variant '2.6.32' are already in 'vendor-2.6.32-fixed'" "$(field vendor-fixed .detail)"
run_kb 0 apply --dry-run --branch vendor-fixed
assert_eq "the text names the evidence: where each hunk of the variant was found" \
"vendor-fixed (CVE-2011-1019): the changes of variant '2.6.32' are already in 'vendor-2.6.32-fixed'
  found: variant '2.6.32' at include/linux/netdevice.h:13 (variant 'upstream'), net/core/dev.c:32, net/ipv4/ip_gre.c:18, net/ipv4/ipip.c:16, net/ipv6/sit.c:16" \
	"$(printf '%s\n' "$OUT" | sed -n '/^vendor-fixed (/,/found:/p')"
T_NAME=conflict
assert_eq "why" "no variant fits this tree; the upstream patch fails: hunk 1 of 'include/linux/netdevice.h' does not apply" "$(field vendor-reworked .detail)"
assert_eq "why each variant was not chosen, then the failed hunks" "variant 'upstream' not chosen: net/core/dev.c contains 'dev = dev_get_by_name_rcu(net, name);' does not hold
variant '3.9' not chosen: net/core/dev_ioctl.c contains 'void dev_load(struct net *net, const char *name)' does not hold
variant '2.6.33' not chosen: net/core/dev.c contains 'dev = dev_get_by_name_rcu(net, name);' does not hold
variant '2.6.32' not chosen: net/core/dev.c contains 'read_lock(&dev_base_lock);\ndev = __dev_get_by_name(net, name);' does not hold
variant '3.8' not chosen: net/core/dev.c contains 'dev = dev_get_by_name_rcu(net, name);' does not hold
variant '3.9-pr_warn' not chosen: net/core/dev_ioctl.c contains 'void dev_load(struct net *net, const char *name)' does not hold
hunk 1 of 'include/linux/netdevice.h' does not apply
hunk 1 of 'net/core/dev.c' does not apply
hunk 1 of 'net/ipv4/ip_gre.c' does not apply
hunk 1 of 'net/ipv4/ipip.c' does not apply" "$(field vendor-reworked '.notes | join("\n")')"
WT=$TMP/repos/vendor-CVE-2011-1019-vendor-reworked
assert_eq "commands to do it by hand: a work tree of the bare repository, git am of the patch whose hunks failed" \
"git -C $TMP/repos/vendor.git worktree add $WT -b backport/CVE-2011-1019/vendor-reworked vendor-2.6.32-reworked
git -C $WT am -3 $TOP_DIR/backports/CVE-2011-1019/upstream.patch
# resolve the conflicts (see the failed hunks), then: git -C $WT add <files>
# build and test the kernel
git -C $WT am --continue" "$(field vendor-reworked '.reproduce | join("\n")')"
# a fix from elsewhere names where its upstream commit is fetched from
mkdir -p custom && cp -r "$TOP_DIR/backports/CVE-2011-1019" custom/
sed -i 's|^upstream: .*|&\nupstream-repo: https://git.example.org/net-next.git|' custom/CVE-2011-1019/fix.yaml
run_kb 1 apply --fix custom/CVE-2011-1019 --branch vendor-reworked --dry-run --json
assert_eq "with upstream-repo, the cherry-pick from there as the other way" \
	"# or cherry-pick the upstream commit instead of git am: git -C $WT am --abort && git -C $WT fetch https://git.example.org/net-next.git $UPSTREAM && git -C $WT cherry-pick -x $UPSTREAM" \
	"$(printf '%s' "$OUT" | jq -r '.[0].results[0].reproduce[-1]')"
assert_eq "...and the patch of that fix" "git -C $WT am -3 $TMP/custom/CVE-2011-1019/upstream.patch" \
	"$(printf '%s' "$OUT" | jq -r '.[0].results[0].reproduce[1]')"
T_NAME=
assert_eq "only backport refs for applied branches" \
	"$REF/2.6.32.y $REF/2.6.35.y $REF/2.6.37.y $REF/4.19.y" \
	"$(git -C repos/linux for-each-ref --format='%(refname)' refs/heads/backport | tr '\n' ' ' | sed 's/ $//')"
assert_eq "no backport ref in the vendor repository" "" \
	"$(git -C repos/vendor.git for-each-ref refs/heads/backport)"
assert_eq "user's refs, HEAD, index and work tree untouched (linux)" "$before_linux" "$(user_state repos/linux)"
assert_eq "user's refs and HEAD untouched (bare vendor)" "$before_vendor" "$(user_state repos/vendor.git)"

# Re-running is idempotent: same results, no new commit.
run_kb 1 apply --json
echo "$OUT" > "$TMP/second.json"
assert_eq "re-run: same statuses, commits and refs" \
	"$(jq -c '[.[0].results[] | [.branch, .status, .variant, .commit, .ref]]' "$TMP/first.json")" \
	"$(jq -c '[.[0].results[] | [.branch, .status, .variant, .commit, .ref]]' "$TMP/second.json")"
assert_eq "re-run: nothing created" "false false false false" \
	"$(jq -r '[.[0].results[] | select(.status == "applied") | .created] | map(tostring) | join(" ")' "$TMP/second.json")"
assert_eq "re-run: ref logs show one update each" "1" \
	"$(git -C repos/linux reflog show "$REF/2.6.32.y" | wc -l)"

# The matrix for people
run_kb 1 apply
assert_eq "matrix header and rows" "BRANCH           FIX             STATUS           VARIANT    COMMIT
2.6.31.y         CVE-2011-1019   not-affected     -          -
2.6.32.y         CVE-2011-1019   applied          2.6.32     $(git -C repos/linux rev-parse --short=12 $REF/2.6.32.y)" "$(printf '%s\n' "$OUT" | head -3)"
assert_contains "conflict explained for people" "vendor-reworked (CVE-2011-1019): no variant fits this tree" "$OUT"
assert_contains "commands indented under the conflict" "    git -C $WT am -3 $TOP_DIR/backports/CVE-2011-1019/upstream.patch" "$OUT"

# --branch selects, exit 0 without conflicts
run_kb 0 apply --branch 2.6.32.y --branch 2.6.31.y --json
assert_eq "--branch keeps config order" "2.6.31.y 2.6.32.y" "$(printf '%s' "$OUT" | jq -r '[.[0].results[].branch] | join(" ")')"
finish
