#!/bin/sh
# bench/bench_kernel.sh OOMLENS SCRATCH -- kernel OOM log parser throughput.
# Generates (deterministically, once) a 256 MiB syslog with 64 OOM reports
# among ordinary lines (issue 31's bench), then times `oomlens ingest` and
# `grep -c 'invoked oom-killer'` on the same file in pairs, page cache
# warm (BENCH_KERNEL_RUNS pairs, 9 by default: wall times on a shared
# machine swing, so medians are compared), and prints their medians, the
# ratio (target <= 1.0), throughput and peak RSS (/usr/bin/time -v,
# target < 16 MiB). BENCH_KERNEL_BYTES and BENCH_KERNEL_REPORTS override
# the input (the 1 GiB, 1,000-report input of the earlier figures:
# BENCH_KERNEL_BYTES=1073741824 BENCH_KERNEL_REPORTS=1000).
# The syslog also carries vLLM lines, so plain detection would run the
# server-log parser over it too; --kind kernel_log times the kernel parser
# alone, which is what this benchmark is about.
set -e
bin=${1:-build/oomlens}
out=${2:-bench/out}
here=$(cd "$(dirname "$0")" && pwd)
bytes=${BENCH_KERNEL_BYTES:-268435456}
reports=${BENCH_KERNEL_REPORTS:-64}
runs=${BENCH_KERNEL_RUNS:-9}
mkdir -p "$out"
log="$out/kernel-$bytes-$reports.log"
if [ ! -s "$log" ]; then
	cc -O2 -o "$out/gen_kernel_log" "$here/gen_kernel_log.c"
	"$out/gen_kernel_log" "$bytes" "$reports" > "$log"
fi
size=$(stat -c %s "$log")
cat "$log" > /dev/null   # warm the page cache

# median FILE: the median of the numbers in FILE, one a line
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
: > "$out/kernel.grep_ms"
: > "$out/kernel.ingest_ms"
i=0
while [ $i -lt "$runs" ]; do
	t0=$(date +%s%N)
	n=$(grep -c 'invoked oom-killer' "$log")
	t1=$(date +%s%N)
	rm -f "$out/kernel.db"
	"$bin" ingest -q --kind kernel_log --year 2025 --db "$out/kernel.db" "$log"
	t2=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >> "$out/kernel.grep_ms"
	echo $(((t2 - t1) / 1000000)) >> "$out/kernel.ingest_ms"
	i=$((i + 1))
done
grep_ms=$(median "$out/kernel.grep_ms")
ingest_ms=$(median "$out/kernel.ingest_ms")

rm -f "$out/kernel.db"
/usr/bin/time -v -o "$out/kernel.time" "$bin" ingest -q --kind kernel_log --year 2025 --db "$out/kernel.db" "$log"
rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/kernel.time")
kills=$(sqlite3 "$out/kernel.db" "SELECT count(*) FROM event WHERE kind = 'oom_kill'")

echo "input: $size bytes, $n headers (grep), $kills oom_kill events (oomlens)"
echo "grep -c: median ${grep_ms} ms of $runs ($(tr '\n' ' ' < "$out/kernel.grep_ms"))"
echo "oomlens ingest: median ${ingest_ms} ms of $runs ($(tr '\n' ' ' < "$out/kernel.ingest_ms")), $(echo "$size / 1000 / $ingest_ms" | bc -l | cut -c1-6) MB/s, peak RSS $((rss_kb / 1024)) MiB (target < 16)"
echo "ratio ingest/grep (medians): $(echo "$ingest_ms / $grep_ms" | bc -l | cut -c1-5) (target <= 1.0)"
