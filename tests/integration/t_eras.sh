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
	local branch=$1 status=$2 variant=$3
	T_NAME=$1
	test_expect_success 'status' '
		test_eq "$status" "$(field "$branch" .status)"
	'
	test_expect_success 'variant' '
		test_eq "$variant" "$(field "$branch" .variant)"
	'
}
expect_status 2.6.31.y not-affected null
expect_status 2.6.32.y applied 2.6.32
expect_status 2.6.35.y applied 2.6.33
expect_status 2.6.37.y applied upstream
expect_status 4.19.y applied 3.9
expect_status vendor-fixed already-applied 2.6.32
expect_status vendor-reworked conflict null
T_NAME=

test_expect_success 'one document for one fix' '
	test "$(jq -r '\''.[].fix'\'' "$TMP/first.json")" = CVE-2011-1019
'
test_expect_success 'results in config order' '
	test_eq "2.6.31.y 2.6.32.y 2.6.35.y 2.6.37.y 4.19.y vendor-fixed vendor-reworked" "$(jq -r '\''[.[0].results[].branch] | join(" ")'\'' "$TMP/first.json")"
'

# branch fixture-era of each applied lane
check_applied() {
	local branch=$1 era=$2 repo=repos/linux ref=$REF/$1 f expected
	T_NAME=$branch
	test_expect_success 'ref' '
		test_eq "$ref" "$(field "$branch" .ref)"
	'
	test_expect_success 'commit is the ref'\''s target' '
		test_eq "$(git -C $repo rev-parse "$ref")" "$(field "$branch" .commit)"
	'
	test_expect_success 'base is the branch tip' '
		test_eq "$(git -C $repo rev-parse "linux-$branch")" "$(field "$branch" .base)"
	'
	test_expect_success 'parent is the base' '
		test_eq "$(git -C $repo rev-parse "linux-$branch")" "$(git -C $repo rev-parse "$ref^")"
	'
	test_expect_success 'created' '
		test_eq true "$(field "$branch" .created)"
	'
	# every file: the expected result where the fix changes it, else as it was
	# (the point release only bumped SUBLEVEL in the Makefile)
	for f in $(cd "$FIXTURES/eras/$era/tree" && find . -type f ! -name Makefile | sed 's|^\./||' | sort); do
		expected=$FIXTURES/eras/$era/expected/$f
		[ -f "$expected" ] || expected=$FIXTURES/eras/$era/tree/$f
		git -C $repo show "$ref:$f" > "$TMP/actual"
		test_expect_success "contents of $f" '
			test_cmp "$expected" "$TMP/actual"
		'
	done
	test_expect_success 'only the fix'\''s files changed' '
		test_eq "$(cd "$FIXTURES/eras/$era/expected" && find . -type f | sed "s|^\./||" | sort)" "$(git -C $repo diff --name-only "linux-$branch" "$ref" | sort)"
	'
	git -C $repo log -1 --format=%B "$ref" > "$TMP/msg"
	test_expect_success 'message' '
		test_cmp "$FIXTURES/eras/$era/expected.msg" "$TMP/msg"
	'
	test_expect_success 'author is upstream'\''s' '
		test_eq "Vasiliy Kulikov <segoon@openwall.com> 1299015193 +0300" "$(git -C $repo log -1 --format="%an <%ae> %at %ad" --date=format:%z "$ref")"
	'
	test_expect_success 'committer from git config' '
		test_eq "Stable Maintainer <stable@example.org> 1700000000" "$(git -C $repo log -1 --format="%cn <%ce> %ct" "$ref")"
	'
	if git -C $repo cat-file -e "$ref:include/linux/netdevice.h" 2>/dev/null; then
		test_expect_success 'MODULE_ALIAS_NETDEV defined once, inside __KERNEL__' '
			printf "%s\n" "1 yes" > want &&
			printf "%s\n" "$(git -C $repo show "$ref:include/linux/netdevice.h" | grep -c "^#define MODULE_ALIAS_NETDEV") $(
			   git -C $repo show "$ref:include/linux/netdevice.h" | awk '\''/^#define MODULE_ALIAS_NETDEV/{m=NR} /^#endif \/\* __KERNEL__ \*\//{k=NR} END{print (k == 0 || m < k) ? "yes" : "no"}'\'')" > got &&
			test_cmp want got
		'
	fi
	T_NAME=
}
check_applied 2.6.32.y 2.6.32
check_applied 2.6.35.y 2.6.35
check_applied 2.6.37.y 2.6.37
check_applied 4.19.y 4.19

T_NAME=2.6.37.y
test_expect_success 'fuzz reported' '
	[[ $(field 2.6.37.y '\''.notes | join("\n")'\'') == *"hunk 1 of '\''include/linux/netdevice.h'\'' applied at line 21 (offset -2371, fuzz 1)"* ]]
'
T_NAME=2.6.35.y
test_expect_success 'whitespace tolerance reported' '
	[[ $(field 2.6.35.y '\''.notes | join("\n")'\'') == *"hunk 1 of '\''net/ipv4/ipip.c'\'' applied at line 16 (offset -861, ignoring whitespace)"* ]]
'
T_NAME=2.6.32.y
test_expect_success 'offset reported' '
	[[ $(field 2.6.32.y '\''.notes | join("\n")'\'') == *"hunk 1 of '\''net/core/dev.c'\'' applied at line 31 (offset -995)"* ]]
'

T_NAME=not-affected
test_expect_success 'no commit, no ref' '
	test "$(field 2.6.31.y '\''"\(.commit) \(.ref)"'\'')" = "null null"
'
test_expect_success 'why' '
	test "$(field 2.6.31.y .detail)" = "the vulnerable code is not in '\''linux-2.6.31.y'\''"
'
T_NAME=already-applied
test_expect_success 'no commit, no ref' '
	test "$(field vendor-fixed '\''"\(.commit) \(.ref)"'\'')" = "null null"
'
test_expect_success 'why' '
	test "$(field vendor-fixed .detail)" = "the changes of variant '\''2.6.32'\'' are already in '\''vendor-2.6.32-fixed'\''"
'
run_kb 0 apply --dry-run --branch vendor-fixed
test_expect_success 'the text names the evidence: where each hunk of the variant was found' '
	printf "%s\n" "vendor-fixed (CVE-2011-1019): the changes of variant '\''2.6.32'\'' are already in '\''vendor-2.6.32-fixed'\''
  found: variant '\''2.6.32'\'' at include/linux/netdevice.h:13 (variant '\''upstream'\''), net/core/dev.c:32, net/ipv4/ip_gre.c:18, net/ipv4/ipip.c:16, net/ipv6/sit.c:16" > want &&
	printf "%s\n" "$(printf "%s\n" "$OUT" | sed -n "/^vendor-fixed (/,/found:/p")" > got &&
	test_cmp want got
'
T_NAME=conflict
test_expect_success 'why' '
	test "$(field vendor-reworked .detail)" = "no variant fits this tree; the upstream patch fails: hunk 1 of '\''include/linux/netdevice.h'\'' does not apply"
'
test_expect_success 'why each variant was not chosen, then the failed hunks' '
	printf "%s\n" "variant '\''upstream'\'' not chosen: net/core/dev.c contains '\''dev = dev_get_by_name_rcu(net, name);'\'' does not hold
variant '\''3.9'\'' not chosen: net/core/dev_ioctl.c contains '\''void dev_load(struct net *net, const char *name)'\'' does not hold
variant '\''2.6.33'\'' not chosen: net/core/dev.c contains '\''dev = dev_get_by_name_rcu(net, name);'\'' does not hold
variant '\''2.6.32'\'' not chosen: net/core/dev.c contains '\''read_lock(&dev_base_lock);\ndev = __dev_get_by_name(net, name);'\'' does not hold
variant '\''3.8'\'' not chosen: net/core/dev.c contains '\''dev = dev_get_by_name_rcu(net, name);'\'' does not hold
variant '\''3.9-pr_warn'\'' not chosen: net/core/dev_ioctl.c contains '\''void dev_load(struct net *net, const char *name)'\'' does not hold
hunk 1 of '\''include/linux/netdevice.h'\'' does not apply
hunk 1 of '\''net/core/dev.c'\'' does not apply
hunk 1 of '\''net/ipv4/ip_gre.c'\'' does not apply
hunk 1 of '\''net/ipv4/ipip.c'\'' does not apply" > want &&
	printf "%s\n" "$(field vendor-reworked '\''.notes | join("\n")'\'')" > got &&
	test_cmp want got
'
WT=$TMP/repos/vendor-CVE-2011-1019-vendor-reworked
test_expect_success 'commands to do it by hand: a work tree of the bare repository, git am of the patch whose hunks failed' '
	printf "%s\n" "git -C $TMP/repos/vendor.git worktree add $WT -b backport/CVE-2011-1019/vendor-reworked vendor-2.6.32-reworked
git -C $WT am -3 $TOP_DIR/backports/CVE-2011-1019/upstream.patch
# resolve the conflicts (see the failed hunks), then: git -C $WT add <files>
# build and test the kernel
git -C $WT am --continue" > want &&
	printf "%s\n" "$(field vendor-reworked '\''.reproduce | join("\n")'\'')" > got &&
	test_cmp want got
'
# a fix from elsewhere names where its upstream commit is fetched from
mkdir -p custom && cp -r "$TOP_DIR/backports/CVE-2011-1019" custom/
sed -i 's|^upstream: .*|&\nupstream-repo: https://git.example.org/net-next.git|' custom/CVE-2011-1019/fix.yaml
run_kb 1 apply --fix custom/CVE-2011-1019 --branch vendor-reworked --dry-run --json
test_expect_success 'with upstream-repo, the cherry-pick from there as the other way' '
	test_eq "# or cherry-pick the upstream commit instead of git am: git -C $WT am --abort && git -C $WT fetch https://git.example.org/net-next.git $UPSTREAM && git -C $WT cherry-pick -x $UPSTREAM" "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0].reproduce[-1]'\'')"
'
test_expect_success '...and the patch of that fix' '
	test "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0].reproduce[1]'\'')" = "git -C $WT am -3 $TMP/custom/CVE-2011-1019/upstream.patch"
'
T_NAME=
test_expect_success 'only backport refs for applied branches' '
	test_eq "$REF/2.6.32.y $REF/2.6.35.y $REF/2.6.37.y $REF/4.19.y" "$(git -C repos/linux for-each-ref --format="%(refname)" refs/heads/backport | tr "\n" " " | sed "s/ $//")"
'
test_expect_success 'no backport ref in the vendor repository' '
	test_eq "" "$(git -C repos/vendor.git for-each-ref refs/heads/backport)"
'
test_expect_success 'user'\''s refs, HEAD, index and work tree untouched (linux)' '
	test_eq "$before_linux" "$(user_state repos/linux)"
'
test_expect_success 'user'\''s refs and HEAD untouched (bare vendor)' '
	test_eq "$before_vendor" "$(user_state repos/vendor.git)"
'

# Re-running is idempotent: same results, no new commit.
run_kb 1 apply --json
echo "$OUT" > "$TMP/second.json"
test_expect_success 're-run: same statuses, commits and refs' '
	test_eq "$(jq -c '\''[.[0].results[] | [.branch, .status, .variant, .commit, .ref]]'\'' "$TMP/first.json")" "$(jq -c '\''[.[0].results[] | [.branch, .status, .variant, .commit, .ref]]'\'' "$TMP/second.json")"
'
test_expect_success 're-run: nothing created' '
	test "$(jq -r '\''[.[0].results[] | select(.status == "applied") | .created] | map(tostring) | join(" ")'\'' "$TMP/second.json")" = "false false false false"
'
test_expect_success 're-run: ref logs show one update each' '
	test "$(git -C repos/linux reflog show "$REF/2.6.32.y" | wc -l)" = 1
'

# The matrix for people
run_kb 1 apply
test_expect_success 'matrix header and rows' '
	printf "%s\n" "BRANCH           FIX             STATUS           VARIANT    COMMIT
2.6.31.y         CVE-2011-1019   not-affected     -          -
2.6.32.y         CVE-2011-1019   applied          2.6.32     $(git -C repos/linux rev-parse --short=12 $REF/2.6.32.y)" > want &&
	printf "%s\n" "$(printf "%s\n" "$OUT" | head -3)" > got &&
	test_cmp want got
'
test_expect_success 'conflict explained for people' '
	[[ $OUT == *"vendor-reworked (CVE-2011-1019): no variant fits this tree"* ]]
'
test_expect_success 'commands indented under the conflict' '
	[[ $OUT == *"    git -C $WT am -3 $TOP_DIR/backports/CVE-2011-1019/upstream.patch"* ]]
'

# --branch selects, exit 0 without conflicts
run_kb 0 apply --branch 2.6.32.y --branch 2.6.31.y --json
test_expect_success '--branch keeps config order' '
	test "$(printf "%s" "$OUT" | jq -r '\''[.[0].results[].branch] | join(" ")'\'')" = "2.6.31.y 2.6.32.y"
'
finish
