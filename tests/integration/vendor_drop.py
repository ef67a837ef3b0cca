#!/usr/bin/env python3
"""The vendor-drop shape, made from ../shared/stable-history's real history.

A vendor tree that merged stable and then imported older copies of its files
(a board-support drop: one commit writing the vendor's older versions over
the stable ones) holds the stable commits in its history, but not always
their lines. Here: for every tag T of the set but the first, one commit on T
that writes the files of T from an older tag B over it (all the set's paths,
or every other one), with a message that names no commit. Every fix is then
scored on every such branch against what the tree holds, from the set's own
history answers: a dropped file is as it was at B, the others as at T, so a
fix is in when it is in at the tag each of its files comes from (a fix whose
files come from tags that answer differently is not scored).

usage: vendor_drop.py SET KBACKPORT WORKDIR [--no-history]
(--no-history: the content alone, as `apply --no-history` answers)
Also a squashed tree per tag (one commit with the tag's tree, no history),
where the content alone decides. Prints one line per wrong answer, then
`squashed: right R/N, false already-applied F, branches B` and
`vendor-drop: right R/N, false already-applied F, missed in M, branches B`;
exit 0 only when every drop answer is right and no squashed one is a false
already-applied.
"""
import json
import os
import subprocess
import sys

SET, KB, TMP = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
EXTRA = ['--no-history'] if '--no-history' in sys.argv[4:] else []
exp = json.load(open(os.path.join(SET, 'expected.json')))
tags = exp['tags']
paths = [p for p in open(os.path.join(SET, 'paths.txt')).read().split() if p]


def git(*args, inp=None):
    return subprocess.run(['git', '-C', repo] + list(args), input=inp, check=True,
                          stdout=subprocess.PIPE, env=env).stdout.decode()


env = dict(os.environ, GIT_AUTHOR_NAME='Vendor BSP', GIT_AUTHOR_EMAIL='bsp@vendor.example',
           GIT_COMMITTER_NAME='Vendor BSP', GIT_COMMITTER_EMAIL='bsp@vendor.example',
           GIT_AUTHOR_DATE='1400000000 +0000', GIT_COMMITTER_DATE='1400000000 +0000')
repo = os.path.join(TMP, 'drop.git')
subprocess.run(['git', 'clone', '-q', '--bare', os.path.join(SET, 'history.git'), repo], check=True)


def drop(tag, base, which):
    """A commit on `tag` writing `which` paths as they are at `base`."""
    idx = os.path.join(TMP, 'index')
    e = dict(env, GIT_INDEX_FILE=idx)
    run = lambda *a: subprocess.run(['git', '-C', repo] + list(a), check=True, env=e,
                                    stdout=subprocess.PIPE).stdout.decode().strip()
    run('read-tree', tag)
    for p in which:
        line = run('ls-tree', base, '--', p)
        if line:
            mode, _, rest = line.partition(' ')
            oid = rest.split()[1]
            run('update-index', '--add', '--cacheinfo', f'{mode},{oid},{p}')
        else:
            run('update-index', '--force-remove', '--', p)
    tree = run('write-tree')
    msg = 'ARM: import the board support package\n\nThe vendor drop of its kernel sources.\n'
    c = subprocess.run(['git', '-C', repo, 'commit-tree', tree, '-p', tag], input=msg.encode(),
                       check=True, stdout=subprocess.PIPE, env=env).stdout.decode().strip()
    os.unlink(idx)
    return c


# the truth at one tag: True in, False not in, None not scored
def truth(fx, tag):
    e = fx['tags'][tag]
    if e.get('score') is False:
        return None
    return e['history'] == 'in'


branches = []	# (name, tag, base, dropped set)
for i, t in enumerate(tags[1:], 1):
    base = tags[max(0, i - 3)]
    for kind, which in (('all', paths), ('half', paths[::2])):
        name = f'drop-{kind}-{t}'
        c = drop(t, base, which)
        git('update-ref', f'refs/heads/{name}', c)
        branches.append((name, t, base, set(which)))

# squashed trees: a vendor's one-commit import of a tag, no history at all
squashed = []
for t in tags:
    tree = git('rev-parse', f'{t}^{{tree}}').strip()
    c = subprocess.run(['git', '-C', repo, 'commit-tree', tree], input=b'Import the vendor kernel\n',
                       check=True, stdout=subprocess.PIPE, env=env).stdout.decode().strip()
    git('update-ref', f'refs/heads/squash-{t}', c)
    squashed.append((f'squash-{t}', t))

with open(os.path.join(TMP, 'drop.yaml'), 'w') as f:
    f.write(f'repo: {repo}\nbranches:\n' + ''.join(f'  - {{name: "{b[0]}", ref: {b[0]}}}\n'
                                                  for b in branches + squashed))
fixdir = os.path.join(TMP, 'drop-fixes')
for fx in exp['fixes']:
    subprocess.run([KB, 'fix', 'new', '-o', fixdir, '--id', f'fix-{fx["n"]}',
                    os.path.join(SET, 'fixes', str(fx['n']), 'fix.patch')],
                   check=True, stdout=subprocess.DEVNULL)
r = subprocess.run([KB, 'apply', '-n', '--json', '-c', os.path.join(TMP, 'drop.yaml'),
                    '--fix', fixdir] + EXTRA, stdout=subprocess.PIPE)
docs = json.loads(r.stdout)
got = {(d['fix'], x['branch']): x for d in docs for x in d['results']}

right = total = faa = missed = 0
for fx in exp['fixes']:
    for name, t, base, dropped in branches:
        sources = {base if p in dropped else t for p in fx['files']}
        ins = {truth(fx, s) for s in sources}
        # a fix whose files come from tags that answer differently is in
        # as far as those files' lines say: no answer of the set decides it
        if None in ins or len(ins) > 1:
            continue
        want_in = ins.pop()
        x = got.get((f'fix-{fx["n"]}', name), {'status': 'missing', 'detail': ''})
        ok = x['status'] == 'already-applied' if want_in else \
            x['status'] not in ('already-applied', 'not-affected')
        total += 1
        if ok:
            right += 1
            continue
        if want_in:
            missed += 1
        else:
            faa += 1
        print(f'  fix {fx["n"]:2} {name} (files from {",".join(sorted(sources))}): '
              f'{"in" if want_in else "not in"}, got {x["status"]}: {x["detail"][:160]}')
# the squashed trees: the content alone decides; never a false already-applied
sq_right = sq_total = sq_faa = 0
for fx in exp['fixes']:
    for name, t in squashed:
        want = truth(fx, t)
        if want is None:
            continue
        x = got.get((f'fix-{fx["n"]}', name), {'status': 'missing', 'detail': ''})
        sq_total += 1
        if want:
            sq_right += x['status'] == 'already-applied'
        elif x['status'] in ('already-applied', 'not-affected'):
            sq_faa += 1
            print(f'  fix {fx["n"]:2} {name}: not in, got {x["status"]}: {x["detail"][:160]}')
        else:
            sq_right += 1
print(f'squashed: right {sq_right}/{sq_total}, false already-applied {sq_faa}, branches {len(squashed)}')
print(f'vendor-drop: right {right}/{total}, false already-applied {faa}, missed in {missed}, '
      f'branches {len(branches)}')
sys.exit(0 if right == total and not sq_faa else 1)
