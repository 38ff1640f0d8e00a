#!/usr/bin/env python3
"""How often oomlens reads a real excerpt and names what its thread establishes.

Usage: any_stack_accuracy.py OOMLENS MANIFEST.tsv [--healthy MANIFEST.tsv]
                             [--markdown]

Each file of MANIFEST.tsv (the columns of tests/data/frozen/README.md) is
analysed alone (`oomlens analyze --format json`, in a scratch folder, never
beside the input) and compared with the row:

  read      an analysis came out with a verdict (any class);
  cause     where the thread establishes `leak`, `spike` or `misconfig`:
            the verdict's class is that cause;
  phase     where the thread names a phase other than `unknown`: the
            verdict's phase, else the first OOM row's, is that phase;
  start-up  rows whose phase is a start-up phase (load_weights, profile,
            kv_alloc, graph_capture, warmup) and whose analysis holds an
            OOM row: named misconfig with that phase. A row whose thread
            establishes a leak or a spike is not a start-up OOM in the
            issue's sense ("before any request was served"): a model
            reloaded after serving fails in load_weights yet is a leak.

Where the manifest has a `phase_from` column (set 5 on: `log` when the
excerpt itself shows the phase, `prose` when only the thread's words do),
phase and start-up are also counted for the `log` rows alone, the part a
reader of the log can be asked to get; and read is also given over the
rows marked `expected_read` `yes`.

Where it has a `cause_from` column (set 6 on: `log` when the files
themselves hold the figures that show the cause -- the knob's value in
a pasted command or config beside the failure, growth across pastes,
the load at the failure -- `prose` when only the thread's words do),
cause is also counted for the `log` rows alone.

A row's `file` may name a folder (set 6 on: one incident, each paste of
its thread a file, as an SRE would hand them over); it is analysed whole.

With --healthy, each file of that manifest must give no OOM row and no
verdict other than `no_oom` (or not be read at all).

This script only measures: it prints counts and the misses, one line
each, and exits 0. It is how bench/ACCURACY.md's any-stack figures are
made, so that the held-out set is measured the same way each time.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

STARTUP = ("load_weights", "profile", "kv_alloc", "graph_capture", "warmup")
CAUSES = ("leak", "spike", "misconfig")


def analyse(oomlens, path, scratch):
    """(report dict or None, first stderr line)."""
    out = os.path.join(scratch, "r.json")
    db = os.path.join(scratch, "r.db")   # else NAME.db lands in the cwd, and a
    for f in (out, db):                  # second run reads "an earlier run's"
        if os.path.exists(f):
            os.unlink(f)
    p = subprocess.run([oomlens, "analyze", "--format", "json", "--db", db, "-o", out, path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=120)
    err = (p.stderr.strip().splitlines() or [""])[0]
    try:
        with open(out) as f:
            return json.load(f), err
    except (OSError, ValueError):
        return None, err


def rows(manifest):
    with open(manifest, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def first_oom(rep):
    ooms = (rep.get("summary") or {}).get("ooms") or []
    return ooms[0] if ooms else None


def measure(oomlens, manifest, scratch):
    base = os.path.dirname(manifest)
    n = {"files": 0, "read": 0, "cause": 0, "cause_right": 0, "phase": 0,
         "phase_right": 0, "startup": 0, "startup_right": 0, "expected": 0,
         "expected_read": 0, "log_phase": 0, "log_phase_right": 0,
         "log_startup": 0, "log_startup_right": 0, "has_from": 0,
         "has_cause_from": 0, "log_cause": 0, "log_cause_right": 0}
    misses = []
    for row in rows(manifest):
        name = row["file"]
        rep, err = analyse(oomlens, os.path.join(base, name), scratch)
        n["files"] += 1
        v = (rep or {}).get("verdict") or {}
        oom = first_oom(rep) if rep else None
        cls, vphase = v.get("class"), v.get("phase")
        phase = vphase if vphase and vphase != "unknown" else (oom or {}).get("phase")
        from_log = row.get("phase_from") == "log"
        n["has_from"] += "phase_from" in row
        n["has_cause_from"] += "cause_from" in row
        cause_log = row.get("cause_from") == "log"
        expected = row.get("expected_read", "yes") == "yes"
        n["expected"] += expected
        if rep and cls:
            n["read"] += 1
            n["expected_read"] += expected
        else:
            misses.append((name, "not read: " + (err or "no report")))
        want_cause, want_phase = row.get("cause", "unknown"), row.get("phase", "unknown")
        if want_cause in CAUSES:
            n["cause"] += 1
            n["log_cause"] += cause_log
            if cls == want_cause:
                n["cause_right"] += 1
                n["log_cause_right"] += cause_log
            else:
                misses.append((name, "cause %s, thread %s" % (cls, want_cause)))
        if want_phase not in ("", "unknown", "none"):
            n["phase"] += 1
            n["log_phase"] += from_log
            if phase == want_phase:
                n["phase_right"] += 1
                n["log_phase_right"] += from_log
            else:
                misses.append((name, "phase %s, thread %s" % (phase, want_phase)))
        if want_phase in STARTUP and oom and want_cause not in ("leak", "spike"):
            n["startup"] += 1
            n["log_startup"] += from_log
            if cls == "misconfig" and phase == want_phase:
                n["startup_right"] += 1
                n["log_startup_right"] += from_log
            else:
                misses.append((name, "start-up OOM named %s/%s" % (cls, phase)))
    return n, misses


def measure_healthy(oomlens, manifest, scratch):
    base = os.path.dirname(manifest)
    n, bad = 0, []
    for row in rows(manifest):
        rep, _ = analyse(oomlens, os.path.join(base, row["file"]), scratch)
        n += 1
        if not rep:
            continue
        cls = (rep.get("verdict") or {}).get("class")
        if first_oom(rep) or cls not in (None, "no_oom"):
            bad.append((row["file"], "healthy log gives %s with %s" %
                        (cls, "an OOM row" if first_oom(rep) else "no OOM row")))
    return n, bad


def pct(a, b):
    return "%d of %d (%.0f %%)" % (a, b, 100.0 * a / b) if b else "0 of 0"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    oomlens, manifest = os.path.abspath(argv[1]), argv[2]
    healthy = argv[argv.index("--healthy") + 1] if "--healthy" in argv else None
    md = "--markdown" in argv
    with tempfile.TemporaryDirectory(prefix="oomlens-acc-") as scratch:
        n, misses = measure(oomlens, manifest, scratch)
        hn, hbad = measure_healthy(oomlens, healthy, scratch) if healthy else (0, [])
    b = "- " if md else ""
    print("%s%s: %d files" % (b, manifest, n["files"]))
    print("%sread: %s" % (b, pct(n["read"], n["files"])))
    if n["expected"] != n["files"]:
        print("%sread, of those meant to be read: %s" % (b, pct(n["expected_read"], n["expected"])))
    print("%scause, where the thread establishes one: %s" % (b, pct(n["cause_right"], n["cause"])))
    print("%sphase, where the thread names one: %s" % (b, pct(n["phase_right"], n["phase"])))
    print("%sstart-up OOMs named misconfig with their phase: %s" %
          (b, pct(n["startup_right"], n["startup"])))
    if n["has_from"]:
        print("%sphase, where the excerpt itself shows it: %s" %
              (b, pct(n["log_phase_right"], n["log_phase"])))
        print("%sstart-up OOMs named misconfig with their phase, phase in the excerpt: %s" %
              (b, pct(n["log_startup_right"], n["log_startup"])))
    if n["has_cause_from"]:
        print("%scause, where the files themselves show it: %s" %
              (b, pct(n["log_cause_right"], n["log_cause"])))
    if healthy:
        print("%shealthy logs with no OOM and no verdict: %s" % (b, pct(hn - len(hbad), hn)))
    for name, why in misses + hbad:
        print("%smiss %s: %s" % ("  - " if md else "", name, why))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
