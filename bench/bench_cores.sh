#!/bin/sh
# bench/bench_cores.sh OOMLENS SCRATCH -- CUDA core dumps: a core recording
# 8 GiB of device memory (64 global sections of 128 MiB whose sh_offset
# points into a never-written sparse area) must ingest in under 0.5 s and
# 32 MiB peak RSS, and cost the same as a core with the same sections
# holding 4 KiB each: the reader never touches memory contents.
# Generator: tests/cuda_core_gen.c (the test writer), built here with cc.
set -e
bin=${1:-build/oomlens}
out=${2:-bench/out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cc -O2 -o "$out/cuda_core_gen" "$here/../tests/cuda_core_gen.c" $(pkg-config --cflags --libs zlib)

# run NAME FILE: ingest FILE, print seconds and peak RSS
run() {
	/usr/bin/time -v "$bin" ingest --db "$out/$1.db" "$2" >/dev/null 2>"$out/$1.time" || {
		cat "$out/$1.time"; exit 1; }
	secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/$1.time" |
	       awk -F: '{ print $(NF-1) * 60 + $NF }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/$1.time")
	regions=$(sqlite3 "$out/$1.db" "SELECT count(*) || ' regions, ' ||
		  printf('%.2f', sum(size) / 1073741824.0) || ' GiB' FROM gpu_region WHERE kind = 'global'")
	echo "$1: $regions, file $(du -h --apparent-size "$2" | cut -f1) apparent /" \
	     "$(du -h "$2" | cut -f1) on disk: ${secs} s, peak RSS $((rss / 1024)) MiB"
	eval "secs_$1=$secs rss_$1=$rss"
}

# gen OUT GEN NCTX NREGIONS REGION_BYTES SPARSE GZIP EXCEPTION
"$out/cuda_core_gen" "$out/big.nvcudmp" 1 8 64 134217728 1 0 1
"$out/cuda_core_gen" "$out/small.nvcudmp" 1 8 64 4096 0 0 1
"$out/cuda_core_gen" "$out/many.nvcudmp" 1 8 8192 1048576 1 0 1
# avg NAME FILE: mean wall seconds over 10 ingests (finer than time -v)
avg() {
	t0=$(date +%s%N)
	for i in 1 2 3 4 5 6 7 8 9 10; do "$bin" ingest --db "$out/avg.db" "$2" >/dev/null 2>&1; done
	t1=$(date +%s%N)
	eval "avg_$1=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e10 }')"
}
run big "$out/big.nvcudmp"
run small "$out/small.nvcudmp"
run many "$out/many.nvcudmp"
avg big "$out/big.nvcudmp"
avg small "$out/small.nvcudmp"
awk -v s="$avg_big" -v r="$rss_big" -v s0="$avg_small" 'BEGIN {
	ok = s < 0.5 && r < 32768
	printf "8 GiB core: %.4f s mean of 10 (limit 0.5), %d MiB peak (limit 32) -> %s; same core with 256 KiB of contents: %.4f s (ratio %.2f)\n",
	       s, r / 1024, (ok ? "PASS" : "FAIL"), s0, (s0 > 0 ? s / s0 : 1)
	exit !ok }'
rm -f "$out/big.nvcudmp" "$out/small.nvcudmp" "$out/many.nvcudmp" "$out"/*.db "$out"/*.time
