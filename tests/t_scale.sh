#!/bin/sh
# t_scale.sh OOMLENS SRCDIR -- every report linear in OOM reports and in
# artifacts: a syslog of 20,000 kernel OOM reports (each with its task
# table and its kill) and 5,000 small artifacts go through the JSON
# report in bounded time (the JSON report once looked up each report's
# kill among all kills: 20,000 reports took hours), with every dump, its
# victim and every artifact in it.
set -u
bin=$1
src=$2
. "$src/tests/testlib.sh"
limit=${SCALE_LIMIT_S:-300}

# 20,000 OOM reports, one second apart, each killing its own pid.
awk 'BEGIN {
	for (i = 0; i < 20000; i++) {
		t = sprintf("2025-11-29T%02d:%02d:%02d.000000+0000 gpu-a100-03 kernel: ",
			    int(i / 3600) % 24, int(i / 60) % 60, i % 60)
		pid = 10000 + i
		print t "pt_main_thread invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0"
		print t "Tasks state (memory values in pages):"
		print t "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name"
		print t "[    981]     0   981     4114      610    69632        0             0 cron"
		printf "%s[%7d]  1000 %5d 67250000 13295000 109789184        0             0 python3\n", t, pid, pid
		printf "%sOut of memory: Killed process %d (python3) total-vm:269000000kB, anon-rss:53180000kB, file-rss:412000kB, shmem-rss:8000kB, UID:1000 pgtables:107216kB oom_score_adj:0\n", t, pid
	}
}' >"$tmp/syslog"
"$bin" ingest -q --db "$tmp/k.db" "$tmp/syslog" || no "ingest of 20,000 OOM reports"
start=$(date +%s)
timeout "$limit" "$bin" report --format json -o "$tmp/k.json" "$tmp/k.db"; rc=$?
took=$(($(date +%s) - start))
[ $rc = 0 ] && ok || no "JSON report of 20,000 OOM reports: exit $rc after $took s (limit $limit s)"
if command -v python3 >/dev/null && [ $rc = 0 ]; then
	python3 - "$tmp/k.json" <<'EOF' && ok || no "JSON report of 20,000 OOM reports: content"
import json, sys
r = json.load(open(sys.argv[1]))
dumps = r["oom_tasks"]
assert len(dumps) == 20000, len(dumps)
assert all(d["victim_pid"] == 10000 + i for i, d in enumerate(dumps)), "victims"
assert all(len(d["tasks"]) == 2 for d in dumps), "tasks"
assert len([e for e in r["events"] if e["kind"] == "oom_kill"]) == 20000
EOF
fi

# 5,000 small artifacts, each with a diagnostic.
mkdir "$tmp/small"
awk -v dir="$tmp/small" 'BEGIN {
	for (i = 0; i < 5000; i++) {
		f = sprintf("%s/k%05d.log", dir, i)
		printf "[%d.000000] Out of memory: Killed process %d (python3) total-vm:1000kB," \
		       " anon-rss:800kB, file-rss:0kB, shmem-rss:0kB\n", 4600 + i, 1000 + i > f
		print "[" 4600 + i ".500000] Out of memory: Killed process" > f
		close(f)
	}
}'
"$bin" ingest -q --db "$tmp/s.db" "$tmp/small"
start=$(date +%s)
timeout "$limit" "$bin" report --format json -o "$tmp/s.json" "$tmp/s.db"; rc=$?
took=$(($(date +%s) - start))
[ $rc = 0 ] && ok || no "JSON report of 5,000 artifacts: exit $rc after $took s"
if command -v python3 >/dev/null && [ $rc = 0 ]; then
	python3 - "$tmp/s.json" "$(sqlite3 "$tmp/s.db" 'SELECT count(*) FROM diagnostic' 2>/dev/null)" <<'EOF' && ok || no "JSON report of 5,000 artifacts: content"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["artifacts"]) == 5000, len(r["artifacts"])
if sys.argv[2]:
    assert sum(len(a["diagnostics"]) for a in r["artifacts"]) == int(sys.argv[2])
EOF
fi

finish t_scale
