#!/usr/bin/env python3
"""servwhatif.py -- the serving what-if and the advice give one value per
knob (issue 28 item 4): for each fixture with a serving engine's
accounting and its load, the JSON report's `serving_whatif` table must
exist, its recorded setting must reproduce the OOM and its chosen row must
avoid it, and every finding that advises a knob the table chose
(figures.advice_knob / advice_value) must give the table's chosen value.
For every other fixture the same agreement holds wherever a table exists.
Prints one line per case and "N passed, M failed"; exits 1 on a failure.
Args: oomlens binary, source dir."""
import json
import os
import subprocess
import sys
import tempfile

# fixtures whose logs give the engine's accounting and its running
# requests, and whose OOM the load model explains
MUST = ["spike_gpu_vllm", "leak_gpu_vllm", "mixed_gpu_leak_spike",
        "misconfig_admitted_load_gpu", "spike_gpu_short_history"]


def analyze(oomlens, case, tmp):
    opts = []
    try:
        with open(os.path.join(case, "expected.json")) as f:
            o = json.load(f).get("options", {})
        if "tz" in o:
            opts += ["--tz", o["tz"]]
        if "year" in o:
            opts += ["--year", str(o["year"])]
    except (OSError, ValueError):
        pass
    db = os.path.join(tmp, os.path.basename(case) + ".db")
    r = subprocess.run([oomlens, "analyze", "-q", "--json", "--db", db, "-o", "-"] + opts +
                       [case], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("analyze failed: " + r.stderr.strip()[:200])
    return json.loads(r.stdout)


def check(d, must):
    rows = d.get("serving_whatif")
    if rows is None:
        return "no serving_whatif key"
    if must and not rows:
        return "serving_whatif is empty"
    chosen = {}
    for r in rows:
        if r["chosen"]:
            if r["knob"] in chosen:
                return "two chosen rows for %s" % r["knob"]
            if not r["avoided"]:
                return "chosen %s %s does not avoid the OOM" % (r["knob"], r["value"])
            chosen[r["knob"]] = r["value"]
        if r["recorded"] and r["avoided"]:
            return "the recorded %s is said to avoid the OOM" % r["knob"]
    if must and "max_num_seqs" not in chosen:
        return "no max_num_seqs chosen"
    advised = 0
    for f in d.get("findings", []):
        fig = f.get("figures") or {}
        k, v = fig.get("advice_knob"), fig.get("advice_value")
        if k in chosen and v is not None:
            if abs(float(v) - float(chosen[k])) > 1e-6:
                return "finding %s/%s advises %s %s, the what-if chose %s" % (
                    f["rule"], f["cause"], k, v, chosen[k])
            advised += 1
    if must and not advised:
        return "no finding gives the what-if's value"
    return None


def main():
    oomlens, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    fx = os.path.join(src, "fixtures")
    cases = sorted(c for c in os.listdir(fx) if os.path.isdir(os.path.join(fx, c)))
    ok = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            try:
                why = check(analyze(oomlens, os.path.join(fx, c), tmp), c in MUST)
            except (RuntimeError, ValueError, KeyError) as e:
                why = str(e)
            if why:
                bad += 1
                print("FAIL %s: %s" % (c, why))
            else:
                ok += 1
    for c in MUST:
        if c not in cases:
            bad += 1
            print("FAIL %s: fixture missing" % c)
    print("%d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
