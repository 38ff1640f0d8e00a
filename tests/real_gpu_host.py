"""real_gpu_host.py -- the figures of tests/data/real/gpu_host, checked.

Imported by real_corpus.py (CHECKS["gpu_host"]). Each MANIFEST.tsv row
names the source kind of its excerpt (torch_oom, nvidia_smi, dcgm,
kernel_xid, kernel_oom, k8s, earlyoom, systemd_oomd, slurm, nccl, cublas)
and the figures a careful reader sees in it; check(rep, key, value) finds
each one in what `oomlens analyze --format json` printed (rep), and in the
incident database where the JSON does not carry it (rep["_db"]: the meta
of an artifact and the samples of a series; the JSON's `meta` holds only
incident-wide keys and its `series` only min and max).

check returns None for a figure it does not assert, else (ok, found).
Not asserted, by design (tests/data/real/gpu_host/README.md):
  - a reader's interpretation or a description: reading, wording of a
    Slurm line, note, section, unit, victim (when "not printed");
  - a value written as unknown ("unknown", "unknown (...)");
  - GAPS: figures oomlens does not read, each with the reason.
The nccl and cublas excerpts are read by the serving-engine parser (its
`engines[].errors`); while that parser's JSON is not in the build (no
`engines` key), their figures are PENDING, counted apart.
"""
import re
import sqlite3
import sys
import os

sys.dont_write_bytecode = True   # no __pycache__ among the fixtures
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import packed_rows  # noqa: E402  the packed blocks of `sample`

UNITS = {
    "b": 1, "byte": 1, "bytes": 1, "k": 1024, "kb": 1024, "kib": 1024, "ki": 1024,
    "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "mi": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "gi": 1 << 30,
    "t": 1 << 40, "tib": 1 << 40, "ti": 1 << 40,
}
NUM = re.compile(r"^\s*(-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*([A-Za-z%]*)")

# Figures oomlens does not read, and why (printed with --verbose).
GAPS = {
    ("kernel-oom-tasks-state-rss-split.log", "pages_reserved"):
        "show_mem's page totals before a task dump whose report start was cut off: "
        "the kernel parser's line filter passes no pattern for them",
    ("kernel-oom-tasks-state-rss-split.log", "pages_hwpoisoned"):
        "as pages_reserved",
    ("slurm-oom-kill-plural-snakemake.log", "mem_mb"):
        "snakemake's resources line (the workflow's request), not a Slurm line",
}

DESCRIPTIONS = {"reading", "note", "section", "unit", "wording_slurm", "victim", "qos_note"}


def value_of(text):
    """'14.99 GiB' -> (bytes or number, tolerance) or None. K8s 'Mi' and
    systemd 'M' are binary like 'MiB'."""
    m = NUM.match(text)
    if not m:
        return None
    digits, unit = m.group(1).replace(",", ""), m.group(2).lower()
    frac = digits.split(".")[1] if "." in digits else ""
    half = 0.5 * 10 ** (-len(frac)) if frac else 0.5
    v = float(digits)
    if unit in UNITS:
        return (v * UNITS[unit], half * UNITS[unit] + 1)
    if unit in ("", "%", "s"):
        return (v, half + 1e-9)
    return None


def close(want, got):
    try:
        return got is not None and abs(float(got) - want[0]) <= want[1]
    except (TypeError, ValueError):
        return False


def bytes_close(text, got):
    w = value_of(text)
    return w is not None and close(w, got)


def strip_note(v):
    """'0x14080c0(GFP_KERNEL|__GFP_ZERO) (split by terminal wrap)' -> the
    value without its parenthesised remark (a remark follows a blank)."""
    return re.sub(r"\s+\(.*\)\s*$", "", v).strip()


def events(rep, *kinds):
    return [e for e in rep.get("events") or [] if e.get("kind") in kinds]


def db_rows(rep, sql, args=()):
    db = rep.get("_db")
    if not db:
        return []
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def meta(rep):
    """Every meta row of the file's artifacts: [(key, value)]."""
    return db_rows(rep, "SELECT key, value FROM meta ORDER BY rowid")


def meta_values(rep, key):
    return [v for k, v in meta(rep) if k == key]


def samples(rep, name, entity=None):
    """The values of the series named name (of that entity, when given),
    read from their packed blocks (fixtures/packed_rows.py)."""
    db = rep.get("_db")
    if not db:
        return []
    con = sqlite3.connect(db)
    try:
        ids = [r[0] for r in con.execute("SELECT id FROM series WHERE name = ?"
                                         + (" AND entity = ?" if entity is not None else "")
                                         + " ORDER BY id",
                                         (name,) if entity is None else (name, entity))]
        return [r[3] for sid in ids for r in packed_rows.read_samples(con, sid)]
    finally:
        con.close()


def series_entities(rep, name):
    return [s.get("entity") for s in rep.get("series") or [] if s.get("name") == name]


def field_is(evs, key, value):
    got = [e.get(key) for e in evs]
    return (value in got, got)


def field_close(evs, key, text):
    got = [e.get(key) for e in evs]
    return (any(bytes_close(text, g) for g in got), got)


def row_figures(rep):
    row = rep.get("_row") or {}
    return [tuple(p.split("=", 1)) for p in (row.get("figures") or "").split("; ") if "=" in p]


def row_file(rep):
    return (rep.get("_row") or {}).get("file", "")


# ---- torch_oom ---------------------------------------------------------

TORCH_FIELD = {
    "tried": "requested_bytes", "total": "total_bytes", "free": "free_bytes",
    "allocated": "allocated_bytes", "reserved": "reserved_bytes",
    "reserved_unallocated": "reserved_unallocated_bytes",
    "private_pools": "private_pools_bytes", "non_pytorch": "process_in_use_bytes",
}


def check_torch(rep, key, value):
    evs = events(rep, "torch_oom")
    if key in TORCH_FIELD:
        return field_close(evs, TORCH_FIELD[key], value)
    if key == "allowed":
        w = value_of(value)
        if w and w[0] >= 2 ** 63:     # SIZE_MAX: PyTorch's "no fraction set" -> null
            return field_is(evs, "allowed_bytes", None)
        return field_close(evs, "allowed_bytes", value)
    if key == "device":
        m = re.search(r"(\d+)$", value)
        return field_is(evs, "device", int(m.group(1))) if m else None
    if key == "process":
        pid, size = value.split(":", 1)
        got = [(p.get("pid"), p.get("bytes")) for e in evs for p in e.get("processes") or []]
        return (any(p == int(pid) and bytes_close(size, b) for p, b in got), got)
    if key == "wording":
        return field_is(evs, "wording", value)
    return None


# ---- nvidia_smi and dcgm -----------------------------------------------

def gpu_indexes(rep):
    idx = set()
    for k, _ in meta(rep):
        m = re.match(r"gpu\.(?:name|pci_bus_id|total_bytes)\.gpu(\d+)$", k)
        if m:
            idx.add(int(m.group(1)))
    for s in rep.get("series") or []:
        m = re.match(r"gpu(\d+)(?:/|$)", s.get("entity") or "")
        if m and (s.get("name") or "").startswith("gpu."):
            idx.add(int(m.group(1)))
    return idx


def check_nvidia_smi(rep, key, value):
    if key == "driver":
        got = meta_values(rep, "cuda.driver_version")
        return (value in got, got)
    if key == "cuda":
        got = meta_values(rep, "cuda.version")
        return (value in got, got)
    if key == "gpus":
        n = int(re.match(r"\d+", value).group(0))
        got = sorted(gpu_indexes(rep))
        return (len(got) == n, got)
    m = re.match(r"gpu(\d+)_(used|total)$", key)
    if m:
        ent, name = "gpu" + m.group(1), "gpu.%s_bytes" % m.group(2)
        got = samples(rep, name, ent)
        if value == "Not Supported":       # no size printed: no sample, never 0
            return (got == [] and int(m.group(1)) in gpu_indexes(rep), got)
        return (any(bytes_close(value, g) for g in got), got)
    if key == "proc":
        mm = re.match(r"(\d+):(.*):(\S+)(?:\s+\((gpu\d+)\))?$", value)
        pid, pname, size, gpu = mm.groups()
        ents = [e for e in series_entities(rep, "gpu.proc_used_bytes")
                if e.endswith("/pid:" + pid) and (gpu is None or e.startswith(gpu + "/"))]
        ok = any(any(bytes_close(size, v) for v in samples(rep, "gpu.proc_used_bytes", e)) and
                 pname in meta_values(rep, "gpu.proc_name." + e) for e in ents)
        return (ok, ents)
    return None


DCGM_SERIES = {
    "DCGM_FI_DEV_FB_USED": ("gpu.used_bytes", 1 << 20),
    "DCGM_FI_DEV_FB_FREE": ("gpu.free_bytes", 1 << 20),
    "DCGM_FI_DEV_FB_TOTAL": ("gpu.total_bytes", 1 << 20),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("gpu.gr_engine_active", 1),
}


def check_dcgm(rep, key, value):
    metric = dict(row_figures(rep)).get("metric")
    name, mult = DCGM_SERIES.get(metric, (None, 1))
    if key == "metric":
        return (name is not None and bool(series_entities(rep, name)), metric)
    ents = series_entities(rep, name)
    if key == "series":
        return (len(ents) == int(value), ents)
    if key == "gpus":
        want = ["gpu" + g for g in value.split(",")]
        return (all(any(e == w or e.startswith(w + "/") for e in ents) for w in want), ents)
    if key in ("value", "gpu0_value"):
        got = samples(rep, name, "gpu0") if key == "gpu0_value" else samples(rep, name)
        v = float(value)
        return (any(abs(g - v * mult) <= 0.5 * mult for g in got), got)
    if key == "mig_profile":
        got = [v for k, v in meta(rep) if k.startswith("gpu.mig_profile.")]
        return (value in got, got)
    if key in ("pod", "container", "namespace"):
        keys = [k[len("k8s.pod_gpu."):].split("/") for k, _ in meta(rep)
                if k.startswith("k8s.pod_gpu.")]
        col = {"namespace": 0, "pod": 1, "container": 2}[key]
        got = [k[col] for k in keys if len(k) == 3]
        return (value in got, got)
    return None


# ---- kernel -----------------------------------------------------------

def check_xid(rep, key, value):
    evs = events(rep, "gpu_xid")
    if key == "xid":
        if value.startswith("none"):
            return (any(e.get("xid") is None and e.get("off_bus") for e in evs),
                    [e.get("xid") for e in evs])
        return field_is(evs, "xid", int(value))
    if key == "pci":
        got = [e.get("pci") or "" for e in evs]
        return (all(any(g.startswith(p) or p.startswith(g) and g for g in got)
                    for p in value.split(",")), got)
    if key == "pid":
        pid, _, name = value.partition(":")
        got = [(e.get("pid"), e.get("comm")) for e in evs]
        return (any(p == int(pid) and (not name or c == name) for p, c in got), got)
    if key == "name":
        return field_is(evs, "comm", value)
    if key == "caused_by":
        got = [e.get("caused_by") for e in evs]
        return (all(int(c) in got for c in value.split(",")), got)
    return None


KILL_KB = {"total-vm": "total_vm_kb", "shmem-rss": "shmem_rss_kb"}
MEMCG = {"memcg_usage": "memcg_usage_kb", "memcg_limit": "memcg_limit_kb",
         "memcg_failcnt": "memcg_failcnt", "memsw_usage": "memsw_usage_kb",
         "kmem_usage": "kmem_usage_kb", "swap_usage": "swap_usage_kb",
         "swap_limit": "swap_limit_kb", "swap_failcnt": "swap_failcnt"}


def kb_text(v):
    """'60356340kB' -> its kB as a number text ('60356340')."""
    return strip_note(v).replace(",", "").rstrip("kB").rstrip("k")


def check_kernel_oom(rep, key, value):
    kills = events(rep, "oom_kill")
    inv = events(rep, "oom_invoked")
    mem = inv + events(rep, "mem_info")
    v = strip_note(value)
    if v.startswith("unknown"):
        return None
    if key == "victim_pid":
        return field_is(kills, "pid", int(v))
    if key == "victim_comm":
        if "(invoking task)" in value:
            return field_is(inv, "comm", v)
        return field_is(kills, "comm", v)
    if key == "victim_rss":
        m = re.match(r"anon-rss:([\d,]+)kB\+file-rss:([\d,]+)kB", v)
        a, f = (int(x.replace(",", "")) for x in m.groups())
        got = [(e.get("anon_rss_kb"), e.get("file_rss_kb")) for e in kills]
        return ((a, f) in got, got)
    if key in KILL_KB:
        return field_is(kills, KILL_KB[key], int(kb_text(v)))
    if key == "victims":
        got = [e.get("pid") for e in kills]
        return (all(int(p) in got for p in v.split(",")), got)
    if key == "constraint":
        want = v.lower().replace("constraint_", "")
        got = [e.get("constraint") for e in kills + inv]
        return (want in got, got)
    if key in MEMCG:
        n = int(kb_text(v))
        want = None if key.endswith("_limit") and n >= 1 << 52 else n   # unlimited
        return field_is(inv, MEMCG[key], want)
    if key == "order":
        return field_is(inv, "order", int(v))
    if key == "gfp_mask":
        m = re.match(r"(0x[0-9a-f]+)\((.*)\)$", v)
        got = [(e.get("gfp_mask"), e.get("gfp_flags")) for e in inv]
        return ((m.group(1), m.group(2)) in got, got)
    if key == "oom_score_adj":
        return field_is(kills if kills else inv, "oom_score_adj", int(v))
    if key == "invoking_comm":
        return field_is(inv, "comm", v)
    if key == "pid":
        return field_is(inv, "pid", int(v))
    if key == "uid":
        got = [(e.get("invoker") or {}).get("uid") for e in events(rep, "oom_no_kill") + kills]
        return (int(v) in got, got)
    if key == "cpuset":
        return field_is(inv, "cpuset", v)
    if key == "oom_memcg":
        return field_is(kills + inv, "oom_memcg", v)
    if key == "chosen":                  # pre-5.1 "Kill process N (c) score S": pid:comm:score
        pid, comm, score = (v.split(":") + ["", ""])[:3]
        got = [(e.get("selected_pid"), e.get("selected_comm"), e.get("selected_score"))
               for e in kills + inv]
        return (any(p == int(pid) and (not comm or c == comm) and (not score or sc == int(score))
                    for p, c, sc in got), got)
    if key == "answer_says":             # words the first screen's what-happened holds
        got = (rep.get("answer") or {}).get("what") or ""
        return (v in got, got)
    if key == "limit_hit":               # cgroup v1: memory or memsw (rules/kernel.c)
        got = [(f.get("figures") or {}).get("memcg_limit_hit") for f in rep.get("findings") or []]
        return (v in got, got)
    if key == "memsw_limit":
        n = int(kb_text(v))
        return field_is(inv, "memsw_limit_kb", None if n >= 1 << 52 else n)
    if key == "memsw_failcnt":
        return field_is(inv, "memsw_failcnt", int(v))
    if key == "memcg":
        return field_is(inv, "memcg_stats_path", v)
    if key in ("anon", "file"):
        got = [(e.get("memcg_stats") or {}).get(key) for e in inv]
        return (int(v) in got, got)
    if key in ("active_anon", "inactive_anon", "free", "free_cma"):
        got = [(e.get("mem_info_pages") or {}).get(key) for e in mem]
        return (int(v) in got, got)
    if key == "dma_free":
        got = [z.get("free_kb") for e in mem for z in e.get("zones") or []
               if z.get("zone") == "DMA"]
        return (int(kb_text(v)) in got, got)
    if key == "columns":
        cols = {"pid": "pid", "uid": "uid", "tgid": "tgid", "total_vm": "total_vm_pages",
                "rss": "rss_pages", "rss_anon": "rss_anon_pages", "rss_file": "rss_file_pages",
                "rss_shmem": "rss_shmem_pages", "pgtables_bytes": "pgtables_bytes",
                "swapents": "swapents", "oom_score_adj": "oom_score_adj", "name": "name"}
        tasks = [t for o in rep.get("oom_tasks") or [] for t in o.get("tasks") or []]
        ok = bool(tasks) and all(c in cols and t.get(cols[c]) is not None
                                 for t in tasks for c in v.split(","))
        return (ok, len(tasks))
    return None


# ---- Kubernetes ----------------------------------------------------------

def check_k8s(rep, key, value):
    evs = events(rep, "k8s_oom_kill", "k8s_eviction")
    kills = events(rep, "k8s_oom_kill")
    ev = events(rep, "k8s_eviction")
    conts = [c for e in ev for c in e.get("containers") or []]
    v = strip_note(value)
    if v.startswith("unknown") or key == "victim":
        return None
    if key == "reason":
        return field_is(evs, "reason", v)
    if key == "count":
        reason = dict(row_figures(rep)).get("reason")
        n = len([e for e in evs if e.get("reason") == reason])
        return (n == int(v), n)
    if key == "exit_code":
        return field_is(kills, "exit_code", int(v))
    if key == "restart_count":
        return field_is(kills, "restart_count", int(v))
    if key == "limit":
        ok = field_close(kills, "limit_bytes", v)
        return (ok[0] and any(bytes_close(v, m) for m in meta_values(rep, "cgroup.max_bytes")),
                ok[1])
    if key == "request":
        if ev:
            got = [c.get("request_bytes") for c in conts]
            return (any(bytes_close(v, g) for g in got), got)
        return field_close(kills, "request_bytes", v)
    if key == "state":
        return field_is(kills, "last_state", not value.startswith("Terminated (current"))
    if key == "container":
        name, _, size = v.partition(":")
        if ev:
            got = [(c.get("name"), c.get("usage_bytes")) for c in conts]
            return (any(n == name and (not size or bytes_close(size, u)) for n, u in got), got)
        return field_is(kills, "container", name)
    if key == "using":
        got = [c.get("usage_bytes") for c in conts]
        return (any(bytes_close(v, g) for g in got), got)
    if key == "threshold":
        return field_close(ev, "threshold_bytes", v)
    if key == "available":
        return field_close(ev, "available_bytes", v)
    if key == "condition":
        return field_is(ev, "condition", v)
    if key == "qos":
        return field_is(evs, "qos_class", v)
    if key == "phase":
        return field_is(evs, "phase", v)
    if key == "node":
        return field_is(evs, "node", v)
    if key == "pod":
        ns, _, pod = v.rpartition("/")
        got = [(e.get("namespace"), e.get("pod")) for e in evs]
        return ((ns or None, pod) in got if ns else pod in [p for _, p in got], got)
    if key in ("victim_pid", "victim_process", "victim_comm"):
        f = "pid" if key == "victim_pid" else "comm"
        return field_is(kills, f, int(v) if f == "pid" else v)
    if key == "victim_rss":
        m = re.match(r"anon-rss:(\d+)kB\+file-rss:(\d+)kB", v)
        got = [(e.get("anon_rss_kb"), e.get("file_rss_kb")) for e in kills]
        return ((int(m.group(1)), int(m.group(2))) in got, got)
    if key == "total-vm":
        return field_is(kills, "total_vm_kb", int(kb_text(v)))
    if key == "oom_score_adj":
        return field_is(kills, "oom_score_adj", int(v))
    return None


# ---- userspace killers ---------------------------------------------------

def pairs(rep, a, b):
    """The figures a, b of the row in order, paired ("killed_pid=..;
    killed_name=.." as they come)."""
    out, cur = [], {}
    for k, val in row_figures(rep):
        if k in (a, b):
            cur[k] = val
            if a in cur and b in cur:
                out.append((cur[a], cur[b]))
                cur = {}
    return out


def check_earlyoom(rep, key, value):
    kills = [e for e in events(rep, "userspace_kill") if e.get("killer") == "earlyoom"]
    if key == "killed_pid":
        return field_is(kills, "pid", int(value))
    if key == "killed_name":
        return field_is(kills, "comm", value)
    if key == "vmrss":
        return field_close(kills, "rss_bytes", value)
    if key in ("badness", "oom_score"):
        return field_is(kills, key, int(value))
    if key == "signal":
        want = {"15": "SIGTERM", "9": "SIGKILL"}.get(value, value.split()[0])
        got = [(e.get("signal"), e.get("escalated")) for e in kills]
        esc = "then SIGKILL" in value
        return (any(s == want and (not esc or x) for s, x in got), got)
    if key in ("mem_total", "swap_total"):
        got = meta_values(rep, "host.%s_bytes" % key)
        return (any(bytes_close(value, g) for g in got), got)
    if key == "mem_avail":
        m = re.match(r"(\d+) of \d+ (\w+)", value)
        want = m.group(1) + " " + m.group(2)
        got = samples(rep, "host.mem_available_bytes")
        return (any(bytes_close(want, g) for g in got), got)
    if key == "mem_avail_at_kill":
        return field_close(kills, "mem_available_bytes", value.split("(")[0])
    return None


def check_oomd(rep, key, value):
    kills = [e for e in events(rep, "userspace_kill") if e.get("killer") == "systemd-oomd"]
    units = events(rep, "systemd_unit_oom")
    cands = events(rep, "oomd_candidates")
    if key == "killed_cgroup":
        return field_is(kills, "cgroup", value)
    if key == "killed_pid":
        got = [p for e in kills for p in e.get("pids") or []] + [e.get("pid") for e in kills]
        return (int(value) in got, got)
    if key == "reason":
        if value.startswith("swap (candidate"):
            return (bool(cands), len(cands))
        return field_is(kills, "reason", value)
    if key == "pressure":
        return field_close(kills, "pressure_percent", value)
    if key == "limit":
        return field_close(kills, "pressure_limit_percent", value)
    if key == "duration":
        return field_close(kills, "pressure_duration_s", value)
    if key == "killed_processes":
        return field_is(units, "processes", int(value))
    if key == "current_memory_usage":
        return field_close(kills, "memory_bytes", value)
    if key == "candidates":
        got = [e.get("considered") for e in cands] + [e.get("candidates_considered")
                                                      for e in kills]
        return (int(value) in got, got)
    if key == "top_candidate":
        path, size = value.rsplit(":", 1)
        got = [(c.get("path"), c.get("swap_bytes"), c.get("memory_bytes"))
               for e in cands for c in (e.get("candidates") or [])[:1]]
        return (any(p == path and (bytes_close(size, s) or bytes_close(size, m))
                    for p, s, m in got), got)
    if key == "units":
        got = [e.get("unit") for e in units]
        return (all(u in got for u in value.split(",")), got)
    return None


def check_slurm(rep, key, value):
    evs = events(rep, "slurm_oom")
    if key == "step":
        return field_is(evs, "step", value)
    if key == "oom_kill_events":
        return field_is(evs, "oom_kill_events", int(value))
    if key == "node":
        return field_is(evs, "node", value)
    if key in ("task", "tasks"):
        return field_is(evs, "tasks", value)
    return None


# ---- NCCL and cuBLAS (read by the serving-engine parser) ----------------

PENDING = "pending"


def check_engine_error(rep, key, value, kind):
    if "engines" not in rep:
        return PENDING
    errs = [x for e in rep.get("engines") or [] for x in e.get("errors") or []]
    texts = " ".join(str(x.get("text") or "") for x in errs)
    if key == "error":
        return (any(x.get("kind") == kind for x in errs), [x.get("kind") for x in errs])
    if key == "site" and kind == "cublas_alloc_failed" or key in ("raised_from", "calloc_bytes"):
        # a traceback frame, or NCCL's next line ("Failed to CUDA calloc N
        # bytes"): the error is kept with its own line only, so far
        return "not kept: the frame or the line after the error"
    if key in ("host", "pid", "site", "call", "rank_dev"):
        want = {"rank_dev": "[%s]" % value}.get(key, value.split(" at ")[0])
        return (want in texts, texts[:200])
    return None


def check_environ(rep, key, value):
    """env.NAME=value: the variable stored as meta, its value exact."""
    if key.startswith("env."):
        got = meta_values(rep, key)
        return (value in got, got)
    return None


KINDS = {
    "torch_oom": check_torch, "nvidia_smi": check_nvidia_smi, "dcgm": check_dcgm,
    "kernel_xid": check_xid, "kernel_oom": check_kernel_oom, "k8s": check_k8s,
    "earlyoom": check_earlyoom, "systemd_oomd": check_oomd, "slurm": check_slurm,
    "nccl": lambda r, k, v: check_engine_error(r, k, v, "nccl_oom"),
    "cublas": lambda r, k, v: check_engine_error(r, k, v, "cublas_alloc_failed"),
    "torch_alloc_conf": lambda r, k, v: check_engine_error(r, k, v, "expandable_unsupported"),
    "environ": check_environ,
}


def check(rep, key, value):
    """None: not asserted; PENDING; "gap: why"; else (ok, found)."""
    if key in DESCRIPTIONS or (key == "wording" and
                               (rep.get("_row") or {}).get("source_kind") == "slurm"):
        return None
    if value.startswith("unknown"):
        return None
    gap = GAPS.get((row_file(rep), key))
    if gap:
        return "gap: " + gap
    kind = (rep.get("_row") or {}).get("source_kind")
    fn = KINDS.get(kind)
    return fn(rep, key, value) if fn else None


def unread_is_pending(row, have_engines):
    """An excerpt no parser read: pending (not a failure) when it is one
    the serving-engine parser reads and that parser's JSON (engines) was
    not seen in this run."""
    return row.get("source_kind") in ("nccl", "cublas") and not have_engines
