#!/usr/bin/env python3
"""Carry each real stable commit of ../shared/stable-training over (see
t_stable_training.sh): a fix directory made from its fix.patch, a git
repository of the drifted vendor tree's files, then kbackport apply.

stable_training.py KBACKPORT SET WORK

Prints one "ok - ..." or "not ok - ..." line per check, and per outcome a
"# right/wrong" summary line.
"""
import json
import os
import shutil
import subprocess
import sys

import yaml

WANT = {"already-applied": "already-applied", "applies": "applied", "conflict": "conflict"}


def git(*args, **kw):
    return subprocess.run(["git"] + list(args), check=True, capture_output=True, **kw)


def run_case(kb, case_dir, work):
    exp = yaml.safe_load(open(os.path.join(case_dir, "expected.yaml")))
    repo, fixes = os.path.join(work, "repo"), os.path.join(work, "fixes")
    fix = os.path.join(fixes, "stable")
    os.makedirs(repo)
    os.makedirs(fix)
    # the shared set is read-only: its files are copied, never written to
    shutil.copytree(os.path.join(case_dir, "tree"), repo, dirs_exist_ok=True)
    for root, dirs, files in os.walk(repo):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    git("init", "-q", repo)
    git("-C", repo, "add", "-A", "-f")
    git("-C", repo, "commit", "-q", "--allow-empty", "-m", "vendor tree")
    shutil.copy(os.path.join(case_dir, "fix.patch"), fix)
    with open(os.path.join(fix, "fix.yaml"), "w") as f:
        # no variants: the patch itself is the fix's one variant
        f.write("id: stable\nsubject: %s\nupstream: %s\npatch: fix.patch\n"
                % (json.dumps(exp["subject"]), exp["commit"]))
    with open(os.path.join(work, "branches.yaml"), "w") as f:
        f.write("branches:\n  - {name: vendor, ref: HEAD, repo: repo}\n")
    p = subprocess.run([kb, "apply", "--json", "--fix", fixes], cwd=work,
                       capture_output=True, text=True)
    try:
        res = json.loads(p.stdout)[0]["results"][0]
    except (ValueError, KeyError, IndexError):
        return exp, None, "no result: %s %s" % (p.stdout[:200], p.stderr[:200])
    want_rc = 0 if res["status"] in ("applied", "already-applied") else 1
    if p.returncode != want_rc:
        return exp, res, "exit %d, not %d" % (p.returncode, want_rc)
    return exp, res, None


def compare_post(case_dir, work, exp, res):
    repo = os.path.join(work, "repo")
    bad = []
    for path in exp["files"]:
        post = os.path.join(case_dir, "post", path)
        got = subprocess.run(["git", "-C", repo, "show", "%s:%s" % (res["ref"], path)],
                             capture_output=True)
        if not os.path.exists(post):
            if got.returncode == 0:
                bad.append("%s should be gone" % path)
        elif got.returncode != 0 or open(post, "rb").read() != got.stdout:
            bad.append("%s differs from post/" % path)
    return bad


def main():
    kb, cases_dir, work = sys.argv[1:4]
    cases = sorted(d for d in os.listdir(cases_dir)
                   if os.path.isfile(os.path.join(cases_dir, d, "expected.yaml")))
    tally = {}
    print("ok - the set has cases" if cases else "not ok - the set has cases")
    for case in cases:
        case_dir = os.path.join(cases_dir, case)
        exp, res, err = run_case(kb, case_dir, os.path.join(work, case))
        want = WANT[exp["expected"]]
        got = res["status"] if res else "none"
        why = err or ("" if got == want else res.get("detail", ""))
        if not err and got == want == "applied":
            why = "; ".join(compare_post(case_dir, os.path.join(work, case), exp, res))
        ok = not why and got == want
        tally.setdefault(exp["expected"], [0, 0])[0 if ok else 1] += 1
        print("%s - %s (%s): %s%s" % ("ok" if ok else "not ok", case, exp["expected"],
                                      got, "" if ok else ": " + why))
    for k in sorted(tally):
        print("# %s: %d right, %d wrong" % (k, tally[k][0], tally[k][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
