#!/bin/sh
# bench_snapshot.sh OOMLENS SCRATCH [N...] -- ingest speed and peak memory
# of PyTorch memory snapshots against Python's bare pickle.load.
# Generates (deterministically, bench/gen_snapshot.py) snapshots with N trace
# entries (default 1,000,000 and 10,000,000) under SCRATCH, then prints for
# each: file size, wall time and peak RSS of `oomlens ingest` and of
# `python3 -c 'pickle.load(...)'`, and the ratios (target: time < 1, RSS
# <= 0.25).
set -e
bin=${1:-build/oomlens}
dir=${2:-bench/out}
shift 2 || true
sizes="$*"
[ -n "$sizes" ] || sizes="1000000 10000000"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"

# measure CMD...: sets $secs and $rss_kb
measure() {
	/usr/bin/time -v "$@" >/dev/null 2>"$dir/time.txt" || { cat "$dir/time.txt" >&2; exit 1; }
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$dir/time.txt")
	rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$dir/time.txt")
}

for n in $sizes; do
	f="$dir/snapshot_$n.pickle"
	[ -s "$f" ] || python3 "$here/gen_snapshot.py" "$n" "$f"
	mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", b / 1048576 }')
	measure python3 -c 'import pickle,sys; pickle.load(open(sys.argv[1],"rb"))' "$f"
	py_s=$secs; py_kb=$rss_kb; py_cpu=$cpu
	rm -f "$dir/snapshot_$n.db"
	measure "$bin" ingest -q --db "$dir/snapshot_$n.db" "$f"
	ol_s=$secs; ol_kb=$rss_kb; ol_cpu=$cpu
	rm -f "$dir/snapshot_$n.db"
	awk -v n="$n" -v mb="$mb" -v ps="$py_s" -v pk="$py_kb" -v pc="$py_cpu" \
	    -v os="$ol_s" -v ok="$ol_kb" -v oc="$ol_cpu" 'BEGIN {
		printf "%d trace entries, %s MB pickle\n", n, mb
		printf "  python3 pickle.load : %7.2f s wall %7.2f s CPU %8.0f MB peak RSS\n", ps, pc, pk / 1024
		printf "  oomlens ingest      : %7.2f s wall %7.2f s CPU %8.0f MB peak RSS  (%.1f MB/s, %.0f entries/s CPU)\n",
			os, oc, ok / 1024, mb / (oc > 0 ? oc : 0.01), n / (oc > 0 ? oc : 0.01)
		printf "  ratio oomlens/python: wall %.2f  CPU %.2f  RSS %.3f\n",
			os / (ps > 0 ? ps : 0.01), oc / (pc > 0 ? pc : 0.01), ok / pk
	}'
done
