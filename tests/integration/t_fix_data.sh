#!/usr/bin/env bash
# A fix is data: a second, made-up fix (tests/fixtures/eras/fixes/KB-TEST-0001,
# its own variants and audit: rules) runs through audit and apply on the era
# fixtures with no change to kbackport's code. Exact statuses, contents, refs.
source "$(dirname "$0")/../lib.sh"
T_SUITE=fix_data
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
cd "$TMP"
FIX=$FIXTURES/eras/fixes/KB-TEST-0001
REF=refs/heads/backport/KB-TEST-0001
before=$(user_state repos/linux)

# ---- audit: the fix's rules (a "tcp_" name directly under CAP_NET_ADMIN)
calls() { printf '%s' "$OUT" | jq -r --arg b "$1" '.branches[] | select(.branch == $b) | .calls[] | "\(.path):\(.line) \(.function) \(.callee) \(.prefix) \(.guard) \(.kb_test_0001_pattern)"'; }
run_kb 1 audit --fix "$FIX" --json
assert_eq "2.6.31: CAP_SYS_MODULE then, nothing listed" "" "$(calls 2.6.31.y)"
assert_eq "2.6.32: both tcp_cong callers flagged, the others listed only" \
"drivers/staging/comedi/comedi_fops.c:43 comedi_open request_module char-major- function false
net/core/dev.c:40 dev_load request_module  if false
net/ipv4/tcp_cong.c:23 tcp_set_default_congestion_control request_module tcp_ if true
net/ipv4/tcp_cong.c:57 tcp_set_congestion_control request_module tcp_ if true" "$(calls 2.6.32.y)"
assert_eq "4.19: one caller" "net/core/dev_ioctl.c:33 dev_load request_module  if false
net/ipv4/tcp_cong.c:21 tcp_ca_find_autoload request_module tcp_ if true" "$(calls 4.19.y)"
assert_eq "the CVE-2011-1019 key is not there" "null" \
	"$(printf '%s' "$OUT" | jq -c '[.branches[].calls[].cve_2011_1019_pattern | select(. != null)] | first')"

run_kb 1 audit --fix "$FIX" --branch 4.19.y --path net/ipv4/
assert_eq "text: the fix's message under the call" \
"4.19.y (linux-4.19.y 97a7c1a91c29)
  net/ipv4/tcp_cong.c:21                       tcp_ca_find_autoload                 \"tcp_%s\"             prefix CAP_NET_ADMIN (if) [CONFIG_MODULES]
                                               ^ a tcp_ name on CAP_NET_ADMIN: the KB-TEST-0001 pattern" "$OUT"
run_kb 0 audit --fix "$FIX" --branch 2.6.31.y --path net/ipv4/
assert_eq "text: nothing on the capability" "2.6.31.y (linux-2.6.31.y dd232314e7d9)
  no request_module() call guarded by CAP_NET_ADMIN" "$OUT"

# ---- apply: the fix's own variants and vulnerable code
run_kb 0 apply --fix "$FIX" --json
echo "$OUT" > first.json
field() { jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2" first.json; }
assert_eq "statuses and variants" \
"2.6.31.y not-affected null
2.6.32.y applied 2.6
2.6.35.y applied 2.6
2.6.37.y applied 2.6
4.19.y applied 4.19
vendor-fixed applied 2.6
vendor-reworked applied 2.6" "$(jq -r '.[0].results[] | "\(.branch) \(.status) \(.variant)"' first.json)"
assert_eq "not-affected: why" "the vulnerable code is not in 'linux-2.6.31.y'" "$(field 2.6.31.y .detail)"
assert_eq "refs" "$REF/2.6.32.y
$REF/2.6.35.y
$REF/2.6.37.y
$REF/4.19.y" "$(git -C repos/linux for-each-ref --format='%(refname)' "$REF/")"
assert_eq "vendor refs" "$REF/vendor-fixed
$REF/vendor-reworked" "$(git -C repos/vendor.git for-each-ref --format='%(refname)' "$REF/")"

for era in 2.6.32 2.6.35 2.6.37 4.19; do
	T_NAME=$era.y
	ref=$REF/$era.y
	assert_eq "commit is the ref's target" "$(git -C repos/linux rev-parse "$ref")" "$(field $era.y .commit)"
	assert_eq "parent is the branch tip" "$(git -C repos/linux rev-parse linux-$era.y)" \
		"$(git -C repos/linux rev-parse "$ref^")"
	assert_eq "only tcp_cong.c changed" "net/ipv4/tcp_cong.c" \
		"$(git -C repos/linux diff --name-only linux-$era.y "$ref")"
	sed 's/request_module("tcp_%s", name);/request_module("tcp-cong-%s", name);/' \
		"$FIXTURES/eras/$era/tree/net/ipv4/tcp_cong.c" > expected.c
	git -C repos/linux show "$ref:net/ipv4/tcp_cong.c" > actual.c
	assert_file_eq "tcp_cong.c: every caller asks for tcp-cong-" expected.c actual.c
	assert_eq "author is the fix's" "Kay Backport <kay@example.org> 1262606400" \
		"$(git -C repos/linux log -1 --format='%an <%ae> %at' "$ref")"
done
T_NAME=
git -C repos/linux log -1 --format=%B "$REF/2.6.32.y" > msg
printf '%s\n' "tcp: request congestion control modules as tcp-cong-<name>" "" \
	"commit 0123456789abcdef0123456789abcdef01234567 upstream." "" \
	"A made-up fix for kbackport's tests: CAP_NET_ADMIN autoloads a" \
	"congestion control module by the name \"tcp_<name>\"; ask for an alias" \
	"with its own prefix instead." "[ 2.6: both callers of request_module() changed ]" "" > expected.msg
assert_file_eq "message: upstream's, with the variant's note" expected.msg msg
assert_eq "the user's refs, HEAD, index and tree untouched" "$before" "$(user_state repos/linux)"

run_kb 0 apply --fix "$FIX" --json
assert_eq "again: nothing created" "false false false false false false" \
	"$(printf '%s' "$OUT" | jq -r '[.[0].results[] | select(.status == "applied") | .created] | join(" ")')"

# ---- the backports, as branches: already-applied, and the audit is clean
{
	echo "repo: repos/linux"
	echo "branches:"
	for b in 2.6.32.y 4.19.y; do
		printf '  - name: %s\n    ref: backport/KB-TEST-0001/%s\n    build: false\n' "$b-bp" "$b"
	done
} > backported.yaml
run_kb 0 apply --config backported.yaml --fix "$FIX"
assert_eq "already-applied on its own backports" \
"2.6.32.y-bp already-applied 2.6
4.19.y-bp already-applied 4.19" "$(printf '%s\n' "$OUT" | awk 'NR > 1 && !NF {exit} NR > 1 && NF == 5 {print $1, $3, $4}')"
run_kb 0 audit --config backported.yaml --fix "$FIX" --path net/ipv4/ --json
assert_eq "audit of the backports: listed, none flagged" \
"net/ipv4/tcp_cong.c:23 tcp_set_default_congestion_control request_module tcp-cong- if false
net/ipv4/tcp_cong.c:57 tcp_set_congestion_control request_module tcp-cong- if false
net/ipv4/tcp_cong.c:21 tcp_ca_find_autoload request_module tcp-cong- if false" \
	"$(calls 2.6.32.y-bp; calls 4.19.y-bp)"

# ---- which fix: one with audit: rules, said clearly otherwise
mkdir -p noaudit/KB-TEST-0001
cp -r "$FIX/." noaudit/KB-TEST-0001/
sed -i '/^audit:/,$d' noaudit/KB-TEST-0001/fix.yaml
run_kb 2 audit --fix noaudit/KB-TEST-0001
assert_eq "a fix without audit: rules" "error: fix 'KB-TEST-0001' has no audit: section in 'noaudit/KB-TEST-0001/fix.yaml': nothing to audit" "$ERR"
run_kb 2 audit --fix noaudit
assert_eq "a directory of one fix: that fix named" "error: fix 'KB-TEST-0001' has no audit: section in 'noaudit/KB-TEST-0001/fix.yaml': nothing to audit" "$ERR"
cp -r noaudit/KB-TEST-0001 noaudit/KB-TEST-0002
sed -i 's/^id: KB-TEST-0001$/id: KB-TEST-0002/' noaudit/KB-TEST-0002/fix.yaml
run_kb 2 audit --fix noaudit
assert_eq "a directory of fixes, none with rules" "error: no fix under 'noaudit' has an audit: section: nothing to audit" "$ERR"
run_kb 2 audit --fix "$FIX" --fix "$TOP_DIR/backports/CVE-2011-1019"
assert_eq "two fixes with rules" "error: several fixes have audit: rules (KB-TEST-0001, CVE-2011-1019): choose one with --fix" "$ERR"
run_kb 0 apply --fix noaudit/KB-TEST-0001 --branch 2.6.31.y
assert_contains "apply needs no audit: section" "not-affected" "$OUT"
finish
