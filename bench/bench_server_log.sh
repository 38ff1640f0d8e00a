#!/bin/sh
# bench/bench_server_log.sh OOMLENS SCRATCH -- server-log parser throughput.
# Generates (deterministically, once) a 1 GiB mixed serving-engine log:
# access lines, V1 statistics and every real excerpt of
# tests/data/real/serving spread through it (bench/gen_server_log.py), then
# prints ingest throughput (MB/s), peak RSS and the ratio
# against `grep -c 'GPU KV cache usage'` on the same file, page cache warm;
# then the parser alone on the same file, the figure issue 11 sets at
# >= 500 MB/s (bench/bench_server_parse.c,
# built against the library next to OOMLENS: a counting sink, no SQL).
# BENCH_SERVER_BYTES overrides the size (for a quick run).
set -e
bin=${1:-build/oomlens}
out=${2:-bench/out}
here=$(cd "$(dirname "$0")" && pwd)
bytes=${BENCH_SERVER_BYTES:-1073741824}
mkdir -p "$out"
log="$out/server-$bytes.log"
[ -s "$log" ] || python3 "$here/gen_server_log.py" "$bytes" > "$log"
size=$(stat -c %s "$log")
cat "$log" > /dev/null   # warm the page cache

t0=$(date +%s.%N)
n=$(grep -c 'GPU KV cache usage' "$log")
t1=$(date +%s.%N)
grep_s=$(echo "$t1 - $t0" | bc -l)

rm -f "$out/server.db"
/usr/bin/time -v -o "$out/server.time" "$bin" ingest -q --kind server_log --year 2026 \
	--db "$out/server.db" "$log"
ingest_s=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }' "$out/server.time")
rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/server.time")
samples=$(sqlite3 "$out/server.db" "SELECT coalesce(sum(rows), 0) FROM sample_block")

echo "input: $size bytes, $n statistics lines (grep), $samples samples (oomlens)"
echo "grep -c: ${grep_s} s"
echo "oomlens ingest: ${ingest_s} s, $(echo "$size / 1000000 / $ingest_s" | bc -l | cut -c1-6) MB/s (SQLite writes included), peak RSS $((rss_kb / 1024)) MiB"
echo "ratio ingest/grep: $(echo "$ingest_s / $grep_s" | bc -l | cut -c1-5)"
echo "ingest CPU: $(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$out/server.time") s (user + sys)"

lib=$(dirname "$bin")/liboomlens_core.a
cc -O2 -std=gnu11 -I"$here/.." -o "$out/bench_server_parse" "$here/bench_server_parse.c" "$lib" \
	$(pkg-config --libs sqlite3 jansson libelf libdw zlib) -lm -lpthread
echo "parser alone (no SQL; issue 11 target >= 500 MB/s):"
"$out/bench_server_parse" "$log"
