#!/usr/bin/env python3
"""Check kbackport's answers on ../shared/real-trees (see t_real_trees.sh).

real_trees.py SHARED_TREES WORK APPLY_JSON AUDIT_JSON

WORK/repos/<tree> is a git repository of each tree (branch master), the
backport (when applied) on refs/heads/backport/CVE-2011-1019/<tree>.
Prints one "ok - ..." or "not ok - ..." line per check.
"""
import difflib
import json
import os
import re
import subprocess
import sys

import yaml

FIX = "CVE-2011-1019"
WANT_STATUS = {"vulnerable": "applied", "fixed": "already-applied",
               "not-affected": "not-affected"}
FILES = ["include/linux/netdevice.h", "net/core/dev.c", "net/core/dev_ioctl.c",
         "net/ipv4/ipip.c", "net/ipv4/ip_gre.c", "net/ipv6/sit.c"]

def norm(line):
    return re.sub(r"[ \t]+", " ", line.strip())


LOOKUP = {
    "dev_base_lock": ["read_lock(&dev_base_lock);",
                      "dev = __dev_get_by_name(net, name);",
                      "read_unlock(&dev_base_lock);"],
    "rcu": ["rcu_read_lock();", "dev = dev_get_by_name_rcu(net, name);",
            "rcu_read_unlock();"],
}


def fixed_body(era):
    """dev_load() as the fix leaves it, normalised: the era's own lookup,
    netdev-%s on CAP_NET_ADMIN first, the bare name on CAP_SYS_MODULE."""
    return [norm(l) for l in ["void dev_load(struct net *net, const char *name)", "{",
            "struct net_device *dev;", "int no_module;"] + LOOKUP[era] + [
        "no_module = !dev;",
        "if (no_module && capable(CAP_NET_ADMIN))",
        "no_module = request_module(\"netdev-%s\", name);",
        "if (no_module && capable(CAP_SYS_MODULE)) {",
        "if (!request_module(\"%s\", name))",
        "pr_err(\"Loading kernel module for a network device \"",
        "\"with CAP_SYS_MODULE (deprecated).  Use CAP_NET_ADMIN and alias netdev-%s \"",
        "\"instead\\n\", name);",
        "}", "}"]]


# Lines a backport of this fix may remove and add; anything else changed
# is a defect ("nothing else changed").
MAY_REMOVE = {"if (!dev && capable(CAP_NET_ADMIN))", "request_module(\"%s\", name);",
              "MODULE_ALIAS(\"tunl0\");", "MODULE_ALIAS(\"gre0\");",
              "MODULE_ALIAS(\"sit0\");"}
MAY_ADD = set(fixed_body("rcu")) | set(fixed_body("dev_base_lock")) | {
    "", "#define MODULE_ALIAS_NETDEV(device) \\", "MODULE_ALIAS(\"netdev-\" device)",
    "MODULE_ALIAS_NETDEV(\"tunl0\");", "MODULE_ALIAS_NETDEV(\"gre0\");",
    "MODULE_ALIAS_NETDEV(\"sit0\");"}

results = []


def check(name, ok, why=""):
    results.append(ok)
    print(("ok - " if ok else "not ok - ") + name)
    if not ok and why:
        for line in str(why).splitlines()[:30]:
            print("#   " + line)


def git_show(repo, rev, path):
    p = subprocess.run(["git", "-C", repo, "show", "%s:%s" % (rev, path)],
                       capture_output=True)
    return p.stdout.decode("latin-1") if p.returncode == 0 else None


def dev_load_body(text):
    lines = text.split("\n")
    for i, l in enumerate(lines):
        if l.startswith("void dev_load(struct net *net, const char *name)"):
            for j in range(i, len(lines)):
                if lines[j] == "}":
                    return [norm(x) for x in lines[i:j + 1] if norm(x)]
    return None


def directives(lines):
    """(opener index, #endif index) of every #if block, in file order."""
    stack, blocks = [], []
    for i, l in enumerate(lines):
        s = l.strip()
        if re.match(r"#\s*if", s):
            stack.append(i)
        elif re.match(r"#\s*endif", s) and stack:
            blocks.append((stack.pop(), i))
    return blocks


def check_netdevice(tree, text):
    lines = text.split("\n")
    defs = [i for i, l in enumerate(lines) if re.match(r"#define\s+MODULE_ALIAS_NETDEV\b", l)]
    check(tree + ": MODULE_ALIAS_NETDEV defined exactly once", len(defs) == 1, defs)
    if len(defs) != 1:
        return
    d = defs[0]
    blocks = directives(lines)
    guard = [b for b in blocks if re.match(r"#\s*ifndef\s+_LINUX_NETDEVICE_H", lines[b[0]].strip())]
    check(tree + ": the define is inside the include guard",
          len(guard) == 1 and guard[0][0] < d < guard[0][1], guard)
    kernel = [b for b in blocks if "__KERNEL__" in lines[b[1]] and
              re.match(r"#\s*ifdef\s+__KERNEL__", lines[b[0]].strip())]
    if kernel:
        last = max(kernel, key=lambda b: b[1])
        check(tree + ": the define is inside the last __KERNEL__ section (not the decoy)",
              last[0] < d < last[1], "define at %d, section %s" % (d + 1, last))
    uses = [i for i, l in enumerate(lines) if "MODULE_ALIAS_NETDEV(" in l and i != d]
    check(tree + ": the define comes before its first use",
          not uses or uses[0] > d, uses[:3])


def check_aliases(tree, repo, ref):
    for path, name in (("net/ipv4/ipip.c", "tunl0"), ("net/ipv4/ip_gre.c", "gre0"),
                       ("net/ipv6/sit.c", "sit0")):
        text = git_show(repo, ref, path) or ""
        n = len(re.findall(r'^MODULE_ALIAS_NETDEV\("%s"\);$' % name, text, re.M))
        old = len(re.findall(r'^MODULE_ALIAS\("%s"\);$' % name, text, re.M))
        check("%s: %s has MODULE_ALIAS_NETDEV(\"%s\") exactly once, no plain alias" %
              (tree, path, name), n == 1 and old == 0, "netdev: %d, plain: %d" % (n, old))


def check_nothing_else(tree, repo, base, ref):
    p = subprocess.run(["git", "-C", repo, "diff", "--name-only", base, ref],
                       capture_output=True, text=True)
    changed = set(p.stdout.split())
    check(tree + ": only the fix's files changed", changed <= set(FILES), changed)
    for path in sorted(changed):
        diff = subprocess.run(["git", "-C", repo, "diff", "-U0", base, ref, "--", path],
                              capture_output=True).stdout.decode("latin-1")
        bad = []
        for d in diff.split("\n"):
            if not d or d.startswith(("---", "+++", "@@", "diff ", "index ")):
                continue
            if d[0] == "-" and norm(d[1:]) not in MAY_REMOVE:
                bad.append(d)
            if d[0] == "+" and norm(d[1:]) not in MAY_ADD:
                bad.append(d)
        check("%s: %s changed only the fix's lines" % (tree, path), not bad, "\n".join(bad))


def check_applied(tree, prov, repo, res, trees):
    ref, base = res.get("ref"), res.get("base")
    if not res.get("commit"):
        check(tree + ": a backport commit", False, res)
        return
    era = prov["era"]
    lookup_era = "rcu" if era == "dev_ioctl" else era
    body = dev_load_body(git_show(repo, ref, prov["dev_load_file"]) or "")
    check(tree + ": dev_load() is the fixed one for its era (%s)" % era,
          body == fixed_body(lookup_era),
          "\n".join(difflib.unified_diff(fixed_body(lookup_era), body or [], lineterm="")))
    check_netdevice(tree, git_show(repo, ref, "include/linux/netdevice.h") or "")
    check_aliases(tree, repo, ref)
    check_nothing_else(tree, repo, base, ref)
    post = os.path.join(trees, tree, "post-fix")
    if os.path.isdir(post):
        for root, _, files in os.walk(post):
            for f in files:
                path = os.path.relpath(os.path.join(root, f), post)
                want = open(os.path.join(root, f), "rb").read()
                got = subprocess.run(["git", "-C", repo, "show", "%s:%s" % (ref, path)],
                                     capture_output=True).stdout
                check("%s: %s is byte-identical to the upstream fix" % (tree, path),
                      want == got)


def main():
    trees, work, apply_json, audit_json = sys.argv[1:5]
    applied = {r["branch"]: r for r in json.load(open(apply_json))[0]["results"]}
    audit = {b["branch"]: b for b in json.load(open(audit_json))["branches"]}
    names = sorted(d for d in os.listdir(trees)
                   if os.path.isfile(os.path.join(trees, d, "PROVENANCE.yaml")))
    check("the set has trees", len(names) > 0)
    for tree in names:
        prov = yaml.safe_load(open(os.path.join(trees, tree, "PROVENANCE.yaml")))
        res = applied.get(tree, {})
        want = WANT_STATUS[prov["expected"]]
        check("%s: status %s (expected: %s)" % (tree, want, prov["expected"]),
              res.get("status") == want, res.get("detail"))
        repo = os.path.join(work, "repos", tree)
        if want == "applied" and res.get("status") == want:
            check_applied(tree, prov, repo, res, trees)
        elif res.get("status") != "applied":
            refs = subprocess.run(["git", "-C", repo, "for-each-ref", "refs/heads/backport/"],
                                  capture_output=True, text=True).stdout
            check(tree + ": no backport ref written", refs == "", refs)
        flagged = any(c.get("cve_2011_1019_pattern") for c in audit[tree].get("calls") or [])
        check("%s: audit %s the bare pattern" % (tree, "flags" if want == "applied" else "does not flag"),
              flagged == (want == "applied"))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
