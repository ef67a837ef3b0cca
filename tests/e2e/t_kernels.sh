#!/usr/bin/env bash
# End to end on real kernels: import Debian's linux-source-6.1 (with an
# older point release first) and linux-source-6.12, reconstruct both pre-fix
# lanes, backport onto them, and check the backport lane is the tree Debian
# ships. The imported repository lives in build/e2e (git-ignored) so later
# stages and re-runs reuse it; everything else is hermetic.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-kernels
hermetic
mkdir -p "$E2E"
OLD_61=${KB_OLD_61:-6.1.190-1}
REF=refs/heads/backport/CVE-2011-1019
git_k() { git -C "$REPO" "$@"; }

import() {
	"$KBACKPORT" import --repo "$REPO" --downloads "$E2E/downloads" --json \
		--package linux-source-6.1="$OLD_61" --package linux-source-6.1 \
		--package linux-source-6.12
}
import > "$TMP/import1.json" 2> "$TMP/import1.err" || { fail "import"; cat "$TMP/import1.err"; }
cur61=$(dpkg-query -W -f='${Version}' linux-source-6.1)
cur612=$(dpkg-query -W -f='${Version}' linux-source-6.12)
test_expect_success 'import: no errors' '
	test "$(jq -c "[.imports[].error]" "$TMP/import1.json")" = "[null,null,null]"
'
test_expect_success 'stable/6.1.y: one commit per version, oldest first' '
	printf "%s\n" "linux-source-6.1 $cur61
linux-source-6.1 $OLD_61" > "$TMP/want" &&
	printf "%s\n" "$(git_k log --first-parent --format=%s stable/6.1.y)" > "$TMP/got" &&
	test_cmp "$TMP/want" "$TMP/got"
'
test_expect_success 'stable/6.12.y' '
	test "$(git_k log --first-parent --format=%s stable/6.12.y)" = "linux-source-6.12 $cur612"
'

# Re-importing adds nothing.
tips="$(git_k rev-parse stable/6.1.y stable/6.12.y)"
import > "$TMP/import2.json" 2>/dev/null
test_expect_success 're-import: nothing created' '
	test "$(jq -c "[.imports[].created]" "$TMP/import2.json")" = "[false,false,false]"
'
test_expect_success 're-import: branches did not move' '
	test "$(git_k rev-parse stable/6.1.y stable/6.12.y)" = "$tips"
'

# Every file of the tarball, whatever Debian's top-level .gitignore says.
tarball=/usr/src/linux-source-6.1.tar.xz
tar tvJf "$tarball" | awk '$1 !~ /^d/' | wc -l > "$TMP/count"
test_expect_success 'every tarball entry is in the tree' '
	test "$(git_k ls-tree -r stable/6.1.y | wc -l)" = "$(cat "$TMP/count")"
'
test_expect_success '.gitignore ignores everything at the top, yet Makefile is there' '
	test "$(git_k show stable/6.1.y:.gitignore | grep -m1 -x "/\*") $(git_k cat-file -e stable/6.1.y:Makefile && echo yes)" = "/* yes"
'
tar xOJf "$tarball" linux-source-6.1/net/core/dev_ioctl.c > "$TMP/dev_ioctl.c"
git_k show stable/6.1.y:net/core/dev_ioctl.c > "$TMP/imported.c"
test_expect_success 'file contents as in the tarball' '
	test_cmp "$TMP/dev_ioctl.c" "$TMP/imported.c"
'
test_expect_success 'executable bit kept' '
	test "$(git_k ls-tree stable/6.1.y scripts/config | cut -c1-6)" = 100755
'

# Pre-fix lanes and backports.
cat > "$TMP/branches.yaml" <<YAML
repo: $REPO
branches:
  - {name: "6.1.y", ref: stable/6.1.y, pre-fix: true}
  - {name: "6.12.y", ref: stable/6.12.y, pre-fix: true}
YAML
run_kb 0 apply --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" --json
DEV_LOAD='void dev_load(struct net *net, const char *name)
{
	struct net_device *dev;

	rcu_read_lock();
	dev = dev_get_by_name_rcu(net, name);
	rcu_read_unlock();

	if (!dev && capable(CAP_NET_ADMIN))
		request_module("%s", name);
}'
# aliases BRANCH: the plain MODULE_ALIAS lines of the three tunnels in
# BRANCH's pre-fix lane, on one line
aliases() {
	for f in net/ipv4/ip_gre.c net/ipv4/ipip.c net/ipv6/sit.c; do
		git_k show $REF/$1.pre-fix:$f | grep -E '^MODULE_ALIAS\("(gre0|tunl0|sit0)"\);'
	done | tr '\n' ' ' | sed 's/ $//'
}
for b in 6.1.y 6.12.y; do
	T_NAME=$b
	test_expect_success 'backported with the 3.9 variant onto the reversed 3.9 variant' '
		test "$(printf "%s" "$OUT" | jq -r --arg b $b '\''.[0].results[] | select(.branch == $b) | "\(.status) \(.variant) \(.pre_fix.reversed_variant)"'\'')" = "applied 3.9 3.9"
	'
	test_expect_success 'the pre-fix lane differs from the shipped tree in the fix'\''s files only' '
		test "$(git_k diff --name-only stable/$b $REF/$b.pre-fix | tr "\n" " " | sed "s/ $//")" = \
			"net/core/dev_ioctl.c net/ipv4/ip_gre.c net/ipv4/ipip.c net/ipv6/sit.c"
	'
	test_expect_success 'pre-fix dev_load: the single CAP_NET_ADMIN check and the bare name' '
		test_eq "$DEV_LOAD" "$(git_k show $REF/$b.pre-fix:net/core/dev_ioctl.c | sed -n "/^void dev_load/,/^}/p")"
	'
	test_expect_success 'pre-fix aliases are plain MODULE_ALIAS again' '
		test "$(aliases $b)" = '\''MODULE_ALIAS("gre0"); MODULE_ALIAS("tunl0"); MODULE_ALIAS("sit0");'\''
	'
	test_expect_success 'MODULE_ALIAS_NETDEV stays defined in the pre-fix lane' '
		test "$(git_k show $REF/$b.pre-fix:include/linux/netdevice.h | grep -c "^#define MODULE_ALIAS_NETDEV")" = 1
	'
	test_expect_success 'the backport lane is the tree Debian ships' '
		test "$(git_k rev-parse "$REF/$b^{tree}")" = "$(git_k rev-parse "stable/$b^{tree}")"
	'
done
T_NAME=

# The audit sees the bare name in the pre-fix lane only.
cat >> "$TMP/branches.yaml" <<YAML
  - {name: "6.1.y-pre-fix", ref: $REF/6.1.y.pre-fix}
YAML
run_kb 1 audit --config "$TMP/branches.yaml" --path net/core/ --json
test_expect_success 'audit: shipped 6.1 has netdev- on CAP_NET_ADMIN' '
	test "$(printf "%s" "$OUT" | jq -r '\''.branches[] | select(.branch == "6.1.y") | .calls[] | select(.function == "dev_load") | "\(.prefix) \(.cve_2011_1019_pattern)"'\'')" = "netdev- false"
'
test_expect_success 'audit: the pre-fix lane has the CVE-2011-1019 pattern' '
	test "$(printf "%s" "$OUT" | jq -r '\''.branches[] | select(.branch == "6.1.y-pre-fix") | .calls[] | select(.function == "dev_load") | "\(.prefix) \(.cve_2011_1019_pattern)"'\'')" = " true"
'
finish
