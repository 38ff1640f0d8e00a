/*
 * settle.c -- what would settle it: the evidence absent from the
 * timeline, for the verdict's missing column, each item with the command
 * or the call that collects it before the next OOM, on the platform the
 * OOM happened on. A CUDA card is watched with `oomlens watch --gpus`
 * (nvidia-smi/DCGM) and its allocator leaves a torch.cuda.memory snapshot;
 * those say nothing of a Mac (MPS), a TPU (XLA), an AMD card (ROCm/HIP)
 * or a llama.cpp/Ollama process (ggml), whose own tools are named instead:
 *
 *   mps    torch.mps.current_allocated_memory()/driver_allocated_memory()
 *          each step; PYTORCH_MPS_HIGH_WATERMARK_RATIO as set
 *   xla    jax.profiler.save_device_memory_profile() (pprof), or the
 *          compiled program's buffer assignment (XLA_FLAGS=--xla_dump_to)
 *   hip    rocm-smi --showmeminfo vram / amd-smi monitor logged over time;
 *          a torch.cuda.memory snapshot (PyTorch's ROCm build keeps the
 *          same API over HIP)
 *   ggml   the server log with OLLAMA_DEBUG=1 (Ollama) or llama.cpp's
 *          load lines (--verbose): the offload, KV cache and compute
 *          buffers with the free memory per device
 *   mlx    mx.get_active_memory()/mx.get_peak_memory() each step (MLX's
 *          memory API, ml-explore/mlx python/src/memory.cpp), and the
 *          Mac's memory pressure
 *   accel  the device's own monitor logged over time (xpu-smi dump for
 *          Intel, npu-smi info for Ascend, hl-smi for Gaudi) and the
 *          framework's memory_stats() of that device each step
 *          (torch.xpu, torch_npu's torch.npu, habana's torch.hpu: the
 *          same API as torch.cuda's)
 *
 * A start-up OOM whose own figures show room (startup_room.c) asks for
 * what else held the card and for the previous release.
 *
 * A kill of unknown cause (a container's exit 137 without OOMKilled)
 * asks for the node's kernel log, which says whether its OOM killer sent
 * the SIGKILL.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/engine_facts.h"
#include "lib/mem_family.h"

#include <stdio.h>
#include <string.h>

/* The platform of the OOM (row 1 of oom): its wording family, else the
 * engines the timeline shows (llama.cpp, Ollama). */
static enum rl_platform platform_of(struct rule_ctx *c)
{
	struct rl_engine e[RL_MAX_ENGINES];
	sqlite3_stmt *st;
	enum rl_platform p = RL_PLAT_CUDA;
	int n, i;

	/* the family's row decides (lib/mem_family.h: MLX's Metal failures
	 * are family mlx, ggml's are metal); any family of oom.scope
	 * accelerator is another accelerator's */
	if (c->has_oom && (st = rl_prepare(c, "SELECT coalesce(o.family, ''), coalesce(o.scope, '')"
					   " FROM oom o WHERE o.id = 1"))) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const struct mem_family *mf = mem_family_find(q_text(st, 0));
			if (!strcmp(q_text(st, 1), "accelerator"))
				p = RL_PLAT_ACCEL;
			else if (mf)
				p = (enum rl_platform)mf->platform;
		}
		sqlite3_finalize(st);
	}
	if (p != RL_PLAT_CUDA && p != RL_PLAT_HIP)
		return p;
	n = rl_engines_read(c, e, RL_MAX_ENGINES);
	for (i = 0; i < n; i++)
		if (!strcmp(e[i].engine, "ollama") || !strcmp(e[i].engine, "llama.cpp"))
			return RL_PLAT_GGML;
	return p;
}

enum rl_platform rl_oom_platform(struct rule_ctx *c)
{
	return platform_of(c);
}

/* The `oomlens watch --print-arm ENGINE` name for the engines the
 * timeline shows (vllm, sglang, tgi), else pytorch (docs/watch.md). */
static const char *arm_engine(struct rule_ctx *c)
{
	struct rl_engine e[RL_MAX_ENGINES];
	int n = rl_engines_read(c, e, RL_MAX_ENGINES), i;

	for (i = 0; i < n; i++) {
		if (!strcmp(e[i].engine, "vllm"))
			return "vllm";
		if (!strcmp(e[i].engine, "sglang"))
			return "sglang";
		if (!strcmp(e[i].engine, "tgi"))
			return "tgi";
	}
	return "pytorch";
}

static void add(char *buf, size_t n, const char *one)
{
	size_t len = strlen(buf);

	if (len + 1 < n)
		snprintf(buf + len, n - len, "%s; ", one);
}

/* The server's load over time: the exact `oomlens watch --metrics` line
 * for the engine the timeline shows, at that engine's default port and
 * path (wt_arm.c cites where each comes from), said to be the default,
 * not a port these logs showed. --gpus (nvidia-smi) only on a CUDA card. */
static void load_evidence(struct rule_ctx *c, enum rl_platform p, char *buf, size_t n)
{
	static const struct { const char *engine, *url, *what; } ep[] = {
		{ "vllm", "http://127.0.0.1:8000/metrics", "vLLM's default port and path" },
		{ "sglang", "http://127.0.0.1:30000/metrics",
		  "SGLang's default port and path, served with --enable-metrics" },
		{ "tgi", "http://127.0.0.1:3000/metrics",
		  "TGI's default port and path (80 in its official image)" },
		{ "llama.cpp", "http://127.0.0.1:8080/metrics",
		  "llama-server's default port and path, served with --metrics" },
		/* lmdeploy/serve/openai/api_server.py@v0.16.0: port 23333, /metrics
		 * mounted unless --disable-metrics */
		{ "lmdeploy", "http://127.0.0.1:23333/metrics",
		  "LMDeploy's default port and path (metrics since its 2025 releases)" },
		{ NULL, NULL, NULL }
	};
	struct rl_engine e[RL_MAX_ENGINES];
	int ne = rl_engines_read(c, e, RL_MAX_ENGINES), i, k;
	const char *when = c->has_oom ? "up to the OOM" : "over time";
	const char *gpus = p == RL_PLAT_CUDA ? " --gpus" : "";
	char one[600];

	for (i = 0; i < ne; i++)
		for (k = 0; ep[k].engine; k++)
			if (!strcmp(e[i].engine, ep[k].engine)) {
				snprintf(one, sizeof(one), "server load (the running and waiting requests"
					 " %s: run `oomlens watch --metrics %s%s --out"
					 " /var/lib/oomlens/watch` beside the service; %s, not observed in"
					 " these logs: use the port it serves on)", when, ep[k].url, gpus,
					 ep[k].what);
				add(buf, n, one);
				return;
			}
	snprintf(one, sizeof(one), "server load (if a serving engine ran it: the running and waiting"
		 " requests %s, from `oomlens watch --metrics http://127.0.0.1:<port>/metrics%s --out"
		 " /var/lib/oomlens/watch` on its Prometheus endpoint, e.g. vLLM's :8000, TGI's :3000,"
		 " Triton's :8002)", when, gpus);
	add(buf, n, one);
}

/* The series and snapshot a CUDA or ROCm card would have given. */
static void card_evidence(struct rule_ctx *c, enum rl_platform p, char *buf, size_t n)
{
	char cg[200] = "", one[500];
	const char *scope = "";
	double v;

	if (!rl_has_memory_series(c)) {
		if (c->has_oom) {
			sqlite3_stmt *st = rl_prepare(c, "SELECT cgroup, scope FROM oom WHERE id = 1");
			if (st && sqlite3_step(st) == SQLITE_ROW) {
				if (sqlite3_column_type(st, 0) == SQLITE_TEXT && q_text(st, 0)[0] == '/')
					snprintf(cg, sizeof(cg), "%s", q_text(st, 0));
				scope = sqlite3_column_type(st, 1) == SQLITE_TEXT &&
					!strcmp(q_text(st, 1), "gpu") ? "gpu" : "";
			}
			sqlite3_finalize(st);
		}
		if (p == RL_PLAT_HIP)
			snprintf(one, sizeof(one), "GPU memory in use over time%s on the AMD card"
				 " (`rocm-smi --showmeminfo vram --csv` or `amd-smi monitor -v` logged"
				 " every few seconds beside the job)", c->has_oom ? " before the OOM" : "");
		else
			snprintf(one, sizeof(one), "memory in use over time%s (run `oomlens watch %s%s%s"
				 " --out /var/lib/oomlens/watch` beside the service; or an nvidia-smi/DCGM"
				 " log, smaps_rollup or cgroup captures)",
				 c->has_oom ? " before the OOM" : "", scope[0] ? "--gpus" : "--cgroup ",
				 scope[0] ? "" : "/sys/fs/cgroup",
				 scope[0] ? "" : cg[0] ? cg : "/<the service's cgroup>");
		add(buf, n, one);
	}
	if (!q_has_table(c->db, "snapshot") || rl_num(c, &v, "SELECT 1 FROM snapshot LIMIT 1") < 0) {
		if (p == RL_PLAT_HIP)
			snprintf(one, sizeof(one), "an allocator snapshot (PyTorch's ROCm build keeps"
				 " torch.cuda.memory._record_memory_history() and _snapshot() over HIP:"
				 " `oomlens watch --print-arm %s` prints the lines)", arm_engine(c));
		else
			snprintf(one, sizeof(one), "an allocator snapshot (torch.cuda.memory._snapshot()"
				 " pickle: `oomlens watch --print-arm %s` prints the lines that make the"
				 " process leave one)", arm_engine(c));
		add(buf, n, one);
	}
}

/* The accelerator's own monitor and PyTorch back end, by the OOM's
 * wording family (lib/mem_family.h's monitor): the one the failure came
 * from, not a list of every vendor's. */
static void accel_evidence(struct rule_ctx *c, char *buf, size_t n)
{
	char fam[32] = "", one[400];
	const struct mem_family *mf;

	rl_first_text(c, "SELECT family FROM oom WHERE id = 1", fam, sizeof(fam));
	mf = mem_family_find(fam);
	if (mf && mf->monitor) {
		snprintf(one, sizeof(one), "the device's memory in use over time before the"
			 " OOM, logged every few seconds: %s each step", mf->monitor);
		add(buf, n, one);
		return;
	}
	add(buf, n, "the device's memory in use over time before the OOM (its own"
	    " monitor logged every few seconds: `xpu-smi dump` of its memory metrics on Intel,"
	    " `npu-smi info` on Ascend, `hl-smi` on Gaudi), and the framework's"
	    " memory_stats() of that device each step (torch.xpu, torch.npu, torch.hpu)");
}

/* 1 when the OOM is the host's (a kernel or memory cgroup kill, a
 * container's) and nothing in the timeline speaks of a GPU: no serving
 * engine, no PyTorch or CUDA event, no GPU series. A snapshot of a CUDA
 * allocator or a server's load would settle nothing there. */
static int host_only(struct rule_ctx *c)
{
	double v;

	return c->has_oom &&
	       rl_num(c, &v, "SELECT 1 FROM oom WHERE id = 1 AND scope = 'host'") == 0 &&
	       rl_num(c, &v, "SELECT 1 FROM oom WHERE scope <> 'host' LIMIT 1") < 0 &&
	       rl_num(c, &v, "SELECT 1 FROM engine LIMIT 1") < 0 &&
	       rl_num(c, &v, "SELECT 1 FROM series WHERE name LIKE 'gpu.%%' OR name LIKE"
		      " 'torch.%%' LIMIT 1") < 0;
}

/* What would settle a host OOM: its memory over time (the cgroup's, the
 * processes'), when no series was captured; for a Python victim (python,
 * PyTorch's pt_main_thread) the host heap's allocator snapshot, memray's
 * (its capture files are read by oomlens); a CUDA allocator snapshot
 * records no host memory. */
static void host_evidence(struct rule_ctx *c, char *buf, size_t n)
{
	char cg[200] = "", one[400];
	double v;

	if (!rl_has_memory_series(c)) {
		rl_first_text(c, "SELECT cgroup FROM oom WHERE id = 1 AND cgroup LIKE '/%'", cg,
			      sizeof(cg));
		snprintf(one, sizeof(one), "memory in use over time before the OOM (run `oomlens"
			 " watch --cgroup /sys/fs/cgroup%s --out /var/lib/oomlens/watch` beside the"
			 " service; or smaps_rollup or cgroup memory.current captures)",
			 cg[0] ? cg : "/<the service's cgroup>");
		add(buf, n, one);
	}
	if (rl_num(c, &v, "SELECT 1 FROM oom WHERE victim_comm LIKE 'python%%' OR victim_comm"
		   " LIKE 'pt_main%%' LIMIT 1") == 0)
		add(buf, n, "a host allocator snapshot of the Python process (memray: `memray run"
		    " --native -o run.bin` or `memray attach PID`; oomlens reads its capture)");
}

/* A SIGKILL the timeline recorded with no OOM to explain it (a
 * container's exit 137 whose reason is not OOMKilled): its summary into
 * out (n bytes); 1 found, 0 none. */
int rl_unexplained_kill(struct rule_ctx *c, char *out, size_t n)
{
	return rl_first_text(c, "SELECT summary FROM event WHERE kind = 'process_crash'"
		" AND json_valid(data) AND (json_extract(data, '$.signal') = 'SIGKILL' OR"
		" json_extract(data, '$.exit_code') = 137) ORDER BY time_ns, id LIMIT 1", out, n);
}

/* 1 when a llama.cpp/Ollama instance's log already gave its free memory
 * and its weights (the load lines a verbose log adds). */
static int ggml_accounted(struct rule_ctx *c)
{
	struct rl_engine e[RL_MAX_ENGINES];
	int n = rl_engines_read(c, e, RL_MAX_ENGINES), i;

	for (i = 0; i < n; i++)
		if ((!strcmp(e[i].engine, "ollama") || !strcmp(e[i].engine, "llama.cpp")) &&
		    rl_ef_known(&e[i], RL_EF_FREE) && rl_ef_known(&e[i], RL_EF_WEIGHTS))
			return 1;
	return 0;
}

void rl_missing_evidence(struct rule_ctx *c, char *buf, size_t n)
{
	enum rl_platform p = platform_of(c);
	char kill[300];
	double v;

	buf[0] = 0;
	if (!c->has_oom && rl_unexplained_kill(c, kill, sizeof(kill)))
		add(buf, n, "the node's kernel log around the kill (`journalctl -k` or `dmesg -T` on"
		    " the node that ran it): its OOM killer's report names the victim if it sent the"
		    " SIGKILL");
	if (rl_num(c, &v, "SELECT 1 FROM finding WHERE cause = 'request_fits_free' LIMIT 1") == 0)
		add(buf, n, p == RL_PLAT_CUDA
		    ? "what else held the card when the start-up failed (`nvidia-smi"
		      " --query-compute-apps=pid,used_memory --format=csv` at that moment), and the same"
		      " configuration on the engine's previous release (a regression would pass there)"
		    : "what else held the device when the start-up failed (its own monitor at that"
		      " moment), and the same configuration on the previous release (a regression"
		      " would pass there)");
	switch (p) {
	case RL_PLAT_MPS:
		if (!rl_has_memory_series(c))
			add(buf, n, "memory in use over time before the OOM"
			    " (torch.mps.current_allocated_memory() and"
			    " torch.mps.driver_allocated_memory() logged each step, with"
			    " PYTORCH_MPS_HIGH_WATERMARK_RATIO as set, or the memory pressure in"
			    " Activity Monitor)");
		break;
	case RL_PLAT_XLA:
		add(buf, n, "the device memory profile at the failure"
		    " (jax.profiler.save_device_memory_profile('mem.prof') before the failing step,"
		    " read with pprof; torch_xla: xm.get_memory_info() each step) or the compiled"
		    " program's buffer assignment (XLA_FLAGS=--xla_dump_to=DIR)");
		break;
	case RL_PLAT_MLX:
		if (!rl_has_memory_series(c))
			add(buf, n, "memory in use over time before the OOM (MLX's"
			    " mx.get_active_memory() and mx.get_peak_memory() logged each step, and"
			    " the memory pressure in Activity Monitor: GPU and CPU share the Mac's RAM)");
		break;
	case RL_PLAT_JETSON:
		/* nvidia-smi shows no memory on a Jetson: tegrastats prints the
		 * RAM that CPU and GPU share (L4T's own monitor) */
		if (!rl_has_memory_series(c))
			add(buf, n, "memory in use over time before the OOM (`tegrastats --interval"
			    " 1000 --logfile FILE` beside the program: the RAM its CPU and GPU share),"
			    " and what each process held then (smaps_rollup of each, or `ps` RSS):"
			    " every program on the board draws on the same memory");
		break;
	case RL_PLAT_ACCEL:
		if (!rl_has_memory_series(c))
			accel_evidence(c, buf, n);
		break;
	case RL_PLAT_GGML:
		if (ggml_accounted(c))
			break;
		add(buf, n, "the server's load lines (Ollama with OLLAMA_DEBUG=1, llama.cpp with"
		    " --verbose): the layers offloaded, the weights, KV cache and compute buffer"
		    " sizes and the free memory of each device at load");
		break;
	case RL_PLAT_CUDA:
	case RL_PLAT_HIP:
		if (host_only(c)) {   /* a kernel or container kill, no GPU in sight */
			host_evidence(c, buf, n);
			break;
		}
		card_evidence(c, p, buf, n);
		/* a training or evaluation step serves no requests, and a start-up
		 * phase comes before the first one: no server load would settle
		 * either (the phase decides, issue 27) */
		if (rl_num(c, &v, "SELECT 1 FROM series WHERE name = 'server.running' LIMIT 1") < 0 &&
		    rl_num(c, &v, "SELECT 1 FROM oom WHERE id = 1 AND phase IN ('training_step',"
			   " 'eval', 'load_weights', 'profile', 'kv_alloc', 'graph_capture',"
			   " 'warmup') LIMIT 1") < 0)
			load_evidence(c, p, buf, n);
		break;
	}
	if (strlen(buf) >= 2)
		buf[strlen(buf) - 2] = 0;
}
