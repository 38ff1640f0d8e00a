#!/bin/sh
# bench/bench_incident.sh OOMLENS SCRATCH -- one whole incident at scale,
# from `analyze` to the HTML report (issue 31, item 4).
#
# The incident, generated deterministically once under SCRATCH/incident/:
#   vllm.log        a 1 GiB mixed serving log (bench/gen_server_log.py)
#   syslog          a 256 MiB syslog with 64 OOM reports (gen_kernel_log.c)
#   snapshot.pickle a 1,000,000-entry PyTorch snapshot (gen_snapshot.py)
#   smaps_rollup.txt, memory.current.txt, nvidia-smi.csv: a day of 1 s
#                   samples (86,400 each) of the process's smaps_rollup,
#                   its cgroup's memory.current and the card's nvidia-smi
#                   query CSV, all on the same clock as the other files.
# Then `oomlens analyze` of the folder to an HTML report, under
# /usr/bin/time -v: prints total wall time, CPU, peak RSS and the
# report's size (goals: under 15 s, 256 MiB, 2 MB on the development
# machine). Run it when the machine is quiet (uptime load below 1): the
# figures are wall times. INCIDENT_SCALE=0.01 makes every input a
# hundredth of the size, for a quick check of the script.
set -e
bin=${1:-build/oomlens}
out=${2:-bench/out}
here=$(cd "$(dirname "$0")" && pwd)
scale=${INCIDENT_SCALE:-1}
dir=$out/incident-$scale
mkdir -p "$dir/in"

# n BASE: BASE times the scale, an integer
n() { awk -v b="$1" -v s="$scale" 'BEGIN { printf "%d", b * s }'; }

[ -s "$dir/in/vllm.log" ] || python3 "$here/gen_server_log.py" "$(n 1073741824)" > "$dir/in/vllm.log"
if [ ! -s "$dir/in/syslog" ]; then
	cc -O2 -o "$dir/gen_kernel_log" "$here/gen_kernel_log.c"
	"$dir/gen_kernel_log" "$(n 268435456)" 64 > "$dir/in/syslog"
fi
[ -s "$dir/in/snapshot.pickle" ] ||
	python3 "$here/gen_snapshot.py" "$(n 1000000)" "$dir/in/snapshot.pickle" >/dev/null
secs=$(n 86400)
if [ ! -s "$dir/in/nvidia-smi.csv" ]; then
	# the day of 2025-11-29 in UTC, one capture a second: RSS and the
	# cgroup creep up, the card fills towards its 80 GiB
	awk -v secs="$secs" -v smaps="$dir/in/smaps_rollup.txt" \
	    -v cg="$dir/in/memory.current.txt" -v smi="$dir/in/nvidia-smi.csv" 'BEGIN {
		t0 = 1764374400;
		print "timestamp, index, name, memory.used [MiB], memory.total [MiB], utilization.gpu [%]" > smi;
		for (i = 0; i < secs; i++) {
			t = t0 + i;
			iso = strftime("%Y-%m-%dT%H:%M:%S", t, 1);
			rss = 8000000 + int(i * 20) + (i * 7919) % 4096;
			printf "### %s.000000Z pid=4312 comm=python3 src=smaps_rollup boot_id=8f0c2b6e mono=%d.000000\n", iso, 4600 + i > smaps;
			printf "55d0c0a00000-7ffd3a5ff000 ---p 00000000 00:00 0                          [rollup]\n" > smaps;
			printf "Rss:            %8d kB\nPss:            %8d kB\nAnonymous:      %8d kB\nSwap:                  0 kB\n", rss, rss - 1000, rss - 200000 > smaps;
			printf "### %s.000000Z src=cgroup:memory.current cgroup=/kubepods/pod-vllm\n%d\n", iso, (rss + 300000) * 1024 > cg;
			printf "%s, 0, NVIDIA H100 80GB HBM3, %d MiB, 81559 MiB, %d %%\n",
				strftime("%Y/%m/%d %H:%M:%S", t, 1) ".000", 60000 + int(i / 5) % 20000, i % 100 > smi;
		}
	}'
fi

rm -f "$dir/incident.db" "$dir/report.html"
/usr/bin/time -v -o "$dir/analyze.time" "$bin" analyze --tz +00:00 --year 2025 \
	--db "$dir/incident.db" -o "$dir/report.html" "$dir/in" > "$dir/analyze.out" 2>&1 ||
	{ cat "$dir/analyze.out"; exit 1; }
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }' "$dir/analyze.time")
user=$(awk -F': ' '/User time/ { print $2 }' "$dir/analyze.time")
sys=$(awk -F': ' '/System time/ { print $2 }' "$dir/analyze.time")
rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/analyze.time")
echo "inputs: $(du -b "$dir/in"/* | awk '{ printf "%s %d MB; ", $2, $1 / 1000000 }' | sed "s|$dir/in/||g")"
echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
echo "analyze to HTML: ${wall} s wall (goal < 15), CPU ${user} s user + ${sys} s sys, peak RSS $((rss_kb / 1024)) MiB (goal < 256)"
echo "report: $(stat -c %s "$dir/report.html") bytes (goal < 2 MB); database $(stat -c %s "$dir/incident.db") bytes"
