#!/usr/bin/env bash
# kbackport report: the files written into a copy of the fixture run
# directory tests/fixtures/reports/run-main/ (against the golden files the
# unit tests check too), kcidb.json validated against the KCIDB v4.0 schema
# (tests/fixtures/reports/kcidb-v4.0.schema.json, with python3-jsonschema),
# summary.html rendered by headless Chromium and its DOM read back, and
# --merge of run directories made from the fixture, one branch each.
source "$(dirname "$0")/../lib.sh"
T_SUITE=report
hermetic
R=$FIXTURES/reports
G=$R/expected/run-main

# ---- the command ----
run_kb 0 report --help &&
	test_expect_success 'report --help' '
		printf "%s\n" "$OUT" &&
		[[ $OUT == *"usage: kbackport report [--reports DIR]"* ]]
	'
run_kb 2 report --no-such-option
run_kb 2 report --output "$TMP/x" "$R/run-main" &&
	test_expect_success 'report: --output wants --merge' '
		test "$ERR" = "error: --output is for --merge: a run'\''s reports go into its own directory"
	'
run_kb 2 report "$R/run-main" stray &&
	test_expect_success 'report: stray argument' '
		test "$ERR" = "error: unexpected argument '\''stray'\''"
	'
run_kb 2 report "$TMP/none" &&
	test_expect_success 'report: a missing run is named' '
		test "$ERR" = "error: cannot read '\''$TMP/none/results.json'\'': No such file or directory"
	'
mkdir -p "$TMP/bad" && printf '{"schema": 1,\n  "run": }\n' > "$TMP/bad/results.json"
run_kb 2 report "$TMP/bad" &&
	test_expect_success 'report: bad JSON is named with its line' '
		printf "%s\n" "$ERR" &&
		[[ $ERR == *"'\''$TMP/bad/results.json'\'': line 2, column "* ]]
	'
printf '{"schema": 1, "run": "r", "fix": "F", "branches": [{"name": "b", "verdict": "ok"}]}\n' \
	> "$TMP/bad/results.json"
run_kb 2 report "$TMP/bad" &&
	test_expect_success 'report: a wrong verdict is named' '
		printf "%s\n" "$ERR" &&
		[[ $ERR == *"branches[0]: '\''verdict'\'' is '\''ok'\'', not one of"* ]]
	'
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
d["branches"][0]["lanes"][0]["suites"]["kbackport_caps"]["pass"] = 2**63 - 1
json.dump(d, open(sys.argv[2], "w"))' "$R/run-main/results.json" "$TMP/bad/results.json"
run_kb 2 report "$TMP/bad" &&
	test_expect_success 'report: a count near INT64_MAX is refused' '
		printf "%s\n" "$ERR" &&
		[[ $ERR == *"branches[0].lanes[0].suites.kbackport_caps: '\''pass'\'' is 9223372036854775807, more than 1000000000 cases"* ]]
	'
# an untested branch (booted and passed, no case detects the fix) reads back
# as such: a run with one must never lose its reports
cp -r "$R/run-main" "$TMP/untested"
jq '.branches[0].verdict = "untested" | .branches[0].lanes[-1].verdict = "untested"' \
	"$R/run-main/results.json" > "$TMP/untested/results.json"
run_kb 1 report "$TMP/untested" &&	# 1: its conflict branch, as the fixture's
	test_expect_success 'report: an untested branch and lane read back' '
		test "$(grep -o untested "$TMP/untested/summary.md" | head -2 | paste -sd" ")" = "untested untested"
	'
cd "$TMP" || exit 1
run_kb 2 report &&
	test_expect_success 'report: no reports/latest' '
		printf "%s\n" "$ERR" &&
		[[ $ERR == *"cannot read '\''reports/latest/results.json'\''"* ]]
	'
cd "$TOP_DIR" || exit 1

# ---- a run's reports ----
cp -r "$R/run-main" "$TMP/run"
run_kb 1 report "$TMP/run" &&
	test_expect_success 'report: where it is, and the verdicts' '
		printf "%s\n" "report: $TMP/run/summary.html
wrote: summary.md summary.html kcidb.json FAILED-vendor-reworked.txt and 7 junit.xml
6.1.y            verified
vendor-reworked  conflict
debian-6.1       fixed
4.19.y           error" >"$TMP/want" &&
		printf "%s\n" "$OUT" >"$TMP/got" &&
		test_cmp "$TMP/want" "$TMP/got"
	'
for f in summary.md FAILED-vendor-reworked.txt $(cd "$G" && find . -name junit.xml | sort); do
	test_expect_success "report: $f as reviewed" '
		test_cmp "$G/$f" "$TMP/run/$f"
	'
done
test_expect_success 'report: no temporary file left' '
	test "$(find "$TMP/run" -name "*.tmp*")" = ""
'
test_expect_success "report: the page says how Debian's kernel was booted" '
	cat "$TMP/run/summary.html" &&
	[[ $(cat "$TMP/run/summary.html") == *"fixed</span> kbackport_caps 1/2 (1 skipped), booted as PVH vmlinux</td>"* ]]
'
test_expect_success 'report: the HTML names the branches that need attention' '
	cat "$TMP/run/summary.html" &&
	[[ $(cat "$TMP/run/summary.html") == *'\''<p class="result">2 of 4 branches need attention: <code>vendor-reworked</code> conflict, <code>4.19.y</code> error.</p>'\''* ]]
'
bad_xml=$(python3 - "$TMP/run" <<'PY'
import pathlib, sys, xml.etree.ElementTree as ET
for p in sorted(pathlib.Path(sys.argv[1]).rglob("junit.xml")):
    try:
        root = ET.parse(p).getroot()
        assert root.tag == "testsuites", f"{p}: root is {root.tag}"
    except Exception as e:
        print(f"{p}: {e}")
PY
)
test_expect_success 'report: every junit.xml is well-formed XML' '
	printf "%s\n" "$bad_xml" &&
	test "$bad_xml" = ""
'
(cd "$TMP/run" && find . -type f ! -name '*.log' -print0 | sort -z | xargs -0 sha1sum) > "$TMP/first"
run_kb 1 report "$TMP/run"
(cd "$TMP/run" && find . -type f ! -name '*.log' -print0 | sort -z | xargs -0 sha1sum) > "$TMP/second"
test_expect_success 'report: twice gives the same files' '
	test_cmp "$TMP/first" "$TMP/second"
'
run_kb 1 report --json "$TMP/run" &&
	test_expect_success 'report --json' '
		test "$(jq -r '\''"\(.exit) \(.written | length) \(.branches[3].name):\(.branches[3].verdict) \(.notes | length)"'\'' <<<"$OUT")" = \
			"1 11 4.19.y:error 0"
	'

# the default: <reports>/latest, a link to the run
mkdir -p "$TMP/reports" && cp -r "$R/run-main" "$TMP/reports/r1" && ln -s r1 "$TMP/reports/latest"
cd "$TMP" || exit 1
run_kb 1 report &&
	test_expect_success 'report: reports/latest by default' '
		printf "%s\n" "$OUT" &&
		[[ $OUT == *"report: $TMP/reports/r1/summary.html"* ]]
	'
cd "$TOP_DIR" || exit 1
run_kb 1 report --reports "$TMP/reports" &&
	test_expect_success 'report --reports DIR' '
		printf "%s\n" "$OUT" &&
		[[ $OUT == *"report: $TMP/reports/r1/summary.html"* ]]
	'

# a mail only while the branch conflicts
jq '(.branches[] | select(.name == "vendor-reworked") | .apply.status) = "error" |
    (.branches[] | select(.name == "vendor-reworked") | .verdict) = "error"' \
	"$TMP/reports/r1/results.json" > "$TMP/r1.json" && mv "$TMP/r1.json" "$TMP/reports/r1/results.json"
run_kb 1 report "$TMP/reports/r1"
test_expect_success 'report: an old FAILED mail goes' '
	test "$(ls "$TMP/reports/r1" | grep FAILED)" = ""
'

# ---- KCIDB ----
cat > "$TMP/kcidb_check.py" <<'PY'
"""kcidb_check.py SCHEMA DOC relative|absolute: what in DOC breaks SCHEMA (a
subset of KCIDB I/O v4.0), one line each; exit 1 if anything does. Formats
are checked here ("uri": with a scheme and a host when absolute, or a
relative reference; "date-time": RFC 3339), since jsonschema checks them
only with optional modules. Then the links: ids unique per list, every
build's checkout and every test's build present."""
import json, re, sys
from urllib.parse import urlsplit
import jsonschema

schema_path, doc_path, mode = sys.argv[1:]
schema = json.load(open(schema_path))
doc = json.load(open(doc_path))
checker = jsonschema.FormatChecker(formats=())

@checker.checks("uri")
def uri(s):
    u = urlsplit(s)
    if " " in s:
        return False
    return bool(u.scheme and u.netloc) if mode == "absolute" else (not u.scheme or bool(u.netloc))

@checker.checks("date-time")
def date_time(s):
    return re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", s) is not None

errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
          for e in jsonschema.Draft7Validator(schema, format_checker=checker).iter_errors(doc)]
ids = {}
for kind in ("checkouts", "builds", "tests"):
    ids[kind] = [o.get("id") for o in doc.get(kind, [])]
    if len(ids[kind]) != len(set(ids[kind])):
        errors.append(f"{kind}: the ids are not unique")
errors += [f"build {b.get('id')}: no checkout {b.get('checkout_id')}"
           for b in doc.get("builds", []) if b.get("checkout_id") not in ids["checkouts"]]
errors += [f"test {t.get('id')}: no build {t.get('build_id')}"
           for t in doc.get("tests", []) if t.get("build_id") not in ids["builds"]]
print("\n".join(sorted(errors)))
print(f"{len(ids['checkouts'])} checkouts, {len(ids['builds'])} builds, {len(ids['tests'])} tests",
      file=sys.stderr)
sys.exit(1 if errors else 0)
PY
py=
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import jsonschema' 2>/dev/null; then py=$p; break; fi
done
kcidb_check() {	# kcidb_check DESCRIPTION DOC MODE EXPECTED_STATUS
	local want=$4 status
	"$py" "$TMP/kcidb_check.py" "$R/kcidb-v4.0.schema.json" "$2" "$3" > "$TMP/kcidb.out" 2>"$TMP/kcidb.err"
	status=$?
	test_expect_success "$1 ($(tail -1 "$TMP/kcidb.err"))" '
		echo "exit $status" && cat "$TMP/kcidb.out" "$TMP/kcidb.err" &&
		test "$status" -eq "$want"
	'
}
if [ -z "$py" ]; then
	skip "no python3 with jsonschema (apt-get install python3-jsonschema): kcidb.json is not validated against the schema"
else
	kcidb_check "kcidb.json: valid KCIDB v4.0, log URLs relative" "$TMP/run/kcidb.json" relative 0
	kcidb_check "kcidb.json: relative URLs are not for submitting" "$TMP/run/kcidb.json" absolute 1
	test_expect_success 'kcidb.json: a relative URL is what fails' '
		cat "$TMP/kcidb.out" &&
		[[ $(cat "$TMP/kcidb.out") == *"builds/0/log_url: '\''6.1.y/as-is/build.log'\'' is not a '\''uri'\''"* ]]
	'
	cp -r "$R/run-main" "$TMP/published"
	run_kb 1 report --url https://ci.example.org/reports/20261203T074500Z-6f2a/ "$TMP/published"
	kcidb_check "kcidb.json --url: valid KCIDB v4.0, absolute URLs" "$TMP/published/kcidb.json" absolute 0
	test_expect_success 'kcidb.json --url: the log URL' '
		test "$(jq -r ".builds[1].log_url" "$TMP/published/kcidb.json")" = \
			"https://ci.example.org/reports/20261203T074500Z-6f2a/6.1.y/pre-fix/build.log"
	'
	jq '.tests[0].status = "BROKEN" | .checkouts[0].id = "no origin" | .builds[0].bogus = 1 |
	    .checkouts[1].git_commit_hash = null | .tests[1].build_id = "kbackport:none"' \
		"$TMP/run/kcidb.json" > "$TMP/broken.json"
	kcidb_check "kcidb check: a broken document fails" "$TMP/broken.json" relative 1
	cat > "$TMP/broken.want" <<'EOF'
build kbackport:20261203T074500Z-6f2a:6.1.y:as-is: no checkout kbackport:20261203T074500Z-6f2a:6.1.y:as-is
builds/0: Additional properties are not allowed ('bogus' was unexpected)
checkouts/0/id: 'no origin' does not match '^[a-z0-9_]+:.*$'
checkouts/1/git_commit_hash: None is not of type 'string'
test kbackport:20261203T074500Z-6f2a:6.1.y:as-is:kbackport_dev_load.sys_module_only_requests_bare_name: no build kbackport:none
tests/0/status: 'BROKEN' is not one of ['FAIL', 'ERROR', 'PASS', 'DONE', 'SKIP']
EOF
	test_expect_success 'kcidb check: what is broken' '
		printf "%s\n" "$(cat "$TMP/kcidb.out")" >"$TMP/got" &&
		test_cmp "$TMP/broken.want" "$TMP/got"
	'
fi

# ---- the page, in a browser ----
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ] && [ "$(id -u)" -eq 0 ]; then
	echo "# installing chromium to read summary.html"
	"$TOP_DIR/ci/install-deps.sh" chromium >/dev/null 2>&1
	browser=$(command -v chromium)
fi
chromium_dom() {	# chromium_dom FILE: the DOM Chromium builds from FILE
	local profile
	profile=$(mktemp -d "$TMP/chromium.XXXXXX")
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --dump-dom "file://$1" 2>>"$TMP/chromium.err"
}
cat > "$TMP/dom.py" <<'PY'
"""dom.py RUN_DIR < DOM: what the page shows, one fact a line: the matrix's
rows (branch, lane, and the class and text of each status), every link and
whether its target exists, and the CSS rules of the status classes."""
import html.parser, os, re, sys

run = sys.argv[1]

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.links, self.ids, self.style = [], [], set(), ""
        self.row = self.span = None
        self.in_matrix = self.in_style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table" and a.get("id") == "matrix":
            self.in_matrix = True
        elif tag == "tr" and self.in_matrix and "data-branch" in a:
            self.row = [a["data-branch"], a["data-lane"]]
            self.rows.append(self.row)
        elif tag == "span" and self.row is not None and "st" in a.get("class", "").split():
            self.span = [a["class"], ""]
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag == "style":
            self.in_style = True

    def handle_endtag(self, tag):
        if tag == "span" and self.span:
            self.row.append(f"{self.span[0]}={self.span[1]}")
            self.span = None
        elif tag == "tr":
            self.row = None
        elif tag == "table":
            self.in_matrix = False
        elif tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.span:
            self.span[1] += data
        if self.in_style:
            self.style += data

page = Page()
page.feed(sys.stdin.read())
for row in page.rows:
    print("row", " ".join(row))
for href in page.links:
    if href.startswith("#"):
        print("anchor", href, "ok" if href[1:] in page.ids else "missing")
    else:
        print("link", href, "ok" if os.path.isfile(os.path.join(run, href)) else "missing")
for rule in re.findall(r"([^{}]*)\{([^{}]*)\}", page.style):
    for sel in rule[0].split(","):
        if sel.strip().startswith(".st-"):
            print("css", sel.strip(), re.sub(r"\s+", "", rule[1]))
PY
if [ -z "$browser" ]; then
	skip "chromium is not installed and cannot be (apt-get install chromium): summary.html is not rendered"
else
	chromium_dom "$TMP/run/summary.html" > "$TMP/dom.html"
	python3 "$TMP/dom.py" "$TMP/run" < "$TMP/dom.html" > "$TMP/facts"
	test_expect_success 'html: the matrix as Chromium reads it' '
		printf "%s\n" "row 6.1.y as-is st st-verified=verified st st-already-applied=already-applied (3.9) st st-cached=cached st st-fixed=fixed
row 6.1.y pre-fix st st-pass=pass st st-vulnerable st-baseline=vulnerable (baseline)
row 6.1.y backport st st-pass=pass st st-fixed=fixed
row vendor-reworked as-is st st-conflict=conflict st st-conflict=conflict st st-skipped=skipped st st-skipped=skipped
row debian-6.1 as-is st st-fixed=fixed st st-none=- st st-skipped=skipped st st-fixed=fixed
row 4.19.y as-is st st-error=error st st-applied=applied (3.9) st st-fail=fail st st-error=error
row 4.19.y backport st st-pass=pass st st-error=error" >"$TMP/want" &&
		printf "%s\n" "$(grep "^row " "$TMP/facts")" >"$TMP/got" &&
		test_cmp "$TMP/want" "$TMP/got"
	'
	test_expect_success 'html: every link works' '
		test "$(grep -E "^(link|anchor) .* missing$" "$TMP/facts")" = ""
	'
	(cd "$TMP/run" && find . -type f ! -name 'junit.xml' ! -name 'results.json' ! -name 'summary.*' \
		! -name kcidb.json | sed 's|^\./||' | sort) > "$TMP/files"
	grep '^link ' "$TMP/facts" | cut -d' ' -f2 | sort -u > "$TMP/linked"
	test_expect_success 'html: every log file is linked' '
		test_cmp "$TMP/files" "$TMP/linked"
	'
	test_expect_success 'html: the anchors of the branches' '
		test "$(grep -c "^anchor #branch-.* ok$" "$TMP/facts")" = 4
	'
	test_expect_success 'html: the colours of the statuses' '
		printf "%s\n" "css .st-verified background:#d9f2d9;color:#17601f
css .st-fixed background:#d9f2d9;color:#17601f
css .st-vulnerable background:#fadada;color:#9b1111
css .st-conflict background:#fadada;color:#9b1111
css .st-regression background:#fadada;color:#9b1111
css .st-error background:#ffe4c4;color:#8a4b00
css .st-skipped background:#e6e6e6;color:#555
css .st-not-affected background:#e6e6e6;color:#555" >"$TMP/want" &&
		printf "%s\n" "$(grep -E "^css \.st-(verified|fixed|vulnerable|conflict|regression|error|skipped|not-affected) " "$TMP/facts")" >"$TMP/got" &&
		test_cmp "$TMP/want" "$TMP/got"
	'
	test_expect_success 'html: no script, no outside asset' '
		test "$(grep -oiE '\''<script|<link|src=|https?://[^" ]*\.(css|js)'\'' "$TMP/run/summary.html")" = ""
	'
	chromium_dom "$TMP/run/4.19.y/as-is/build.log" > "$TMP/log.html"
	test_expect_success 'html: a linked log opens in the browser' '
		cat "$TMP/log.html" &&
		[[ $(cat "$TMP/log.html") == *"make: *** [Makefile:1822: net] Error 2"* ]]
	'
fi

# ---- merge ----
mkrun() {	# mkrun DIR HOST FINISHED BRANCH...: a run of run-main's BRANCHes
	local dir=$1 host=$2 finished=$3
	shift 3
	mkdir -p "$dir"
	jq --arg run "$(basename "$dir")" --arg host "$host" --arg finished "$finished" \
	   --argjson keep "$(printf '%s\n' "$@" | jq -R . | jq -sc .)" \
	   '.run = $run | .host = $host | .finished = $finished |
	    .branches |= map(select(.name as $n | $keep | index($n)))' \
		"$R/run-main/results.json" > "$dir/results.json"
	for b; do cp -r "$R/run-main/$b" "$dir/"; done
}
mkrun "$TMP/job-a" ci-runner-1 2026-12-03T07:52:10Z 6.1.y
mkrun "$TMP/job-b" ci-runner-2 2026-12-03T07:55:00Z vendor-reworked
mkrun "$TMP/job-c" ci-runner-3 2026-12-03T07:50:00Z debian-6.1
mkdir -p "$TMP/m"
run_kb 1 report --reports "$TMP/m" --merge "$TMP/job-a" --merge "$TMP/job-b"
merged=$(ls "$TMP/m")
test_expect_success "merge: the new run's id" '
	test "$(sed "s/[0-9a-f]\{4\}$//" <<<"$merged")" = "20261203T075500Z-m"
'
M=$TMP/m/$merged
test_expect_success 'merge: both branches, one run' '
	test "$(jq -r '\''"\(.run) \(.branches | map(.name) | join(",")) \(.host) \(.finished)"'\'' "$M/results.json")" = \
		"$merged 6.1.y,vendor-reworked ci-runner-1, ci-runner-2 2026-12-03T07:55:00Z"
'
test_expect_success 'merge: where each branch came from' '
	test "$(jq -r '\''[.merged.from[] | "\(.run):\(.branches | join(","))"] | join(" ")'\'' "$M/results.json")" = \
		"job-a:6.1.y job-b:vendor-reworked"
'
for f in 6.1.y/as-is/build.log 6.1.y/pre-fix/kbackport_caps.ktap 6.1.y/backport/backport.patch \
	 vendor-reworked/as-is/conflict.txt; do
	test_expect_success "merge: $f copied" '
		test_cmp "$R/run-main/$f" "$M/$f"
	'
done
test_expect_success 'merge: the reports are written' '
	test "$(cd "$M" && ls -p | grep -v / | tr "\n" " " | sed "s/ $//")" = \
		"FAILED-vendor-reworked.txt kcidb.json results.json summary.html summary.md"
'
test_expect_success 'merge: the summary has both' '
	cat "$M/summary.md" &&
	[[ $(cat "$M/summary.md") == *"| \`vendor-reworked\` | **conflict** |"* ]]
'
test_expect_success 'merge: printed where it is' '
	printf "%s\n" "$OUT" &&
	[[ $OUT == *"report: $M/summary.html"* ]]
'
run_kb 2 report --reports "$TMP/m" --merge "$TMP/job-a" "$TMP/job-b" &&
	test_expect_success 'merge: the same merge again is refused' '
		test "$ERR" = "error: '\''$M'\'' already exists and is not empty"
	'
run_kb 1 report --output "$TMP/merged" --merge "$TMP/job-b" "$TMP/job-a" &&
	test_expect_success 'merge --output, in the order given' '
		test "$(jq -r '\''"\(.branches | map(.name) | join(",")) \(.run)"'\'' "$TMP/merged/results.json")" = \
			"vendor-reworked,6.1.y $merged"
	'
run_kb 0 report --output "$TMP/ok" --merge "$TMP/job-a" "$TMP/job-c" &&
	test_expect_success 'merge: exit 0 when every branch is fine' '
		test "$(jq -r '\''[.branches[] | "\(.name) \(.verdict)"] | join(", ")'\'' "$TMP/ok/results.json")" = \
			"6.1.y verified, debian-6.1 fixed"
	'

# a branch twice: the same result is kept once; else the run that finished last
mkrun "$TMP/job-a2" ci-runner-9 2026-12-03T08:00:00Z 6.1.y
run_kb 0 report --output "$TMP/same" --merge "$TMP/job-a" "$TMP/job-a2" &&
	test_expect_success 'merge: the same branch twice, kept once' '
		test "$(jq -r '\''"\(.branches | map(.name) | join(",")) \(.merged.notes | length)"'\'' "$TMP/same/results.json")" = \
			"6.1.y 0"
	'
mkrun "$TMP/job-a3" ci-runner-9 2026-12-03T08:00:00Z 6.1.y
jq '.branches[0].verdict = "regression"' "$TMP/job-a3/results.json" > "$TMP/a3" && mv "$TMP/a3" "$TMP/job-a3/results.json"
run_kb 1 report --output "$TMP/newer" --merge "$TMP/job-a3" "$TMP/job-a" &&
	test_expect_success 'merge: the newer run wins' '
		test "$(jq -r '\''[.branches[] | "\(.name) \(.verdict)"] | join(", ")'\'' "$TMP/newer/results.json")" = \
			"6.1.y regression"
	'
test_expect_success 'merge: a note says which was dropped' '
	test "$ERR" = "note: branch '\''6.1.y'\'': kept the run job-a3 (finished 2026-12-03T08:00:00Z), not job-a (finished 2026-12-03T07:52:10Z)"
'
jq '.finished = "2026-12-03T07:52:10Z"' "$TMP/job-a3/results.json" > "$TMP/a3" && mv "$TMP/a3" "$TMP/job-a3/results.json"
run_kb 2 report --output "$TMP/tie" --merge "$TMP/job-a" "$TMP/job-a3" &&
	test_expect_success 'merge: the same finish time cannot decide' '
		printf "%s\n" "$ERR" &&
		[[ $ERR == *"error: branch '\''6.1.y'\'' is in '\''$TMP/job-a'\'' and '\''$TMP/job-a3'\'' with different results"* ]]
	'
test_expect_success 'merge: nothing written when it fails' '
	test "$([ -e "$TMP/tie" ] && echo yes || echo no)" = no
'
jq '.fix = "CVE-2099-0001"' "$TMP/job-c/results.json" > "$TMP/c" && mv "$TMP/c" "$TMP/job-c/results.json"
run_kb 2 report --output "$TMP/fixes" --merge "$TMP/job-a" "$TMP/job-c" &&
	test_expect_success 'merge: runs of different fixes' '
		test "$ERR" = "error: '\''$TMP/job-a'\'' is a run of CVE-2011-1019 and '\''$TMP/job-c'\'' of CVE-2099-0001: only runs of one fix merge"
	'
run_kb 2 report --output "$TMP/x" --merge "$TMP/job-a" "$TMP/none" &&
	test_expect_success 'merge: a missing run is named' '
		test "$ERR" = "error: cannot read '\''$TMP/none/results.json'\'': No such file or directory"
	'
# ---- symbolic links: never followed out of a run directory ----
# kbackport puts no link into a run directory; one found there is an error
# naming it (exit 2), for reading and for writing, and nothing is written.
mkdir -p "$TMP/outside"
echo "not the run's" > "$TMP/outside/secret"
outside_state() { (cd "$TMP/outside" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ | awk '{print $1, $5, $NF}'); }
links_refused() {	# links_refused DESCRIPTION LINK ARGS...: exit 2 naming LINK, nothing written
	local what=$1 link=$2 before
	shift 2
	before=$(outside_state)
	run_kb 2 "$@" &&
		test_expect_success "links: $what: refused, naming the link" '
			test "$ERR" = "error: '\''$link'\'' is a symbolic link: kbackport does not follow links in a run directory"
		'
	test_expect_success "links: $what: nothing written outside" '
		test_eq "$before" "$(outside_state)"
	'
}
cp -r "$R/run-main" "$TMP/l1" && mv "$TMP/l1/6.1.y/as-is" "$TMP/outside/as-is" &&
	ln -s "$TMP/outside/as-is" "$TMP/l1/6.1.y/as-is"
links_refused "a lane directory" "$TMP/l1/6.1.y/as-is" report "$TMP/l1"
test_expect_success "links: no junit.xml beside the lane's target" '
	test "$([ -e "$TMP/outside/as-is/junit.xml" ] && echo yes || echo no)" = no
'
test_expect_success 'links: no report written in the run' '
	test "$(cd "$TMP/l1" && ls summary.* kcidb.json 2>/dev/null)" = ""
'
cp -r "$R/run-main" "$TMP/l2" && mv "$TMP/l2/4.19.y" "$TMP/outside/4.19.y" && ln -s "$TMP/outside/4.19.y" "$TMP/l2/4.19.y"
links_refused "a branch directory" "$TMP/l2/4.19.y" report "$TMP/l2"
cp -r "$R/run-main" "$TMP/l3" && ln -s "$TMP/outside/secret" "$TMP/l3/6.1.y/pre-fix/console.log.qemu"
links_refused "a file in a lane" "$TMP/l3/6.1.y/pre-fix/console.log.qemu" report "$TMP/l3"
cp -r "$R/run-main" "$TMP/l4" && mv "$TMP/l4/results.json" "$TMP/outside/results.json" &&
	ln -s "$TMP/outside/results.json" "$TMP/l4/results.json"
links_refused "results.json" "$TMP/l4/results.json" report "$TMP/l4"
cp -r "$R/run-main" "$TMP/l5" && ln -s "$TMP/outside/secret" "$TMP/l5/summary.md"
links_refused "an output file" "$TMP/l5/summary.md" report "$TMP/l5"
test_expect_success 'links: the output link is left as it was' '
	test "$(readlink "$TMP/l5/summary.md")" = "$TMP/outside/secret"
'
# --merge: nothing copied from outside, nothing linked from summary.html
mkrun "$TMP/job-l1" ci-runner-1 2026-12-03T07:52:10Z 6.1.y
rm -r "$TMP/job-l1/6.1.y/backport" && ln -s "$TMP/outside/as-is" "$TMP/job-l1/6.1.y/backport"
links_refused "merge: a lane directory" "$TMP/job-l1/6.1.y/backport" \
	report --output "$TMP/ml1" --merge "$TMP/job-l1" "$TMP/job-b"
test_expect_success 'links: merge: no merged run' '
	test "$([ -e "$TMP/ml1" ] && echo yes || echo no)" = no
'
mkrun "$TMP/job-l2" ci-runner-1 2026-12-03T07:52:10Z 6.1.y
ln -s /etc/hostname "$TMP/job-l2/6.1.y/hostname"
links_refused "merge: a file beside the lanes" "$TMP/job-l2/6.1.y/hostname" \
	report --output "$TMP/ml2" --merge "$TMP/job-l2" "$TMP/job-b"
test_expect_success 'links: merge: nothing copied' '
	test "$([ -e "$TMP/ml2" ] && echo yes || echo no)" = no
'
mkrun "$TMP/job-l3" ci-runner-1 2026-12-03T07:52:10Z 6.1.y
mkdir "$TMP/job-l3/6.1.y/as-is/sub" && ln -s /etc/hostname "$TMP/job-l3/6.1.y/as-is/sub/h"
links_refused "merge: a link deeper in a lane" "$TMP/job-l3/6.1.y/as-is/sub/h" \
	report --output "$TMP/ml3" --merge "$TMP/job-l3" "$TMP/job-b"
test_expect_success 'links: merge: no merged run left' '
	test "$([ -e "$TMP/ml3" ] && echo yes || echo no)" = no
'
finish
