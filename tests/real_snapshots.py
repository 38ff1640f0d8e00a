#!/usr/bin/env python3
"""real_snapshots.py OOMLENS [DIR] -- oomlens' holders of the real PyTorch
snapshots against the independent oracle's (tests/data/real/snapshots).

The pickles are not in git (see tests/data/real/snapshots/README.md); DIR is
where they are (default: $OOMLENS_REAL_SNAPSHOTS, else
tests/data/real/snapshots/files). Each file present is ingested into a
fresh database and compared with FIGURES.json:

  - at the snapshot, per device: the top holder's bytes, allocations and
    user's frame (oracle: top_holder_by_device), and across devices the
    top five holders' bytes and frames (oracle: holders, which groups all
    devices together);
  - at the peak, per traced device: the peak's bytes and trace index, and
    the top five holders alive then (oracle: devices_traced[d]);
  - at the OOM: the live bytes and the top holder;
  - the verdict (issue 25): `no_oom` exactly when the pickle records no
    OOM (no trace entry with action 'oom', read here with the oracle's
    restricted unpickler, never from oomlens), an OOM class otherwise.

A frame is "file:line name", or None when the holder has no user's frame:
a frame oomlens names must be the oracle's, never one it made up. Prints
one line per file and "N passed, M failed, K skipped"; exit 1 on a failure.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, "data", "real", "snapshots")
TOP = 5
sys.path.insert(0, REAL)
import oracle  # noqa: E402  (tests/data/real/snapshots/oracle.py)


def records_oom(path):
    """True when the pickle itself records an OOM: a trace entry whose
    action is 'oom' on any device (PyTorch writes one when an allocation
    fails while recording)."""
    snap, _form, _proto = oracle.load(path)
    for trace in snap.get("device_traces") or []:
        for e in trace or []:
            if isinstance(e, dict) and e.get("action") == "oom":
                return True
    return False


def frame_of(row):
    if row["frame_file"] is None:
        return None
    return "%s:%s %s" % (row["frame_file"], row["frame_line"], row["frame_name"])


def holders(db, scope, device=None):
    q = ("SELECT * FROM holder WHERE tool = 'torch_snapshot' AND scope = ?"
         + (" AND device = ?" if device is not None else "") + " ORDER BY device, rank")
    args = (scope,) if device is None else (scope, device)
    return [dict(r) for r in db.execute(q, args)]


def across_devices(rows):
    """Rows of every device summed by (kind, stack), ranked as the oracle."""
    acc = {}
    for r in rows:
        k = (r["kind"], r["stack_id"])
        a = acc.setdefault(k, {"bytes": 0, "allocations": 0, "frame": frame_of(r)})
        a["bytes"] += r["bytes"]
        a["allocations"] += r["allocations"]
    return sorted(acc.values(), key=lambda a: (-a["bytes"], -a["allocations"], str(a["frame"])))


def same(mine, oracle, what, errs, count=True):
    if mine is None or oracle is None:
        if mine is not oracle:
            errs.append("%s: oomlens %s, oracle %s" % (what, mine, oracle))
        return
    got = (mine["bytes"], mine["allocations"] if count else None, mine["frame"])
    want = (oracle["bytes"], oracle["allocations"] if count else None, oracle["frame"])
    if got != want:
        errs.append("%s: oomlens %s, oracle %s" % (what, got, want))


def check(oomlens, path, fig):
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        dbp = os.path.join(tmp, "x.db")
        out = os.path.join(tmp, "x.json")
        subprocess.run([oomlens, "analyze", "-q", "--json", "--db", dbp, "-o", out, path],
                       check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with open(out, encoding="utf-8") as f:
                cls = (json.load(f).get("verdict") or {}).get("class")
        except (OSError, ValueError):
            cls = None
        oom = records_oom(path)
        if oom and cls in (None, "no_oom"):
            errs.append("verdict: %s, but the pickle records an OOM" % cls)
        if not oom and cls != "no_oom":
            errs.append("verdict: %s, but the pickle records no OOM (expected no_oom)" % cls)
        db = sqlite3.connect(dbp)
        db.row_factory = sqlite3.Row
        snap = holders(db, "snapshot")
        for dev, want in fig["top_holder_by_device"].items():
            mine = [r for r in snap if r["device"] == int(dev)]
            top = mine[0] if mine else None
            same(top and dict(top, frame=frame_of(top)), want,
                 "snapshot dev%s top" % dev, errs)
        mine = across_devices(snap)[:TOP]
        for i, want in enumerate(fig["holders"][:TOP]):
            same(mine[i] if i < len(mine) else None, want, "snapshot #%d" % (i + 1), errs)
        rec = db.execute("SELECT recording FROM snapshot").fetchone()[0]
        rec = json.loads(rec) if rec else {}
        devs = {str(d["device"]): d for d in rec.get("devices", [])}
        for dev, want in fig["devices_traced"].items():
            d = devs.get(dev)
            if not d:
                errs.append("dev%s: no replay" % dev)
                continue
            if (d["peak_bytes"], d["peak_seq"]) != (want["peak"], want["peak_index"]):
                errs.append("dev%s peak: oomlens %s@%s, oracle %s@%s" % (
                    dev, d["peak_bytes"], d["peak_seq"], want["peak"], want["peak_index"]))
            mine = [dict(r, frame=frame_of(r)) for r in holders(db, "peak", int(dev))]
            for i, w in enumerate(want["holders_at_peak"][:TOP]):
                same(mine[i] if i < len(mine) else None, w, "dev%s peak #%d" % (dev, i + 1), errs)
            if "oom" in want:
                o = d.get("oom") or {}
                if o.get("live_bytes") != want["oom"]["live"] or o.get("seq") != want["oom"]["index"]:
                    errs.append("dev%s oom: oomlens %s@%s, oracle %s@%s" % (
                        dev, o.get("live_bytes"), o.get("seq"), want["oom"]["live"],
                        want["oom"]["index"]))
                mine = [dict(r, frame=frame_of(r)) for r in holders(db, "oom", int(dev))]
                same(mine[0] if mine else None, want["oom"]["holders"][0], "dev%s oom top" % dev,
                     errs)
        db.close()
    return errs


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    oomlens = os.path.abspath(sys.argv[1])
    d = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("OOMLENS_REAL_SNAPSHOTS",
                                                             os.path.join(REAL, "files"))
    with open(os.path.join(REAL, "FIGURES.json"), encoding="utf-8") as f:
        figures = json.load(f)
    passed = failed = skipped = 0
    for name in sorted(figures):
        path = os.path.join(d, name)
        if not os.path.exists(path):
            skipped += 1
            continue
        errs = check(oomlens, path, figures[name])
        print(("ok   " if not errs else "FAIL ") + name)
        for e in errs:
            print("     " + e)
        passed += not errs
        failed += bool(errs)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
