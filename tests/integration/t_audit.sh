#!/usr/bin/env bash
# kbackport audit: request_module() calls guarded by CAP_NET_ADMIN per era,
# with the format's prefix, read from blobs (no checkout).
source "$(dirname "$0")/../lib.sh"
T_SUITE=audit
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
cd "$TMP"
state=$(user_state repos/linux)

run_kb 1 audit --json
calls() { printf '%s' "$OUT" | jq -r --arg b "$1" '.branches[] | select(.branch == $b) | .calls[] | "\(.path):\(.line) \(.function) \(.format) \(.prefix) \(.caps | join(",")) \(.guard) \(.conditional) \(.cve_2011_1019_pattern)"'; }
TCP="net/ipv4/tcp_cong.c:23 tcp_set_default_congestion_control tcp_%s tcp_ CAP_NET_ADMIN if CONFIG_MODULES false
net/ipv4/tcp_cong.c:57 tcp_set_congestion_control tcp_%s tcp_ CAP_NET_ADMIN if CONFIG_MODULES false"
COMEDI="drivers/staging/comedi/comedi_fops.c:43 comedi_open char-major-%i-%i char-major- CAP_NET_ADMIN function CONFIG_KMOD false"
test_expect_success '2.6.31: nothing on CAP_NET_ADMIN' '
	test -z "$(calls 2.6.31.y)"
'
test_expect_success '2.6.32: bare dev_load, tcp_cong twice, comedi' '
	printf "%s\n" "$COMEDI
net/core/dev.c:40 dev_load %s  CAP_NET_ADMIN if null true
$TCP" >want &&
	printf "%s\n" "$(calls 2.6.32.y)" >got &&
	test_cmp want got
'
test_expect_success '2.6.37: same callers, RCU era' '
	printf "%s\n" "$COMEDI
net/core/dev.c:41 dev_load %s  CAP_NET_ADMIN if null true
$TCP" >want &&
	printf "%s\n" "$(calls 2.6.37.y)" >got &&
	test_cmp want got
'
test_expect_success '4.19: dev_load in dev_ioctl.c, one tcp_cong caller' '
	printf "%s\n" "net/core/dev_ioctl.c:33 dev_load %s  CAP_NET_ADMIN if null true
net/ipv4/tcp_cong.c:21 tcp_ca_find_autoload tcp_%s tcp_ CAP_NET_ADMIN if CONFIG_MODULES false" >want &&
	printf "%s\n" "$(calls 4.19.y)" >got &&
	test_cmp want got
'
test_expect_success 'fixed vendor tree: netdev- prefix on CAP_NET_ADMIN only' '
	printf "%s\n" "$COMEDI
net/core/dev.c:42 dev_load netdev-%s netdev- CAP_NET_ADMIN if null false
$TCP" >want &&
	printf "%s\n" "$(calls vendor-fixed)" >got &&
	test_cmp want got
'

run_kb 0 audit --branch vendor-fixed --all --json
test_expect_success '--all adds the CAP_SYS_MODULE call' '
	test_eq "net/core/dev.c:44 dev_load %s  CAP_SYS_MODULE if null false" "$(calls vendor-fixed | grep SYS_MODULE)"
'
run_kb 0 audit --branch 2.6.31.y --path net/core/ --all --json
test_expect_success '--path limits the scan' '
	test_eq "net/core/dev.c:40 dev_load %s  CAP_SYS_MODULE if null false" "$(calls 2.6.31.y)"
'

run_kb 1 audit --branch 2.6.32.y
test_expect_success 'text: the call' '
	[[ $OUT == *"net/core/dev.c:40"* ]]
'
test_expect_success 'text: the verdict' '
	[[ $OUT == *"a bare name on CAP_NET_ADMIN: the CVE-2011-1019 pattern"* ]]
'
test_expect_success 'audit writes nothing' '
	test_eq "$state" "$(user_state repos/linux)"
'
finish
