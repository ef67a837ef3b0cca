#!/usr/bin/env bash
# Real 2.6.32.y history (../shared/stable-history): 40 real stable fixes on
# 12 tags, scored by the set's own score.py against what the history says
# (in, reverted, not in). A false already-applied is never allowed; every
# scored answer must be right.
source "$(dirname "$0")/../lib.sh"
T_SUITE=stable-history
hermetic
shared_set stable-history
python3 "$SET/score.py" --kb "$KBACKPORT" > "$TMP/score.txt" 2>&1
score_rc=$?
sed 's/^/# /' "$TMP/score.txt"
last=$(tail -n 1 "$TMP/score.txt")
if [[ $last =~ ^stable-history:\ right\ ([0-9]+)/([0-9]+),\ false\ already-applied\ ([0-9]+), ]]; then
	right=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]} faa=${BASH_REMATCH[3]}
	test_expect_success 'no false already-applied' 'test "$faa" = 0'
	# every scored answer right (the content alone: 333)
	test_expect_success 'right answers: all of them' 'test "$right" = "$total"'
	test_expect_success 'score.py agrees' 'test "$score_rc" = 0'
else
	test_expect_success 'score.py printed its score' '
		[[ $last =~ ^stable-history:\ right\ ([0-9]+)/([0-9]+),\ false\ already-applied\ ([0-9]+), ]]
	'
fi
# the history never makes an answer worse than the content alone, and the
# content alone never says a fix is in that the history says is not
python3 - "$SET" "$KBACKPORT" "$TMP" > "$TMP/both.txt" 2>&1 <<'PY'
import json, os, subprocess, sys
SET, KB, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
exp = json.load(open(os.path.join(SET, 'expected.json')))
repo = os.path.join(TMP, 'both.git')
subprocess.run(['git', 'clone', '-q', '--bare', os.path.join(SET, 'history.git'), repo], check=True)
with open(os.path.join(TMP, 'both.yaml'), 'w') as f:
    f.write(f'repo: {repo}\nbranches:\n' + ''.join(f'  - {{name: "{t}", ref: {t}}}\n' for t in exp['tags']))
fixes = os.path.join(TMP, 'both-fixes')
for fx in exp['fixes']:
    subprocess.run([KB, 'fix', 'new', '-o', fixes, '--id', f'fix-{fx["n"]}',
                    os.path.join(SET, 'fixes', str(fx['n']), 'fix.patch')], check=True, stdout=subprocess.DEVNULL)
def answers(extra):
    r = subprocess.run([KB, 'apply', '-n', '--json', '-c', os.path.join(TMP, 'both.yaml'), '--fix', fixes] + extra,
                       stdout=subprocess.PIPE)
    return {(d['fix'], x['branch']): x['status'] for d in json.loads(r.stdout) for x in d['results']}
hist, cont = answers([]), answers(['--no-history'])
worse = faa = right = 0
for fx in exp['fixes']:
    for t, e in fx['tags'].items():
        if e.get('score') is False:
            continue
        k = (f'fix-{fx["n"]}', t)
        ok = lambda s: s == 'already-applied' if e['history'] == 'in' else s not in ('already-applied', 'not-affected')
        right += ok(cont[k])
        faa += e['history'] != 'in' and not ok(cont[k])
        if ok(cont[k]) and not ok(hist[k]):
            worse += 1
            print(f'  worse with the history: fix {fx["n"]} {t}: {cont[k]} -> {hist[k]}')
print(f'content alone: right {right}, false already-applied {faa}; worse with the history {worse}')
PY
sed 's/^/# /' "$TMP/both.txt"
last=$(tail -n 1 "$TMP/both.txt")
test_expect_success 'the content alone: no false already-applied' '[[ $last =~ false\ already-applied\ 0\; ]]'
test_expect_success 'the history never makes an answer worse than the content alone' '[[ $last =~ worse\ with\ the\ history\ 0$ ]]'
finish
