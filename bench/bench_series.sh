#!/bin/sh
# bench/bench_series.sh OOMLENS SCRATCH -- time series sources.
# Generates, deterministically, (1) a capture series of SMAPS_CAPTURES
# (default 10000) smaps captures of one process with 2,000 mappings each
# and (2) a vLLM log of VLLM_MB (default 1024) MB of engine statistics,
# request lines and an OOM traceback, then ingests each into a fresh
# database and prints throughput (MB/s of input) and peak RSS
# (/usr/bin/time -v). Inputs are never committed.
set -e
bin=${1:-build/oomlens}
dir=${2:-bench/out}
caps=${SMAPS_CAPTURES:-10000}
vmb=${VLLM_MB:-1024}
mkdir -p "$dir"

smaps=$dir/smaps_series_$caps.txt
if [ ! -s "$smaps" ]; then
	awk -v caps="$caps" 'BEGIN {
		keys = "KernelPageSize MMUPageSize Pss_Dirty Shared_Clean Shared_Dirty Private_Clean " \
		       "Private_Dirty Referenced KSM LazyFree AnonHugePages ShmemPmdMapped " \
		       "FilePmdMapped Shared_Hugetlb Private_Hugetlb SwapPss Locked";
		nk = split(keys, k, " ");
		t0 = 1764440560;
		for (c = 0; c < caps; c++) {
			s = t0 + c * 10;
			printf "### %s.000000Z pid=4312 comm=python3 src=smaps boot_id=8f0c2b6e mono=%d.000000\n",
				strftime("%Y-%m-%dT%H:%M:%S", s, 1), 4600 + c * 10;
			for (m = 0; m < 2000; m++) {
				sz = 4 * (1 + (m * 7919) % 4096);
				rss = (m % 3 == 0) ? sz : int(sz / 2);
				if (m % 5 == 0) { path = "/usr/lib/x86_64-linux-gnu/libtorch_cuda.so"; perm = "r-xp"; }
				else if (m % 5 == 1) { path = "[heap]"; perm = "rw-p"; }
				else if (m % 5 == 2) { path = "/dev/nvidia0"; perm = "rw-s"; rss = 0; }
				else { path = ""; perm = "rw-p"; }
				# mawk prints 32-bit hex only: the high half is the slot
				printf "%x00000000-%x%08x %s 00000000 00:00 %d                          %s\n",
					32512 + m, 32512 + m, sz * 1024, perm, m, path;
				printf "Size:           %8d kB\n", sz;
				printf "Rss:            %8d kB\n", rss + (c % 7);
				printf "Pss:            %8d kB\n", rss;
				printf "Anonymous:      %8d kB\n", path == "" ? rss : 0;
				printf "Swap:           %8d kB\n", 0;
				for (i = 1; i <= nk; i++)
					printf "%s:%*s%8d kB\n", k[i], 15 - length(k[i]), "", i == 1 || i == 2 ? 4 : 0;
				printf "THPeligible:           0\nVmFlags: rd wr mr mw me ac sd \n";
			}
		}
	}' > "$smaps"
fi

vlog=$dir/vllm_$vmb.log
if [ ! -s "$vlog" ]; then
	awk -v mb="$vmb" 'BEGIN {
		limit = mb * 1048576; n = 0; i = 0;
		while (n < limit) {
			i++;
			s = i % 86400;
			ts = sprintf("11-29 %02d:%02d:%02d", int(s / 3600), int(s / 60) % 60, s % 60);
			l = sprintf("INFO %s [loggers.py:123] Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%\n",
				ts, (i * 37) % 5000 / 1.7, (i * 13) % 900 / 1.3, i % 256, i % 17, (i % 1000) / 10.0, (i % 500) / 5.0);
			l = l sprintf("INFO:     10.0.3.%d:%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n", i % 250, 30000 + i % 30000);
			if (i % 100000 == 0)
				l = l sprintf("ERROR %s [core.py:700] Traceback (most recent call last):\nERROR %s [core.py:700]   File \"/usr/lib/python3.12/vllm/v1/engine/core.py\", line 691, in run_engine_core\nERROR %s [core.py:700]     engine_core.run_busy_loop()\nERROR %s [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free. Process 4312 has 78.12 GiB memory in use. Of the allocated memory 74.31 GiB is allocated by PyTorch, and 2.55 GiB is reserved by PyTorch but unallocated.\n", ts, ts, ts, ts);
			printf "%s", l;
			n += length(l);
		}
	}' > "$vlog"
fi

run() {
	name=$1; file=$2
	rm -f "$dir/$name.db"
	/usr/bin/time -v "$bin" ingest --db "$dir/$name.db" --year 2025 -q "$file" \
		2> "$dir/$name.time" || true
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$dir/$name.time")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$dir/$name.time")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/$name.time")
	bytes=$(wc -c < "$file")
	echo "$name: $(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.0f MB in %.1f s = %.1f MB/s", b / 1e6, s, b / 1e6 / s }') wall, $(awk -v b="$bytes" -v c="$cpu" 'BEGIN { printf "%.1f CPU s = %.1f MB/CPU-s", c, b / 1e6 / c }'), peak RSS $((rss / 1024)) MiB, db $(du -m "$dir/$name.db" | cut -f1) MB"
}
run smaps "$smaps"
run vllm "$vlog"
