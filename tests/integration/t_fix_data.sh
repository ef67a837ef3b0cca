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
test_expect_success '2.6.31: CAP_SYS_MODULE then, nothing listed' '
	test -z "$(calls 2.6.31.y)"
'
test_expect_success '2.6.32: both tcp_cong callers flagged, the others listed only' '
	printf "%s\n" "drivers/staging/comedi/comedi_fops.c:43 comedi_open request_module char-major- function false
net/core/dev.c:40 dev_load request_module  if false
net/ipv4/tcp_cong.c:23 tcp_set_default_congestion_control request_module tcp_ if true
net/ipv4/tcp_cong.c:57 tcp_set_congestion_control request_module tcp_ if true" > want &&
	printf "%s\n" "$(calls 2.6.32.y)" > got &&
	test_cmp want got
'
test_expect_success '4.19: one caller' '
	printf "%s\n" "net/core/dev_ioctl.c:33 dev_load request_module  if false
net/ipv4/tcp_cong.c:21 tcp_ca_find_autoload request_module tcp_ if true" > want &&
	printf "%s\n" "$(calls 4.19.y)" > got &&
	test_cmp want got
'
test_expect_success 'the CVE-2011-1019 key is not there' '
	test "$(printf "%s" "$OUT" | jq -c '\''[.branches[].calls[].cve_2011_1019_pattern | select(. != null)] | first'\'')" = null
'

run_kb 1 audit --fix "$FIX" --branch 4.19.y --path net/ipv4/
test_expect_success 'text: the fix'\''s message under the call' '
	printf "%s\n" "4.19.y (linux-4.19.y 97a7c1a91c29)
  net/ipv4/tcp_cong.c:21                       tcp_ca_find_autoload                 \"tcp_%s\"             prefix CAP_NET_ADMIN (if) [CONFIG_MODULES]
                                               ^ a tcp_ name on CAP_NET_ADMIN: the KB-TEST-0001 pattern" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
run_kb 0 audit --fix "$FIX" --branch 2.6.31.y --path net/ipv4/
test_expect_success 'text: nothing on the capability' '
	printf "%s\n" "2.6.31.y (linux-2.6.31.y dd232314e7d9)
  no request_module() call guarded by CAP_NET_ADMIN" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'

# ---- apply: the fix's own variants and vulnerable code
run_kb 0 apply --fix "$FIX" --json
echo "$OUT" > first.json
field() { jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2" first.json; }
test_expect_success 'statuses and variants' '
	printf "%s\n" "2.6.31.y not-affected null
2.6.32.y applied 2.6
2.6.35.y applied 2.6
2.6.37.y applied 2.6
4.19.y applied 4.19
vendor-fixed applied 2.6
vendor-reworked applied 2.6" > want &&
	printf "%s\n" "$(jq -r '\''.[0].results[] | "\(.branch) \(.status) \(.variant)"'\'' first.json)" > got &&
	test_cmp want got
'
test_expect_success 'not-affected: why' '
	test "$(field 2.6.31.y .detail)" = "the vulnerable code is not in '\''linux-2.6.31.y'\''"
'
test_expect_success 'refs' '
	printf "%s\n" "$REF/2.6.32.y
$REF/2.6.35.y
$REF/2.6.37.y
$REF/4.19.y" > want &&
	printf "%s\n" "$(git -C repos/linux for-each-ref --format="%(refname)" "$REF/")" > got &&
	test_cmp want got
'
test_expect_success 'vendor refs' '
	printf "%s\n" "$REF/vendor-fixed
$REF/vendor-reworked" > want &&
	printf "%s\n" "$(git -C repos/vendor.git for-each-ref --format="%(refname)" "$REF/")" > got &&
	test_cmp want got
'

for era in 2.6.32 2.6.35 2.6.37 4.19; do
	T_NAME=$era.y
	ref=$REF/$era.y
	test_expect_success 'commit is the ref'\''s target' '
		test "$(field $era.y .commit)" = "$(git -C repos/linux rev-parse "$ref")"
	'
	test_expect_success 'parent is the branch tip' '
		test "$(git -C repos/linux rev-parse "$ref^")" = "$(git -C repos/linux rev-parse linux-$era.y)"
	'
	test_expect_success 'only tcp_cong.c changed' '
		test "$(git -C repos/linux diff --name-only linux-$era.y "$ref")" = net/ipv4/tcp_cong.c
	'
	sed 's/request_module("tcp_%s", name);/request_module("tcp-cong-%s", name);/' \
		"$FIXTURES/eras/$era/tree/net/ipv4/tcp_cong.c" > expected.c
	git -C repos/linux show "$ref:net/ipv4/tcp_cong.c" > actual.c
	test_expect_success 'tcp_cong.c: every caller asks for tcp-cong-' '
		test_cmp expected.c actual.c
	'
	test_expect_success 'author is the fix'\''s' '
		test "$(git -C repos/linux log -1 --format="%an <%ae> %at" "$ref")" = "Kay Backport <kay@example.org> 1262606400"
	'
done
T_NAME=
git -C repos/linux log -1 --format=%B "$REF/2.6.32.y" > msg
printf '%s\n' "tcp: request congestion control modules as tcp-cong-<name>" "" \
	"commit 0123456789abcdef0123456789abcdef01234567 upstream." "" \
	"A made-up fix for kbackport's tests: CAP_NET_ADMIN autoloads a" \
	"congestion control module by the name \"tcp_<name>\"; ask for an alias" \
	"with its own prefix instead." "[ 2.6: both callers of request_module() changed ]" "" > expected.msg
test_expect_success 'message: upstream'\''s, with the variant'\''s note' '
	test_cmp expected.msg msg
'
test_expect_success 'the user'\''s refs, HEAD, index and tree untouched' '
	test_eq "$before" "$(user_state repos/linux)"
'

run_kb 0 apply --fix "$FIX" --json
test_expect_success 'again: nothing created' '
	test "$(printf "%s" "$OUT" | jq -r '\''[.[0].results[] | select(.status == "applied") | .created] | join(" ")'\'')" = \
		"false false false false false false"
'

# ---- the backports, as branches: already-applied, and the audit is clean
{
	echo "repo: repos/linux"
	echo "branches:"
	for b in 2.6.32.y 4.19.y; do
		printf '  - name: %s\n    ref: backport/KB-TEST-0001/%s\n    build: false\n' "$b-bp" "$b"
	done
} > backported.yaml
run_kb 0 apply --config backported.yaml --fix "$FIX"
test_expect_success 'already-applied on its own backports' '
	printf "%s\n" "2.6.32.y-bp already-applied 2.6
4.19.y-bp already-applied 4.19" > want &&
	printf "%s\n" "$(printf "%s\n" "$OUT" | awk '\''NR > 1 && !NF {exit} NR > 1 && NF == 5 {print $1, $3, $4}'\'')" > got &&
	test_cmp want got
'
run_kb 0 audit --config backported.yaml --fix "$FIX" --path net/ipv4/ --json
test_expect_success 'audit of the backports: listed, none flagged' '
	printf "%s\n" "net/ipv4/tcp_cong.c:23 tcp_set_default_congestion_control request_module tcp-cong- if false
net/ipv4/tcp_cong.c:57 tcp_set_congestion_control request_module tcp-cong- if false
net/ipv4/tcp_cong.c:21 tcp_ca_find_autoload request_module tcp-cong- if false" > want &&
	printf "%s\n" "$(calls 2.6.32.y-bp; calls 4.19.y-bp)" > got &&
	test_cmp want got
'

# ---- which fix: one with audit: rules, said clearly otherwise
mkdir -p noaudit/KB-TEST-0001
cp -r "$FIX/." noaudit/KB-TEST-0001/
sed -i '/^audit:/,$d' noaudit/KB-TEST-0001/fix.yaml
run_kb 2 audit --fix noaudit/KB-TEST-0001
test_expect_success 'a fix without audit: rules' '
	test_eq "error: fix '\''KB-TEST-0001'\'' has no audit: section in '\''noaudit/KB-TEST-0001/fix.yaml'\'': nothing to audit" "$ERR"
'
run_kb 2 audit --fix noaudit
test_expect_success 'a directory of one fix: that fix named' '
	test_eq "error: fix '\''KB-TEST-0001'\'' has no audit: section in '\''noaudit/KB-TEST-0001/fix.yaml'\'': nothing to audit" "$ERR"
'
cp -r noaudit/KB-TEST-0001 noaudit/KB-TEST-0002
sed -i 's/^id: KB-TEST-0001$/id: KB-TEST-0002/' noaudit/KB-TEST-0002/fix.yaml
run_kb 2 audit --fix noaudit
test_expect_success 'a directory of fixes, none with rules' '
	test "$ERR" = "error: no fix under '\''noaudit'\'' has an audit: section: nothing to audit"
'
run_kb 2 audit --fix "$FIX" --fix "$TOP_DIR/backports/CVE-2011-1019"
test_expect_success 'two fixes with rules' '
	test_eq "error: several fixes have audit: rules (KB-TEST-0001, CVE-2011-1019): choose one with --fix" "$ERR"
'
run_kb 0 apply --fix noaudit/KB-TEST-0001 --branch 2.6.31.y
test_expect_success 'apply needs no audit: section' '
	[[ $OUT == *"not-affected"* ]]
'
finish
