#!/bin/sh
# bench/bench_json.sh OOMLENS SCRATCH -- the JSON report against the HTML
# report where the JSON was once quadratic: 100,000 small artifacts (half
# of them one dmesg line each, an event; half notes of no known format, a
# diagnostic each, which the JSON lists per artifact) and a 500 MB syslog with
# 20,000 kernel OOM reports (bench/gen_kernel_log.c). Each input is
# generated (deterministically, once) and ingested into SCRATCH; then
# `oomlens report` writes HTML and JSON, three times each, page cache warm.
# Prints per input: ingest time, then per form: wall and CPU seconds, peak
# RSS, output size; and the JSON/HTML ratio of CPU time (the goal: 2).
# BENCH_JSON_FILES and BENCH_JSON_BYTES / BENCH_JSON_REPORTS shrink it.
set -e
bin=${1:-build/oomlens}
out=${2:-bench/out}
here=$(cd "$(dirname "$0")" && pwd)
files=${BENCH_JSON_FILES:-100000}
bytes=${BENCH_JSON_BYTES:-524288000}
reports=${BENCH_JSON_REPORTS:-20000}
mkdir -p "$out"

# seconds of CPU (user + system) and peak RSS of a command, from time -v
measure() { # measure LABEL COMMAND...
	label=$1
	shift
	/usr/bin/time -v "$@" 2>"$out/json-time.txt" >/dev/null
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/json-time.txt")
	cpu=$(awk -F': ' '/User time|System time/ { t += $2 } END { printf "%.2f", t }' \
		"$out/json-time.txt")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/json-time.txt")
	echo "$label: wall $wall, cpu ${cpu}s, peak RSS $((rss / 1024)) MiB"
}

# report_forms DB NAME: HTML and JSON, three runs each, and the ratio
report_forms() {
	db=$1
	name=$2
	"$bin" classify "$db" >/dev/null   # the verdict is stored: reports only read
	for fmt in html json; do
		best=
		for run in 1 2 3; do
			line=$(measure "$name $fmt run $run" "$bin" report --format $fmt \
				-o "$out/$name.$fmt" "$db")
			echo "$line, output $(wc -c <"$out/$name.$fmt") bytes"
			cpu=$(echo "$line" | sed 's/.*cpu \([0-9.]*\)s.*/\1/')
			best=$(awk -v a="$best" -v b="$cpu" 'BEGIN { print (a == "" || b < a) ? b : a }')
		done
		eval "best_$fmt=$best"
	done
	awk -v j="$best_json" -v h="$best_html" \
		'BEGIN { printf "'"$name"': JSON/HTML (best CPU of 3): %.2f / %.2f s = %.1fx\n", j, h, j / h }'
}

# 100,000 small artifacts
dir="$out/json-small2-$files"
if [ ! -f "$dir.done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	awk -v dir="$dir" -v n="$files" 'BEGIN {
		for (i = 0; i < n; i++) {
			f = sprintf("%s/%03d/k%06d.log", dir, i % 1000, i)
			if (i < 1000) system("mkdir -p " dir "/" sprintf("%03d", i))
			if (i % 2)
				printf "notes of the on-call engineer, %d\n", i > f
			else
				printf "[%d.%06d] Out of memory: Killed process %d (python3) total-vm:%dkB," \
				       " anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB\n", 4600 + i,
				       i % 1000000, 1000 + i, 100000 + i, 80000 + i > f
			close(f)
		}
	}'
	touch "$dir.done"
fi
rm -f "$out/json-small.db"
measure "small: ingest of $files files" "$bin" ingest -q --db "$out/json-small.db" "$dir"
report_forms "$out/json-small.db" small

# 20,000 OOM reports in a 500 MB syslog
log="$out/json-kernel-$bytes-$reports.log"
if [ ! -s "$log" ]; then
	cc -O2 -o "$out/gen_kernel_log" "$here/gen_kernel_log.c"
	"$out/gen_kernel_log" "$bytes" "$reports" >"$log"
fi
cat "$log" >/dev/null
rm -f "$out/json-kernel.db"
measure "kernel: ingest of $(du -m "$log" | cut -f1) MB" "$bin" ingest -q --db "$out/json-kernel.db" "$log"
report_forms "$out/json-kernel.db" kernel
