#!/bin/sh
# bench_report.sh OOMLENS SCRATCH -- the reports of a very large incident:
# a week of samples every STEP seconds (9 series: GPU, allocator, RSS,
# cgroup, requests, KV cache) and EVENTS events (default 10M), plus the
# kernel OOM, a snapshot (20k allocations, 57 segments), findings and a
# verdict. The database is generated deterministically with python3's
# sqlite3 on the schema of `oomlens ingest` (tests/data/report/
# make_incident.py) and kept in SCRATCH between runs.
# Prints, per form: seconds, output size, peak RSS.
set -eu
oomlens=$1
scratch=$2
events=${EVENTS:-10000000}
step=${STEP:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$scratch"
db="$scratch/report-week.db"
stamp="$scratch/report-week.$events.$step"
if [ ! -f "$stamp" ]; then
	rm -f "$db" "$scratch"/report-week.*
	"$oomlens" ingest -q --db "$db" "$here/fixtures/demo" >/dev/null
	echo "generating: a week every ${step}s, $events events (once) ..."
	python3 "$here/tests/data/report/make_incident.py" "$db" --hours 168 --step "$step" \
		--events "$events"
	touch "$stamp"
fi
rows=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]);
print(c.execute('select count(*) from sample').fetchone()[0], c.execute('select count(*) from event').fetchone()[0])" "$db")
echo "database: $(du -m "$db" | cut -f1) MB, samples and events: $rows"
for fmt in html md json; do
	/usr/bin/time -v "$oomlens" report --format $fmt -o "$scratch/report.$fmt" "$db" \
		2>"$scratch/time.$fmt"
	secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$scratch/time.$fmt")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$scratch/time.$fmt")
	cpu=$(awk -F': ' '/User time|System time/ { t += $2 } END { printf "%.2f", t }' \
		"$scratch/time.$fmt")
	size=$(wc -c <"$scratch/report.$fmt")
	echo "$fmt: wall $secs, cpu ${cpu}s, output $size bytes, peak RSS $((rss / 1024)) MiB"
done
