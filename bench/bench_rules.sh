#!/bin/sh
# bench_rules.sh OOMLENS SCRATCH -- the rules alone on a large incident:
# 10M allocator lifetimes (alloc table rows, 9.99M freed activations + a
# leaking stack) and a week of one-second samples (gpu.used_bytes,
# server.running). The database is generated directly with SQL (python3's
# sqlite3 module) on the schema a real `oomlens ingest` creates, then
# `oomlens classify DB` is timed. Target: under 2 s.
set -e
OOMLENS=$1
OUT=${2:-bench/out}
mkdir -p "$OUT"
DB="$OUT/rules_bench.db"
EMPTY="$OUT/rules_empty"
mkdir -p "$EMPTY" && : > "$EMPTY/empty.txt"
rm -f "$DB"
"$OOMLENS" ingest -q --db "$DB" "$EMPTY" >/dev/null 2>&1 || true
python3 - "$DB" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
t = time.time()
T0 = 1795953600 * 10**9
S = 10**9
db.executescript("""
CREATE TABLE IF NOT EXISTS snapshot(id INTEGER PRIMARY KEY, artifact_id INTEGER, form TEXT,
  protocol INTEGER, devices INTEGER, trace_events INTEGER, settings TEXT);
CREATE TABLE IF NOT EXISTS segment(id INTEGER PRIMARY KEY, snapshot_id INTEGER, device INTEGER,
  address INTEGER, total_size INTEGER, allocated_size INTEGER, active_size INTEGER,
  requested_size INTEGER, stream INTEGER, segment_type TEXT, pool_id TEXT, is_expandable INTEGER,
  stack_id INTEGER);
CREATE TABLE IF NOT EXISTS block(id INTEGER PRIMARY KEY, segment_id INTEGER, address INTEGER,
  size INTEGER, requested_size INTEGER, state TEXT, stack_id INTEGER);
CREATE TABLE IF NOT EXISTS trace(id INTEGER PRIMARY KEY, snapshot_id INTEGER, device INTEGER,
  seq INTEGER, action TEXT, addr INTEGER, size INTEGER, stream INTEGER, time_ns INTEGER,
  device_free INTEGER, stack_id INTEGER);
CREATE TABLE IF NOT EXISTS alloc(id INTEGER PRIMARY KEY, snapshot_id INTEGER, device INTEGER,
  addr INTEGER, size INTEGER, alloc_seq INTEGER, alloc_ns INTEGER, free_seq INTEGER,
  free_ns INTEGER, state TEXT, stack_id INTEGER);
INSERT INTO snapshot(id, form) VALUES(1, 'pickle');
INSERT OR IGNORE INTO artifact(id, path, kind, status) VALUES(1, 'bench', 'bench', 'ok');
""")
# 40 stacks of 3 frames; stack 40 leaks
db.executemany("INSERT INTO stack(id, hash, depth) VALUES(?,?,3)", [(i, i * 7919) for i in range(1, 41)])
db.executemany("INSERT INTO frame(stack_id, idx, name, file, line) VALUES(?,?,?,?,?)",
               [(s, k, "fn%d_%d" % (s, k), "/srv/app/mod%d.py" % s, 10 + k) for s in range(1, 41) for k in range(3)])
N = 10_000_000
db.execute("""WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
  INSERT INTO alloc(snapshot_id, device, addr, size, alloc_seq, alloc_ns, free_seq, free_ns, state, stack_id)
  SELECT 1, 0, 140000000000000 + (i % 65536) * 2097152, 1048576 + (i % 97) * 65536, 2 * i,
    ? + i * 8640000, CASE WHEN i % 1000 = 999 THEN NULL ELSE 2 * i + 1 END,
    CASE WHEN i % 1000 = 999 THEN NULL ELSE ? + i * 8640000 + 3000000 END,
    CASE WHEN i % 1000 = 999 THEN 'live' ELSE 'freed' END,
    CASE WHEN i % 1000 = 999 THEN 40 ELSE 1 + i % 39 END FROM c""", (N - 1, T0, T0))
# a week of 1 s samples: gpu.used grows 30 MB/hour, server.running cycles
db.execute("INSERT INTO series(id, artifact_id, name, unit, entity) VALUES(1, 1, 'gpu.used_bytes', 'bytes', 'gpu0')")
db.execute("INSERT INTO series(id, artifact_id, name, unit, entity) VALUES(2, 1, 'server.running', 'requests', 'vllm')")
W = 7 * 86400
db.execute("""WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
  INSERT INTO sample(series_id, time_ns, value)
  SELECT 1, ? + i * ?, 60e9 + i * 8738.0 + (i * 7919 % 1000) * 1048576.0 FROM c""", (W - 1, T0, S))
db.execute("""WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
  INSERT INTO sample(series_id, time_ns, value)
  SELECT 2, ? + i * ?, 20 + (i * 104729 % 17) FROM c""", (W - 1, T0, S))
db.execute("INSERT INTO meta(key, value) VALUES('gpu.total_bytes.gpu0', '85520809984')")
db.execute("INSERT INTO event(artifact_id, kind, time_ns, clock, pid, bytes, data) VALUES(1, 'torch_oom', ?, 'utc', 4312, 2147483648, '{\"requested_bytes\": 2147483648}')", (T0 + W * S,))
db.commit()
print("generated: %d alloc rows, %d samples in %.1f s" % (
    db.execute("SELECT count(*) FROM alloc").fetchone()[0],
    db.execute("SELECT count(*) FROM sample").fetchone()[0], time.time() - t))
# the indexes the snapshot store should create at ingest (rulelib.h rl_alloc_indexes)
t = time.time()
db.executescript("""CREATE INDEX IF NOT EXISTS alloc_state_stack ON alloc(state, stack_id, alloc_ns, size);
  CREATE INDEX IF NOT EXISTS alloc_time ON alloc(alloc_ns);""")
print("alloc indexes (part of ingest): %.1f s" % (time.time() - t))
db.close()
PY
ls -l "$DB" | awk '{printf "database: %.0f MB\n", $5 / 1048576}'
for run in 1 2 3; do
	/usr/bin/time -f "classify run $run: %e s wall, %M KiB peak RSS" "$OOMLENS" classify "$DB" >"$OUT/rules_verdict.txt"
done 2>&1
head -3 "$OUT/rules_verdict.txt"
