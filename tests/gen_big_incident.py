#!/usr/bin/env python3
"""gen_big_incident.py DB [SCALE] -- grow an incident database that
`oomlens analyze` made from a real fixture into one with millions of rows,
in every row family a report writer reads (issue 32: every writer draws on
the one memory budget). Generated at test time, with SQL's own recursive
counting so that a few seconds make it and nothing large is committed.

At SCALE 1 (the default) it adds: 1,000,000 events (half of them on the
boot clock only, the ones the JSON report once sorted in memory), an OOM
task dump of 300,000 tasks, 200,000 series with 3 samples each, a CUDA
core's 300,000 grids, 50,000 artifacts with 150,000 diagnostics, 50,000
incident-wide meta keys and 20,000 clock anchors.
The figures are those of the real rows copied (an OOM kill's fields, a
series' unit): only the counts are not real.
"""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import packed_rows  # noqa: E402  (sample is a packed table)


def main():
    db = sqlite3.connect(sys.argv[1])
    k = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    n = lambda x: max(1, int(x * k))
    art = db.execute("SELECT max(id) FROM artifact").fetchone()[0]
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
    cnt = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) "
    # events: UTC ones, then boot-relative ones of another boot
    db.execute(cnt % n(500000) +
               "INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, bytes, line,"
               " summary) SELECT ?, 'server_error', 1732900000000000000 + i * 1000000,"
               " 'utc', 1000 + i % 5000, 'python3', i * 4096, i,"
               " 'Out of memory: Killed process ' || (1000 + i % 5000) || ' (python3)'"
               " FROM c", (art,))
    db.execute(cnt % n(500000) +
               "INSERT INTO event(artifact_id, kind, clock, boot_ns, boot_id, pid, comm, line,"
               " summary) SELECT ?, 'oom_reaper', 'boot', (500000 - i) * 1000003,"
               " 'b2', 2000 + i % 7000, 'pt_main_thread', i,"
               " 'oom_reaper: reaped process ' || (2000 + i % 7000) FROM c", (art,))
    # one OOM with a huge task dump
    cur = db.execute("INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, line,"
                     " summary) VALUES (?, 'oom_invoked', 1732900000500000000, 'utc', 4242,"
                     " 'python3', 1, 'python3 invoked oom-killer')", (art,))
    ev = cur.lastrowid
    db.execute(cnt % n(300000) +
               "INSERT INTO task(event_id, pid, uid, tgid, total_vm_pages, rss_pages,"
               " rss_anon_pages, rss_file_pages, rss_shmem_pages, pgtables_bytes, swapents,"
               " oom_score_adj, name) SELECT ?, i, 0, i, 100000 + i, (i * 7919) % 300007,"
               " i % 1000, i % 77, 0, 4096 * (i % 50), 0, 0, 'worker_' || i FROM c", (ev,))
    # series and samples
    db.execute(cnt % n(200000) +
               "INSERT INTO series(artifact_id, name, unit, entity) SELECT ?,"
               " 'gpu.used_bytes', 'bytes', 'gpu' || i FROM c", (art,))
    # samples: `sample` is a packed table (blocks of one series), written
    # through the shared packer as oomlens's own writer would lay it out
    first = db.execute("SELECT min(id) FROM series WHERE entity LIKE 'gpu%'").fetchone()[0]
    per, nseries = 3, n(200000)
    packed_rows.insert(db.cursor(), "sample", ["series_id", "time_ns", "value"],
                       [(first + s, 1732900000000000000 + (s + k * nseries) * 1000000000,
                         1e9 + s + k * nseries)
                        for s in range(nseries) for k in range(per)])
    # a CUDA core with its grids
    cur = db.execute("INSERT INTO artifact(path, kind, size, status, bytes_read) VALUES"
                     " ('core_1.nvcudmp', 'cuda_core', 1048576, 'ok', 1048576)")
    core = cur.lastrowid
    db.execute(cnt % n(300000) +
               "INSERT INTO gpu_grid(artifact_id, device, grid_id, function, grid_x, grid_y,"
               " grid_z, block_x, block_y, block_z, status) SELECT ?, 0, i,"
               " '_Z13matmul_kernelPfS_S_i', 64, 1, 1, 256, 1, 1, 'running' FROM c", (core,))
    # artifacts, damaged, with diagnostics
    db.execute(cnt % n(50000) +
               "INSERT INTO artifact(path, kind, size, status, bytes_read, errors) SELECT"
               " 'bundle/logs/kern.log.' || i, 'kernel_log', 4096, 'partial', 1024, 3 FROM c")
    db.execute(cnt % n(150000) +
               "INSERT INTO diagnostic(artifact_id, line, offset, severity, message) SELECT"
               " ? + 1 + i % ?, i, i * 80, 'error',"
               " 'line ' || i || ': expected a timestamp' FROM c", (core, n(50000)))
    db.execute(cnt % n(50000) +
               "INSERT INTO meta(key, value) SELECT 'gen.key.' || i, 'value ' || i FROM c")
    db.execute(cnt % n(20000) +
               "INSERT INTO anchor(artifact_id, boot_id, boot_ns, utc_ns, how) SELECT ?,"
               " 'boot' || i, i * 1000, 1732900000000000000 + i, 'dmesg -T line' FROM c",
               (art,))
    db.commit()
    print("events %d" % db.execute("SELECT count(*) FROM event").fetchone()[0])


if __name__ == "__main__":
    main()
