#!/bin/sh
# bench_snapshot.sh OOMLENS SCRATCH [N...] -- ingest speed and peak memory
# of PyTorch memory snapshots against Python's bare pickle.load.
# Generates (deterministically, bench/gen_snapshot.py) snapshots with N trace
# entries (default 1,000,000 and 10,000,000) under SCRATCH, then, RUNS times
# (default 5), runs `python3 pickle.load` and `oomlens ingest` (holders
# included) one after the other: paired runs, so that both meet the same
# machine. Prints each run and the medians of wall time, CPU (user + sys)
# and peak RSS, and the ratios of the medians (targets: wall <= 0.8, CPU <=
# 1, RSS <= 0.25), with the load average before and after.
#   PYTHON   the interpreter (default: the system's /usr/bin/python3, a
#            distribution build, else the real one behind python3; never a
#            pyenv shim, whose start would be counted against pickle.load)
#   TASKSET  a prefix for both commands, e.g. "taskset -c 0,1"
set -e
bin=${1:-build/oomlens}
dir=${2:-bench/out}
shift 2 || true
sizes="$*"
[ -n "$sizes" ] || sizes="1000000 10000000"
runs=${RUNS:-5}
if [ -z "$PYTHON" ] && [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; fi
py=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"

# measure CMD...: sets $secs, $cpu and $rss_kb
# steal: CPU time (s, both vCPUs) the hypervisor gave to others meanwhile
# (/proc/stat); wall times are only comparable when it stays near 0
measure() {
	st0=$(awk '/^cpu / { print $9 }' /proc/stat)
	$TASKSET /usr/bin/time -v "$@" >/dev/null 2>"$dir/time.txt" || { cat "$dir/time.txt" >&2; exit 1; }
	steal=$(awk -v a="$st0" '/^cpu / { printf "%.2f", ($9 - a) / 100 }' /proc/stat)
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$dir/time.txt")
	rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$dir/time.txt")
}

# median of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for n in $sizes; do
	f="$dir/snapshot_$n.pickle"
	[ -s "$f" ] || python3 "$here/gen_snapshot.py" "$n" "$f"
	mb=$(awk -v b="$(stat -L -c %s "$f")" 'BEGIN { printf "%.1f", b / 1048576 }')
	echo "$n trace entries, $mb MB pickle, $runs paired runs ($py; load before: $(cut -d' ' -f1-3 /proc/loadavg))"
	: >"$dir/runs.txt"
	i=0
	while [ $i -lt "$runs" ]; do
		measure "$py" -c 'import pickle,sys; pickle.load(open(sys.argv[1],"rb"))' "$f"
		py_s=$secs; py_kb=$rss_kb; py_cpu=$cpu; py_steal=$steal
		rm -f "$dir/snapshot_$n.db"
		measure "$bin" ingest -q --db "$dir/snapshot_$n.db" "$f"
		rm -f "$dir/snapshot_$n.db"
		echo "$py_s $py_cpu $py_kb $secs $cpu $rss_kb" >>"$dir/runs.txt"
		awk -v ps="$py_s" -v pc="$py_cpu" -v os="$secs" -v oc="$cpu" -v a="$py_steal" -v b="$steal" 'BEGIN {
			printf "  run: pickle.load %6.2f s wall %6.2f s CPU | oomlens %6.2f s wall %6.2f s CPU | ratio wall %.2f CPU %.2f | steal %.2f / %.2f s\n",
				ps, pc, os, oc, os / (ps > 0 ? ps : 0.01), oc / (pc > 0 ? pc : 0.01), a, b }'
		i=$((i + 1))
	done
	ps=$(awk '{ print $1 }' "$dir/runs.txt" | median); pc=$(awk '{ print $2 }' "$dir/runs.txt" | median)
	pk=$(awk '{ print $3 }' "$dir/runs.txt" | median); os=$(awk '{ print $4 }' "$dir/runs.txt" | median)
	oc=$(awk '{ print $5 }' "$dir/runs.txt" | median); ok=$(awk '{ print $6 }' "$dir/runs.txt" | median)
	awk -v n="$n" -v ps="$ps" -v pk="$pk" -v pc="$pc" -v os="$os" -v ok="$ok" -v oc="$oc" 'BEGIN {
		printf "  median python3 pickle.load: %7.2f s wall %7.2f s CPU %8.0f MB peak RSS\n", ps, pc, pk / 1024
		printf "  median oomlens ingest     : %7.2f s wall %7.2f s CPU %8.0f MB peak RSS (%.0f entries/s CPU)\n",
			os, oc, ok / 1024, n / (oc > 0 ? oc : 0.01)
		printf "  ratio of the medians      : wall %.2f  CPU %.2f  RSS %.3f\n",
			os / (ps > 0 ? ps : 0.01), oc / (pc > 0 ? pc : 0.01), ok / pk
	}'
	echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
