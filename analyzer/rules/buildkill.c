/*
 * buildkill.c -- misconfiguration of a build step: the kernel's OOM
 * killer (a global or a memory cgroup's OOM) took a compiler, assembler
 * or linker (lib/build_tools.c: cicc, ptxas, nvcc, cc1plus, ld, ...), or,
 * when the report kept no kill line, such a process invoked it. Host RAM
 * ran out under a build: a JIT's kernels compiled while a serving engine
 * or a training job started (torch.compile, FlashInfer's and torch
 * cpp_extension's ninja builds, Triton's ptxas), or an install built
 * from source (flash-attn, xformers, vLLM). Each compile job holds its
 * own memory (nvcc's cicc several GB), and the jobs run in parallel:
 * MAX_JOBS (torch/utils/cpp_extension.py _get_num_workers, which
 * FlashInfer's JIT and vLLM's and flash-attn's setup.py read),
 * NVCC_THREADS (nvcc --threads, flash-attn setup.py), make/ninja -j.
 * The knob is that parallelism, or more host RAM or swap; a GPU's knob
 * (gpu_memory_utilization, max_model_len) would not change it, so none is
 * advised. The OOM keeps the phase the engine's lines gave it (a JIT
 * compile runs inside whichever stage first uses a kernel).
 */
#include "analyzer/rules/rulelib.h"
#include "lib/build_tools.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The kernel OOM of row 1 of table oom and its kill: the process (comm,
 * pid, RSS) and the report's limit (the memcg's, else the host's RAM). */
struct bkill {
	char comm[64], phase[16], kind[16];
	int killed;                 /* 1 the victim, 0 the invoker (no kill line) */
	double rss, limit, ram;     /* bytes; -1 unknown */
	int64_t pid, event_id;
};

static double col_bytes(sqlite3_stmt *st, int i, double mul)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i) * mul;
}

/* Read row 1 of oom when it is a kernel OOM whose process the derive
 * stage named a build tool (oom.build_tool, analyzer/derive/oom_fate.c);
 * 1 read, 0 none, -1 failed. */
static int read_oom(struct rule_ctx *c, struct bkill *b)
{
	sqlite3_stmt *st;
	const unsigned char *v;

	if (rl_first_row(c,
		"SELECT o.kind, coalesce(o.phase, 'unknown'), o.victim_comm, o.victim_pid,"
		" o.victim_bytes, o.build_tool, o.invoker_pid, coalesce(o.victim_event, o.event_id),"
		" CASE WHEN json_valid(e.data) THEN json_extract(e.data, '$.memcg_limit_kb') END,"
		" CASE WHEN json_valid(e.data) THEN json_extract(e.data, '$.ram_kb') END"
		" FROM oom o LEFT JOIN event e ON e.id = o.event_id AND e.kind = 'oom_invoked'"
		" WHERE o.id = 1 AND o.kind IN ('kernel_oom', 'memcg_oom') AND o.build_tool IS NOT NULL",
		&st) <= 0)
		return c->failed ? -1 : 0;
	snprintf(b->kind, sizeof(b->kind), "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(b->phase, sizeof(b->phase), "%s", (const char *)sqlite3_column_text(st, 1));
	b->killed = sqlite3_column_type(st, 2) != SQLITE_NULL;
	v = sqlite3_column_text(st, 5);   /* the victim's comm, else the invoker's */
	snprintf(b->comm, sizeof(b->comm), "%s", v ? (const char *)v : "");
	b->pid = sqlite3_column_type(st, b->killed ? 3 : 6) == SQLITE_NULL ? -1 :
		 sqlite3_column_int64(st, b->killed ? 3 : 6);
	b->rss = b->killed ? col_bytes(st, 4, 1) : -1;
	b->event_id = sqlite3_column_int64(st, 7);
	b->limit = col_bytes(st, 8, 1024);
	b->ram = col_bytes(st, 9, 1024);
	sqlite3_finalize(st);
	return c->failed ? -1 : 1;
}

int rule_buildkill(struct rule_ctx *c)
{
	struct bkill b;
	struct rl_finding f;
	const struct build_tool *t;
	double cap;
	char b1[32], b2[32], held[128], pid[32];
	int64_t fid;
	int r;

	memset(&b, 0, sizeof(b));
	if ((r = read_oom(c, &b)) <= 0)
		return r;
	if (!(t = build_tool_of(b.comm)))
		return 0;
	rl_finding_init(&f, "buildkill", "misconfig", "build_parallelism");
	f.score = b.killed ? 0.85 : 0.7;
	if (strcmp(b.phase, "unknown"))
		f.phase = b.phase;
	cap = b.limit > 0 ? b.limit : b.ram;
	pid[0] = 0;
	if (b.pid >= 0)
		snprintf(pid, sizeof(pid), ", pid %lld", (long long)b.pid);
	snprintf(f.title, sizeof(f.title), "A build step ran out of host memory: the kernel's OOM"
		 " killer %s %s (%s%s%s%s)%s", b.killed ? "killed" : "was invoked by",
		 b.comm, t->toolchain, pid, b.rss > 0 ? ", " : "",
		 b.rss > 0 ? rl_bytes(b.rss, b1, sizeof(b1)) : "",
		 strcmp(b.phase, "unknown") ? " during start-up" : "");
	if (b.pid >= 0)
		rl_fig(&f, "build_pid", (double)b.pid);
	if (b.rss > 0)
		rl_fig(&f, "build_rss_bytes", b.rss);
	if (cap > 0)
		rl_fig(&f, b.limit > 0 ? "limit_bytes" : "host_ram_bytes", cap);
	held[0] = 0;
	if (b.rss > 0)
		snprintf(held, sizeof(held), " (the killed %s held %s)", b.comm,
			 rl_bytes(b.rss, b1, sizeof(b1)));
	rl_advice(&f, "The memory that ran out was the host's (RAM%s), taken by a build that"
		  " compiles several jobs at once, each with its own memory%s: run fewer"
		  " in parallel (%s; make or ninja -j), or give the build more RAM or swap.",
		  b.limit > 0 ? ", the memory cgroup's limit" : "", held,
		  build_tool_cuda(t) ? "MAX_JOBS for torch cpp_extension, vLLM's and FlashInfer's"
		  " JIT and flash-attn builds, NVCC_THREADS for nvcc's threads per job" :
		  "MAX_JOBS for torch cpp_extension builds");
	if (b.rss > 0 && cap > 0 && floor(cap / b.rss) >= 1)
		rl_advice(&f, "Inferred, not stated: at the killed job's %s, the %s %s holds at"
			  " most %.0f such jobs, with nothing else running.",
			  rl_bytes(b.rss, b1, sizeof(b1)), b.limit > 0 ? "limit of" : "RAM of",
			  rl_bytes(cap, b2, sizeof(b2)), floor(cap / b.rss));
	if (strcmp(b.phase, "unknown"))
		rl_advice(&f, "It failed at start-up, before any request: the JIT compiles its"
			  " kernels the first time they are used; the GPU's memory settings do not"
			  " change a compiler's host memory.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", b.event_id, "the build process the kernel's"
				   " OOM report names") < 0)
		return -1;
	return 1;
}
