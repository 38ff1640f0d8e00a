#!/usr/bin/env python3
"""mutate_campaign.py OOMLENS [--asan ASAN_OOMLENS] [--minutes M] [--seed S]
[--out DIR] -- the mutation campaign of issue 32: mutants of the real
inputs the repository holds (tests/data/real, fixtures, fuzz/corpus) fed to
`oomlens analyze`, looking for crashes, sanitizer reports, hangs and wrong
exit codes. Not part of `make test`: run it by hand, at low priority.

Each mutant is made from one real file, seeded, by one of: flipping bytes,
cutting it short, repeating a chunk, inserting random bytes, dropping a
range, swapping two lines, or any of these wrapped in gzip. It is analyzed
(a) by OOMLENS under `ulimit -v 4 GiB` (the default budget of 1 GiB must
hold) and (b) by ASAN_OOMLENS, an ASan/UBSan build, without a ulimit (the
sanitizer reserves terabytes of shadow). A run counts as
  crash      killed by a signal, or an exit status other than 0 or 1;
  sanitizer  "ERROR: AddressSanitizer", "runtime error:" or LeakSanitizer
             on stderr;
  hang       not done in 60 s (the largest real input takes under 2 s);
  oom        "out of memory" / "cannot allocate" on stderr (the budget
             should have stopped it first).
Each failing mutant is kept in DIR with its stderr. The closing line gives
the counts; the exit status is 1 when any was found.
"""
import argparse
import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ("tests/data/real", "fixtures", "fuzz/corpus")


def inputs(limit=4 << 20):
    out = []
    for top in SOURCES:
        for dirpath, _, files in os.walk(os.path.join(HERE, top)):
            for f in files:
                p = os.path.join(dirpath, f)
                if f.endswith((".json", ".tsv", ".md", ".py")) and "corpus" not in p:
                    continue   # expectations and manifests, not evidence
                if 0 < os.path.getsize(p) <= limit:
                    out.append(p)
    return sorted(out)


def mutate(data, rng):
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:
            pass
    n = len(data)
    how = rng.choice(["flip", "cut", "repeat", "insert", "drop", "swap"])
    b = bytearray(data)
    if how == "flip" and n:
        for _ in range(rng.randint(1, 16)):
            b[rng.randrange(n)] = rng.randrange(256)
    elif how == "cut" and n:
        b = b[:rng.randrange(n)]
    elif how == "repeat" and n:
        i = rng.randrange(n)
        j = min(n, i + rng.randint(1, 4096))
        b[j:j] = b[i:j] * rng.randint(2, 200)
    elif how == "insert":
        i = rng.randrange(n + 1)
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    elif how == "drop" and n:
        i = rng.randrange(n)
        del b[i:i + rng.randint(1, 4096)]
    elif how == "swap":
        lines = bytes(b).split(b"\n")
        if len(lines) > 2:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        b = bytearray(b"\n".join(lines))
    gz = rng.random() < 0.15
    return how + ("+gz" if gz else ""), (gzip.compress(bytes(b)) if gz else bytes(b))


def run(binary, path, work, ulimit_kib):
    db = os.path.join(work, "m.db")
    for f in (db, db + "-journal"):
        if os.path.exists(f):
            os.remove(f)
    pre = "ulimit -v %d; " % ulimit_kib if ulimit_kib else ""
    cmd = pre + 'exec "$0" analyze -q --db "$1" -o "$2" "$3"'
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1")
    t = time.time()
    try:
        p = subprocess.run(["sh", "-c", cmd, binary, db, os.path.join(work, "m.json"), path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60,
                           env=env)
    except subprocess.TimeoutExpired:
        return "hang", b"", time.time() - t
    err = p.stderr
    if b"ERROR: AddressSanitizer" in err or b"runtime error:" in err or \
       b"LeakSanitizer" in err:
        return "sanitizer", err, time.time() - t
    if p.returncode not in (0, 1):
        return "crash", err, time.time() - t
    if b"out of memory" in err or b"cannot allocate" in err:
        return "oom", err, time.time() - t
    return "ok", err, time.time() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("oomlens")
    ap.add_argument("--asan")
    ap.add_argument("--minutes", type=float, default=8)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--out", default=os.path.join(HERE, "fuzz", "artifacts", "mutants"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    files = inputs()
    work = tempfile.mkdtemp(prefix="mutants.")
    # private copies: a rebuild during the campaign must not show as a crash
    for attr in ("oomlens", "asan"):
        if getattr(a, attr):
            dst = os.path.join(work, "bin-" + attr)
            shutil.copy2(getattr(a, attr), dst)
            setattr(a, attr, dst)
    counts = {"ok": 0, "crash": 0, "sanitizer": 0, "hang": 0, "oom": 0}
    seen, runs, n = set(), 0, 0
    end = time.time() + a.minutes * 60
    try:
        while time.time() < end:
            src = rng.choice(files)
            how, data = mutate(open(src, "rb").read(), rng)
            name = "m%05d-%s%s" % (n, os.path.basename(src), ".gz" if "+gz" in how else "")
            n += 1
            seen.add(src)
            path = os.path.join(work, name)
            with open(path, "wb") as f:
                f.write(data)
            for label, binary, lim in (("release", a.oomlens, 4 << 20),
                                       ("asan", a.asan, 0)):
                if not binary:
                    continue
                verdict, err, _ = run(binary, path, work, lim)
                runs += 1
                counts[verdict] += 1
                if verdict != "ok":
                    os.makedirs(a.out, exist_ok=True)
                    shutil.copy(path, os.path.join(a.out, name))
                    with open(os.path.join(a.out, name + "." + label + ".err"), "wb") as f:
                        f.write(err)
                    print("%s: %s (%s, from %s)" % (verdict, name, label,
                                                   os.path.relpath(src, HERE)), flush=True)
            os.remove(path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d mutants of %d real inputs (%d in the pool), %d runs: %s" % (
        n, len(seen), len(files), runs,
        ", ".join("%d %s" % (v, k) for k, v in counts.items())))
    return 1 if runs - counts["ok"] else 0


if __name__ == "__main__":
    sys.exit(main())
