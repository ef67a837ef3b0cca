#!/usr/bin/env bash
# kbackport ktap: what the KTAP parser reads in console logs, against golden
# outputs (tests/fixtures/ktap/NAME.expected, reviewed by eye), and against
# the kernel's own parser: `kunit.py parse --json` from the kunit tools in
# Debian's kernel source tarballs (/usr/src/linux-source-*.tar.xz; set
# KB_LINUX_SOURCES to a list of tarballs to use others). Each tarball's
# kunit.py reads every fixture log and its own test_data logs.
#
# kunit.py reads only the first KTAP document of a log, so each document is
# fed to it alone, and so is each suite as `kbackport ktap --document`
# emits it. Both parsers' suites, cases, parameters and statuses must match
# row for row, except for the disagreements recorded in NAME.kunit-diff
# ("-" rows kunit.py's, "+" rows kbackport's), each explained there, and in
# kunit_diff() below for the kernel's own test logs.
source "$(dirname "$0")/../lib.sh"
T_SUITE=ktap
hermetic
K=$FIXTURES/ktap

# ---- the command ----
test_expect_success 'ktap --help' '
	run_kb 0 ktap --help &&
	[[ $OUT == *"usage: kbackport ktap [--json] FILE"* ]]
'
test_expect_success 'ktap: a log is needed' '
	run_kb 2 ktap &&
	test "$(head -1 <<<"$ERR")" = "error: no log file given"
'
run_kb 2 ktap --no-such-option
test_expect_success 'ktap: stray argument' '
	run_kb 2 ktap "$K/pass.log" stray &&
	test "$ERR" = "error: unexpected argument '\''stray'\''"
'
test_expect_success 'ktap: missing log named' '
	run_kb 2 ktap "$TMP/missing.log" &&
	[[ $ERR == *"missing.log"* ]]
'
test_expect_success 'ktap --document: unknown suite' '
	run_kb 2 ktap --document nope "$K/pass.log" &&
	test "$ERR" = "error: no KTAP suite '\''nope'\'' in the log"
'
run_kb 1 ktap "$K/no-ktap.log" && test_expect_success 'ktap: no KTAP is exit 1' '
	test "$ERR" = "error: no KTAP in '\''$K/no-ktap.log'\''"
'
test_expect_success 'ktap: no KTAP, no output' '
	printf "%s\n" "" > "$TMP/want" && printf "%s\n" "$OUT" > "$TMP/got" &&
	test_cmp "$TMP/want" "$TMP/got"
'
test_expect_success 'ktap: standard input' '
	test_eq "$("$KBACKPORT" ktap "$K/fail.log")" "$("$KBACKPORT" ktap - < "$K/fail.log")"
'

# ---- golden outputs ----
declare -A status=([pass]=0 [fail]=0 [skip]=0 [params]=0 [tap14]=0 [interleaved]=0 [prefix]=0
		   [panic]=1 [garbled]=1 [plan-mismatch]=1 [numbering]=1 [no-plan]=1 [no-ktap]=1)
for name in "${!status[@]}"; do
	run_kb "${status[$name]}" ktap "$K/$name.log" || continue
	printf '%s\n' "$OUT" | sed '${/^$/d}' > "$TMP/out.txt"
	expected=$K/$name.expected	# (a body's $name is test_expect_success's own)
	test_expect_success "ktap $name.log: as reviewed, exit ${status[$name]}" 'test_cmp "$expected" "$TMP/out.txt"'
done
run_kb 0 ktap --json "$K/fail.log" && printf '%s\n' "$OUT" > "$TMP/out.json"
test_expect_success 'ktap --json fail.log: as reviewed' 'test_cmp "$K/fail.expected.json" "$TMP/out.json"'
test_expect_success 'ktap --document: an error suite is exit 1' '
	run_kb 1 ktap --document kbackport_dev_load "$K/panic.log" &&
	test "$(sed -n 8p <<<"$OUT")" = "    ok 3 both_request_netdev_then_bare"
'
for log in "$K"/*.log; do	# real boots (others' fixtures), checked against kunit.py below
	[ -n "${status[$(basename "$log" .log)]:-}" ] && continue
	"$KBACKPORT" ktap --json "$log" > "$TMP/real.json" 2>"$TMP/err"
	read_rc=$?	# kbackport's: 0, or 1 for a log with a failing or broken suite
	read_as=$(jq -r '[.suites[] | "\(.name) \(.status)"] | join(", ")' "$TMP/real.json")
	test_expect_success "ktap $(basename "$log"): read: $read_as" '
		[ $read_rc -le 1 ] && jq -e .suites "$TMP/real.json" >/dev/null
	'
done

# ---- the kernel's parser ----
cat > "$TMP/crosscheck.py" <<'PY'
"""crosscheck.py KUNIT_DIR KBACKPORT WORKDIR ANSWERS OUTDIR LOG...: for the
Nth LOG (from 1), where kunit.py and kbackport disagree on it, in OUTDIR/N.diff,
as "doc N:" and "suite NAME:" sections of "-row" (kunit.py only) and "+row"
(kbackport only) lines, empty when they agree; OUTDIR/N.stats says how much
was compared ("2 documents, 14 rows"), or why the comparison failed. A row is
"SUITE STATUS", "SUITE CASE STATUS" or "SUITE CASE PARAM STATUS",
tab-separated. One Python process reads every log: starting one per log was
most of the suite's time.

kunit.py's answer for a text depends on that text and kunit.py alone, so it
is kept in ANSWERS (a directory, keyed by the text's SHA-256) once kunit.py
has given it: the ASan and valgrind passes compare their kbackport with the
answers kunit.py gave the plain pass, instead of starting kunit.py hundreds
of times more (kbackport still reads every document in every pass).

kunit.py keeps a test's reported status when its KTAP is broken (wrong test
numbers, a missing result line) and only prints "[ERROR] Test: ...": a suite
inside whose header and footer it printed one counts as "error" here, as it
does in kbackport. kunit.py's unnamed placeholders for missing subtests are
left out: kbackport lists only what it saw. Statuses of suites and of cases
with parameters come from kunit.py's footers ("=== [PASSED] name ===").
"""
import difflib, hashlib, json, os, re, subprocess, sys

kunit_dir, kbackport, work, answers, outdir = sys.argv[1:6]
logs = sys.argv[6:]
STAMP = re.compile(r'^(<\d+>)?\[\s*\d+\.\d+\](\[\s*[A-Z]\d+\])? ?')
VERSION = re.compile(r'^(.*?)K?TAP version \d+\s*$')
CLOCK = r'^\[\d\d:\d\d:\d\d\] '
FOOTER = re.compile(CLOCK + r'=+ \[(PASSED|FAILED|SKIPPED|CRASHED|NO TESTS RUN)\] (.*?) =+$')
HEADER = re.compile(CLOCK + r'=+ (.*?)(?: \(\d+ subtests?\))? +=+$')
ERROR = re.compile(CLOCK + r'\[ERROR\] Test: ')
STATUS = {'PASSED': 'pass', 'PASS': 'pass', 'FAILED': 'fail', 'FAIL': 'fail',
          'SKIPPED': 'skip', 'SKIP': 'skip', 'CRASHED': 'error', 'ERROR': 'error',
          'NO TESTS RUN': 'error'}


class Failed(Exception):
    pass


def documents(path):
    """The log cut before each top-level version line (not an indented one)."""
    with open(path, 'rb') as f:
        lines = f.read().decode('utf-8', 'backslashreplace').splitlines(keepends=True)
    docs = []
    for line in lines:
        m = VERSION.match(STAMP.sub('', line.rstrip('\r\n')))
        pre = m.group(1) if m else None
        if m and (not docs or pre == '' or not (pre.isspace() or pre.endswith('  '))):
            docs.append([])
        if docs:
            docs[-1].append(line)
    return [''.join(d) for d in docs]


def kunit_parse(text, name):
    """kunit.py parse's standard output and JSON for TEXT, from ANSWERS or run."""
    key = f'{answers}/{hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()}'
    try:
        with open(key + '.out') as out, open(key + '.json') as js:
            return out.read(), js.read()
    except FileNotFoundError:
        pass
    path = f'{work}/{name}'
    with open(path + '.log', 'w') as f:
        f.write(text)
    # kunit.py changes to the kernel tree's top: absolute paths only
    p = subprocess.run([sys.executable, f'{kunit_dir}/kunit.py', 'parse', f'--json={path}.json',
                        path + '.log'], capture_output=True, text=True, errors='backslashreplace')
    if p.returncode not in (0, 1):
        raise Failed(f'kunit.py parse {path}.log failed:\n{p.stderr}')
    with open(path + '.json') as f:
        js = f.read()
    os.makedirs(answers, exist_ok=True)
    for ext, data in (('.json', js), ('.out', p.stdout)):	# .out last: the key
        with open(f'{key}{ext}.{os.getpid()}', 'w') as f:
            f.write(data)
        os.replace(f'{key}{ext}.{os.getpid()}', key + ext)
    return p.stdout, js


def kunit_rows(text, name):
    stdout, js = kunit_parse(text, name)
    footers, flagged, stack = {}, set(), []
    for line in stdout.splitlines():
        if m := FOOTER.match(line):
            footers.setdefault(m.group(2), []).append(STATUS[m.group(1)])
            if stack:
                stack.pop()
        elif (m := HEADER.match(line)) and not line.endswith('=' * 60):
            stack.append(m.group(1).strip())
        elif ERROR.match(line) and stack:
            flagged.add(stack[0])
    top = json.loads(js)
    rows = []

    def status(test):	# a test with a header but no subtests is no group
        return footers[test['name']].pop(0) if footers.get(test['name']) else STATUS[test['status']]

    def cases(group, at):
        for c in group['test_cases']:
            if c['name']:
                rows.append(at + [c['name'], status(c)])
        for sub in group['sub_groups']:
            rows.append(at + [sub['name'], footers[sub['name']].pop(0)])
            cases(sub, at + [sub['name']])

    for s in top['test_cases']:
        if s['name']:
            rows.append([s['name'], 'error' if s['name'] in flagged else status(s)])
    for g in top['sub_groups']:
        st = footers[g['name']].pop(0)
        rows.append([g['name'], 'error' if g['name'] in flagged else st])
        cases(g, [g['name']])
    return rows


def kbackport_json(args):
    p = subprocess.run([kbackport, 'ktap', '--json'] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise Failed(f'kbackport ktap {args} failed:\n{p.stderr}')
    return json.loads(p.stdout)


def kbackport_rows(top):
    rows = []
    for s in top['suites']:
        rows.append([s['name'], s['status']])
        for c in s['cases']:
            rows.append([s['name'], c['name'], c['status']])
            for p in c.get('params') or []:
                rows.append([s['name'], c['name'], p['name'], p['status']])
    return rows


def compare(out, title, theirs, ours):
    # kunit_json lists a suite's cases with parameters after the others
    a = ['\t'.join(r) for r in sorted(theirs, key=lambda r: r[:-1])]
    b = ['\t'.join(r) for r in sorted(ours, key=lambda r: r[:-1])]
    if a != b:
        print(title, file=out)
        for line in difflib.ndiff(a, b):
            if line[0] in '-+':
                print(line[0] + line[2:], file=out)
    return len(b)


def crosscheck(log, out):
    rows = 0
    for i, doc in enumerate(documents(log), 1):
        with open(f'{work}/doc.log', 'w') as f:
            f.write(doc)
        rows += compare(out, f'doc {i}:', kunit_rows(doc, f'doc-{i}'),
                        kbackport_rows(kbackport_json([f'{work}/doc.log'])))
    whole = kbackport_json([log])
    for name in dict.fromkeys(s['name'] for s in whole['suites']):
        # --document emits the first suite of that name
        first = next(s for s in whole['suites'] if s['name'] == name)
        p = subprocess.run([kbackport, 'ktap', '--document', name, log], capture_output=True,
                           text=True, errors='backslashreplace')
        rows += compare(out, f'suite {name}:', kunit_rows(p.stdout, 'suite'),
                        kbackport_rows({'suites': [first]}))
    n = len(documents(log))
    return f'{n} document{"s" * (n != 1)}, {rows} rows'


for i, log in enumerate(logs, 1):
    with open(f'{outdir}/{i}.diff', 'w') as out:
        try:
            stats = crosscheck(log, out)
        except (Failed, OSError, KeyError, ValueError) as e:
            stats = f'failed: {e}'
    with open(f'{outdir}/{i}.stats', 'w') as f:
        print(stats, file=f)
PY

# Known disagreements on the kernel's own test logs (in its tarballs).
kunit_diff() {
	case "$1" in
	# A suite without a plan is an error for kbackport: with nothing to
	# check its results against, a lost result line would go unseen.
	test_is_test_passed-missing_plan.log)
		printf 'doc 1:\n-sysctl_test\tpass\n+sysctl_test\terror\n'
		printf 'suite sysctl_test:\n-sysctl_test\tpass\n+sysctl_test\terror\n' ;;
	esac
}

crosscheck() {	# crosscheck VERSION KUNIT_DIR ANSWERS LOG...: each LOG's diff
	local v=$1 dir=$2 answers=$3 i=0 log
	shift 3
	rm -rf "$TMP/work" "$TMP/out" && mkdir -p "$TMP/work" "$TMP/out"
	if ! python3 "$TMP/crosscheck.py" "$dir" "$KBACKPORT" "$TMP/work" "$answers" "$TMP/out" "$@" 2>"$TMP/stderr"; then
		fail "kunit $v: the cross-check ran"
		sed 's/^/#   /' "$TMP/stderr" | head -20
		return
	fi
	for log; do	# NAME.kunit-diff: "# " lines explain
		i=$((i + 1))
		if [ "$log" -ef "$K/$(basename "$log")" ]; then
			grep -sv '^# ' "${log%.log}.kunit-diff" > "$TMP/expected"
		else
			kunit_diff "$(basename "$log")" > "$TMP/expected"
		fi
		case "$(cat "$TMP/out/$i.stats")" in
		failed:*) test_expect_success "kunit $v: $(basename "$log"): the cross-check ran" '
				cat "$TMP/out/$i.stats" && ! grep -q "^failed:" "$TMP/out/$i.stats"
			' ;;
		*) test_expect_success "kunit $v: $(basename "$log"): same results ($(cat "$TMP/out/$i.stats"))" '
				test_cmp "$TMP/expected" "$TMP/out/$i.diff"
			' ;;
		esac
	done
}

tarballs=(${KB_LINUX_SOURCES:-/usr/src/linux-source-*.tar.xz})
if ! command -v python3 >/dev/null; then
	skip "no python3 to run kunit.py: no cross-check with the kernel's parser"
elif [ ! -f "${tarballs[0]}" ]; then
	skip "no ${tarballs[*]} (apt-get install linux-source-6.1): no cross-check with the kernel's parser"
else
	for tarball in "${tarballs[@]}"; do
		v=$(basename "$tarball" .tar.xz | sed 's/^linux-source-//')
		# The extraction (the whole tarball decompressed, about 40 s) is
		# kept in build/kunit-tools, keyed by the tarball's size and
		# time, for the ASan and valgrind passes; the test uses a copy.
		cache=$TOP_DIR/build/kunit-tools/$v-$(stat -c %s-%Y "$tarball")
		if [ ! -f "$cache/.extracted" ]; then
			rm -rf "$cache.$$" && mkdir -p "$cache.$$" &&
			nice tar -xJf "$tarball" -C "$cache.$$" --wildcards \
				'*/tools/testing/kunit/*.py' '*/tools/testing/kunit/test_data/*.log' &&
			touch "$cache.$$/.extracted" && rm -rf "$cache" && mv "$cache.$$" "$cache"
			rm -rf "$cache.$$"
		fi
		if [ ! -f "$cache/.extracted" ] || ! cp -r "$cache" "$TMP/kunit-$v"; then
			fail "kunit $v: tools/testing/kunit extracted from $tarball"
			continue
		fi
		dir=$(dirname "$(find "$TMP/kunit-$v" -path '*/tools/testing/kunit/kunit.py')")
		crosscheck "$v" "$dir" "$cache.answers" "$K"/*.log "$dir"/test_data/*.log
	done
fi
finish
