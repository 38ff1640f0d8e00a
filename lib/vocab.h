/*
 * vocab.h -- oomlens's vocabulary, declared once: every event kind, series
 * name, meta key, finding cause, class, OOM phase and peak measure that
 * parsers write, the store keeps, rules judge and reports show, each with
 * its unit (series and meta) and a one-line meaning; and the kinds of the
 * derived table oom (analyzer/derive/oom.c).
 *
 * Each set is an X-macro list, X(ID, "name", var, "unit", "meaning"), so
 * that the enum, the names, the store's check and docs/schema.md
 * ("Vocabulary") are one list:
 *   - ID names the entry in code: parsers write vocab_event_kind(VE_OOM_KILL),
 *     vocab_series_name(VS_GPU_USED_BYTES), ... instead of a literal;
 *   - var is NULL, or the documented variable part of a family of names:
 *     meta key "gpu.total_bytes." with var "<gpu>" is every key
 *     "gpu.total_bytes.gpu0", "gpu.total_bytes.gpu1", ... (the name is the
 *     prefix; the rest must not be empty);
 *   - unit is the unit of a series' values (series.unit as written) or of
 *     a meta value; NULL for the sets that carry none.
 *
 * Input-driven names: a series name without a '.' is a metric's own name
 * (a Prometheus scrape or API answer: `vllm:num_requests_running`,
 * `container_memory_working_set_bytes`), which the input decides and no
 * list can hold; Prometheus names cannot contain a '.', so every dotted
 * series name is oomlens's own and must be declared. The variable part of
 * a family (an environment variable's name, a container's) is input too.
 *
 * Checks: the store refuses an undeclared event kind, series name or meta
 * key (analyzer/store/timeline_common.c: a programmer error, said as such),
 * the rule library an undeclared class or cause (rl_finding_write);
 * tests/t_vocab.sh fails on a vocabulary-looking literal in analyzer/,
 * reports/, parsers/ or cli/ that is not declared here, and
 * tests/test_vocab.c when docs/schema.md and these lists differ.
 *
 * lib/engine_vocab.h keeps the serving engines' own vocabulary (engine
 * kinds, accounting facts, engine errors); their load series are
 * declared here and named there through vocab_series_name().
 */
#ifndef OOMLENS_VOCAB_H
#define OOMLENS_VOCAB_H

#include <stddef.h>

/* ---- event kinds (event.kind): X(ID, name, var, unit, meaning) ---- */
#define VOCAB_EVENT_KINDS(X) \
	X(VE_OOM_INVOKED, "oom_invoked", NULL, NULL, "the kernel's OOM killer was invoked (its header, or a report whose header is not in the log); task rows hang off it") \
	X(VE_OOM_KILL, "oom_kill", NULL, NULL, "the kernel killed a process for memory: the victim") \
	X(VE_OOM_REAPER, "oom_reaper", NULL, NULL, "the kernel's oom_reaper freed a victim's memory") \
	X(VE_OOM_NO_KILL, "oom_no_kill", NULL, NULL, "the OOM killer ran and found nothing it could kill") \
	X(VE_MEM_INFO, "mem_info", NULL, NULL, "a Mem-Info dump outside an OOM report") \
	X(VE_USERSPACE_KILL, "userspace_kill", NULL, NULL, "a user-space killer (systemd-oomd, earlyoom) killed a process") \
	X(VE_OOMD_CANDIDATES, "oomd_candidates", NULL, NULL, "systemd-oomd's list of candidates to kill") \
	X(VE_SYSTEMD_UNIT_OOM, "systemd_unit_oom", NULL, NULL, "systemd said a unit failed with result oom-kill") \
	X(VE_SLURM_OOM, "slurm_oom", NULL, NULL, "Slurm said a job step was OOM-killed") \
	X(VE_LSF_MEMLIMIT, "lsf_memlimit", NULL, NULL, "IBM LSF killed a job at its memory limit (TERM_MEMLIMIT)") \
	X(VE_ALLOC_FAILURE, "alloc_failure", NULL, NULL, "the kernel's page allocation failure warning") \
	X(VE_GPU_XID, "gpu_xid", NULL, NULL, "an NVIDIA Xid error (a GPU fault, a card off the bus)") \
	X(VE_K8S_OOM_KILL, "k8s_oom_kill", NULL, NULL, "Kubernetes says a container was OOMKilled") \
	X(VE_K8S_EVICTION, "k8s_eviction", NULL, NULL, "Kubernetes evicted a pod for memory pressure") \
	X(VE_TORCH_OOM, "torch_oom", NULL, NULL, "PyTorch's CUDA out of memory: a log's message or a snapshot's oom entry") \
	X(VE_MEM_FAILURE, "mem_failure", NULL, NULL, "an allocation failure in any other wording (HIP, ggml, Metal, MPS, XLA, cuDNN...): its family and what it states") \
	X(VE_CUDA_EXCEPTION, "cuda_exception", NULL, NULL, "a CUDA exception a CUDA core recorded in a grid") \
	X(VE_PROCESS_CRASH, "process_crash", NULL, NULL, "a process ended by a signal (a host core)") \
	X(VE_SERVER_ERROR, "server_error", NULL, NULL, "a server log's Python traceback or C++ abort") \
	X(VE_ENGINE_ERROR, "engine_error", NULL, NULL, "a serving engine's memory error outside a traceback") \
	X(VE_PREEMPTION, "preemption", NULL, NULL, "vLLM preempted a request for lack of KV cache") \
	X(VE_TRAIN_PROGRESS, "train_progress", NULL, NULL, "a training loop's last progress bar in a plain log: steps done of how many") \
	X(VE_TORCH_MEMORY_STATS, "torch_memory_stats", NULL, NULL, "a memory_summary table or memory_stats dump was read") \
	X(VE_TORCH_PROFILER_TABLE, "torch_profiler_table", NULL, NULL, "a torch.profiler key_averages table was read") \
	X(VE_TORCH_PROFILER_TRACE, "torch_profiler_trace", NULL, NULL, "a torch.profiler Chrome trace was read") \
	X(VE_MEMRAY_STATS, "memray_stats", NULL, NULL, "a memray stats report was read") \
	X(VE_MEMRAY_CAPTURE, "memray_capture", NULL, NULL, "a memray capture file was read") \
	X(VE_METRICS_SCRAPE, "metrics_scrape", NULL, NULL, "a Prometheus scrape was read") \
	X(VE_METRICS_QUERY, "metrics_query", NULL, NULL, "a Prometheus API answer was read") \
	X(VE_METRICS_EXPORT, "metrics_export", NULL, NULL, "a Grafana CSV export was read") \
	X(VE_NSYS_STATS, "nsys_stats", NULL, NULL, "an nsys stats report was read") \
	X(VE_NSYS_CAPTURE, "nsys_capture", NULL, NULL, "an Nsight Systems SQLite export was read") \
	X(VE_NSYS_MEMORY, "nsys_memory", NULL, NULL, "the peak of CUDA device memory in an Nsight Systems export") \
	X(VE_ALLOC_FAILED, "alloc_failed", NULL, NULL, "a CUDA allocation call that returned an error (Nsight Systems)")

/* ---- series names (series.name), unit as series.unit holds it ---- */
#define VOCAB_SERIES(X) \
	X(VS_GPU_USED_BYTES, "gpu.used_bytes", NULL, "bytes", "memory in use on the card (nvidia-smi, DCGM), entity gpuN") \
	X(VS_GPU_TOTAL_BYTES, "gpu.total_bytes", NULL, "bytes", "the card's memory") \
	X(VS_GPU_FREE_BYTES, "gpu.free_bytes", NULL, "bytes", "free memory on the card") \
	X(VS_GPU_RESERVED_BYTES, "gpu.reserved_bytes", NULL, "bytes", "memory the driver reserves on the card") \
	X(VS_GPU_UTIL_PERCENT, "gpu.util_percent", NULL, "%", "the card's compute utilisation") \
	X(VS_GPU_PROC_USED_BYTES, "gpu.proc_used_bytes", NULL, "bytes", "a process's memory on the card, entity gpuN/pid:P") \
	X(VS_GPU_MEM_COPY_UTIL_PERCENT, "gpu.mem_copy_util_percent", NULL, "%", "DCGM's memory copy utilisation") \
	X(VS_GPU_GR_ENGINE_ACTIVE, "gpu.gr_engine_active", NULL, "ratio", "DCGM profiling: graphics engine active (0..1)") \
	X(VS_GPU_DRAM_ACTIVE, "gpu.dram_active", NULL, "ratio", "DCGM profiling: DRAM active (0..1)") \
	X(VS_GPU_BAR1_USED_BYTES, "gpu.bar1_used_bytes", NULL, "bytes", "the card's BAR1 aperture in use (nvidia-smi -q)") \
	X(VS_TORCH_ALLOCATED_BYTES, "torch.allocated_bytes", NULL, "bytes", "PyTorch's allocated bytes, entity cuda:N") \
	X(VS_TORCH_RESERVED_BYTES, "torch.reserved_bytes", NULL, "bytes", "PyTorch's reserved (cached) bytes") \
	X(VS_TORCH_ACTIVE_BYTES, "torch.active_bytes", NULL, "bytes", "PyTorch's active bytes (memory_stats)") \
	X(VS_TORCH_INACTIVE_SPLIT_BYTES, "torch.inactive_split_bytes", NULL, "bytes", "cached free bytes in split blocks (memory_stats)") \
	X(VS_TORCH_REQUESTED_BYTES, "torch.requested_bytes", NULL, "bytes", "bytes the callers asked for (memory_stats)") \
	X(VS_TORCH_ALLOCATED_PEAK_BYTES, "torch.allocated_peak_bytes", NULL, "bytes", "the allocator's allocated peak since start or reset") \
	X(VS_TORCH_RESERVED_PEAK_BYTES, "torch.reserved_peak_bytes", NULL, "bytes", "the allocator's reserved peak") \
	X(VS_TORCH_ACTIVE_PEAK_BYTES, "torch.active_peak_bytes", NULL, "bytes", "the allocator's active peak") \
	X(VS_TORCH_INACTIVE_SPLIT_PEAK_BYTES, "torch.inactive_split_peak_bytes", NULL, "bytes", "the allocator's inactive split peak") \
	X(VS_TORCH_REQUESTED_PEAK_BYTES, "torch.requested_peak_bytes", NULL, "bytes", "the allocator's requested peak") \
	X(VS_TORCH_NUM_ALLOC_RETRIES, "torch.num_alloc_retries", NULL, "count", "cudaMalloc retries after freeing the cache") \
	X(VS_TORCH_NUM_OOMS, "torch.num_ooms", NULL, "count", "out-of-memory errors the allocator raised") \
	X(VS_TORCH_ALLOCATIONS, "torch.allocations", NULL, "count", "allocations in use") \
	X(VS_TORCH_SEGMENTS, "torch.segments", NULL, "count", "segments the allocator holds") \
	X(VS_TORCH_CPU_ALLOCATED_BYTES, "torch.cpu_allocated_bytes", NULL, "bytes", "the profiler's CPU allocated bytes, entity cpu") \
	X(VS_CUDA_ALLOCATED_BYTES, "cuda.allocated_bytes", NULL, "bytes", "CUDA device allocations less frees (Nsight Systems)") \
	X(VS_PROC_RSS_BYTES, "proc.rss_bytes", NULL, "bytes", "a process's resident memory, entity pid:P") \
	X(VS_PROC_PSS_BYTES, "proc.pss_bytes", NULL, "bytes", "a process's proportional set size") \
	X(VS_PROC_ANON_BYTES, "proc.anon_bytes", NULL, "bytes", "a process's anonymous memory") \
	X(VS_PROC_SWAP_BYTES, "proc.swap_bytes", NULL, "bytes", "a process's swapped-out memory") \
	X(VS_PROC_KIND_RSS_BYTES, "proc.kind_rss_bytes", NULL, "bytes", "RSS summed per mapping kind, entity pid:P/<kind>") \
	X(VS_CGROUP_CURRENT_BYTES, "cgroup.current_bytes", NULL, "bytes", "the memory cgroup's usage, entity the cgroup path") \
	X(VS_CGROUP_ANON_BYTES, "cgroup.anon_bytes", NULL, "bytes", "the cgroup's anonymous memory (memory.stat)") \
	X(VS_CGROUP_FILE_BYTES, "cgroup.file_bytes", NULL, "bytes", "the cgroup's page cache (memory.stat)") \
	X(VS_CGROUP_SHMEM_BYTES, "cgroup.shmem_bytes", NULL, "bytes", "the cgroup's shared memory (memory.stat)") \
	X(VS_CGROUP_SWAP_BYTES, "cgroup.swap_bytes", NULL, "bytes", "the cgroup's swap usage") \
	X(VS_CGROUP_PEAK_BYTES, "cgroup.peak_bytes", NULL, "bytes", "the cgroup's usage peak (memory.peak)") \
	X(VS_CGROUP_MEMSW_BYTES, "cgroup.memsw_bytes", NULL, "bytes", "v1 memory + swap usage") \
	X(VS_CGROUP_OOM_KILL, "cgroup.oom_kill", NULL, "count", "memory.events oom_kill") \
	X(VS_CGROUP_OOM, "cgroup.oom", NULL, "count", "memory.events oom") \
	X(VS_CGROUP_MAX_EVENTS, "cgroup.max_events", NULL, "count", "memory.events max: usage hit the limit") \
	X(VS_CGROUP_MEMSW_MAX_EVENTS, "cgroup.memsw_max_events", NULL, "count", "v1 memory.memsw.failcnt: charges refused at the memory + swap limit") \
	X(VS_SERVER_RUNNING, "server.running", NULL, "requests", "requests running in a serving engine") \
	X(VS_SERVER_WAITING, "server.waiting", NULL, "requests", "requests waiting") \
	X(VS_SERVER_SWAPPED, "server.swapped", NULL, "requests", "requests swapped to the CPU") \
	X(VS_SERVER_GPU_KV_USAGE, "server.gpu_kv_usage", NULL, "percent", "GPU KV cache usage (0..100; a scrape's 0..1 gauge keeps unit ratio)") \
	X(VS_SERVER_CPU_KV_USAGE, "server.cpu_kv_usage", NULL, "percent", "CPU KV cache usage") \
	X(VS_SERVER_SWA_KV_USAGE, "server.swa_kv_usage", NULL, "percent", "SGLang's sliding-window pool usage") \
	X(VS_SERVER_PREFIX_CACHE_HIT_RATE, "server.prefix_cache_hit_rate", NULL, "percent", "prefix cache hit rate") \
	X(VS_SERVER_PROMPT_TOKENS_PER_S, "server.prompt_tokens_per_s", NULL, "tokens/s", "prompt throughput") \
	X(VS_SERVER_GEN_TOKENS_PER_S, "server.gen_tokens_per_s", NULL, "tokens/s", "generation throughput") \
	X(VS_SERVER_REQUESTS_TOTAL, "server.requests_total", NULL, "requests", "requests served (cumulative)") \
	X(VS_HOST_MEM_AVAILABLE_BYTES, "host.mem_available_bytes", NULL, "bytes", "the host's available memory (earlyoom)") \
	X(VS_HOST_SWAP_FREE_BYTES, "host.swap_free_bytes", NULL, "bytes", "the host's free swap (earlyoom)") \
	X(VS_HOST_MEM_USED_BYTES, "host.mem_used_bytes", NULL, "bytes", "the host's memory in use: free(1)'s Mem: row, used column, entity host") \
	X(VS_MEMRAY_HEAP_BYTES, "memray.heap_bytes", NULL, "bytes", "heap size over a memray capture") \
	X(VS_PROMETHEUS_RESULT, "prometheus.result", NULL, NULL, "a Prometheus answer for an expression (no __name__)") \
	X(VS_GRAFANA_SERIES, "grafana.series", NULL, NULL, "a Grafana CSV series, entity its name")

/* ---- meta keys (meta.key); var: the variable part of a family ---- */
#define VOCAB_META_KEYS(X) \
	X(VM_CGROUP_MAX_BYTES, "cgroup.max_bytes", NULL, "bytes", "the memory cgroup's limit (memory.max, a container's limit)") \
	X(VM_CGROUP_HIGH_BYTES, "cgroup.high_bytes", NULL, "bytes", "the cgroup's throttle limit (memory.high)") \
	X(VM_CGROUP_SWAP_MAX_BYTES, "cgroup.swap_max_bytes", NULL, "bytes", "the cgroup's swap limit (max = unlimited)") \
	X(VM_CGROUP_MEMSW_MAX_BYTES, "cgroup.memsw_max_bytes", NULL, "bytes", "v1 memory + swap limit") \
	X(VM_GPU_TOTAL_BYTES, "gpu.total_bytes.", "<gpu>", "bytes", "a card's memory") \
	X(VM_GPU_NAME, "gpu.name.", "<gpu>", "text", "a card's product name") \
	X(VM_GPU_PCI_BUS_ID, "gpu.pci_bus_id.", "<gpu>", "text", "a card's PCI bus id") \
	X(VM_GPU_PROC_NAME, "gpu.proc_name.", "<gpu>/pid:<pid>", "text", "a process's name on a card") \
	X(VM_GPU_MIG_PROFILE, "gpu.mig_profile.", "<entity>", "text", "a MIG instance's profile") \
	X(VM_GPU_ECC_ERRORS, "gpu.ecc_errors.", "<gpu>", "text", "a card's ECC error counts, volatile and aggregate (nvidia-smi -q)") \
	X(VM_GPU_RETIRED_PAGES, "gpu.retired_pages.", "<gpu>", "text", "a card's retired pages, single- and double-bit, and pending (nvidia-smi -q)") \
	X(VM_GPU_REMAPPED_ROWS, "gpu.remapped_rows.", "<gpu>", "text", "a card's remapped rows and pending remaps (nvidia-smi -q)") \
	X(VM_GPU_PROC_PEAK_BYTES, "gpu.proc_peak_bytes.", "<gpu>/pid:<pid>", "bytes", "the most memory a process held on a card over its life, exited ones included (nvidia-smi --query-accounted-apps)") \
	X(VM_GPU_PROC_RUNTIME_MS, "gpu.proc_runtime_ms.", "<gpu>/pid:<pid>", "ms", "how long an accounted process ran on a card (nvidia-smi --query-accounted-apps)") \
	X(VM_SERVER_MODEL, "server.model", NULL, "text", "the model served") \
	X(VM_SERVER_DTYPE, "server.dtype", NULL, "text", "the model's dtype") \
	X(VM_SERVER_GPU_MEMORY_UTILIZATION, "server.gpu_memory_utilization", NULL, "ratio", "the share of the card the engine may use") \
	X(VM_SERVER_MAX_NUM_SEQS, "server.max_num_seqs", NULL, "requests", "requests admitted at once") \
	X(VM_SERVER_MAX_NUM_BATCHED_TOKENS, "server.max_num_batched_tokens", NULL, "tokens", "tokens per batch") \
	X(VM_SERVER_MAX_MODEL_LEN, "server.max_model_len", NULL, "tokens", "tokens per request") \
	X(VM_SERVER_TENSOR_PARALLEL_SIZE, "server.tensor_parallel_size", NULL, "count", "cards a model is split over") \
	X(VM_SERVER_WEIGHTS_BYTES, "server.weights_bytes", NULL, "bytes", "the model's weights on the card") \
	X(VM_SERVER_KV_CACHE_BLOCKS, "server.kv_cache_blocks", NULL, "count", "KV cache blocks on the card") \
	X(VM_SERVER_KV_CACHE_BYTES, "server.kv_cache_bytes", NULL, "bytes", "the KV cache's size") \
	X(VM_SERVER_KV_CACHE_TOKENS, "server.kv_cache_tokens", NULL, "tokens", "tokens the KV cache holds") \
	X(VM_SERVER_MAX_CONCURRENCY, "server.max_concurrency", NULL, "requests", "requests of max_model_len that fit at once") \
	X(VM_SERVER_MAX_CONCURRENCY_TOKENS, "server.max_concurrency_tokens", NULL, "tokens", "the tokens per request that concurrency is for") \
	X(VM_SERVER_PROJECTION, "server.projection", NULL, "text", "an engine's start-up projection of the machine's memory with the model loaded (Rapid-MLX's memory pressure warning): {projected_bytes, ram_bytes, share, line}, one row per start-up") \
	X(VM_SERVER_NAME, "server.name", NULL, "text", "the serving engine's name") \
	X(VM_SERVER_VERSION, "server.version", NULL, "text", "the serving engine's version") \
	X(VM_SERVER_LAST_STAGE, "server.last_stage", NULL, "text", "a server log's last stage: {phase, by (stage_line, request_served), line, time_ns, clock}, for the failures of the incident's other pastes") \
	X(VM_SERVER_ANSWERS, "server.answers", NULL, "text", "a server log's answers to requests in order: {runs: [{first, last (lines), what (served, failed, restart), count}], engine_runs: [lines], truncated}, for oom.survival and engine.run") \
	X(VM_TORCH_ALLOCATOR, "torch.allocator.", "<key>", "text", "an allocator_settings value of a snapshot") \
	X(VM_KERNEL_PAGE_SIZE, "kernel.page_size", NULL, "bytes", "the page size task rows are counted in") \
	X(VM_KERNEL_PAGE_SIZE_ASSUMED, "kernel.page_size_assumed", NULL, "text", "the page size was assumed, not read") \
	X(VM_KERNEL_RELEASE, "kernel.release", NULL, "text", "the kernel's release") \
	X(VM_CUDA_GENERATOR, "cuda.generator", NULL, "text", "what wrote a CUDA core") \
	X(VM_CUDA_DRIVER_VERSION, "cuda.driver_version", NULL, "text", "the NVIDIA driver's version") \
	X(VM_CUDA_VERSION, "cuda.version", NULL, "text", "the CUDA driver API version") \
	X(VM_CUDA_COREDUMP_FLAGS, "cuda.coredump_flags", NULL, "hex", "a CUDA core's flags (0x2f = lightweight)") \
	X(VM_K8S_POD_GPU, "k8s.pod_gpu.", "<namespace>/<pod>/<container>", "text", "the GPU entity a container used") \
	X(VM_K8S_MEMORY_REQUEST_BYTES, "k8s.memory_request_bytes", NULL, "bytes", "a container's memory request") \
	X(VM_K8S_MEMORY_LIMIT_BYTES, "k8s.memory_limit_bytes.", "<container>", "bytes", "a container's memory limit") \
	X(VM_HOST_MEM_TOTAL_BYTES, "host.mem_total_bytes", NULL, "bytes", "the host's RAM (earlyoom)") \
	X(VM_HOST_SWAP_TOTAL_BYTES, "host.swap_total_bytes", NULL, "bytes", "the host's swap (earlyoom)") \
	X(VM_HOST_MEMINFO, "host.meminfo.", "<Field>", "bytes", "a /proc/meminfo field of a collected copy (kB fields times 1024; HugePages_ counts as they are)") \
	X(VM_HOST_FREE, "host.free.", "<row>.<column>", "bytes", "a figure of free(1)'s table as a bundle collected it (Mem.used, Swap.total...)") \
	X(VM_HOST_FREE_UNIT, "host.free_unit", NULL, "text", "the unit of a free(1) paste's bare figures (B, KiB, MiB, GiB, TiB, PiB, kB, MB, GB...; suffix = free -h's)") \
	X(VM_HOST_FREE_UNIT_BY, "host.free_unit_by", NULL, "text", "what gave host.free_unit: command_line, suffix, guess (no command line: read from the Mem total), mixed, artifact (another paste's RAM total, analyzer/derive/freeunit.c)") \
	X(VM_HOST_FREE_UNIT_FROM, "host.free_unit_from", NULL, "text", "the file (base name) whose RAM total confirmed or corrected a guessed free unit; its info diagnostic says what it stated") \
	X(VM_HOST_BUDDYINFO, "host.buddyinfo.", "<node>/<zone>", "text", "free blocks of each order 0.. of a zone (/proc/buddyinfo): fragmentation of host memory") \
	X(VM_HOST_SLAB_BYTES, "host.slab_bytes.", "<cache>", "bytes", "a kernel slab cache's size, num_objs x objsize, the ten largest (/proc/slabinfo)") \
	X(VM_HOST_PACKAGE, "host.package.", "<name>", "text", "the version of an installed NVIDIA or CUDA package (dpkg -l, installed-rpms)") \
	X(VM_SOS_VERSION, "sos.version", NULL, "text", "the sos version that collected a sosreport (version.txt)") \
	X(VM_BUNDLE_EVIDENCE_ABSENT, "bundle.evidence_absent.", "<plugin>", "text", "what a bundle's collector says it failed, skipped or timed out on (sos_logs/sos.log)") \
	X(VM_BUNDLE_KIND, "bundle.kind", NULL, "text", "the kind of support bundle an artifact came in (gpu-operator must-gather)") \
	X(VM_MUSTGATHER_OPERATOR_VERSION, "mustgather.gpu_operator_version", NULL, "text", "the NVIDIA GPU operator version a must-gather records (its version file)") \
	X(VM_TIME_CLOCK, "time.clock", NULL, "text", "local: the artifact's times are wall clock of unknown zone") \
	X(VM_TIME_YEAR_BASIS, "time.year_basis", NULL, "text", "how the year of year-less time stamps was inferred") \
	X(VM_INCIDENT_APART, "incident.apart", NULL, "text", "the artifacts' times lie too far apart to be one incident") \
	X(VM_ENV, "env.", "<NAME>", "text", "an environment variable oomlens keeps (allocator, engine settings)") \
	X(VM_LAUNCH_SOURCE, "launch.source", NULL, "text", "what stated the launch.* knobs: an engine's launch command or a pasted configuration, and its line") \
	X(VM_LAUNCH_ENGINE, "launch.engine", NULL, "text", "the engine the pasted launch command starts") \
	X(VM_LAUNCH_PHASE, "launch.phase", NULL, "text", "the phase an inference-only CLI's pasted command runs its whole life in (`eval`: OpenNMT-py's translate.py, fairseq-generate, mlx_lm.evaluate, mlx_lm.perplexity, lm_eval); absent otherwise") \
	X(VM_LAUNCH_KNOB, "launch.", "<knob>", "number", "a knob's value as a launch command or configuration pasted beside the failure states it (max_num_seqs, gpu_memory_utilization, ...: parsers/serving/launch_table.c)") \
	X(VM_SAMPLES_SERIES, "samples.series.", "<n>", "text", "memory samples of one process or device pasted as lines, in file order (untimed): label, per, steps, bytes separated by bars (parsers/host/memsamples.c)") \
	X(VM_LEAK_STATED, "leak.stated.", "<n>", "text", "a program's own leak statement (PyTorch's leak checks, 'Detected N bytes ... leak'): kind, confirmed, device, allocator and driver before/after, leaked bytes, name (parsers/host/leakstmt.c)") \
	X(VM_BENCH_RUN, "bench.run.", "<n>", "text", "a load generator's run pasted beside the failure, in file order: tool, concurrency, rate, prompts, successful, failed, done or cmd, by bars (parsers/tools/bench_out.c)")

/* ---- finding causes (finding.cause, verdict.cause) ---- */
#define VOCAB_CAUSES(X) \
	X(VC_GROWTH, "growth", NULL, NULL, "leak: memory in use grows steadily and is not returned") \
	X(VC_KV_GROWTH_STEADY_LOAD, "kv_growth_steady_load", NULL, NULL, "leak (leaning): the engine's KV cache usage climbs steadily before the OOM while its running requests stay at their typical count") \
	X(VC_ALLOC_STACK, "alloc_stack", NULL, NULL, "leak: live allocations of one stack keep accumulating") \
	X(VC_BURST, "burst", NULL, NULL, "spike: memory rose sharply just before the failure") \
	X(VC_CONCURRENCY, "concurrency", NULL, NULL, "spike: the rise follows the requests in flight") \
	X(VC_SHORT_LIVED_ALLOCS, "short_lived_allocs", NULL, NULL, "spike: many short-lived allocations of one path at the peak") \
	X(VC_FRAGMENTATION, "fragmentation", NULL, NULL, "reserved far above allocated; the request larger than the largest free block") \
	X(VC_CAPACITY, "capacity", NULL, NULL, "the card is too small for what ran on it") \
	X(VC_OTHER_PROCESS, "other_process", NULL, NULL, "another process held the card's memory") \
	X(VC_NON_PYTORCH, "non_pytorch", NULL, NULL, "memory outside PyTorch's allocator (context, NCCL, cuBLAS) made the difference") \
	X(VC_REQUEST_EXCEEDS_CARD, "request_exceeds_card", NULL, NULL, "one request asked for more than the card has") \
	X(VC_MEMORY_FRACTION_CAP, "memory_fraction_cap", NULL, NULL, "a per-process memory fraction capped PyTorch below the card, and the cap ran out") \
	X(VC_CGROUP_LIMIT, "cgroup_limit", NULL, NULL, "the memory cgroup's limit was reached") \
	X(VC_HOST_CAPACITY, "host_capacity", NULL, NULL, "the host ran out of memory") \
	X(VC_CUDA_CONTEXT_EXPLOSION, "cuda_context_explosion", NULL, NULL, "more CUDA contexts per card than processes") \
	X(VC_HEADROOM, "headroom", NULL, NULL, "the baseline leaves less headroom than one request needs") \
	X(VC_LIMIT, "limit", NULL, NULL, "a limit is set above what the card or cgroup has") \
	X(VC_OOM_SCORE_ADJ, "oom_score_adj", NULL, NULL, "oom_score_adj steered the kernel to its victim") \
	X(VC_WRONG_VICTIM, "wrong_victim", NULL, NULL, "the kernel killed a process other than the one that grew") \
	X(VC_MAX_NUM_SEQS, "max_num_seqs", NULL, NULL, "admitted concurrency does not fit the card") \
	X(VC_FREE_BELOW_UTILIZATION, "free_below_utilization", NULL, NULL, "free memory at start-up below what the engine asked for") \
	X(VC_STARTUP_OOM, "startup_oom", NULL, NULL, "the OOM came before any request was served") \
	X(VC_WEIGHTS_DO_NOT_FIT, "weights_do_not_fit", NULL, NULL, "start-up, loading the weights: they do not fit (quantize, shard, a smaller model, fewer GPU layers)") \
	X(VC_CACHE_DOES_NOT_FIT, "cache_does_not_fit", NULL, NULL, "start-up, profile run or KV cache: they do not fit (gpu_memory_utilization, max_model_len, mem_fraction_static, the context size)") \
	X(VC_GRAPHS_DO_NOT_FIT, "graphs_do_not_fit", NULL, NULL, "start-up, CUDA-graph capture: the graphs do not fit (--enforce-eager, smaller capture sizes)") \
	X(VC_UTILIZATION_TOO_HIGH, "utilization_too_high", NULL, NULL, "misconfig: the engine's pool takes more than 90 % of the card (above vLLM's default) (gpu_memory_utilization, mem_fraction_static), leaving its batches too little outside it") \
	X(VC_BATCH_OUTGREW_POOL, "batch_outgrew_pool", NULL, NULL, "misconfig: a batch inside the engine outgrew the share of the card the engine budgets (max_num_seqs, max_num_batched_tokens)") \
	X(VC_WARMUP_DOES_NOT_FIT, "warmup_does_not_fit", NULL, NULL, "start-up, warm-up: its dummy batch does not fit (max_num_seqs, max_num_batched_tokens)") \
	X(VC_ALLOCATION_LIMIT, "allocation_limit", NULL, NULL, "start-up: one buffer beyond the backend's per-allocation limit, not the card's memory (smaller buffers; a regression when it worked before)") \
	X(VC_REQUEST_FITS_FREE, "request_fits_free", NULL, NULL, "start-up: the failure's own figures show room (the request fits in the free memory, or half the card was free): not the memory budget") \
	X(VC_ADMITTED_LOAD, "admitted_load", NULL, NULL, "admitted load no longer fits") \
	X(VC_SETTING_NOT_IN_EFFECT, "setting_not_in_effect", NULL, NULL, "an allocator setting asked for was not in effect") \
	X(VC_LIBRARY_OOM, "library_oom", NULL, NULL, "a library under the engine (NCCL, cuBLAS) failed to allocate") \
	X(VC_KV_CACHE_NONE, "kv_cache_none", NULL, NULL, "the engine computed no room for the KV cache") \
	X(VC_MAX_MODEL_LEN, "max_model_len", NULL, NULL, "one request of max_model_len does not fit the KV cache") \
	X(VC_ENGINE_BUDGET, "engine_budget", NULL, NULL, "the engine's start-up budget does not fit the card") \
	X(VC_PREFILL_TOKENS, "prefill_tokens", NULL, NULL, "the prefill batch does not fit") \
	X(VC_KV_POOL, "kv_pool", NULL, NULL, "the KV cache pool ran out") \
	X(VC_MPS_WATERMARK, "mps_watermark", NULL, NULL, "PyTorch's MPS allocator reached its high-watermark cap (a Mac)") \
	X(VC_XLA_PROGRAM_DOES_NOT_FIT, "xla_program_does_not_fit", NULL, NULL, "misconfig, likely: an XLA program (fixed shapes) ran out of the memory given to XLA with no progress before it") \
	X(VC_STATIC_FRACTION_TOO_HIGH, "static_fraction_too_high", NULL, NULL, "an engine's static share of the card (SGLang --mem-fraction-static) left less than the request that failed") \
	X(VC_KV_RETRACT, "kv_retract", NULL, NULL, "the engine retracted (preempted) requests: its KV cache pool ran full") \
	X(VC_BATCH_FALLBACK, "batch_fallback", NULL, NULL, "the program ran out on one batch and went on with a smaller one, by its own words: that batch's load") \
	X(VC_KV_POOL_LEAK, "kv_pool_leak", NULL, NULL, "leak: the engine's own check found KV-cache pool tokens never returned") \
	X(VC_OFFLOAD_POOL_HELD, "offload_pool_held", NULL, NULL, "leak, likely: a KV offload store's fixed pool (LMCache) found nothing left to evict while serving: every chunk still held, unless that many requests held chunks at once") \
	X(VC_NOT_RETURNED, "not_returned", NULL, NULL, "leak: a later OOM of the same card, asking no more than an earlier one, found more memory held (not returned between failures)") \
	X(VC_RELOAD_AFTER_SERVING, "reload_after_serving", NULL, NULL, "leak, likely: a model load failed after the same process had served requests (no restart between): the earlier load's memory still held, unless a larger model was loaded") \
	X(VC_CARD_AT_OOM, "card_at_oom", NULL, NULL, "reading: what the card held at the OOM") \
	X(VC_KERNEL_REPORT, "kernel_report", NULL, NULL, "reading: what the kernel's OOM report says") \
	X(VC_ZERO_SETUP_DOES_NOT_FIT, "zero_setup_does_not_fit", NULL, NULL, "start-up, DeepSpeed's engine set-up: ZeRO's partitions and optimizer states do not fit (ZeRO stage 3, offload_param/offload_optimizer to cpu, zero.Init)") \
	X(VC_FIRST_STEP_DOES_NOT_FIT, "first_step_does_not_fit", NULL, NULL, "training, at its first steps: one step does not fit the card (batch size, sequence length, gradient checkpointing, mixed precision, ZeRO/offload)") \
	X(VC_STEP_MEMORY_CREEP, "step_memory_creep", NULL, NULL, "leak: a training loop's peak memory crept up over its steps before the OOM") \
	X(VC_LONG_BATCH, "long_batch", NULL, NULL, "training, after many steps at a flat peak: a batch larger than those before (a longer sequence) outgrew the room") \
	X(VC_AFTER_WHOLE_EPOCH, "after_whole_epoch", NULL, NULL, "leak (leaning): a training OOM after at least one whole epoch of the same data: every batch had fit once, so memory held across steps explains it best") \
	X(VC_LATE_STEP, "late_step", NULL, NULL, "reading: a training OOM after many steps; the log shows no memory trend to tell a leak from a longer batch") \
	X(VC_LOAD_AT_OOM, "load_at_oom", NULL, NULL, "reading: the serving engine's load (running, waiting, KV cache usage) at the OOM") \
	X(VC_TRAINING_KNOBS, "training_knobs", NULL, NULL, "reading: the knobs a training or evaluation step answers to, to try first; names no cause") \
	X(VC_STATED_LEAK, "stated_leak", NULL, NULL, "leak: the program's own leak check (PyTorch's CUDA/MPS memory leak check) or its own words state that memory leaked, with the figures it printed") \
	X(VC_UNTIMED_GROWTH, "untimed_growth", NULL, NULL, "leak: memory samples pasted in file order (untimed) kept rising, per sample or per request/iteration (no rate in time)") \
	X(VC_BUILD_PARALLELISM, "build_parallelism", NULL, NULL, "misconfig: the OOM killer took a compiler or linker of a build (a JIT at start-up, an install): its parallel jobs do not fit host RAM (MAX_JOBS, NVCC_THREADS, -j)") \
	X(VC_OFFLOAD_DOES_NOT_FIT, "offload_does_not_fit", NULL, NULL, "misconfig: a llama.cpp/Ollama GPU plan (the layers it offloaded) left less free than its compute graph needs, beside a GPU failure whose phase is not shown (num_gpu, --n-gpu-layers)") \
	X(VC_SLEEP_ALLOCATOR_FAILED, "sleep_allocator_failed", NULL, NULL, "misconfig: vLLM's sleep-mode allocator (csrc/cumem_allocator.cpp) failed with an error of its own, not for lack of memory, so the start-up failed as out of memory with the memory free") \
	X(VC_SLEEP_POOL_DOES_NOT_FIT, "sleep_pool_does_not_fit", NULL, NULL, "misconfig: vLLM's sleep-mode allocator (csrc/cumem_allocator.cpp) could not map its pool, the weights and the KV cache gpu_memory_utilization sized, beside what else held the card") \
	X(VC_REQUEST_EXCEEDS_BUFFER_LIMIT, "request_exceeds_buffer_limit", NULL, NULL, "misconfig: one buffer asked for is larger than the device allows any single buffer, as the allocator's message states (MLX's maximum allowed buffer size): a smaller step, whatever the free memory") \
	X(VC_PROJECTED_OVER_RAM, "projected_over_ram", NULL, NULL, "misconfig: the engine's own start-up check projected the model's working set at or above the machine's RAM, and that memory later ran out (a smaller model or quantisation, --gpu-memory-utilization)") \
	X(VC_SHM_LIMIT, "shm_limit", NULL, NULL, "misconfig: a data loader's workers ran out of shared memory (/dev/shm), by PyTorch's words: the container's shm size or the batches in flight (--shm-size, --ipc=host, num_workers)") \
	X(VC_POOL_LIMIT, "pool_limit", NULL, NULL, "misconfig: a pool the program sized once at start-up by a setting is full, by its own words (DyNet's --dynet-mem, cnn's --cnn-mem, vLLM's CPU --swap-space): the setting or the step's size") \
	X(VC_INPUT_SCALED_OP, "input_scaled_op", NULL, NULL, "spike: the failure was inside an operation one input sizes and no budget covers (vLLM's prompt logprobs, MMDetection's IoU assignment): that input, not the configuration") \
	X(VC_PHASE_INFERRED, "phase_inferred", NULL, NULL, "misconfig, inferred from the phase, not shown by figures: an OOM after start-up at the first unit of work (or the failure alone), no finding showing growth or load") \
	X(VC_KILLED_AT_STARTUP, "killed_at_startup", NULL, NULL, "misconfig, likely: a SIGKILL of unknown sender while the log shows a start-up stage (loading weights, sizing caches), no OOM recorded: the start-up did not fit the host's memory (the sender inferred)")

/* ---- classes (finding.class; verdict.class all but reading) ---- */
#define VOCAB_CLASSES(X) \
	X(VK_LEAK, "leak", NULL, NULL, "memory in use grows and is not returned") \
	X(VK_SPIKE, "spike", NULL, NULL, "flat, then a sharp rise with the load just before the OOM") \
	X(VK_MISCONFIG, "misconfig", NULL, NULL, "the configuration does not fit the card, the cgroup or the host") \
	X(VK_NO_OOM, "no_oom", NULL, NULL, "no artifact records an OOM, a kill or a memory failure: a memory profile") \
	X(VK_INCONCLUSIVE, "inconclusive", NULL, NULL, "an OOM, but no rule found enough evidence; the missing evidence named") \
	X(VK_READING, "reading", NULL, NULL, "a finding that says what an artifact states and names no cause; never a verdict")

/* ---- OOM phases (oom.phase) ----
 * The phase of a program's life an OOM happened in (docs/schema.md
 * "phase"): before any request was served (load_weights .. warmup) a
 * configuration that does not fit; serving, training_step and eval are
 * judged by their history. profile covers memory profiling, a dummy run
 * and a compute-buffer reservation; warmup the sampler's warm-up and dummy
 * requests; serving begins with the first request served. startup is a
 * failure plainly before any request was served whose stage the evidence
 * does not show (an engine that never started, "Engine core
 * initialization failed"): a start-up phase too, named after every
 * specific one; unknown is kept for when even that is not shown. enum
 * oom_phase below; its names are oom_phase_name()'s (lib/engine_vocab.h). */
#define VOCAB_PHASES(X) \
	X(OOM_PHASE_UNKNOWN, "unknown", NULL, NULL, "the evidence does not say") \
	X(OOM_PHASE_LOAD_WEIGHTS, "load_weights", NULL, NULL, "loading the model's weights") \
	X(OOM_PHASE_PROFILE, "profile", NULL, NULL, "the engine's profile run of the activations") \
	X(OOM_PHASE_KV_ALLOC, "kv_alloc", NULL, NULL, "allocating the KV cache") \
	X(OOM_PHASE_GRAPH_CAPTURE, "graph_capture", NULL, NULL, "capturing CUDA graphs") \
	X(OOM_PHASE_WARMUP, "warmup", NULL, NULL, "warming up before the first request") \
	X(OOM_PHASE_SERVING, "serving", NULL, NULL, "serving requests") \
	X(OOM_PHASE_TRAINING_STEP, "training_step", NULL, NULL, "a training step (forward, backward, optimizer)") \
	X(OOM_PHASE_EVAL, "eval", NULL, NULL, "evaluation or inference outside a server") \
	X(OOM_PHASE_STARTUP, "startup", NULL, NULL, "before serving; the stage is not shown")

/* ---- training stacks (a memory failure's event data "stack"): the
 * framework whose frames or lines surround it, which decides the names
 * of the knobs a training or evaluation step answers to ---- */
#define VOCAB_STACKS(X) \
	X(VST_DEEPSPEED, "deepspeed", NULL, NULL, "DeepSpeed (deepspeed.initialize, ZeRO stage 1 or 2, its engine's backward and step)") \
	X(VST_DEEPSPEED_ZERO3, "deepspeed_zero3", NULL, NULL, "DeepSpeed with ZeRO stage 3 (its stage3 partitioner or zero.Init in the frames)") \
	X(VST_HF_TRAINER, "hf_trainer", NULL, NULL, "Hugging Face transformers' Trainer or accelerate") \
	X(VST_LIGHTNING, "lightning", NULL, NULL, "PyTorch Lightning's Trainer") \
	X(VST_JAX, "jax", NULL, NULL, "JAX or Flax (XLA's client allocator)") \
	X(VST_KERAS, "keras", NULL, NULL, "Keras or TensorFlow")

/* ---- peak measures (peak.measure): what a peak measures ---- */
#define VOCAB_MEASURES(X) \
	X(VMS_ALLOCATED, "allocated", NULL, NULL, "bytes PyTorch's allocator handed out") \
	X(VMS_RESERVED, "reserved", NULL, NULL, "bytes PyTorch's allocator reserved from the card, cache included") \
	X(VMS_CARD_USED, "card_used", NULL, NULL, "memory in use on the card, every process (nvidia-smi, DCGM)") \
	X(VMS_CGROUP_USAGE, "cgroup_usage", NULL, NULL, "the memory cgroup's usage") \
	X(VMS_RSS, "rss", NULL, NULL, "a process's resident memory") \
	X(VMS_TRACE_LIVE, "trace_live", NULL, NULL, "requested bytes alive in a snapshot's trace (the Active Memory Timeline)") \
	X(VMS_PASTED, "pasted", NULL, NULL, "memory a reporter pasted as samples with a label of no known account (\"memory: 3.2 GiB\"); untimed, order from the paste")

/* ---- OOM kinds (oom.kind, analyzer/derive/oom.c) ---- */
#define VOCAB_OOM_KINDS(X) \
	X(VO_KERNEL_OOM, "kernel_oom", NULL, NULL, "a kernel OOM report (header, kills, no-kill and reaper lines): the host or a cpuset ran out") \
	X(VO_MEMCG_OOM, "memcg_oom", NULL, NULL, "a kernel OOM report for a memory cgroup at its limit") \
	X(VO_USERSPACE_KILL, "userspace_kill", NULL, NULL, "a user-space killer (earlyoom, systemd-oomd) killed a process") \
	X(VO_K8S_OOM_KILL, "k8s_oom_kill", NULL, NULL, "Kubernetes says a container was OOMKilled") \
	X(VO_K8S_EVICTION, "k8s_eviction", NULL, NULL, "Kubernetes evicted a pod for memory") \
	X(VO_SLURM_OOM, "slurm_oom", NULL, NULL, "Slurm says a job step was OOM-killed") \
	X(VO_LSF_MEMLIMIT, "lsf_memlimit", NULL, NULL, "IBM LSF says it killed a job at its memory limit (TERM_MEMLIMIT)") \
	X(VO_SYSTEMD_UNIT_OOM, "systemd_unit_oom", NULL, NULL, "systemd says a unit's process was killed for memory") \
	X(VO_TORCH_OOM, "torch_oom", NULL, NULL, "PyTorch's out of memory: a log's OutOfMemoryError, a snapshot's oom entry, a profiler's [OutOfMemory]") \
	X(VO_TORCH_OOM_COUNT, "torch_oom_count", NULL, NULL, "PyTorch's memory_stats count of the OOMs it caught (num_ooms > 0); when, unknown") \
	X(VO_CUDA_OOM, "cuda_oom", NULL, NULL, "a CUDA exception saying out of memory") \
	X(VO_ALLOC_FAILED, "alloc_failed", NULL, NULL, "a CUDA allocation call that returned out of memory (Nsight Systems)") \
	X(VO_MEM_FAILURE, "mem_failure", NULL, NULL, "any stack's memory or allocation failure the generic recogniser read (ROCm/HIP, ggml, Metal, MPS, XLA, cuDNN...)") \
	X(VO_ENGINE_OOM, "engine_oom", NULL, NULL, "a serving engine's memory error, or an engine whose own count leaves no KV cache") \
	X(VO_ALLOC_FAILURE, "alloc_failure", NULL, NULL, "the kernel's page allocation failure: a warning, nothing killed; the OOM only when nothing else is")

/* ---- OOM scopes (oom.scope): which memory ran out, as the failure's
 * wording family and its own words say (parsers/serving/memfail.c
 * memfail_scope); the reports name the memory and the advice by it ---- */
#define VOCAB_SCOPES(X) \
	X(VSC_GPU, "gpu", NULL, NULL, "a GPU's own memory (CUDA, ROCm/HIP, Vulkan; XLA on a GPU)") \
	X(VSC_HOST, "host", NULL, NULL, "the host's RAM: the kernel, a memory cgroup, a host allocator, ggml's CPU buffers") \
	X(VSC_TPU, "tpu", NULL, NULL, "a TPU's HBM (XLA's TPU compiler and runtime: memory space hbm, the bottom of memory)") \
	X(VSC_UNIFIED, "unified", NULL, NULL, "one pool shared by GPU and CPU (Apple's MPS, Metal, MLX): the machine's RAM") \
	X(VSC_ACCELERATOR, "accelerator", NULL, NULL, "another accelerator's device memory (Intel XPU/SYCL, Ascend NPU, Gaudi HPU, Tenstorrent)")

#define VOCAB_ENUM(id, name, var, unit, meaning) id,
enum vocab_event { VOCAB_EVENT_KINDS(VOCAB_ENUM) VE__COUNT };
enum vocab_series { VOCAB_SERIES(VOCAB_ENUM) VS__COUNT };
enum vocab_meta { VOCAB_META_KEYS(VOCAB_ENUM) VM__COUNT };
enum vocab_cause { VOCAB_CAUSES(VOCAB_ENUM) VC__COUNT };
enum vocab_class { VOCAB_CLASSES(VOCAB_ENUM) VK__COUNT };
enum oom_phase { VOCAB_PHASES(VOCAB_ENUM) OOM_PHASE__COUNT };
enum vocab_stack { VOCAB_STACKS(VOCAB_ENUM) VST__COUNT };
enum vocab_measure { VOCAB_MEASURES(VOCAB_ENUM) VMS__COUNT };
enum vocab_oom_kind { VOCAB_OOM_KINDS(VOCAB_ENUM) VO__COUNT };
enum vocab_scope { VOCAB_SCOPES(VOCAB_ENUM) VSC__COUNT };
#undef VOCAB_ENUM

/* The sets, in the order docs/schema.md "Vocabulary" lists them. */
enum vocab_set {
	VOCAB_EVENT, VOCAB_SERIES_NAME, VOCAB_META, VOCAB_CAUSE, VOCAB_CLASS,
	VOCAB_PHASE, VOCAB_STACK, VOCAB_MEASURE, VOCAB_OOM_KIND, VOCAB_SCOPE, VOCAB__SETS
};

/* One declared name. var: NULL, or the variable part that follows name
 * (a family); unit: NULL where the set has none. */
struct vocab_entry {
	const char *name, *var, *unit, *meaning;
};

extern const struct vocab_entry vocab_events[VE__COUNT];
extern const struct vocab_entry vocab_series_names[VS__COUNT];
extern const struct vocab_entry vocab_meta_keys[VM__COUNT];
extern const struct vocab_entry vocab_causes[VC__COUNT];
extern const struct vocab_entry vocab_classes[VK__COUNT];
extern const struct vocab_entry vocab_phases[OOM_PHASE__COUNT];
extern const struct vocab_entry vocab_stacks[VST__COUNT];
extern const struct vocab_entry vocab_measures[VMS__COUNT];
extern const struct vocab_entry vocab_oom_kinds[VO__COUNT];
extern const struct vocab_entry vocab_scopes[VSC__COUNT];

/* The names to write, by declaration. A family's is its prefix
 * ("gpu.total_bytes."), to which the writer appends the variable part. */
static inline const char *vocab_event_kind(enum vocab_event e) { return vocab_events[e].name; }
static inline const char *vocab_series_name(enum vocab_series s) { return vocab_series_names[s].name; }
static inline const char *vocab_series_unit(enum vocab_series s) { return vocab_series_names[s].unit; }
static inline const char *vocab_meta_key(enum vocab_meta m) { return vocab_meta_keys[m].name; }
static inline const char *vocab_cause(enum vocab_cause c) { return vocab_causes[c].name; }
static inline const char *vocab_class(enum vocab_class k) { return vocab_classes[k].name; }
static inline const char *vocab_phase(enum oom_phase p) { return vocab_phases[p].name; }
static inline const char *vocab_stack(enum vocab_stack t) { return vocab_stacks[t].name; }
static inline const char *vocab_measure(enum vocab_measure m) { return vocab_measures[m].name; }
static inline const char *vocab_oom_kind(enum vocab_oom_kind k) { return vocab_oom_kinds[k].name; }
static inline const char *vocab_scope(enum vocab_scope s) { return vocab_scopes[s].name; }

/* A set's entries and their count (*n); NULL and 0 for a set out of range. */
const struct vocab_entry *vocab_set_entries(enum vocab_set set, size_t *n);

/* The set's heading in docs/schema.md ("Event kinds", "Series", ...). */
const char *vocab_set_title(enum vocab_set set);

/* The entry that declares name in set: an exact name, or the family whose
 * prefix name starts with (and is not all of); NULL when none does. name
 * may be NULL (NULL is returned). */
const struct vocab_entry *vocab_lookup(enum vocab_set set, const char *name);

/* 1 when a series name is input-driven: no '.', a metric's own name (see
 * the top of this file); such names are not declared. */
int vocab_series_input_driven(const char *name);

/* 1 when the store may write name in set: declared, or an input-driven
 * series name. */
int vocab_writable(enum vocab_set set, const char *name);

#endif
