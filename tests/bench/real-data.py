#!/usr/bin/env python3
"""kbackport, GNU patch and git apply -3 side by side on the real data sets
(../shared/real-trees and ../shared/stable-training): right / wrong / failed
per tool, and kbackport's time. Prints a Markdown section.

real-data.py KBACKPORT SHARED WORK

Right, wrong and failed, per case:
- real-trees (the upstream commit, or for kbackport the fix with its
  variants): a vulnerable tree is right when the result is a correct
  backport for its era (the checks of tests/integration/real_trees.py),
  wrong when the tool changed it otherwise or called it done; a fixed
  tree is right when the tool leaves it alone saying so (kbackport
  already-applied, GNU "reversed"), wrong when it changes it; a tree
  before the bug is right when left alone (kbackport not-affected), and
  for the patch tools a refusal counts as failed, a change as wrong.
- stable-training: "applies" is right when the files equal post/, wrong
  when they differ or the tool calls the commit already there; "already
  applied" is right when the tool says so, wrong when it changes files;
  "conflict" is right when the tool refuses, wrong when it changes files
  or calls it done. Refusing an applicable case is failed.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import redirect_stdout

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import real_trees  # noqa: E402  (the correctness checks of the real-trees test)

ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.org",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.org",
           GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")


def sh(args, cwd=None, check=True):
    return subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, check=check)


def make_repo(path, src, exclude=("post-fix", "PROVENANCE.yaml")):
    shutil.copytree(src, path, ignore=shutil.ignore_patterns(*exclude))
    for root, dirs, files in os.walk(path):
        for n in dirs:
            os.chmod(os.path.join(root, n), 0o755)
        for n in files:
            os.chmod(os.path.join(root, n), 0o644)
    sh(["git", "init", "-q", "-b", "master", path])
    sh(["git", "-C", path, "add", "-A", "-f"])
    sh(["git", "-C", path, "commit", "-q", "--allow-empty", "-m", "base"])


def gnu_patch(repo, patch, fuzz):
    """ok / reversed / failed, and whether files changed."""
    p = sh(["patch", "-p1", "-N", "-F%d" % fuzz, "--no-backup-if-mismatch", "-r", "-",
            "-i", patch], cwd=repo, check=False)
    out = p.stdout.decode("latin-1")
    if p.returncode == 0:
        verdict = "ok"
    elif "Reversed (or previously applied)" in out and "FAILED" not in out:
        verdict = "reversed"
    else:
        verdict = "failed"
    return verdict


def git_apply3(repo, patch):
    p = sh(["git", "-C", repo, "apply", "-3", patch], check=False)
    unmerged = sh(["git", "-C", repo, "diff", "--name-only", "--diff-filter=U"]).stdout.strip()
    return "ok" if p.returncode == 0 and not unmerged else "failed"


def changed(repo):
    return sh(["git", "-C", repo, "status", "--porcelain"]).stdout.strip() != b""


def commit_result(repo):
    sh(["git", "-C", repo, "add", "-A"])
    sh(["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "tool"])
    return sh(["git", "-C", repo, "rev-parse", "HEAD"]).stdout.decode().strip()


def correct_backport(repo, tree, prov, trees, base, ref):
    """The real-trees test's checks, quietly: True when all pass."""
    real_trees.results.clear()
    res = {"ref": ref, "base": base, "commit": ref}
    with redirect_stdout(io.StringIO()):
        real_trees.check_applied(tree, prov, repo, res, trees)
    return all(real_trees.results)


def real_trees_bench(kb, shared, work):
    trees = os.path.join(shared, "real-trees")
    upstream = os.path.join(HERE, "..", "..", "backports", "CVE-2011-1019", "upstream.patch")
    names = sorted(d for d in os.listdir(trees)
                   if os.path.isfile(os.path.join(trees, d, "PROVENANCE.yaml")))
    tally = {t: {"right": 0, "wrong": 0, "failed": 0} for t in ("kbackport", "GNU patch -F3", "git apply -3")}
    # kbackport: every tree in one run, timed
    kbw = os.path.join(work, "rt-kb")
    os.makedirs(kbw)
    with open(os.path.join(kbw, "branches.yaml"), "w") as f:
        f.write("branches:\n")
        for t in names:
            make_repo(os.path.join(kbw, "repos", t), os.path.join(trees, t))
            f.write('  - {name: "%s", ref: master, repo: repos/%s}\n' % (t, t))
    os.symlink(os.path.abspath(os.path.join(HERE, "..", "..", "backports")),
               os.path.join(kbw, "backports"))
    t0 = time.monotonic()
    p = sh([kb, "apply", "--json"], cwd=kbw, check=False)
    kb_time = time.monotonic() - t0
    results = {r["branch"]: r for r in json.loads(p.stdout)[0]["results"]}
    for t in names:
        prov = yaml.safe_load(open(os.path.join(trees, t, "PROVENANCE.yaml")))
        exp = prov["expected"]
        repo = os.path.join(kbw, "repos", t)
        r = results[t]
        if exp == "vulnerable":
            v = ("right" if r["status"] == "applied" and
                 correct_backport(repo, t, prov, trees, r["base"], r["ref"]) else
                 "failed" if r["status"] in ("conflict", "partial", "error") else "wrong")
        else:
            want = "already-applied" if exp == "fixed" else "not-affected"
            v = "right" if r["status"] == want else \
                "failed" if r["status"] in ("conflict", "partial", "error") else "wrong"
        tally["kbackport"][v] += 1
        for tool in ("GNU patch -F3", "git apply -3"):
            d = os.path.join(work, "rt-" + tool.split()[0], t)
            make_repo(d, os.path.join(trees, t))
            base = sh(["git", "-C", d, "rev-parse", "HEAD"]).stdout.decode().strip()
            verdict = gnu_patch(d, upstream, 3) if tool.startswith("GNU") else git_apply3(d, upstream)
            if verdict == "failed":
                sh(["git", "-C", d, "reset", "-q", "--hard"])
                sh(["git", "-C", d, "clean", "-qfdx"])
            did = changed(d)
            ref = commit_result(d) if did else base
            if exp == "vulnerable":
                v = ("right" if verdict == "ok" and did and
                     correct_backport(d, t, prov, trees, base, ref) else
                     "failed" if verdict == "failed" else "wrong")
            elif exp == "fixed":
                v = "right" if verdict == "reversed" and not did else "wrong" if did else "failed"
            else:
                v = "wrong" if did or verdict != "failed" else "failed"
            tally[tool][v] += 1
    return len(names), tally, kb_time


def stable_bench(kb, shared, work):
    cases_dir = os.path.join(shared, "stable-training")
    cases = sorted(d for d in os.listdir(cases_dir)
                   if os.path.isfile(os.path.join(cases_dir, d, "expected.yaml")))
    tools = ("kbackport", "GNU patch -F2", "git apply -3")
    tally = {t: {"right": 0, "wrong": 0, "failed": 0} for t in tools}
    kb_time = 0.0
    for case in cases:
        cd = os.path.join(cases_dir, case)
        exp = yaml.safe_load(open(os.path.join(cd, "expected.yaml")))
        patch = os.path.join(cd, "fix.patch")

        def files_equal_post(repo):
            for path in exp["files"]:
                post = os.path.join(cd, "post", path)
                got = os.path.join(repo, path)
                if os.path.exists(post) != os.path.exists(got):
                    return False
                if os.path.exists(post) and open(post, "rb").read() != open(got, "rb").read():
                    return False
            return True

        # kbackport
        w = os.path.join(work, "st-kb", case)
        make_repo(os.path.join(w, "repo"), os.path.join(cd, "tree"))
        fix = os.path.join(w, "fixes", "stable")
        os.makedirs(fix)
        shutil.copy(patch, fix)
        with open(os.path.join(fix, "fix.yaml"), "w") as f:
            f.write("id: stable\nsubject: %s\nupstream: %s\npatch: fix.patch\n"
                    "variants:\n  - {name: stable, patch: fix.patch, why: x}\n"
                    % (json.dumps(exp["subject"]), exp["commit"]))
        with open(os.path.join(w, "branches.yaml"), "w") as f:
            f.write("branches:\n  - {name: vendor, ref: master, repo: repo}\n")
        t0 = time.monotonic()
        p = sh([kb, "apply", "--json", "--fix", os.path.join(w, "fixes")], cwd=w, check=False)
        kb_time += time.monotonic() - t0
        r = json.loads(p.stdout)[0]["results"][0]
        status = r["status"]
        if status == "applied":
            sh(["git", "-C", os.path.join(w, "repo"), "checkout", "-q", r["ref"]])
        tally["kbackport"][classify(exp["expected"],
                                    {"applied": "ok", "already-applied": "reversed"}.get(status, "failed"),
                                    status == "applied", lambda: files_equal_post(os.path.join(w, "repo")))] += 1
        for tool in tools[1:]:
            d = os.path.join(work, "st-" + tool.split()[0], case)
            make_repo(d, os.path.join(cd, "tree"))
            verdict = gnu_patch(d, patch, 2) if tool.startswith("GNU") else git_apply3(d, patch)
            if verdict == "failed":
                sh(["git", "-C", d, "reset", "-q", "--hard"])
                sh(["git", "-C", d, "clean", "-qfdx"])
            tally[tool][classify(exp["expected"], verdict, changed(d),
                                 lambda: files_equal_post(d))] += 1
    return len(cases), tally, kb_time


def classify(expected, verdict, did, equal_post):
    if expected == "applies":
        if verdict == "ok" and did:
            return "right" if equal_post() else "wrong"
        return "wrong" if verdict == "reversed" or did else "failed"
    if expected == "already-applied":
        return "right" if verdict == "reversed" and not did else "wrong" if did else "failed"
    # conflict: refusing is right
    return "wrong" if did or verdict != "failed" else "right"


def table(title, n, tally, kb_time, note):
    out = ["## %s" % title, "", note, "",
           "| tool | right | wrong | failed |", "|---|---:|---:|---:|"]
    for tool, t in tally.items():
        out.append("| %s | %d | %d | %d |" % (tool, t["right"], t["wrong"], t["failed"]))
    out += ["", "%d cases; kbackport took %.2f s for all of them." % (n, kb_time), ""]
    return "\n".join(out)


def main():
    kb, shared, work = sys.argv[1:4]
    kb = os.path.abspath(kb)
    n, tally, t = real_trees_bench(kb, shared, work)
    print(table("Real trees: CVE-2011-1019 on 20 real kernel trees", n, tally, t,
                "`../shared/real-trees` (2.6.30 to 3.10: stable, vendor BSPs, Android, "
                "RHEL 6). kbackport applies the fix with its variants; GNU `patch -p1 -N "
                "-F3` and `git apply -3` the upstream commit. Right: a correct backport "
                "for the tree's era (the checks of `tests/integration/real_trees.py`) on "
                "a vulnerable tree, left alone and said so on a fixed one (kbackport "
                "`already-applied`, GNU \"reversed\"), left alone on one before the bug "
                "(kbackport `not-affected`). Wrong: any other change, or a wrong "
                "\"already there\". Failed: refused (for the patch tools on a tree before "
                "the bug, refusing is all they can do)."))
    n, tally, t = stable_bench(kb, shared, work)
    print(table("Stable training: 100 real stable commits into a drifted vendor tree", n,
                tally, t,
                "`../shared/stable-training`: 2.6.35.y stable commits carried into a "
                "2.6.35.3 i.MX vendor tree's files (31 already applied, 62 apply, 7 "
                "conflict). kbackport makes a fix of each commit; GNU `patch -p1 -N -F2` "
                "and `git apply -3` (no preimage blobs in these repositories, as in a "
                "vendor tree) apply it. Right: the files equal `post/` for \"applies\", "
                "\"already there\" said for \"already applied\", refused for \"conflict\". "
                "Wrong: other files, a wrong \"already there\", or a change where the "
                "answer is conflict. Failed: refused where it applies or is there."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
