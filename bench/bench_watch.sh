#!/bin/sh
# bench_watch.sh [OOMLENS] [SECONDS] -- the watcher's own cost (issue 30):
# a memory cgroup holding 50 sleeping processes, `oomlens watch` on it at a
# 1 s interval for SECONDS (default 20); prints its CPU time as a share of
# one core (utime + stime from /proc/PID/stat) and its peak RSS (VmHWM).
# Goal: under 1 % of a core and under 16 MiB. Needs root and cgroup v1 or
# v2 memory; exits 77 where a cgroup cannot be made.
set -u
bin=${1:-build/oomlens}
secs=${2:-20}
if [ -w /sys/fs/cgroup/memory ]; then root=/sys/fs/cgroup/memory; else root=/sys/fs/cgroup; fi
cg=$root/oomlens-bench-watch-$$
mkdir "$cg" 2> /dev/null || { echo "SKIP: cannot make a cgroup under $root"; exit 77; }
out=$(mktemp -d)
pids=""
for i in $(seq 50); do
	sh -c 'echo $$ > "$1/cgroup.procs"; exec sleep 3600' s "$cg" & pids="$pids $!"
done
sleep 0.5
"$bin" watch -q --cgroup "$cg" --out "$out/w" --interval 1 --for "$secs" & w=$!
sleep $((secs - 1))
hz=$(getconf CLK_TCK)
ticks=$(awk '{ print $14 + $15 }' /proc/$w/stat)
hwm=$(awk '/VmHWM/ { print $2 }' /proc/$w/status)
wait $w
kill $pids 2> /dev/null
wait 2> /dev/null
sleep 0.2
rmdir "$cg"
echo "watch: $((secs - 1)) s at 1 s on 50 processes: cpu $(awk -v t="$ticks" -v hz="$hz" -v s="$((secs - 1))" \
	'BEGIN { printf "%.2f", 100 * t / hz / s }') % of a core, peak RSS $((hwm / 1024)) MiB ($hwm kB)," \
	"wrote $(du -sk "$out/w" | cut -f1) kB"
rm -rf "$out"
