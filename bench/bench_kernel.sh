#!/bin/sh
# bench/bench_kernel.sh OOMLENS SCRATCH -- kernel OOM log parser throughput.
# Generates (deterministically, once) a 1 GiB syslog with 1,000 OOM reports
# among ordinary lines, then prints ingest throughput (MB/s), peak RSS
# (/usr/bin/time -v) and the ratio of `oomlens ingest` time to
# `grep -c 'invoked oom-killer'` on the same file, page cache warm.
# BENCH_KERNEL_BYTES overrides the size (for a quick run).
# The syslog also carries vLLM lines, so plain detection would run the
# server-log parser over it too; --kind kernel_log times the kernel parser
# alone, which is what this benchmark is about.
set -e
bin=${1:-build/oomlens}
out=${2:-bench/out}
here=$(cd "$(dirname "$0")" && pwd)
bytes=${BENCH_KERNEL_BYTES:-1073741824}
mkdir -p "$out"
log="$out/kernel-$bytes.log"
if [ ! -s "$log" ]; then
	cc -O2 -o "$out/gen_kernel_log" "$here/gen_kernel_log.c"
	"$out/gen_kernel_log" "$bytes" 1000 > "$log"
fi
size=$(stat -c %s "$log")
cat "$log" > /dev/null   # warm the page cache

t0=$(date +%s.%N)
n=$(grep -c 'invoked oom-killer' "$log")
t1=$(date +%s.%N)
grep_s=$(echo "$t1 - $t0" | bc -l)

rm -f "$out/kernel.db"
/usr/bin/time -v -o "$out/kernel.time" "$bin" ingest -q --kind kernel_log --year 2025 --db "$out/kernel.db" "$log"
ingest_s=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }' "$out/kernel.time")
rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/kernel.time")
kills=$(sqlite3 "$out/kernel.db" "SELECT count(*) FROM event WHERE kind = 'oom_kill'")

echo "input: $size bytes, $n headers (grep), $kills oom_kill events (oomlens)"
echo "grep -c: ${grep_s} s"
echo "oomlens ingest: ${ingest_s} s, $(echo "$size / 1000000 / $ingest_s" | bc -l | cut -c1-6) MB/s, peak RSS $((rss_kb / 1024)) MiB"
echo "ratio ingest/grep: $(echo "$ingest_s / $grep_s" | bc -l | cut -c1-5) (target <= 3)"
