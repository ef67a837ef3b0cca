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
assert_eq "2.6.31: nothing on CAP_NET_ADMIN" "" "$(calls 2.6.31.y)"
assert_eq "2.6.32: bare dev_load, tcp_cong twice, comedi" "$COMEDI
net/core/dev.c:40 dev_load %s  CAP_NET_ADMIN if null true
$TCP" "$(calls 2.6.32.y)"
assert_eq "2.6.37: same callers, RCU era" "$COMEDI
net/core/dev.c:41 dev_load %s  CAP_NET_ADMIN if null true
$TCP" "$(calls 2.6.37.y)"
assert_eq "4.19: dev_load in dev_ioctl.c, one tcp_cong caller" "net/core/dev_ioctl.c:33 dev_load %s  CAP_NET_ADMIN if null true
net/ipv4/tcp_cong.c:21 tcp_ca_find_autoload tcp_%s tcp_ CAP_NET_ADMIN if CONFIG_MODULES false" "$(calls 4.19.y)"
assert_eq "fixed vendor tree: netdev- prefix on CAP_NET_ADMIN only" "$COMEDI
net/core/dev.c:42 dev_load netdev-%s netdev- CAP_NET_ADMIN if null false
$TCP" "$(calls vendor-fixed)"

run_kb 0 audit --branch vendor-fixed --all --json
assert_eq "--all adds the CAP_SYS_MODULE call" "net/core/dev.c:44 dev_load %s  CAP_SYS_MODULE if null false" \
	"$(calls vendor-fixed | grep SYS_MODULE)"
run_kb 0 audit --branch 2.6.31.y --path net/core/ --all --json
assert_eq "--path limits the scan" "net/core/dev.c:40 dev_load %s  CAP_SYS_MODULE if null false" "$(calls 2.6.31.y)"

run_kb 1 audit --branch 2.6.32.y
assert_contains "text: the call" "net/core/dev.c:40" "$OUT"
assert_contains "text: the verdict" "a bare name on CAP_NET_ADMIN: the CVE-2011-1019 pattern" "$OUT"
assert_eq "audit writes nothing" "$state" "$(user_state repos/linux)"
finish
