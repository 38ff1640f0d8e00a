#!/usr/bin/env python3
"""make_incident.py DB [--hours H] [--step S] [--events N] [--hostile]

Fill an incident database (created beforehand by `oomlens ingest`, so it
has the real core schema) with a realistic, deterministic vLLM incident on
an 80 GiB GPU: a slow leak of GPU memory over H hours, a concurrency spike
before the OOM, the kernel OOM with its task dump, a PyTorch snapshot
(segments, blocks, live allocations with Python stacks), a CUDA core
(devices, contexts, grids, regions), findings with the chart annotation
figures of docs/json.md, and a verdict.

Domain tables that the core schema lacks are created with the columns of
docs/schema.md. --hostile puts markup and script into every string an
artifact could control (process names, frames, paths, messages). Used by
tests/t_browser.sh (small) and bench/bench_report.sh (a week, 10M events).
"""
import json
import os
import random
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "fixtures"))
import packed_rows  # noqa: E402

GiB = 1 << 30
MiB = 1 << 20
NS = 1_000_000_000

HOSTILE = [
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    'javascript:alert(1)',
    "'><svg onload=alert(1)>",
]

DOMAIN = """
CREATE TABLE IF NOT EXISTS snapshot(id INTEGER PRIMARY KEY, artifact_id INTEGER, form TEXT,
  protocol INTEGER, devices INTEGER, trace_events INTEGER, settings TEXT);
CREATE TABLE IF NOT EXISTS segment(id INTEGER PRIMARY KEY, snapshot_id INTEGER, device INTEGER,
  address INTEGER, total_size INTEGER, allocated_size INTEGER, active_size INTEGER,
  requested_size INTEGER, stream INTEGER, segment_type TEXT, pool_id TEXT,
  is_expandable INTEGER, stack_id INTEGER);
CREATE TABLE IF NOT EXISTS block(segment_id INTEGER, address INTEGER, size INTEGER,
  requested_size INTEGER, state TEXT, stack_id INTEGER);
CREATE TABLE IF NOT EXISTS alloc(snapshot_id INTEGER, device INTEGER, addr INTEGER,
  size INTEGER, alloc_seq INTEGER, alloc_ns INTEGER, free_seq INTEGER, free_ns INTEGER,
  state TEXT, stack_id INTEGER);
CREATE TABLE IF NOT EXISTS gpu_device(artifact_id INTEGER, device INTEGER, name TEXT,
  type TEXT, sm_type TEXT, num_sms INTEGER);
CREATE TABLE IF NOT EXISTS gpu_context(artifact_id INTEGER, device INTEGER,
  context_id INTEGER, tid INTEGER);
CREATE TABLE IF NOT EXISTS gpu_grid(artifact_id INTEGER, device INTEGER, grid_id INTEGER,
  function TEXT, grid_dim TEXT, block_dim TEXT, status TEXT);
CREATE TABLE IF NOT EXISTS gpu_region(artifact_id INTEGER, device INTEGER, kind TEXT,
  address INTEGER, size INTEGER);
CREATE TABLE IF NOT EXISTS thread(artifact_id INTEGER, tid INTEGER, name TEXT, signal TEXT,
  stack_id INTEGER);
"""


def main():
    args = sys.argv[1:]
    db = args[0]
    hours = float(opt(args, "--hours", "6"))
    step = float(opt(args, "--step", "5"))
    events = int(opt(args, "--events", "0"))
    hostile = "--hostile" in args
    rnd = random.Random(7)
    con = sqlite3.connect(db)
    cur = con.cursor()
    cur.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
    for t in ("diagnostic", "meta", "event", "task", "series", "sample_block", "stack", "frame",
              "anchor", "finding", "evidence", "verdict", "artifact"):
        cur.execute("DELETE FROM " + t)
    cur.executescript(DOMAIN)

    def name(n):
        return (n + HOSTILE[sum(map(ord, n)) % len(HOSTILE)]) if hostile else n

    t_oom = 1764440560 * NS  # 2025-11-29T18:22:40Z
    t0 = t_oom - int(hours * 3600 * NS)
    arts = [
        ("incident/nvidia-smi.csv", "nvidia_smi", 412_000, "ok", 0, 0),
        ("incident/kern.log", "kernel_oom", 18_400, "partial", 1, 1),
        ("incident/vllm.log", "vllm_log", 2_300_000, "ok", 0, 0),
        ("incident/snapshot.pickle", "torch_snapshot", 48_000_000, "ok", 0, 0),
        ("incident/core.cuda.4312", "cuda_core", 900_000_000, "ok", 0, 0),
        ("incident/" + name("memory.events"), "cgroup", 240, "ok", 0, 0),
        ("incident/notes.txt", None, 120, "skipped", 0, 0),
    ]
    for i, a in enumerate(arts, 1):
        cur.execute("INSERT INTO artifact(id, path, kind, size, compressed, status, bytes_read,"
                    " seconds, errors, warnings) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (i, a[0], a[1], a[2], 0, a[3], a[2], 0.01 * i, a[4], a[5]))
    cur.execute("INSERT INTO diagnostic(artifact_id, line, severity, message) VALUES (2, 731,"
                " 'error', ?)", ("expected 'pid uid tgid total_vm rss' columns in the task dump, got '"
                                 + name("[ 4312]  1000  4312 truncated") + "'",))
    cur.execute("INSERT INTO diagnostic(artifact_id, line, severity, message) VALUES (2, 12,"
                " 'warning', 'year-less syslog date: year taken from the file time')")
    meta = [("cgroup.max_bytes", str(64 * GiB)), ("gpu.total_bytes.gpu0", str(81559 * MiB)),
            ("server.model", name("meta-llama/Llama-3.1-8B-Instruct")),
            ("server.gpu_memory_utilization", "0.95"), ("server.max_num_seqs", "256"),
            ("kernel.page_size", "4096")]
    cur.executemany("INSERT INTO meta(artifact_id, key, value) VALUES (NULL, ?, ?)", meta)

    # series
    series = [
        ("gpu.used_bytes", "bytes", "gpu0", 1), ("gpu.total_bytes", "bytes", "gpu0", 1),
        ("torch.reserved_bytes", "bytes", "cuda:0", 4), ("torch.allocated_bytes", "bytes", "cuda:0", 4),
        ("proc.rss_bytes", "bytes", "pid:4312", 6), ("cgroup.current_bytes", "bytes",
                                                      "/system.slice/vllm.service", 6),
        ("server.running", "requests", "vllm", 3), ("server.waiting", "requests", "vllm", 3),
        ("server.gpu_kv_usage", "ratio", "vllm", 3),
    ]
    sid = {}
    for i, (n, u, e, a) in enumerate(series, 1):
        cur.execute("INSERT INTO series(id, artifact_id, name, unit, entity) VALUES (?,?,?,?,?)",
                    (i, a, n, u, e))
        sid[n] = i
    total = 81559 * MiB
    base = 62 * GiB
    spike_start = t_oom - 8 * 60 * NS
    nsteps = int(hours * 3600 / step)
    leak_per_ns = (14 * GiB) / (hours * 3600 * NS)
    rows = []
    for k in range(nsteps + 1):
        t = t0 + int(k * step * NS)
        leak = (t - t0) * leak_per_ns
        spike = 0
        running = 40 + rnd.randint(-6, 6)
        if t >= spike_start:
            f = (t - spike_start) / (t_oom - spike_start)
            spike = f * 3.2 * GiB
            running = int(40 + f * 200)
        used = min(base + leak + spike + rnd.uniform(-0.15, 0.15) * GiB, total - 40 * MiB)
        reserved = used - 1.1 * GiB
        allocated = reserved - (0.6 + 0.3 * rnd.random()) * GiB - leak * 0.1
        rss = 9 * GiB + leak * 0.02 + rnd.uniform(0, 0.05) * GiB
        cg = rss + 2.5 * GiB
        rows += [(sid["gpu.used_bytes"], t, used), (sid["gpu.total_bytes"], t, total),
                 (sid["torch.reserved_bytes"], t, reserved),
                 (sid["torch.allocated_bytes"], t, allocated),
                 (sid["proc.rss_bytes"], t, rss), (sid["cgroup.current_bytes"], t, cg)]
        if k % 2 == 0:
            rows += [(sid["server.running"], t, running),
                     (sid["server.waiting"], t, max(0, running - 200) + rnd.randint(0, 3)),
                     (sid["server.gpu_kv_usage"], t, min(1.0, 0.55 + 0.4 * (running - 40) / 200
                                                         + rnd.uniform(-0.03, 0.03)))]
        if len(rows) > 200_000:
            packed_rows.insert(cur, "sample", ["series_id", "time_ns", "value"], sorted(rows, key=lambda r: r[0]))
            rows = []
    # the peak, to be preserved by downsampling
    rows.append((sid["gpu.used_bytes"], t_oom - 2 * NS, total - 12 * MiB))
    packed_rows.insert(cur, "sample", ["series_id", "time_ns", "value"], sorted(rows, key=lambda r: r[0]))

    # events
    ev = []
    def event(kind, t, pid, comm, nbytes, line, summary, data, art, clock="utc"):
        ev.append((art, kind, t, clock, pid, comm, nbytes, line, summary,
                   json.dumps(data) if data is not None else None))
    event("torch_oom", t_oom - 1 * NS, 4312, name("python3"), 2 * GiB, 88120,
          "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.65 GiB"
          " of which 12.00 MiB is free", {"device": 0, "requested_bytes": 2 * GiB,
                                          "free_bytes": 12 * MiB}, 3)
    event("cuda_exception", t_oom - int(0.5 * NS), 4312, name("python3"), None, None,
          "CUDA_EXCEPTION_14: Warp Illegal Address", {"device": 0}, 5)
    event("oom_invoked", t_oom, 5120, name("node_exporter"), None, 700,
          "node_exporter invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP),"
          " order=0, oom_score_adj=0", {"constraint": "CONSTRAINT_MEMCG"}, 2)
    event("oom_kill", t_oom + int(0.1 * NS), 4312, name("python3"), 27 * GiB, 745,
          "Killed process 4312 (python3) total-vm:269000000kB, anon-rss:28311552kB",
          {"anon_rss_kb": 28311552, "invoker_event": None}, 2)
    event("server_error", t_oom - 3 * NS, 4312, name("python3"), None, 88100,
          name("torch.OutOfMemoryError: CUDA out of memory"), None, 3)
    event("oom_reaper", None, 4312, name("python3"), None, 746,
          "oom_reaper: reaped process 4312 (python3)", None, 2, clock="boot")
    for i in range(events):  # bulk: server errors spread over the whole range
        t = t0 + (i * 7919 % max(1, nsteps)) * int(step * NS)
        ev.append((3, "server_error", t, "utc", 4312, "python3", None, 90000 + i,
                   "request failed", None))
        if len(ev) > 200_000:
            cur.executemany("INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, bytes,"
                            " line, summary, data) VALUES (?,?,?,?,?,?,?,?,?,?)", ev)
            ev = []
    cur.executemany("INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, bytes,"
                    " line, summary, data) VALUES (?,?,?,?,?,?,?,?,?,?)", ev)
    inv = cur.execute("SELECT id FROM event WHERE kind = 'oom_invoked'").fetchone()[0]
    cur.execute("UPDATE event SET boot_ns = 86400000000000 WHERE kind = 'oom_reaper'")
    cur.execute("UPDATE event SET data = json_set(data, '$.invoker_event', ?) WHERE kind = 'oom_kill'",
                (inv,))
    tasks = [(4312, 1000, name("python3"), 67250000, 7077888 + 8000), (4401, 1000, "python3", 1900000, 420000),
             (5120, 65534, name("node_exporter"), 180000, 9000), (880, 0, "systemd-journal", 60000, 12000),
             (1, 0, "systemd", 42000, 3000), (4420, 1000, name("tokenizer-worker"), 900000, 150000),
             (777, 0, "containerd", 500000, 20000), (902, 0, "sshd", 4000, 1200)]
    for pid, uid, n, vm, rss in tasks:
        cur.execute("INSERT INTO task(event_id, pid, uid, tgid, total_vm_pages, rss_pages,"
                    " rss_anon_pages, rss_file_pages, rss_shmem_pages, pgtables_bytes, swapents,"
                    " oom_score_adj, name) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (inv, pid, uid, pid, vm, rss, rss - 2000, 1500, 500, 5200 * 1024, 0,
                     0 if pid != 4312 else 0, n))

    # stacks and the snapshot
    funcs = ["forward (vllm/model_executor/models/llama.py:%d)", "_prefill (vllm/worker/model_runner.py:%d)",
             "cache_kv (myservice/cache.py:%d)", "tokenize (myservice/api.py:%d)"]
    for s in range(1, 31):
        cur.execute("INSERT INTO stack(id, hash, depth) VALUES (?,?,?)", (s, 1000 + s, 6))
        for idx in range(6):
            f = funcs[(s + idx) % len(funcs)]
            fn, rest = f.split(" (")
            file = rest.split(":")[0]
            if idx == 0:
                fn = name("caching_allocator_alloc") if s == 1 else "caching_allocator_alloc"
                file = "??"
            cur.execute("INSERT INTO frame(stack_id, idx, name, file, line) VALUES (?,?,?,?,?)",
                        (s, idx, fn, file, 100 + 7 * idx + s))
    cur.execute("INSERT INTO snapshot(id, artifact_id, form, protocol, devices, trace_events,"
                " settings) VALUES (1, 4, 'dict', 4, 1, 100000, '{}')")
    allocs = []
    for i in range(20000):
        s = 1 + int(rnd.paretovariate(1.2)) % 30
        live = rnd.random() < 0.35
        size = rnd.choice([2 * MiB, 20 * MiB, 512 * 1024, 64 * MiB]) if s != 1 else 128 * MiB
        allocs.append((1, 0, 0x7f0000000000 + i * 4096, size, i, t0 + i * NS, None if live else i + 5,
                       None, "live" if live else "freed", s))
    packed_rows.insert(cur, "alloc", ["snapshot_id", "device", "addr", "size", "alloc_seq", "alloc_ns",
                                      "free_seq", "free_ns", "state", "stack_id"], allocs)
    addr = 0x7f2000000000
    for sg in range(1, 58):
        size = rnd.choice([2 * MiB, 20 * MiB, 512 * MiB, 1 * GiB, 2 * GiB])
        cur.execute("INSERT INTO segment(id, snapshot_id, device, address, total_size, allocated_size,"
                    " active_size, requested_size, stream, segment_type, pool_id, is_expandable,"
                    " stack_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (sg, 1, 0, addr, size, 0, 0, 0, 0, "large" if size > 2 * MiB else "small",
                     None, 0, None))
        off = 0
        used = 0
        while off < size:
            b = min(size - off, rnd.choice([512 * 1024, 2 * MiB, 8 * MiB, 20 * MiB, 64 * MiB]))
            st = "active_allocated" if rnd.random() < 0.7 else "inactive"
            cur.execute("INSERT INTO block(segment_id, address, size, requested_size, state, stack_id)"
                        " VALUES (?,?,?,?,?,?)", (sg, addr + off, b, b, st, None))
            used += b if st != "inactive" else 0
            off += b
        cur.execute("UPDATE segment SET allocated_size = ?, active_size = ? WHERE id = ?", (used, used, sg))
        addr += size
    cur.execute("INSERT INTO gpu_device(artifact_id, device, name, type, sm_type, num_sms) VALUES (5, 0, 'NVIDIA H100 80GB HBM3', 'GH100', 'sm_90', 132)")
    for c in range(3):
        cur.execute("INSERT INTO gpu_context(artifact_id, device, context_id, tid) VALUES (5, 0, ?, ?)", (0x5550 + c, 4312 + c))
    cur.execute("INSERT INTO gpu_grid(artifact_id, device, grid_id, function, grid_x, grid_y, grid_z, block_x, block_y, block_z, status) VALUES (5, 0, 77, ?, 1024, 1, 1, 256, 1, 1, 'active')",
                (name("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64> >(Flash_fwd_params)"),))
    cur.execute("INSERT INTO gpu_region(artifact_id, device, kind, address, size) VALUES (5, 0, 'global', 139637976727552, 79 * 1073741824)")
    cur.execute("INSERT INTO thread(artifact_id, tid, name, signal, stack_id) VALUES (5, 4312, ?, 'SIGABRT', 2)", (name("python3"),))

    # findings and verdict
    fit_start = t0 + int(600 * NS)
    slope = 14 * 1024 / hours  # MiB per hour
    findings = [
        ("leak_slope", "leak", "retained_allocations", 0.86,
         "GPU memory grew %.0f MiB/h for %.1f h and was not returned" % (slope, hours),
         "Find what keeps references in " + name("cache_kv (myservice/cache.py)") +
         "; restart the worker before it reaches the card's total.",
         {"slope_mb_per_hour": slope, "r2": 0.97, "fit_start_time_ns": fit_start,
          "fit_end_time_ns": t_oom - 9 * 60 * NS, "fit_series": "gpu.used_bytes",
          "intercept_bytes": base + (fit_start - t0) * leak_per_ns,
          "hours_to_oom": 0.0}),
        ("concurrency_spike", "spike", "requests", 0.41,
         "Requests in flight rose from 40 to 240 in the 8 minutes before the OOM",
         "Lower max_num_seqs to 128 or gpu_memory_utilization to 0.90.",
         {"spike_start_ns": spike_start, "spike_end_ns": t_oom, "peak_over_baseline_ratio": 6.0,
          "peak_running": 240}),
        ("headroom", "misconfig", "headroom", 0.30,
         "Only %.1f GiB headroom above the baseline" % ((total - base) / GiB),
         "Set gpu_memory_utilization so that baseline + one batch fits.",
         {"baseline_bytes": base, "total_bytes": total, "headroom_bytes": total - base}),
    ]
    for i, f in enumerate(findings, 1):
        cur.execute("INSERT INTO finding(id, rule, class, cause, score, title, advice, figures)"
                    " VALUES (?,?,?,?,?,?,?,?)", (i,) + f[:6] + (json.dumps(f[6]),))
    kill = cur.execute("SELECT id FROM event WHERE kind = 'oom_kill'").fetchone()[0]
    cur.execute("INSERT INTO evidence VALUES (1, 'series', 1, 'gpu.used_bytes fit over 5.8 h')")
    cur.execute("INSERT INTO evidence VALUES (1, 'event', ?, ?)", (kill, name("the victim")))
    cur.execute("INSERT INTO evidence VALUES (2, 'series', 7, 'server.running peak 240')")
    cur.execute("INSERT INTO verdict(class, cause, confidence, summary, missing) VALUES"
                " ('leak', 'retained_allocations', 0.86, ?, ?)",
                ("GPU memory leaked %.0f MiB/h until the card was full; a burst of requests"
                 " then pushed it over." % slope,
                 "a second memory snapshot an hour earlier would show which stacks grew"))
    con.commit()
    con.close()


def opt(args, key, dflt):
    return args[args.index(key) + 1] if key in args else dflt


if __name__ == "__main__":
    main()
