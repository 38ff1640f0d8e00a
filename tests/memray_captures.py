#!/usr/bin/env python3
"""memray_captures.py OOMLENS [DIR] -- oomlens' reading of the real memray
capture files against tests/data/real/tools/memray-captures.json.

The captures are not in git (tests/data/real/tools/README.md lists the
public repositories and commits they come from); DIR is where they are
(default: $OOMLENS_MEMRAY_CAPTURES, else /work/stash/memray), under the
names of the manifest's "file". Each file present is checked against its
sha256, ingested with detection into a fresh database and compared:

  - "header": what the file's header holds (version, Python version, pid,
    command line, the allocation records memray counted, the start and
    end times), read by anyone with `lz4 -dc x.bin | strings | head` and
    xxd;
  - header_allocations == total_allocations + deallocations: memray's own
    count of the allocation records against the records walked;
  - "walk" and "stats": oomlens' reading (records, RSS samples, totals,
    peak, top location), kept to catch a change.

Prints one line per file and "N passed, M failed, K skipped"; exit 1 on a
failure.
"""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True   # no __pycache__ among the fixtures
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import packed_rows  # noqa: E402  the packed blocks of `sample`

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "data", "real", "tools", "memray-captures.json")


def event(db, kind):
    row = db.execute("SELECT pid, time_ns, data FROM event WHERE kind = ?", (kind,)).fetchone()
    return None if row is None else (row[0], row[1], json.loads(row[2]))


def check(oomlens, path, want):
    errs = []
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest != want["sha256"]:
        return ["sha256 %s, not the manifest's" % digest]
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "x.db")
        r = subprocess.run([oomlens, "ingest", "-q", "--db", db_path, path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            return ["ingest exit %d: %s" % (r.returncode, r.stderr.strip())]
        db = sqlite3.connect(db_path)
        kind = db.execute("SELECT kind FROM artifact").fetchone()
        if not kind or kind[0] != "memray_capture":
            errs.append("detected as %r" % (kind,))
        cap = event(db, "memray_capture")
        stats = event(db, "memray_stats")
        if cap is None or stats is None:
            return errs + ["no memray_capture / memray_stats event"]
        pid, t_ns, c = cap
        for group, got in (("header", c), ("walk", c), ("stats", stats[2])):
            for k, v in want[group].items():
                if got.get(k) != v:
                    errs.append("%s.%s: %r, want %r" % (group, k, got.get(k), v))
        if pid != want["header"]["pid"]:
            errs.append("event pid %r" % pid)
        if t_ns != want["header"]["start_time_ms"] * 1000000:
            errs.append("event time %r" % t_ns)
        s = stats[2]
        if c["header_allocations"] != s["total_allocations"] + s["deallocations"]:
            errs.append("header counts %d allocation records, %d walked" % (
                c["header_allocations"], s["total_allocations"] + s["deallocations"]))
        n = sum(len(packed_rows.read_samples(db, r[0])) for r in db.execute(
            "SELECT id FROM series WHERE name = 'proc.rss_bytes' AND entity = ?",
            ("pid:%d" % pid,)).fetchall())
        if n != want["walk"]["rss_samples"]:
            errs.append("proc.rss_bytes pid:%d has %d samples" % (pid, n))
        top = db.execute("SELECT label FROM holder WHERE tool = 'memray' AND bytes IS NOT NULL"
                         " AND rank = 1").fetchone()
        if not top or top[0] != want["stats"]["top_location"]:
            errs.append("top holder %r" % (top,))
        bad = db.execute("SELECT count(*) FROM diagnostic WHERE severity != 'info'").fetchone()[0]
        if bad:
            errs.append("%d diagnostics" % bad)
        db.close()
    return errs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    oomlens = sys.argv[1]
    where = sys.argv[2] if len(sys.argv) > 2 else os.environ.get(
        "OOMLENS_MEMRAY_CAPTURES", "/work/stash/memray")
    manifest = json.load(open(MANIFEST))
    passed = failed = skipped = 0
    for want in manifest["captures"]:
        path = os.path.join(where, want["file"])
        if not os.path.exists(path):
            print("SKIP %s (not in %s)" % (want["file"], where))
            skipped += 1
            continue
        errs = check(oomlens, path, want)
        if errs:
            failed += 1
            print("FAIL %s: %s" % (want["file"], "; ".join(errs)))
        else:
            passed += 1
            print("ok   %s: pid %d, %d records, peak %d bytes, top %s" % (
                want["file"], want["header"]["pid"], want["walk"]["records"],
                want["stats"]["peak_bytes"], want["stats"]["top_location"]))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
