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
        if "{" in part and "}=" in part and part.index("{") < part.index("="):
            k, v = part.split("}=", 1)     # metric{label=v,...}=value
            k += "}"
        else:
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
    "planned_total": engine_values("planned_total_bytes"),
    "cache_max_entry_count": engine_values("kv_cache_fraction"),
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
    if key == "verdict":                 # the verdict's class (issue 27: no OOM, no verdict)
        got = (rep.get("verdict") or {}).get("class")
        return (got == value, got)
    if key == "preempted":
        n = len(events_of(rep, ("preemption",)))
        return (n == int(value), n)
    if key == "engine_only":             # every instance is read as this engine (none misread)
        got = [e.get("engine") for e in engines(rep)]
        return (bool(got) and all(g == value for g in got), got)
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


# ---- tests/data/real/tools: the diagnostic tools' outputs --------------------
# What oomlens stores for these is in the events (docs/json.md "Diagnostic
# tools' events") and the series; a figure is found when any event or
# series has it (a figure that repeats is given at its last occurrence).

SUMMARY_KEYS = {
    "allocated": "allocated_bytes", "active": "active_bytes",
    "requested": "requested_bytes", "reserved": "reserved_bytes",
    "non_releasable": "inactive_split_bytes", "allocs": "allocation",
    "active_allocs": "active", "segments": "segment",
    "non_releasable_allocs": "inactive_split",
    "oversize_allocs": "oversize_allocations",
    "oversize_segments": "oversize_segments",
}
SUMMARY_COLS = {"cur": "current", "peak": "peak", "tot": "allocated"}


def summary_stat(key):
    """'allocated_peak' -> 'allocated_bytes.all.peak'; 'freed_tot' -> ...freed."""
    if key == "freed_tot":
        return "allocated_bytes.all.freed"
    base, _, col = key.rpartition("_")
    if base in SUMMARY_KEYS and col in SUMMARY_COLS:
        return "%s.all.%s" % (SUMMARY_KEYS[base], SUMMARY_COLS[col])
    return None


def num_close(value, got):
    want = parse_value(value)
    if "e" in value.lower():
        try:                        # "1.517121536e+09": a float as Python prints it
            v = float(value)
            want = (v, abs(v) * 1e-12 + 1e-12, "number")
        except ValueError:
            pass
    return want is not None and any(close(want, g) for g in got)


def top_figure(rep, field, value):
    """'aten::to:296.76 MB' against the profiler table's top_* field."""
    op, _, printed = value.rpartition(":")
    tops = [e.get(field) or {} for e in events_of(rep, ("torch_profiler_table",))]
    ok = any(t.get("operator") == op and num_close(printed, [t.get("bytes")]) for t in tops)
    return (ok, tops)


def series_with(rep, metric, selector):
    """Series named metric whose entity has every k=v of the selector."""
    want = [kv.split("=", 1) for kv in selector.split(",") if "=" in kv]
    out = []
    for s in rep.get("series") or []:
        if s.get("name") != metric:
            continue
        ent = s.get("entity") or ""
        if all(('%s="%s"' % (k, v)) in ent for k, v in want):
            out.append(s)
    return out


TOOL_EVENT_FIELDS = {
    "memray.stats": {"total_allocations": "total_allocations", "total_allocated": "total_allocated_bytes",
                     "peak": "peak_bytes", "hist_min": "hist_min_bytes", "hist_max": "hist_max_bytes",
                     "top_location_size": "top_location_bytes",
                     "top_python_location_size": "top_python_location_bytes"},
    "memray.stats_json": {"total_num_allocations": "total_allocations",
                          "total_bytes_allocated": "total_allocated_bytes", "peak": "peak_bytes",
                          "metadata_total_allocations": "metadata_total_allocations"},
    "torch.profiler.chrome_trace": {"events": "memory_events", "bytes": "largest_alloc_bytes",
                                    "total_allocated": "peak_allocated_bytes",
                                    "total_reserved": "peak_reserved_bytes",
                                    "device_id": "largest_alloc_device", "addr": "largest_alloc_addr"},
    "prometheus.exposition": {"families": "families", "samples": "samples"},
    "prometheus.query": {"series": "series", "points": "points"},
    "prometheus.query_range": {"series": "series", "points": "points", "step": "step_s"},
}
TOOL_KIND = {
    "torch.memory_summary": "torch_memory_stats", "torch.memory_stats": "torch_memory_stats",
    "torch.profiler.table": "torch_profiler_table",
    "torch.profiler.chrome_trace": "torch_profiler_trace",
    "memray.stats": "memray_stats", "memray.stats_json": "memray_stats",
    "prometheus.exposition": "metrics_scrape", "prometheus.query": "metrics_query",
    "prometheus.query_range": "metrics_query", "grafana.csv": "metrics_export",
    "nsys.stats": "nsys_stats",
}


def check_tools_row(rep, tool, key, value):
    evs = events_of(rep, (TOOL_KIND.get(tool),))
    fields = TOOL_EVENT_FIELDS.get(tool, {})
    if tool in ("torch.memory_summary", "torch.memory_stats"):
        if key == "device":
            got = [e.get("device") for e in evs]
            return (int(value) in got, got)
        if key == "tables":
            return (len(evs) == int(value), len(evs))
        if key == "layout":
            got = [e.get("form") for e in evs]
            return ("table_" + value in got, got)
        if key == "form":
            got = [e.get("form") for e in evs]
            return (value in got, got)
        if key.startswith("oom_"):
            f = {"oom_requested": "requested_bytes", "oom_currently_allocated": "allocated_bytes",
                 "oom_device_limit": "device_limit_bytes"}.get(key)
            got = [(e.get("oom") or {}).get(f) for e in evs]
            return (num_close(value, got), got) if f else None
        if key == "pair_of":
            return None
        stat = key
        if tool == "torch.memory_summary" and key not in ("num_ooms", "num_alloc_retries"):
            stat = summary_stat(key)
        if stat is None:
            return None
        got = [(e.get("stats") or {}).get(stat) for e in evs]
        return (num_close(value, got), got) if parse_value(value) else None
    if tool == "torch.profiler.table":
        if key == "rows":
            got = [e.get("rows") for e in evs]
            return (int(value) in got, got)
        if key == "units":
            got = [",".join(e.get("units") or []) for e in evs]
            return (value in got, got)
        if key == "wrapper":
            got = [e.get("wrapper") for e in evs]
            return (value in got, got)
        if key == "calls":
            got = [(e.get(f) or {}).get("calls") for e in evs
                   for f in ("top_self_device_mem", "top_device_mem", "top_cpu_mem")]
            return (int(value) in got, got)
        field = {"top_cpu": "top_cpu_mem", "top_self_cpu": "top_self_cpu_mem",
                 "top_cuda": "top_device_mem", "top_self_cuda": "top_self_device_mem",
                 "min_self_cpu": "min_self_cpu_mem"}.get(key)
        return top_figure(rep, field, value) if field else None
    if tool == "torch.profiler.chrome_trace" and key == "device_type":
        return (len(series_with(rep, "torch.allocated_bytes", "")) > 0 and value == "1",
                [s.get("entity") for s in rep.get("series") or []])
    if tool in ("memray.stats", "memray.stats_json"):
        if key in ("top_location", "top_python_location"):
            got = [e.get(key) for e in evs]
            if value == "elided":
                return (any("top_allocations_by_size" in (e.get("elided") or []) for e in evs), got)
            return (value in got, got)
        if key == "indent":
            got = [e.get("indent") for e in evs]
            return (value in got, got)
        if key == "form":
            got = [e.get("form") for e in evs]
            return ({"python_dict_of_json": "python_dict"}.get(value, value) in got, got)
        if key.startswith("allocator_"):
            got = [(e.get("allocators") or {}).get(key[10:]) for e in evs]
            return (num_close(value, got), got)
    if tool in ("prometheus.exposition", "prometheus.query", "prometheus.query_range"):
        m = re.match(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?$", key)
        if m and (":" in key or key.startswith(("container_", "DCGM_", "sglang_", "tgi_", "nv_"))):
            metric, sel = m.group(1), m.group(2) or ""
            if metric.startswith("DCGM_FI_DEV_FB_"):
                labels = dict(kv.split("=", 1) for kv in sel.split(",") if "=" in kv)
                ent = "gpu" + labels.get("gpu", "0")
                if "GPU_I_ID" in labels:      # a MIG instance is its own entity
                    ent += "/mig:" + labels["GPU_I_ID"]
                name = "gpu.free_bytes" if metric.endswith("FREE") else "gpu.used_bytes"
                got = [s.get("max") for s in rep.get("series") or []
                       if s.get("name") == name and s.get("entity") == ent]
                return (num_close(value + " MiB", got), got)
            got = [s.get("max") for s in series_with(rep, metric, sel) if s.get("points") == 1]
            return (num_close(value, got), got)
        if key in ("engine", "result_type", "query"):
            f = {"engine": "engine", "result_type": "result_type", "query": "query"}[key]
            got = [e.get(f) for e in evs]
            if key == "query" and all(g is None for g in got):
                return None       # said in prose before the answer, not in it
            return (value in got, got)
        if key == "model_name":
            got = [e.get("model") for e in evs]
            return (value in got, got)
        if key in ("value", "value_ts", "first_ts"):
            f, scale = ("value", 1) if key == "value" else ("ts_ms", 1000)
            got = [(e.get(w) or {}).get(f) for e in evs for w in ("first", "last")]
            want = parse_value(value)
            return (want is not None and any(g is not None and abs(g - want[0] * scale) <=
                                             want[1] * scale for g in got), got)
        if key == "points":
            got = [s.get("points") for s in rep.get("series") or []]
            return (int(value) in got, got)
        if key in ("first", "last_seen"):
            ts, _, v = value.partition(":")
            p = [e.get("first" if key == "first" else "last") or {} for e in evs]
            got = [(x.get("ts_ms"), x.get("value")) for x in p]
            return (any(g[0] is not None and abs(g[0] - float(ts) * 1000) < 0.5 and
                        close(parse_value(v), g[1]) for g in got), got)
        if key == "metric":
            got = [s.get("name") for s in rep.get("series") or []]
            return (value in got, got)
        if key == "sample_ts_ms":
            import datetime
            t = datetime.datetime.fromtimestamp(int(value) / 1000, datetime.timezone.utc)
            iso = t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
            got = [s.get("first_time") for s in rep.get("series") or []]
            return (iso in got, got)
    if tool == "grafana.csv":
        if key in ("layout", "first", "last"):
            got = [e.get(key) for e in evs]
            if key == "first" and "first" not in value:
                pass
            return (value in got or any(g and g.startswith(value) for g in got), got)
        if key == "sep":
            got = [e.get("sep") for e in evs]
            return (value in got, got)
        if key == "rows":
            got = [e.get("rows") for e in evs]
            return (int(value) in got, got)
        if key in ("series", "columns"):
            names = [n for e in evs for n in (e.get("series") or {})]
            want = [v for v in value.split(",") if v != "Time"]
            return (all(w in names for w in want), names)
    if tool == "nsys.stats":
        if key in ("report", "top_api"):
            got = [e.get(key) for e in evs]
            return (value in got, got)
        if key == "runs":
            got = [e.get("run") for e in evs]
            return (int(value) in got, got)
        if key == "lines":
            return None
        got = [e.get(key) for e in evs]
        if all(g is None for g in got):
            return (False, got)
        want = parse_value(value)
        return (want is not None and any(close((want[0], want[1], want[2]), g) for g in got if g is not None), got)
    if key in fields:
        got = [e.get(fields[key]) for e in evs]
        return (num_close(value, got), got)
    return None


# ---- tests/data/real/any_stack: any stack's memory failure (issue 27) --------
# The OOM events (torch_oom, mem_failure, engine_error of a memory kind)
# carry what the failure states; family and phase are the recogniser's
# reading (parsers/serving/memfail.h), asserted where the manifest gives them;
# verdict, verdict_cause and verdict_phase are the verdict's class, cause and
# phase (analyzer/rules/startup_phase.c: the phase decides with the evidence).

OOM_EVENT_KINDS = ("torch_oom", "mem_failure", "engine_error")


def oom_events(rep):
    return [e for e in events_of(rep, OOM_EVENT_KINDS)
            if e.get("kind") != "engine_error" or e.get("family") or
            e.get("error") not in ("engine_dead", "retract", "shard_cannot_start")]


ANY_NUMERIC = {
    "tried": "requested_bytes", "alloc": "requested_bytes", "buffer_bytes": "requested_bytes",
    "device": "device", "total": "total_bytes", "free": "free_bytes",
    "allocated": "allocated_bytes",
}


def check_any_stack(rep, key, value):
    """None: key not asserted; else (ok, what was found)."""
    evs = oom_events(rep)
    verdict = rep.get("verdict") or {}
    if key in ("verdict", "verdict_cause", "verdict_phase"):   # issue 27: the phase decides
        got = verdict.get({"verdict": "class", "verdict_cause": "cause",
                           "verdict_phase": "phase"}[key])
        return (got == value, got)
    if key in ("family", "phase"):
        got = [e.get(key) for e in evs]
        return (value in got, got)
    if key == "scope":                   # the first OOM's memory: gpu, host, tpu, unified, accelerator
        ooms = ((rep.get("summary") or {}).get("ooms")) or []
        got = ooms[0].get("scope") if ooms else None
        if got != value:
            return (False, got)
        # a TPU's, a Mac's or another accelerator's OOM: the first screen
        # names that memory and speaks neither of CUDA nor of nvidia-smi
        if value in ("tpu", "unified", "accelerator"):
            ans = rep.get("answer") or {}
            text = json.dumps([ans.get("what"), ans.get("fix"), ans.get("settle"),
                               (ans.get("try_first") or {}).get("advice")])
            bad = [w for w in ("CUDA", "cuda", "nvidia-smi", "GPU memory") if w in text]
            return (not bad, got if not bad else "first screen says " + ", ".join(bad))
        return (True, got)
    if key == "first_phase":
        got = evs[0].get("phase") if evs else None
        return (got == value, got)
    if key == "phase_source":            # the rule that placed the OOM row's phase (round 6)
        ooms = ((rep.get("summary") or {}).get("ooms")) or []
        got = ooms[0].get("phase_source") if ooms else None
        return (got == value, got)
    if key in ("survival", "survival_line"):   # oom.survival of the OOM row (round 10)
        ooms = ((rep.get("summary") or {}).get("ooms")) or []
        fate = (ooms[0].get("survival") or {}) if ooms else {}
        got = fate.get("state" if key == "survival" else "line")
        return (str(got) == value, got)
    if key in ("oom_total", "oom_free"):  # what the OOM row says of its memory (oom.total_bytes)
        ooms = ((rep.get("summary") or {}).get("ooms")) or []
        got = [ooms[0].get(key[len("oom_"):] + "_bytes")] if ooms else []
        return (num_close(value, got), got)
    if key == "event":                   # an event kind the file gives (not an OOM's)
        got = [e.get("kind") for e in rep.get("events") or []]
        return (value in got, got)
    if key == "exit_code":               # a container's or process's exit code
        got = [e.get("exit_code") for e in rep.get("events") or []]
        return (str(value) in [str(g) for g in got], got)
    if key == "stack":                   # the training stack the frames name (lib/vocab.h)
        got = [e.get("stack") for e in evs]
        return (value in got, got)
    if key == "what_has":                # words the answer's first sentence must hold (round 11)
        got = (rep.get("answer") or {}).get("what") or ""
        return (value in got, got)
    if key == "settle_has":              # words the answer's "what would settle it" must hold (round 13)
        got = (rep.get("answer") or {}).get("settle") or ""
        return (value in got, got)
    if key == "try_knob":                # a knob the answer names to try first (issue 27)
        tf = (rep.get("answer") or {}).get("try_first") or {}
        got = tf.get("knobs") or []
        return (value in got, got)
    if key in ANY_NUMERIC:
        got = [e.get(ANY_NUMERIC[key]) for e in evs]
        return (num_close(value, got), got)
    if key in ("asked_tokens", "available_tokens"):   # SGLang's counts, in engines[].errors
        got = [err.get(key) for e in engines(rep) for err in e.get("errors") or []
               if err.get(key) is not None]
        return (str(value) in [str(g) for g in got], got)
    if key.startswith("load_"):          # load_<field>: the oom_load row (issue 27 item 3)
        got = (rep.get("oom_load") or {}).get(key[len("load_"):])
        want = parse_value(value)
        return (got is not None and want is not None and close(want, got), got)
    if key == "engine":                  # the engine kind an instance is read as
        got = [e.get("engine") for e in engines(rep)]
        return (value in got, got)
    if key in ("advice_knob", "advice_value"):   # the knob a finding sets, and its value
        got = [(f.get("figures") or {}).get(key) for f in rep.get("findings") or []]
        got = [g for g in got if g is not None]
        if key == "advice_knob":
            return (value in got, got)
        return (num_close(value, got), got)
    if key == "advice_not":              # words no finding's advice may say (it contradicts the load)
        got = [f.get("advice") or "" for f in rep.get("findings") or []]
        return (not any(value in g for g in got), [g for g in got if value in g][:1])
    if key.startswith("finding_"):       # finding_<figure>: a figure of any finding
        want = parse_value(value)
        got = [(f.get("figures") or {}).get(key[len("finding_"):]) for f in rep.get("findings") or []]
        got = [g for g in got if g is not None]
        return (want is not None and any(close(want, g) for g in got), got)
    if key.startswith("launch_"):        # launch_<knob>: what a pasted launch command or
        import sqlite3                   # configuration states (launch.* meta, first row)
        con = sqlite3.connect(rep["_db"])
        row = con.execute("SELECT value FROM meta WHERE key = ? ORDER BY rowid LIMIT 1",
                          ("launch." + key[len("launch_"):],)).fetchone()
        con.close()
        got = row[0] if row else None
        want = parse_value(value)
        if want is None or got is None:
            return (got == value, got)
        try:
            return (close(want, float(got)), got)
        except ValueError:
            return (got == value, got)
    if key.startswith("fact_"):          # fact_<column>: an engine instance's (docs/json.md)
        want = parse_value(value)
        got = engine_values(key[len("fact_"):])(rep)
        return (want is not None and any(close(want, g) for g in got), got)
    return None


def check_healthy(rep, key, value):
    return None


def healthy_ooms(rep):
    """What in a healthy log reads as an OOM: none may."""
    evs = oom_events(rep) + events_of(rep, ("oom_kill", "oom_invoked"))
    evs += [e for e in events_of(rep, ("cuda_exception",))
            if "memory" in json.dumps(e).lower()]
    return evs


# ---- tests/data/real/k8s_logs: Kubernetes' log wrappers ------------------------
# kubectl logs --prefix ("[pod/NAME/CONTAINER] "), CRI node logs and
# --timestamps: the wrapper is taken off, the pod/container names the engine
# instance (replicas share a container name: only the pod tells them apart).

def instance_names(rep):
    """The engine instances' names without the pid/rank the engine adds."""
    return [re.sub(r" (pid|rank|TP)\s?\S+$", "", e.get("instance") or "") for e in engines(rep)]


def check_k8s_logs(rep, key, value):
    if key == "instances":
        got = len(engines(rep))
        return (got == int(value), got)
    if key == "instance":
        got = instance_names(rep)
        return (value in got, got)
    return check_serving(rep, key, value)


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_gpu_host  # noqa: E402  (tests/real_gpu_host.py: the gpu_host figures)

CHECKS = {"serving": check_serving, "tools": check_tools_row, "gpu_host": real_gpu_host.check,
          "any_stack": check_any_stack, "healthy": check_healthy, "k8s_logs": check_k8s_logs}


def run(oomlens, path, tmp):
    db = os.path.join(tmp, "x.db")
    if os.path.exists(db):
        os.unlink(db)
    p = subprocess.run([oomlens, "analyze", "-q", "--format", "json", "--db", db, path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    try:
        rep = json.loads(p.stdout.decode("utf-8", "replace"))
        rep["_db"] = db          # for checks that read what the JSON leaves out
        return rep, p.stderr.decode("utf-8", "replace")
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
    passed = failed = pending = 0
    unasserted = {}
    gaps = []
    unread = []          # gpu_host files not read: judged once the run is over
    have_engines = False
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
                    rep["_row"] = rec
                    # a file read by two line-log parsers has two artifact rows
                    sts = [a.get("status") for a in rep.get("artifacts") or []]
                    status = next((x for x in ("ok", "partial") if x in sts),
                                  sts[0] if sts else None)
                if rep and "engines" in rep:
                    have_engines = True
                if folder == "healthy":   # the negative corpus: read or not, no OOM
                    bad = healthy_ooms(rep) if rep else []
                    verdict = ((rep or {}).get("verdict") or {}).get("class")
                    if bad:
                        failed += 1
                        print("FAIL %s: a healthy log gives an OOM event: %s" %
                              (where, [(e.get("kind"), e.get("summary")) for e in bad][:3]))
                    elif verdict not in (None, "no_oom"):
                        failed += 1
                        print("FAIL %s: a healthy log gives the verdict %s" % (where, verdict))
                    else:
                        passed += 1
                    continue
                if rec.get("cause") == "no_oom" and rep:   # a thread that establishes no OOM
                    bad = healthy_ooms(rep)
                    if bad:
                        failed += 1
                        print("FAIL %s: no OOM in the thread, but an OOM event: %s" %
                              (where, [(e.get("kind"), e.get("summary")) for e in bad][:3]))
                if status not in ("ok", "partial"):
                    if folder == "gpu_host":
                        unread.append((where, rec, status, err))
                        continue
                    if "read=no" in (rec.get("figures") or ""):   # a known gap, named
                        pending += 1
                        print("PENDING %s: not read yet (read=no)" % where)
                        continue
                    failed += 1
                    print("FAIL %s: not read (status %s) %s" % (where, status, err.strip()[:200]))
                    continue
                passed += 1
                t[1] += 1
                for key, value in split_figures(rec.get("figures", "")):
                    if folder == "tools":
                        r = CHECKS[folder](rep, rec.get("tool"), key, value)
                    else:
                        r = CHECKS[folder](rep, key, value)
                    if r == "pending":   # read by a parser not in this build yet
                        pending += 1
                        continue
                    if isinstance(r, str):
                        gaps.append("%s: %s=%s (%s)" % (where, key, value, r))
                        continue
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
    for where, rec, status, err in unread:
        if real_gpu_host.unread_is_pending(rec, have_engines):
            pending += 1
            print("PENDING %s: read by the serving-engine parser, not in this build" % where)
        else:
            failed += 1
            print("FAIL %s: not read (status %s) %s" % (where, status, err.strip()[:200]))
    if by_engine:
        for eng, (files, read, figs, ok) in sorted(tally.items()):
            print("%-14s files %3d/%-3d read, figures %3d/%-3d" % (eng, read, files, ok, figs))
        files, read, figs, ok = [sum(t[i] for t in tally.values()) for i in range(4)]
        print("%-14s files %3d/%-3d read, figures %3d/%-3d" % ("all", read, files, ok, figs))
    if verbose:
        print("not asserted (descriptions): " +
              ", ".join("%s×%d" % kv for kv in sorted(unasserted.items())))
        for g in gaps:
            print("GAP " + g)
    if pending:
        print("%d files or figures pending (their parser is not in this build)" % pending)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
