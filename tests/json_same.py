#!/usr/bin/env python3
"""json_same.py -- is a change behaviour-neutral? Diff `oomlens analyze
--format json` of two binaries over every input that may be run while
coding.

A speed change (bench/RESULTS.md) must leave what oomlens says unchanged.
This runs OLD and NEW on every excerpt and folder of tests/data/real/*/,
tests/data/incoming/*/ and every case of fixtures/*/ (never
tests/data/frozen: held out), masks the fields that change from run to run
(the read time, the database path, the run's own timings), and prints each
input whose JSON differs, with the first differing key, then a closing
"N inputs, N identical, N differ"; exits 1 when any differs or either
binary failed on an input the other read.

usage: json_same.py OLD NEW SRC [--save DIR]
  OLD may be a directory of saved outputs (from an earlier --save), so the
  old binary need not be kept, or "-": NEW's outputs are only saved.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

SKIP = {"MANIFEST.tsv", "README.md"}
# fields whose values are the run's, not the input's
VOLATILE = re.compile(r"^(seconds|read_at|generated_at|generated|db|database|elapsed.*|.*_ms|version|oomlens_version|now)$")


def inputs(src):
    """Every input path under the folders that may be run, sorted."""
    out = []
    for top in ("tests/data/real", "tests/data/incoming"):
        root = os.path.join(src, top)
        for d in sorted(os.listdir(root)):
            dd = os.path.join(root, d)
            if not os.path.isdir(dd):
                continue
            for e in sorted(os.listdir(dd)):
                if e not in SKIP and not e.startswith("."):
                    out.append(os.path.join(dd, e))
    fx = os.path.join(src, "fixtures")
    for d in sorted(os.listdir(fx)):
        if os.path.isdir(os.path.join(fx, d)):
            out.append(os.path.join(fx, d))
    return out


def mask(v):
    """v with the run's own fields set to a constant."""
    if isinstance(v, dict):
        return {k: ("*" if VOLATILE.match(k) else mask(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [mask(x) for x in v]
    return v


def run(binary, path, tmp):
    """The masked JSON text of `binary analyze` on path (or its error)."""
    db = os.path.join(tmp, "x.db")
    p = subprocess.run([binary, "analyze", "-q", "--format", "json", "--db", db, path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    try:
        rep = json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError:
        return "rc=%d (no JSON)" % p.returncode
    return json.dumps(mask(rep), sort_keys=True, indent=1)


def first_diff(a, b, where=""):
    """The path of the first key at which a and b differ."""
    if type(a) is not type(b):
        return where or "/"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return where + "/" + k
            d = first_diff(a[k], b[k], where + "/" + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return where + "[len]"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, "%s[%d]" % (where, i))
            if d:
                return d
        return None
    return None if a == b else (where or "/")


def one(args):
    old, new, path, save, src = args
    with tempfile.TemporaryDirectory() as tmp:
        name = os.path.relpath(path, src).replace("/", "__")
        if old == "-":
            a = None
        elif os.path.isdir(old):
            with open(os.path.join(old, name), encoding="utf-8") as f:
                a = f.read()
        else:
            a = run(old, path, tmp)
            os.unlink(os.path.join(tmp, "x.db")) if os.path.exists(os.path.join(tmp, "x.db")) else None
        b = run(new, path, tmp)
        if a is None:
            a = b
    if save:
        with open(os.path.join(save, name), "w", encoding="utf-8") as f:
            f.write(b)
    return path, a, b


def main(argv):
    save = None
    if "--save" in argv:
        save = argv[argv.index("--save") + 1]
        argv = argv[:argv.index("--save")] + argv[argv.index("--save") + 2:]
        os.makedirs(save, exist_ok=True)
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    old, new, src = argv[1], argv[2], argv[3]
    paths = inputs(src)
    same = differ = 0
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        for path, a, b in ex.map(one, [(old, new, p, save, src) for p in paths]):
            if a == b:
                same += 1
                continue
            differ += 1
            try:
                where = first_diff(json.loads(a), json.loads(b))
            except ValueError:
                where = "%s / %s" % (a[:40], b[:40])
            print("DIFF %s: %s" % (os.path.relpath(path, src), where))
    print("%d inputs, %d identical, %d differ" % (len(paths), same, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
