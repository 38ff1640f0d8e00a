#!/usr/bin/env python3
"""review.py -- the review set (issue 26): does the first screen answer?

For each row of tests/data/review/cases.tsv (file, status, phrases, the
answer a careful engineer wrote from the excerpt and its thread), run
`oomlens analyze --format text` on tests/data/real/<file> and look for
every phrase (case-insensitive) in the first FIRST_SCREEN lines.

  ok           every phrase must be there, else the case fails;
  known_wrong  at least one phrase must still be missing (printed as a
               known miss); when all are there the case fails, so that it
               is marked ok and guarded from then on.

Also checks that a gzip cut in half is named on the first screen as
damaged, with what was read before the cut. Prints one line per failure
or known miss and a closing "N passed, N failed (K known wrong)"; exits 1
on any failure.

usage: review.py OOMLENS SRC
"""
import gzip
import os
import subprocess
import sys
import tempfile

FIRST_SCREEN = 25


def first_screen(oomlens, path, tmp):
    db = os.path.join(tmp, "r.db")
    if os.path.exists(db):
        os.unlink(db)
    p = subprocess.run([oomlens, "analyze", "-q", "--db", db, "--format", "text", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return "\n".join(p.stdout.decode("utf-8", "replace").split("\n")[:FIRST_SCREEN])


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    oomlens, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    passed = failed = known = 0
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(src, "tests/data/review/cases.tsv"), encoding="utf-8") as f:
            rows = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
        for row in rows:
            name, status, phrases = row[0], row[1], [p.strip() for p in row[2].split(" | ")]
            head = first_screen(oomlens, os.path.join(src, "tests/data/real", name), tmp)
            missing = [p for p in phrases if p.lower() not in head.lower()]
            if status == "ok" and missing:
                failed += 1
                print("FAIL %s: first screen lacks %s" % (name, ", ".join(map(repr, missing))))
            elif status == "known_wrong" and not missing:
                failed += 1
                print("FAIL %s: known_wrong but now answered: mark it ok" % name)
            elif status == "known_wrong":
                known += 1
                passed += 1
                print("known miss %s: lacks %s" % (name, ", ".join(map(repr, missing))))
            elif status != "ok":
                failed += 1
                print("FAIL %s: status %r is neither ok nor known_wrong" % (name, status))
            else:
                passed += 1
        # a damaged artifact: a real kernel log gzipped and cut in half
        with open(os.path.join(src, "tests/data/real/gpu_host/"
                               "kernel-oom-global-python-comma-digits.log"), "rb") as f:
            z = gzip.compress(f.read() * 4)
        d = os.path.join(tmp, "cut")
        os.mkdir(d)
        with open(os.path.join(d, "kern.log.gz"), "wb") as f:
            f.write(z[:len(z) // 2])
        head = first_screen(oomlens, d, tmp)
        want = ["Damaged artifacts:", "kern.log.gz: damaged, read in part", "before the damage"]
        miss = [w for w in want if w not in head]
        if miss:
            failed += 1
            print("FAIL cut gzip: first screen lacks %s" % ", ".join(map(repr, miss)))
        else:
            passed += 1
    print("%d passed, %d failed (%d known wrong)" % (passed, failed, known))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
