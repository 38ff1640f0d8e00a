#!/bin/sh
# bench_whatif.sh OOMLENS SCRATCH [N] -- speed of the what-if replay of an
# allocator trace (analyzer/rules/whatif_replay.h): bench/bench_whatif.c,
# built against the library next to OOMLENS, generates a serving trace of N
# entries (default 10,000,000) on the fly, feeds it and replays it under
# every scenario; prints entries/s, requests/s per replay and, from
# /usr/bin/time -v, wall time and peak RSS. Target: 10 M entries under 10 s.
# BENCH_WHATIF_SNAPSHOT=1 also times the whole rule: the same trace written
# as a flat snapshot (docs/flat-format.md), ingested, then `oomlens
# classify` (every rule; on this snapshot the whatif rule is nearly all).
set -e
bin=${1:-build/oomlens}
dir=${2:-bench/out}
n=${3:-10000000}
here=$(cd "$(dirname "$0")" && pwd)
lib=$(dirname "$bin")/liboomlens_core.a
mkdir -p "$dir"
cc -O2 -std=gnu11 -I"$here/.." -o "$dir/bench_whatif" "$here/bench_whatif.c" "$lib" \
	$(pkg-config --libs sqlite3 jansson libelf libdw zlib) -lm

# measure CMD...: sets $secs and $rss_kb, keeps CMD's output in $dir/out.txt
measure() {
	/usr/bin/time -v "$@" >"$dir/out.txt" 2>"$dir/time.txt" || { cat "$dir/time.txt" >&2; exit 1; }
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$dir/time.txt")
	rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$dir/time.txt")
}

measure "$dir/bench_whatif" "$n"
cat "$dir/out.txt"
awk -v s="$secs" -v c="$cpu" -v k="$rss_kb" -v n="$n" 'BEGIN {
	printf "  process         : %6.2f s wall %6.2f s CPU %6.0f MB peak RSS  (%.2f M entries/s wall)\n",
		s, c, k / 1024, n / (s > 0 ? s : 0.01) / 1e6 }'

if [ "${BENCH_WHATIF_SNAPSHOT:-0}" = 1 ]; then
	flat="$dir/whatif_$n.jsonl"
	"$dir/bench_whatif" "$n" "$flat" >/dev/null     # not timed: it writes the file
	rm -f "$dir/whatif_$n.db"
	measure "$bin" ingest -q --db "$dir/whatif_$n.db" "$flat"
	awk -v s="$secs" -v k="$rss_kb" 'BEGIN {
		printf "  oomlens ingest of the flat snapshot: %.2f s wall %.0f MB peak RSS\n", s, k / 1024 }'
	rm -f "$flat"
	measure "$bin" classify "$dir/whatif_$n.db"
	awk -v s="$secs" -v c="$cpu" -v k="$rss_kb" 'BEGIN {
		printf "  oomlens classify (all rules, whatif included): %.2f s wall %.2f s CPU %.0f MB peak RSS\n",
			s, c, k / 1024 }'
	sqlite3 "$dir/whatif_$n.db" "SELECT scenario, setting, fits, peak_reserved_bytes, events
		FROM whatif" 2>/dev/null || true
	rm -f "$dir/whatif_$n.db"
fi
