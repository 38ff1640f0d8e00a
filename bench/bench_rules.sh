#!/bin/sh
# bench_rules.sh OOMLENS SCRATCH -- the rules alone on a large incident:
# 10M allocator lifetimes (alloc table rows, 9.99M freed activations + a
# leaking stack) and a week of one-second samples (gpu.used_bytes,
# server.running). The database is generated directly with SQL (python3's
# sqlite3 module; the packed alloc table with the sqlite3 shell and the
# extension built beside OOMLENS) on the schema a real `oomlens ingest`
# creates, then
# `oomlens classify DB` is timed. Target: under 2 s.
set -e
OOMLENS=$1
OUT=${2:-bench/out}
mkdir -p "$OUT"
DB="$OUT/rules_bench.db"
EMPTY="$OUT/rules_empty"
# ingest writes no database when nothing is usable: one kernel line, its
# rows deleted below
mkdir -p "$EMPTY" && echo "[ 1.000000] Out of memory: Killed process 1 (x) total-vm:1kB," \
	"anon-rss:1kB, file-rss:0kB, shmem-rss:0kB" > "$EMPTY/kern.log"
rm -f "$DB"
"$OOMLENS" ingest -q --db "$DB" "$EMPTY" >/dev/null
python3 - "$DB" "$(cd "$(dirname "$0")/.." && pwd)" <<'PY'
import os, sqlite3, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(sys.argv[2], "fixtures"))
import packed_rows
db = sqlite3.connect(sys.argv[1])
t = time.time()
T0 = 1795953600 * 10**9
S = 10**9
db.executescript("DELETE FROM task; DELETE FROM event; DELETE FROM meta; DELETE FROM diagnostic;"
                 " DELETE FROM artifact;")
db.executescript("""
CREATE TABLE IF NOT EXISTS snapshot(id INTEGER PRIMARY KEY, artifact_id INTEGER, form TEXT,
  protocol INTEGER, devices INTEGER, trace_events INTEGER, settings TEXT);
CREATE TABLE IF NOT EXISTS segment(id INTEGER PRIMARY KEY, snapshot_id INTEGER, device INTEGER,
  address INTEGER, total_size INTEGER, allocated_size INTEGER, active_size INTEGER,
  requested_size INTEGER, stream INTEGER, segment_type TEXT, pool_id TEXT, is_expandable INTEGER,
  stack_id INTEGER);
CREATE TABLE IF NOT EXISTS block(id INTEGER PRIMARY KEY, segment_id INTEGER, address INTEGER,
  size INTEGER, requested_size INTEGER, state TEXT, stack_id INTEGER);
INSERT INTO snapshot(id, form) VALUES(1, 'pickle');
INSERT OR IGNORE INTO artifact(id, path, kind, status) VALUES(1, 'bench', 'bench', 'ok');
""")
# 40 stacks of 3 frames; stack 40 leaks
db.executemany("INSERT INTO stack(id, hash, depth) VALUES(?,?,3)", [(i, i * 7919) for i in range(1, 41)])
db.executemany("INSERT INTO frame(stack_id, idx, name, file, line) VALUES(?,?,?,?,?)",
               [(s, k, "fn%d_%d" % (s, k), "/srv/app/mod%d.py" % s, 10 + k) for s in range(1, 41) for k in range(3)])
# a week of 1 s samples: gpu.used grows 30 MB/hour, server.running cycles
db.execute("INSERT INTO series(id, artifact_id, name, unit, entity) VALUES(1, 1, 'gpu.used_bytes', 'bytes', 'gpu0')")
db.execute("INSERT INTO series(id, artifact_id, name, unit, entity) VALUES(2, 1, 'server.running', 'requests', 'vllm')")
W = 7 * 86400
# sample is a packed table: its blocks written by the shared packer
packed_rows.insert(db.cursor(), "sample", ["series_id", "time_ns", "value"],
                   [(1, T0 + i * S, 60e9 + i * 8738.0 + (i * 7919 % 1000) * 1048576.0)
                    for i in range(W)])
packed_rows.insert(db.cursor(), "sample", ["series_id", "time_ns", "value"],
                   [(2, T0 + i * S, 20.0 + (i * 104729 % 17)) for i in range(W)])
db.execute("INSERT INTO meta(key, value) VALUES('gpu.total_bytes.gpu0', '85520809984')")
db.execute("INSERT INTO event(artifact_id, kind, time_ns, clock, pid, bytes, data) VALUES(1, 'torch_oom', ?, 'utc', 4312, 2147483648, '{\"requested_bytes\": 2147483648}')", (T0 + W * S,))
db.commit()
print("generated: %d samples in %.1f s" % (
    db.execute("SELECT sum(rows) FROM sample_block").fetchone()[0], time.time() - t))
db.close()
PY
# alloc is a packed table (docs/schema.md): its blocks are written in SQL
# with the extension's packed_rows aggregate, 256 rows a block
t0=$(date +%s.%N)
sqlite3 -cmd ".load $(dirname "$OOMLENS")/oomlens_packed" "$DB" "
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 10000000 - 1)
INSERT INTO alloc_block(parent, first_rowid, rows, data)
SELECT 1, 1 + g * 256, count(*), packed_rows(1, 0, addr, size, alloc_seq, alloc_ns, free_seq,
    free_ns, state, stack_id) FROM (
  SELECT i / 256 AS g, 140000000000000 + (i % 65536) * 2097152 AS addr,
    1048576 + (i % 97) * 65536 AS size, 2 * i AS alloc_seq, 1795953600000000000 + i * 8640000 AS alloc_ns,
    CASE WHEN i % 1000 = 999 THEN NULL ELSE 2 * i + 1 END AS free_seq,
    CASE WHEN i % 1000 = 999 THEN NULL ELSE 1795953600000000000 + i * 8640000 + 3000000 END AS free_ns,
    CASE WHEN i % 1000 = 999 THEN 'live' ELSE 'freed' END AS state,
    CASE WHEN i % 1000 = 999 THEN 40 ELSE 1 + i % 39 END AS stack_id FROM c)
GROUP BY g;
SELECT 'generated: ' || count(*) || ' alloc rows' FROM alloc;"
echo "in $(echo "$(date +%s.%N) - $t0" | bc -l | cut -c1-5) s"
ls -l "$DB" | awk '{printf "database: %.0f MB\n", $5 / 1048576}'
for run in 1 2 3; do
	/usr/bin/time -f "classify run $run: %e s wall, %M KiB peak RSS" "$OOMLENS" classify "$DB" >"$OUT/rules_verdict.txt"
done 2>&1
head -3 "$OUT/rules_verdict.txt"
