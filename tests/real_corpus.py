#!/usr/bin/env python3
"""real_corpus.py -- check oomlens against the real excerpts of tests/data/real.

Each folder under tests/data/real/ has a MANIFEST.tsv: one row per excerpt
(a log pasted into a public issue thread or printed in docs, with its
source URL) and the figures a careful reader sees in it, as `key=value`
pairs written exactly as the log prints them ("14.99 GiB", "98.5%",
"0.90", "445,296"). This script runs `oomlens analyze --format json` on
every file and checks that

  - the file is read (its artifact status is ok or partial, never skipped),
  - every figure whose key it knows is in the JSON, equal to the printed
    value within half a unit of its last printed digit.

Keys it does not know are descriptions (a note, the wording, a reader's
reading) and are listed with --verbose, not asserted. Prints one line per
failure and a closing "N passed, N failed" over the files read and the
figures; exits 1 on any failure. --by-engine first prints, per engine of
the manifest, the files read and the figures passing.

usage: real_corpus.py OOMLENS SRC [--only FOLDER] [--verbose] [--by-engine] [--file NAME]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

UNITS = {
    "b": 1, "byte": 1, "bytes": 1,
    "kib": 1024, "kb": 1024, "k": 1024, "ki": 1024,
    "mib": 1024 ** 2, "mb": 1024 ** 2, "m": 1024 ** 2, "mi": 1024 ** 2,
    "gib": 1024 ** 3, "gb": 1024 ** 3, "g": 1024 ** 3, "gi": 1024 ** 3,
    "tib": 1024 ** 4, "tb": 1024 ** 4, "ti": 1024 ** 4,
}
# "GB" is GiB here: vLLM, SGLang and the kernel compute in powers of two
# and print GB/kB (see tests/data/real/serving/README.md).

NUM = re.compile(r"^\s*(-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*([A-Za-z%]*)")


def parse_value(text):
    """'14.99 GiB' -> ('num', 16095... bytes, tolerance, kind).

    kind: 'bytes', 'percent', 'ratio' (a plain number), or None for text."""
    m = NUM.match(text)
    if not m:
        return None
    digits, unit = m.group(1).replace(",", ""), m.group(2).lower()
    frac = digits.split(".")[1] if "." in digits else ""
    half = 0.5 * 10 ** (-len(frac)) if frac else 0.5
    v = float(digits)
    if unit in UNITS:
        return (v * UNITS[unit], half * UNITS[unit] + 1, "bytes")
    if unit == "%":
        return (v, half + 1e-9, "percent")
    if unit in ("", "x"):
        return (v, half + 1e-9, "number")
    return None


def close(want, got):
    if got is None:
        return False
    try:
        g = float(got)
    except (TypeError, ValueError):
        return False
    return abs(g - want[0]) <= want[1]


def split_figures(s):
    out = []
    if not s or s.strip() in ("none", ""):
        return out
    for part in s.split("; "):
        if "=" not in part:
            continue
        k, v = part.split("=", 1)
        out.append((k.strip(), v.strip()))
    return out


# ---- what the JSON says, per figure key -------------------------------------

def engines(rep):
    return rep.get("engines") or []


def engine_values(field):
    return lambda rep: [e.get(field) for e in engines(rep)]


def series_last(name, scale=1.0):
    def get(rep):
        return [s.get("last") * scale if s.get("last") is not None else None
                for s in rep.get("series") or [] if s.get("name") == name]
    return get


def events_of(rep, kinds):
    return [e for e in rep.get("events") or [] if e.get("kind") in kinds]


def torch_field(field):
    return lambda rep: [e.get(field) for e in events_of(rep, ("torch_oom",))]


# PyTorch 2.1+ prints no reserved total, only "U is reserved by PyTorch but
# unallocated": that is the figure a reader sees as "reserved" there.
NEW_WORDINGS = ("capacty_typo", "total_capacity_of_which")


def torch_reserved(rep):
    return [e.get("reserved_unallocated_bytes" if e.get("wording") in NEW_WORDINGS
                  else "reserved_bytes") for e in events_of(rep, ("torch_oom",))]


def torch_in_use(rep):
    """'Process N has X memory in use' (the manifest's torch_in_use), and
    'this process has X memory in use'."""
    return [b for e in events_of(rep, ("torch_oom",))
            for b in [p.get("bytes") for p in e.get("processes") or []] +
            [e.get("process_in_use_bytes")]]


def engine_errors(rep):
    return [x.get("kind") for e in engines(rep) for x in e.get("errors") or []]


SERVING_NUMERIC = {
    "total": engine_values("total_bytes"),
    "free": engine_values("free_bytes"),
    "requested": engine_values("requested_bytes"),
    "gpu_memory_utilization": engine_values("gpu_memory_utilization"),
    "weights": engine_values("weights_bytes"),
    "activation_peak": engine_values("activation_peak_bytes"),
    "peak_torch": engine_values("torch_peak_bytes"),
    "non_torch": engine_values("non_torch_bytes"),
    "cuda_graph": engine_values("cuda_graph_bytes"),
    "kv_cache": engine_values("kv_cache_bytes"),
    "kv_cache_tokens": engine_values("kv_cache_tokens"),
    "max_total_num_tokens": engine_values("kv_cache_tokens"),
    "max_batch_total_tokens": engine_values("kv_cache_tokens"),
    "gpu_blocks": engine_values("gpu_blocks"),
    "cpu_blocks": engine_values("cpu_blocks"),
    "max_concurrency": engine_values("max_concurrency"),
    "max_num_seqs": engine_values("max_num_seqs"),
    "max_running_requests": engine_values("max_num_seqs"),
    "max_model_len": engine_values("max_model_len"),
    "max_total_tokens": engine_values("max_model_len"),
    "max_batch_prefill_tokens": engine_values("max_batch_prefill_tokens"),
    "running": series_last("server.running"),
    "waiting": series_last("server.waiting"),
    "swapped": series_last("server.swapped"),
    "gpu_kv_usage": series_last("server.gpu_kv_usage"),
    "cpu_kv_usage": series_last("server.cpu_kv_usage"),
    "token_usage": series_last("server.gpu_kv_usage", 0.01),
    "full_token_usage": series_last("server.gpu_kv_usage", 0.01),
    "swa_token_usage": series_last("server.swa_kv_usage", 0.01),
    "cuda_memory_fraction": engine_values("gpu_memory_utilization"),
    "prefix_cache_hit_rate": series_last("server.prefix_cache_hit_rate"),
    "total_num_cumulative_preemption":
        lambda rep: [e.get("cumulative") for e in events_of(rep, ("preemption",))],
    "torch_tried": torch_field("requested_bytes"),
    "torch_total": torch_field("total_bytes"),
    "torch_free": torch_field("free_bytes"),
    "torch_allocated": torch_field("allocated_bytes"),
    "torch_reserved": torch_reserved,
    "torch_allowed": torch_field("allowed_bytes"),
    "torch_in_use": torch_in_use,
}

SERVING_TEXT = {
    "error": engine_errors,
    "version": engine_values("version"),
}


def check_serving(rep, key, value):
    """None: key not asserted; else (ok, what was found)."""
    if key == "preempted":
        n = len(events_of(rep, ("preemption",)))
        return (n == int(value), n)
    if key in SERVING_TEXT:
        got = SERVING_TEXT[key](rep)
        return (value in got, got)
    if key in SERVING_NUMERIC:
        if value.startswith("None"):
            return None           # the engine said "not set": nothing to find
        v = value[5:-1] if value.startswith("Some(") else value
        want = parse_value(v)
        if want is None:
            return None
        if key in ("token_usage", "full_token_usage", "swa_token_usage"):
            want = (want[0], want[1] + 1e-9, "number")
        got = SERVING_NUMERIC[key](rep)
        return (any(close(want, g) for g in got), got)
    return None


CHECKS = {"serving": check_serving}


def run(oomlens, path, tmp):
    db = os.path.join(tmp, "x.db")
    if os.path.exists(db):
        os.unlink(db)
    p = subprocess.run([oomlens, "analyze", "-q", "--format", "json", "--db", db, path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    try:
        return json.loads(p.stdout.decode("utf-8", "replace")), p.stderr.decode("utf-8", "replace")
    except ValueError:
        return None, p.stderr.decode("utf-8", "replace")


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in argv
    by_engine = "--by-engine" in argv
    tally = {}   # engine -> [files, read, figures, passing]
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    fonly = argv[argv.index("--file") + 1] if "--file" in argv else None
    if only in args:
        args.remove(only)
    if fonly in args:
        args.remove(fonly)
    oomlens, src = args[0], args[1]
    root = os.path.join(src, "tests", "data", "real")
    passed = failed = 0
    unasserted = {}
    with tempfile.TemporaryDirectory() as tmp:
        for folder in sorted(os.listdir(root)):
            if only and folder != only or folder not in CHECKS:
                continue
            man = os.path.join(root, folder, "MANIFEST.tsv")
            with open(man, encoding="utf-8") as f:
                rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
            head = rows[0]
            for row in rows[1:]:
                rec = dict(zip(head, row))
                name = rec["file"]
                if fonly and name != fonly:
                    continue
                rep, err = run(oomlens, os.path.join(root, folder, name), tmp)
                where = "%s/%s" % (folder, name)
                t = tally.setdefault(rec.get("engine", "?"), [0, 0, 0, 0])
                t[0] += 1
                status = None
                if rep:
                    arts = rep.get("artifacts") or []
                    status = arts[0].get("status") if arts else None
                if status not in ("ok", "partial"):
                    failed += 1
                    print("FAIL %s: not read (status %s) %s" % (where, status, err.strip()[:200]))
                    continue
                passed += 1
                t[1] += 1
                for key, value in split_figures(rec.get("figures", "")):
                    r = CHECKS[folder](rep, key, value)
                    if r is None:
                        unasserted.setdefault(key, 0)
                        unasserted[key] += 1
                        continue
                    t[2] += 1
                    if r[0]:
                        passed += 1
                        t[3] += 1
                    else:
                        failed += 1
                        print("FAIL %s: %s=%s, found %s" % (where, key, value, r[1]))
    if by_engine:
        for eng, (files, read, figs, ok) in sorted(tally.items()):
            print("%-14s files %3d/%-3d read, figures %3d/%-3d" % (eng, read, files, ok, figs))
        files, read, figs, ok = [sum(t[i] for t in tally.values()) for i in range(4)]
        print("%-14s files %3d/%-3d read, figures %3d/%-3d" % ("all", read, files, ok, figs))
    if verbose:
        print("not asserted (descriptions): " +
              ", ".join("%s×%d" % kv for kv in sorted(unasserted.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
