#!/usr/bin/env bash
# End to end: `kbackport run` on Debian's 6.1.y and 6.12.y (pre-fix lanes)
# and Debian's own kernel, with the lanes t_kernels_build.sh built: the
# report says both branches verified and the Debian kernel fixed, in
# results.json and on the HTML page as headless Chromium renders it. A
# second run redoes nothing (builds cached, boots read again) and keeps the
# first report.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-run
hermetic
e2e_need stable/6.12.y "the imported repository '$REPO' is missing: run t_kernels.sh first"
cat > "$TMP/branches.yaml" <<YAML
repo: $REPO
branches:
  - {name: "6.1.y", ref: stable/6.1.y, pre-fix: true}
  - {name: "6.12.y", ref: stable/6.12.y, pre-fix: true}
  - {name: debian, kernel: linux-image-amd64}
YAML
kbrun() {
	"$KBACKPORT" run --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
		--workdir "$WORK" --reports "$TMP/reports" "$@" > "$TMP/run.out" 2> "$TMP/run.err"
}
R=$TMP/reports/latest/results.json
q() { jq -r "$1" "$R"; }

kbrun
rc=$?
test_expect_success 'run exits 0' '
	test "$rc" = 0
'
[ $rc -eq 0 ] || tail -30 "$TMP/run.err"
test_expect_success 'verdicts: 6.1.y and 6.12.y verified, Debian'\''s kernel fixed' '
	test "$(q '\''[.branches[] | "\(.name) \(.verdict)"] | join("|")'\'')" = "6.1.y verified|6.12.y verified|debian fixed"
'
test_expect_success 'lanes' '
	test "$(q '\''[.branches[].lanes[] | "\(.kind) \(.verdict)"] | join("|")'\'')" = \
		"as-is fixed|pre-fix vulnerable|backport fixed|as-is fixed|pre-fix vulnerable|backport fixed|as-is fixed"
'
test_expect_success 'pre-fix lane: reverse-applied, backport lane: applied, variant 3.9' '
	test "$(q '\''[.branches[0].lanes[1:][] | "\(.apply.status) \(.apply.variant)"] | join("|")'\'')" = "reverse-applied 3.9|applied 3.9"
'
test_expect_success 'suites of the 6.12.y pre-fix lane' '
	test "$(q '\''.branches[1].lanes[1].suites | "\(.kbackport_dev_load.pass) \(.kbackport_dev_load.fail) \(.kbackport_caps.pass) \(.kbackport_caps.fail)"'\'')" = "3 3 5 1"
'
for f in 6.1.y/pre-fix/pre-fix.patch 6.1.y/backport/backport.patch 6.1.y/pre-fix/console.log 6.1.y/pre-fix/kbackport_dev_load.ktap \
	 6.12.y/backport/build.log 6.12.y/backport/junit.xml debian/as-is/kbackport_caps.ktap kcidb.json; do
	test_expect_success "$f kept" '
		test -s "$TMP/reports/latest/$f"
	'
done
test_expect_success 'prints where the report is' '
	[[ $(cat "$TMP/run.out") == *"report: $TMP/reports/"* ]]
'
test_expect_success 'progress names the stages' '
	[[ $(cat "$TMP/run.err") == *"6.12.y pre-fix: test: vulnerable"* ]]
'

# The page as a browser shows it.
browser=$(command -v chromium || true)
if [ -z "$browser" ] && [ "$(id -u)" -eq 0 ]; then
	"$TOP_DIR/ci/install-deps.sh" chromium >/dev/null 2>&1
	browser=$(command -v chromium || true)
fi
if [ -n "$browser" ]; then
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/chromium" --dump-dom "file://$TMP/reports/latest/summary.html" \
		> "$TMP/dom.html" 2>/dev/null
	python3 - "$TMP/dom.html" > "$TMP/rows.txt" <<'PY'
import sys
from html.parser import HTMLParser

class Rows(HTMLParser):
    """Each matrix row that starts a branch: its name and verdict word."""
    def __init__(self):
        super().__init__()
        self.rows, self.row, self.span = [], None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-branch" in a:
            self.row = [a["data-branch"], a.get("data-lane")]
        elif tag == "span" and self.row is not None and "st" in a.get("class", "").split():
            self.span = a["class"]
    def handle_data(self, data):
        if self.span and self.row is not None:
            self.row.append(f"{data.strip()}[{self.span}]")
            self.span = None
    def handle_endtag(self, tag):
        if tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None

p = Rows()
p.feed(open(sys.argv[1]).read())
for r in p.rows:
    print(" ".join(r[:3]))
PY
	test_expect_success 'the page: both branches verified (green), Debian'\''s kernel fixed' '
		printf "%s\n" "6.1.y as-is verified[st st-verified]
6.12.y as-is verified[st st-verified]
debian as-is fixed[st st-fixed]" > "$TMP/rows.want" &&
		printf "%s\n" "$(grep " as-is " "$TMP/rows.txt")" > "$TMP/rows.got" &&
		test_cmp "$TMP/rows.want" "$TMP/rows.got"
	'
else
	fail "chromium is not installed and cannot be: the page was not read"
fi

T_NAME=again
first=$(readlink "$TMP/reports/latest")
sleep 1
kbrun
rc=$?
test_expect_success 'exits 0 again' '
	test "$rc" = 0
'
test_expect_success 'builds cached, boots read again' '
	test "$(q '\''[.branches[].lanes[] | "\(.build) \(.test_reused)"] | join("|")'\'')" = \
		"cached true|cached true|cached true|cached true|cached true|cached true|skipped true"
'
test_expect_success 'same verdicts' '
	test "$(q '\''[.branches[].verdict] | join(" ")'\'')" = "verified verified fixed"
'
test_expect_success 'the first report kept' '
	[ -f "$TMP/reports/$first/results.json" ] && [ "$(readlink "$TMP/reports/latest")" != "$first" ]
'
finish
