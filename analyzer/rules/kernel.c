/*
 * kernel.c -- what a kernel OOM report says, in plain words, and the
 * cause it supports on its own.
 *
 * The report of the first OOM kill (else the first OOM header): what ran
 * out (a memory cgroup at its limit, the whole host, the NUMA nodes a
 * cpuset allowed), RAM, free memory and swap, the allocation that failed
 * (its GFP flags and order), the victim against the largest task. Causes:
 *
 *  - cgroup_limit: a memcg OOM (constraint memcg, or usage within 2% of
 *    the limit): the container's limit is what failed. cgroup v1 has two
 *    limits, memory (RAM) and memory+swap (memsw): the kernel charges
 *    memsw first (mm/memcontrol.c try_charge / try_charge_memcg, v4.18
 *    to v6.18), so a memsw counter with no room left for the charge is
 *    the limit hit, and the finding gives that counter's usage, limit and
 *    failcnt, the memory counter's apart. From the report
 *    alone that is a limit too small for the workload, most likely, not
 *    proven: a memory series of the cgroup showing growth (leak) or a
 *    surge (spike) would make it the other classes' (score 0.35); one
 *    holding steady confirms it (0.8);
 *  - host_capacity: a global OOM where the victim, the largest task, held
 *    half the host's RAM or more: the workload outgrew the host; with
 *    the RAM not in the log, a victim not known to be smaller than
 *    another task (lower: 0.4 when it was the largest, else 0.35).
 *
 * A global OOM whose victim is not the process the artifacts follow (a
 * proc.* series of another pid) is read, not judged: that process did not
 * die of it. Otherwise the reading alone (class "reading", below the
 * verdict's threshold). The title and advice carry the reading, the figures its
 * numbers.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MEMCG_FULL 0.98            /* usage / limit that is "at the limit" */
#define HOST_VICTIM_SHARE 0.5      /* victim RSS / RAM for host_capacity */
/* The room below a limit that a failed charge can leave: the kernel
 * charges MEMCG_CHARGE_BATCH (64 pages) at a time and falls back to the
 * pages the fault needs (mm/memcontrol.c try_charge). */
#define MEMCG_BATCH_BYTES (64.0 * 4096)

/* One kernel OOM report as the events and task rows give it; sizes in
 * bytes, -1 unknown. */
struct kreport {
	int64_t kill, inv;          /* event ids; 0 none */
	int64_t victim_pid;
	char victim[64], constraint[24], memcg[200], gfp[24], flags[120];
	double victim_rss, victim_adj;
	int64_t order;              /* -1 unknown */
	double usage, limit, failcnt, swap_usage, swap_limit;
	double memsw_usage, memsw_limit, memsw_failcnt;   /* v1 memory+swap */
	int memsw_hit;              /* 1: the memory+swap limit was the one hit */
	double ram, free, swap_total, swap_free;
	char largest[64];
	int64_t largest_pid;
	double largest_rss;
	int victim_largest;         /* 1, 0, -1 unknown (no task rows) */
	int kills;                  /* oom_kill events in the timeline */
	/* the kill decision of kernels to 5.0 when it was not the victim: the
	 * process chosen, whose child was killed (OL_NULL: none) */
	int64_t chosen_pid, chosen_score;
	char chosen[64];
};

static double kb(sqlite3_stmt *st, int i)
{
	double v = sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);

	return isfinite(v) && v >= 0 && v < 1e16 ? v * 1024 : -1;
}

static void text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	snprintf(buf, n, "%s", sqlite3_column_type(st, i) == SQLITE_TEXT ? q_text(st, i) : "");
}

/* The kill: victim, constraint, memcg, invoker. 1 found, 0, -1. */
static int read_kill(struct rule_ctx *c, struct kreport *k)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT id, pid, comm, bytes, json_extract(data, '$.oom_score_adj'),"
		" json_extract(data, '$.constraint'), coalesce(json_extract(data, '$.oom_memcg'),"
		" json_extract(data, '$.task_memcg')), json_extract(data, '$.invoker_event'),"
		" json_extract(data, '$.invoker.gfp_mask'), json_extract(data, '$.invoker.order'),"
		" (SELECT count(*) FROM event WHERE kind = 'oom_kill'),"
		" json_extract(data, '$.selected_pid'), json_extract(data, '$.selected_comm'),"
		" json_extract(data, '$.selected_score')"
		" FROM event WHERE id = " RL_KERNEL_KILL " AND json_valid(data)");
	int r = 0;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		k->kill = sqlite3_column_int64(st, 0);
		k->victim_pid = sqlite3_column_type(st, 1) == SQLITE_NULL ? OL_NULL :
				sqlite3_column_int64(st, 1);
		text(st, 2, k->victim, sizeof(k->victim));
		k->victim_rss = kb(st, 3) / 1024;   /* bytes already */
		k->victim_adj = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN :
				sqlite3_column_double(st, 4);
		text(st, 5, k->constraint, sizeof(k->constraint));
		text(st, 6, k->memcg, sizeof(k->memcg));
		/* a kill whose header was not in the log reads no other report's */
		k->inv = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 7);
		text(st, 8, k->gfp, sizeof(k->gfp));
		if (sqlite3_column_type(st, 9) != SQLITE_NULL)
			k->order = sqlite3_column_int64(st, 9);
		k->kills = sqlite3_column_int(st, 10);
		if (sqlite3_column_type(st, 11) != SQLITE_NULL && k->victim_pid != OL_NULL &&
		    sqlite3_column_int64(st, 11) != k->victim_pid) {
			k->chosen_pid = sqlite3_column_int64(st, 11);
			text(st, 12, k->chosen, sizeof(k->chosen));
			if (sqlite3_column_type(st, 13) != SQLITE_NULL)
				k->chosen_score = sqlite3_column_int64(st, 13);
		}
		r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

/* The header's report: memcg, Mem-Info, swap, allocation. The kill's
 * invoker (k->inv; -1: the kill has none), else (0: no kill) the first
 * header. 1 found, 0, -1. */
static int read_invoked(struct rule_ctx *c, struct kreport *k)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT id, json_extract(data, '$.memcg_usage_kb'), json_extract(data, '$.memcg_limit_kb'),"
		" json_extract(data, '$.memcg_failcnt'), json_extract(data, '$.swap_usage_kb'),"
		" json_extract(data, '$.swap_limit_kb'), json_extract(data, '$.ram_kb'),"
		" json_extract(data, '$.free_kb'), json_extract(data, '$.swap_total_kb'),"
		" json_extract(data, '$.swap_free_kb'), json_extract(data, '$.gfp_mask'),"
		" json_extract(data, '$.gfp_flags'), json_extract(data, '$.order'),"
		" json_extract(data, '$.constraint'), coalesce(json_extract(data, '$.oom_memcg'),"
		" json_extract(data, '$.task_memcg')), json_extract(data, '$.memsw_usage_kb'),"
		" json_extract(data, '$.memsw_limit_kb'), json_extract(data, '$.memsw_failcnt'),"
		" json_extract(data, '$.selected_pid'), json_extract(data, '$.selected_comm'),"
		" json_extract(data, '$.selected_score')"
		" FROM event WHERE kind = 'oom_invoked' AND json_valid(data)"
		" AND id = CASE WHEN ?1 = 0 THEN " RL_KERNEL_HEADER " ELSE ?1 END");
	int r = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, k->inv);
	if (k->inv >= 0 && sqlite3_step(st) == SQLITE_ROW) {
		k->inv = sqlite3_column_int64(st, 0);
		k->usage = kb(st, 1), k->limit = kb(st, 2);
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			k->failcnt = sqlite3_column_double(st, 3);
		k->swap_usage = kb(st, 4), k->swap_limit = kb(st, 5);
		k->ram = kb(st, 6), k->free = kb(st, 7);
		k->swap_total = kb(st, 8), k->swap_free = kb(st, 9);
		if (!k->gfp[0])
			text(st, 10, k->gfp, sizeof(k->gfp));
		text(st, 11, k->flags, sizeof(k->flags));
		if (sqlite3_column_type(st, 12) != SQLITE_NULL)
			k->order = sqlite3_column_int64(st, 12);
		if (!k->constraint[0])
			text(st, 13, k->constraint, sizeof(k->constraint));
		if (!k->memcg[0])
			text(st, 14, k->memcg, sizeof(k->memcg));
		/* cgroup v1 counts memory+swap together; 0 when not accounted */
		if (k->swap_usage < 0 && kb(st, 15) > 0 && k->usage >= 0 && kb(st, 15) >= k->usage)
			k->swap_usage = kb(st, 15) - k->usage;
		k->memsw_usage = kb(st, 15), k->memsw_limit = kb(st, 16);
		if (sqlite3_column_type(st, 17) != SQLITE_NULL)
			k->memsw_failcnt = sqlite3_column_double(st, 17);
		/* a report cut before its kill line: the kernel's choice alone */
		if (k->victim_pid == OL_NULL && k->chosen_pid == OL_NULL &&
		    sqlite3_column_type(st, 18) != SQLITE_NULL) {
			k->chosen_pid = sqlite3_column_int64(st, 18);
			text(st, 19, k->chosen, sizeof(k->chosen));
			if (sqlite3_column_type(st, 20) != SQLITE_NULL)
				k->chosen_score = sqlite3_column_int64(st, 20);
		}
		r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

/* The largest task of the header's dump, and whether it is the victim. */
static int read_tasks(struct rule_ctx *c, struct kreport *k)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT pid, name, rss_pages * coalesce((SELECT json_extract(data, '$.page_size')"
		" FROM event WHERE id = ?1), 4096) FROM task WHERE event_id = ?1"
		" AND rss_pages IS NOT NULL ORDER BY rss_pages DESC LIMIT 1");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, k->inv);
	if (k->inv && sqlite3_step(st) == SQLITE_ROW) {
		k->largest_pid = sqlite3_column_int64(st, 0);
		text(st, 1, k->largest, sizeof(k->largest));
		k->largest_rss = sqlite3_column_double(st, 2);
		if (k->victim_pid != OL_NULL)
			k->victim_largest = k->largest_pid == k->victim_pid;
	}
	sqlite3_finalize(st);
	return 0;
}

/* Whether the v1 memory+swap limit is the one the report's charge hit:
 * a finite memsw limit with no room left for the charge (the kernel
 * tries memsw before memory). Its failcnt is not asked: kernels from
 * 6.x print 0 for memsw even when it was the limit hit (seen on
 * 6.18.44, tests/data/real/gpu_host/MANIFEST.tsv). */
static int memsw_hit(const struct kreport *k)
{
	double room = MEMCG_BATCH_BYTES;

	if (k->memsw_limit <= 0 || k->memsw_usage < 0)
		return 0;
	if (k->order > 0 && k->order < 20 && 4096.0 * (double)(1LL << k->order) > room)
		room = 4096.0 * (double)(1LL << k->order);
	return k->memsw_limit - k->memsw_usage <= room;
}

/* Read the incident's kernel report. 1, 0 none, -1 failed. */
static int kreport_read(struct rule_ctx *c, struct kreport *k)
{
	int a, b;

	memset(k, 0, sizeof(*k));
	k->victim_pid = k->largest_pid = k->chosen_pid = k->chosen_score = OL_NULL;
	k->victim_rss = k->usage = k->limit = k->failcnt = k->swap_usage = k->swap_limit = -1;
	k->ram = k->free = k->swap_total = k->swap_free = k->largest_rss = -1;
	k->memsw_usage = k->memsw_limit = k->memsw_failcnt = -1;
	k->victim_adj = NAN;
	k->order = -1;
	k->victim_largest = -1;
	if ((a = read_kill(c, k)) < 0 || (b = read_invoked(c, k)) < 0)
		return -1;
	if (k->inv < 0)
		k->inv = 0;
	if (read_tasks(c, k) < 0)
		return -1;
	k->memsw_hit = memsw_hit(k);
	if (!a)
		k->victim_pid = OL_NULL;
	return a || b;
}

/* The report's figures, on every finding of this rule. */
static void kfigures(struct rl_finding *f, const struct kreport *k)
{
	if (k->usage >= 0)
		rl_fig(f, "memcg_usage_bytes", k->usage);
	if (k->limit >= 0)
		rl_fig(f, "memcg_limit_bytes", k->limit);
	if (k->failcnt >= 0)
		rl_fig(f, "memcg_failcnt", k->failcnt);
	if (k->memsw_hit) {   /* the memory+swap counter, apart from memory's */
		rl_fig(f, "memsw_usage_bytes", k->memsw_usage);
		rl_fig(f, "memsw_limit_bytes", k->memsw_limit);
		if (k->memsw_failcnt >= 0)
			rl_fig(f, "memsw_failcnt", k->memsw_failcnt);
	}
	if (k->swap_usage >= 0)
		rl_fig(f, "memcg_swap_usage_bytes", k->swap_usage);
	if (k->ram >= 0)
		rl_fig(f, "ram_bytes", k->ram);
	if (k->free >= 0)
		rl_fig(f, "free_bytes", k->free);
	if (k->swap_total >= 0)
		rl_fig(f, "swap_total_bytes", k->swap_total);
	if (k->swap_free >= 0)
		rl_fig(f, "swap_free_bytes", k->swap_free);
	if (k->order >= 0)
		rl_fig(f, "order", (double)k->order);
	if (k->victim_pid != OL_NULL)
		rl_fig(f, "victim_pid", (double)k->victim_pid);
	if (k->chosen_pid != OL_NULL)
		rl_fig(f, "chosen_pid", (double)k->chosen_pid);
	if (k->chosen_score != OL_NULL)
		rl_fig(f, "chosen_score", (double)k->chosen_score);
	if (k->victim_rss >= 0)
		rl_fig(f, "victim_rss_bytes", k->victim_rss);
	if (isfinite(k->victim_adj))
		rl_fig(f, "victim_oom_score_adj", k->victim_adj);
	if (k->largest_pid != OL_NULL) {
		rl_fig(f, "largest_pid", (double)k->largest_pid);
		rl_fig(f, "largest_rss_bytes", k->largest_rss);
	}
	if (k->kills > 1)
		rl_fig(f, "oom_kills", k->kills);
}

/* What the failed allocation was, from the GFP flags and order. */
static void alloc_text(struct rl_finding *f, const struct kreport *k, int memcg)
{
	static const struct { const char *flag, *what; } gfp[] = {
		{ "GFP_HIGHUSER_MOVABLE", "a page of user memory (the process touching its heap"
		  " or other anonymous memory)" },
		{ "GFP_HIGHUSER", "a page of user memory" },
		{ "GFP_USER", "a page for user space" },
		{ "GFP_KERNEL_ACCOUNT", "kernel memory charged to the process's cgroup (page"
		  " tables, socket and pipe buffers, slab)" },
		{ "GFP_KERNEL", "kernel memory for the process (page tables, buffers, slab)" },
		{ "GFP_NOFS", "kernel memory on a filesystem path" },
		{ "GFP_NOIO", "kernel memory on an I/O path" },
		{ "GFP_TRANSHUGE", "a transparent huge page" },
		{ "GFP_ATOMIC", "kernel memory that could not wait" },
		{ NULL, NULL }
	};
	const char *what = NULL;
	int i;

	for (i = 0; gfp[i].flag && k->flags[0]; i++)
		if (!strncmp(k->flags, gfp[i].flag, strlen(gfp[i].flag)) &&
		    (k->flags[strlen(gfp[i].flag)] == 0 || k->flags[strlen(gfp[i].flag)] == '|')) {
			what = gfp[i].what;
			break;
		}
	if (!what && k->order < 0)
		return;
	if (what) /* for the report's reading of the kernel report */
		json_object_set_new(f->figures, "gfp_meaning", json_string(what));
	if (what)
		rl_advice(f, "The allocation that failed (%s): %s.", k->flags, what);
	else if (k->gfp[0] || k->flags[0])
		rl_advice(f, "The allocation that failed: gfp_mask %s%s%s.", k->gfp,
			  k->flags[0] ? " " : "", k->flags);
	if (k->order == 0)
		rl_advice(f, "Order 0 is a single page: no contiguous block was needed, so this is"
			  " not fragmentation; %s.", memcg ? "the cgroup had no page left to charge"
			  " (it was full)" : "there was no page left to give");
	else if (k->order > 0)
		rl_advice(f, "Order %lld is %lld contiguous pages: with memory still free, physical"
			  " fragmentation can cause this (see /proc/buddyinfo; vm.compaction).",
			  (long long)k->order, 1LL << (k->order < 20 ? k->order : 20));
}

/* The victim against the largest task. */
static void victim_text(struct rl_finding *f, const struct kreport *k, char *head, size_t n)
{
	char b1[32], b2[32], chosen[120] = "";

	/* the kernel's choice when it was not the victim: "bash (pid 3861, score 88)" */
	if (k->chosen_pid != OL_NULL && k->chosen_score != OL_NULL)
		snprintf(chosen, sizeof(chosen), "%s (pid %lld, score %lld)",
			 k->chosen[0] ? k->chosen : "a process", (long long)k->chosen_pid,
			 (long long)k->chosen_score);
	else if (k->chosen_pid != OL_NULL)
		snprintf(chosen, sizeof(chosen), "%s (pid %lld)", k->chosen[0] ? k->chosen : "a process",
			 (long long)k->chosen_pid);
	if (k->victim_pid == OL_NULL && k->chosen_pid != OL_NULL) {
		snprintf(head, n, "the kernel chose %s to kill, it or a child of it"
			 " (the kill line is not in the log)", chosen);
		return;
	}
	if (k->victim_pid == OL_NULL) {
		snprintf(head, n, "no kill in the log");
		return;
	}
	if (k->chosen_pid != OL_NULL) {   /* kernels to 5.0: a child sacrificed */
		snprintf(head, n, "the kernel chose %s and killed its child %s (pid %lld, %s)", chosen,
			 k->victim, (long long)k->victim_pid, rl_bytes(k->victim_rss, b1, sizeof(b1)));
	} else {
		snprintf(head, n, "the kernel killed %s (pid %lld, %s%s)", k->victim,
			 (long long)k->victim_pid, rl_bytes(k->victim_rss, b1, sizeof(b1)),
			 k->victim_largest == 1 ? ", the largest task" : "");
	}
	if (k->victim_largest == 0)
		rl_advice(f, "The victim was not the largest task: %s (pid %lld) held %s.",
			  k->largest, (long long)k->largest_pid, rl_bytes(k->largest_rss, b2, sizeof(b2)));
	if (k->kills > 1)
		rl_advice(f, "The log holds %d OOM kills; this reads the first.", k->kills);
}

/* Swap, in words ("no swap", "swap 0 B of 8.00 GiB free"). */
static const char *swap_text(const struct kreport *k, char *buf, size_t n)
{
	char b1[32], b2[32];

	if (k->swap_total == 0)
		snprintf(buf, n, "no swap");
	else if (k->swap_total > 0 && k->swap_free >= 0)
		snprintf(buf, n, "swap %s of %s free%s", rl_bytes(k->swap_free, b1, sizeof(b1)),
			 rl_bytes(k->swap_total, b2, sizeof(b2)),
			 k->swap_free <= 0.05 * k->swap_total ? " (exhausted)" : "");
	else
		snprintf(buf, n, "swap not shown");
	return buf;
}

/* Write f with the report's events as evidence; 1, or -1. */
static int kwrite(struct rule_ctx *c, struct rl_finding *f, const struct kreport *k,
		  const struct rl_history *h)
{
	int64_t fid = rl_finding_write(c, f);

	if (fid < 0 || (k->kill && rl_evidence(c, fid, "event", k->kill, "oom_kill") < 0) ||
	    (k->inv && rl_evidence(c, fid, "event", k->inv, "the OOM report") < 0) ||
	    (h && h->have && rl_evidence(c, fid, "series", h->series_id, "memory before the OOM") < 0))
		return -1;
	return 1;
}

/* A memory cgroup at its limit: the memory limit, or (cgroup v1) the
 * memory+swap one when that was the limit hit (memsw_hit), each with its
 * own usage, limit and failcnt. */
static int cgroup_limit(struct rule_ctx *c, const struct kreport *k)
{
	struct rl_finding f;
	struct rl_history h;
	char b1[32], b2[32], b3[32], head[200], fc[48] = "";
	int sw = k->memsw_hit;
	double use = sw ? k->memsw_usage : k->usage, lim = sw ? k->memsw_limit : k->limit;
	double fails = sw ? k->memsw_failcnt : k->failcnt, want;

	if (rl_history(c, RL_SCOPE_HOST, lim, &h) < 0)
		return -1;
	rl_finding_init(&f, "kernel", "misconfig", "cgroup_limit");
	f.score = use >= 0 && lim > 0 ? 0.6 : 0.5;
	if (k->victim_largest == 0)
		f.score = 0.45;   /* the victim rule says who should have gone */
	kfigures(&f, k);
	json_object_set_new(f.figures, "memcg_limit_hit", json_string(sw ? "memsw" : "memory"));
	victim_text(&f, k, head, sizeof(head));
	/* a memsw failcnt of 0 at its limit is a kernel that does not count it */
	if (fails > 0 || (!sw && fails >= 0))
		snprintf(fc, sizeof(fc), ", %.0f failed charges", fails);
	if (use >= 0 && lim > 0)
		snprintf(f.title, sizeof(f.title), "Memory cgroup at its %slimit: usage %s of %s%s; %s",
			 sw ? "memory+swap (memsw) " : "", rl_bytes(use, b1, sizeof(b1)),
			 rl_bytes(lim, b2, sizeof(b2)), fc, head);
	else
		snprintf(f.title, sizeof(f.title), "Memory cgroup OOM: the cgroup hit its limit; %s",
			 head);
	if (k->memcg[0])
		rl_advice(&f, "The cgroup that hit its limit: %s.", k->memcg);
	if (sw && k->usage >= 0)
		rl_advice(&f, "The limit hit was memory+swap (RAM and swap together, cgroup v1"
			  " memory.memsw.limit_in_bytes), not the memory limit: RAM in use was %s%s%s.",
			  rl_bytes(k->usage, b1, sizeof(b1)), k->limit > 0 ? " of its own limit of " : "",
			  k->limit > 0 ? rl_bytes(k->limit, b3, sizeof(b3)) : "");
	if (fails >= 100)
		rl_advice(&f, "failcnt %.0f: it had failed to charge that often before the kill,"
			  " pressed against its limit and reclaiming for a while.", fails);
	if (k->swap_limit == 0)
		rl_advice(&f, "The cgroup may not swap (its swap limit is 0).");
	else if (k->swap_usage >= 0)
		rl_advice(&f, "The cgroup had %s in swap%s%s.", rl_bytes(k->swap_usage, b1, sizeof(b1)),
			  k->swap_limit > 0 ? " of its limit of " : "",
			  k->swap_limit > 0 ? rl_bytes(k->swap_limit, b3, sizeof(b3)) : "");
	alloc_text(&f, k, 1);
	want = lim > 0 ? rl_round_up_size(lim * 1.25) : -1;
	if (want > 0 && sw) {
		rl_fig(&f, "suggested_limit_bytes", want);
		rl_knob(&f, "memory_limit", "the memory+swap limit", want,
			"Raise the memory+swap limit (memory.memsw.limit_in_bytes; docker"
			" --memory-swap) to at least %s (a quarter above the one it hit: the report"
			" shows the limit was reached, not by how much it fell short), or make the"
			" service hold less.", rl_bytes(want, b1, sizeof(b1)));
	} else if (want > 0) {
		rl_fig(&f, "suggested_limit_bytes", want);
		rl_knob(&f, "memory_limit", "the memory limit", want,
			"Raise the limit (resources.limits.memory, memory.max) to at least %s"
			" (a quarter above the one it hit: the report shows the limit was reached,"
			" not by how much it fell short), or make the service hold less.",
			rl_bytes(want, b1, sizeof(b1)));
	} else {
		rl_advice(&f, "Raise the container's memory limit (resources.limits.memory,"
			  " memory.max) above its working set, or make the service hold less.");
	}
	f.score = rl_history_say(&f, f.score, &h, 0.8, "the report", "a limit that never fitted");
	return kwrite(c, &f, k, &h);
}

/* The whole host out of memory, most of it held by the victim; or, when
 * the report's RAM lines are not in the log, held by the largest task,
 * which the kernel killed: the likeliest reading, lower (0.4). */
static int host_capacity(struct rule_ctx *c, const struct kreport *k)
{
	struct rl_finding f;
	struct rl_history h;
	char b1[32], b2[32], b3[32], sw[80], head[200];
	int ram = k->ram > 0;
	double want = ram ? ceil(k->ram * 1.25 / GIB) * GIB : -1;
	double cap = ram ? floor(k->ram * 0.9 / GIB) * GIB : -1;

	if (rl_history(c, RL_SCOPE_HOST, ram ? k->ram : -1, &h) < 0)
		return -1;
	rl_finding_init(&f, "kernel", "misconfig", "host_capacity");
	f.score = ram ? 0.5 : k->victim_largest == 1 ? 0.4 : 0.35;
	kfigures(&f, k);
	victim_text(&f, k, head, sizeof(head));
	if (ram) {
		rl_fig(&f, "victim_ram_share", k->victim_rss / k->ram);
		snprintf(f.title, sizeof(f.title), "The host ran out of memory: %s free of %s RAM, %s;"
			 " %s, %.0f%% of RAM", rl_bytes(k->free >= 0 ? k->free : 0, b1, sizeof(b1)),
			 rl_bytes(k->ram, b2, sizeof(b2)), swap_text(k, sw, sizeof(sw)), head,
			 100 * k->victim_rss / k->ram);
	} else {
		snprintf(f.title, sizeof(f.title), "The host ran out of memory (a global OOM; its RAM"
			 " is not in the log): %s", head);
	}
	alloc_text(&f, k, 0);
	if (ram) {
		rl_fig(&f, "suggested_ram_bytes", want);
		rl_fig(&f, "suggested_limit_bytes", cap);
		rl_advice(&f, "Nothing limited %s below the host's memory: give it a memory limit of"
			  " at most %s (systemd MemoryMax=, a container limit; 90%% of RAM) so that it"
			  " fails alone and the host survives; for it to fit, a host of at least %s"
			  " (a quarter more: the report shows RAM was exhausted, not by how much), or"
			  " make it hold less than its %s.", k->victim, rl_bytes(cap, b1, sizeof(b1)),
			  rl_bytes(want, b2, sizeof(b2)), rl_bytes(k->victim_rss, b3, sizeof(b3)));
	} else {
		rl_advice(&f, "Nothing limited %s below the host's memory and it held the most:"
			  " give it a memory limit (systemd MemoryMax=, a container limit) so that"
			  " it fails alone, a host with more RAM than its %s, or make it hold less."
			  " The report's Mem-Info lines (RAM, free, swap) would size the gap.",
			  k->victim, rl_bytes(k->victim_rss, b1, sizeof(b1)));
	}
	f.score = rl_history_say(&f, f.score, &h, 0.75, "the report",
				 "a host too small for the workload");
	return kwrite(c, &f, k, &h);
}

/* Whether the victim is a process the artifacts follow (a proc.* series
 * of entity pid:N): 1 it is, 0 they follow others only, -1 they follow
 * none (or failed: c->failed). */
static int victim_followed(struct rule_ctx *c, const struct kreport *k, char *who, size_t n)
{
	sqlite3_stmt *st;
	int r = -1;

	if (k->victim_pid == OL_NULL)
		return -1;
	st = rl_prepare(c, "SELECT entity, entity = 'pid:' || ?1 FROM series WHERE name LIKE 'proc.%'"
			" AND entity LIKE 'pid:%' ORDER BY 2 DESC LIMIT 1");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, k->victim_pid);
	if (sqlite3_step(st) == SQLITE_ROW) {
		r = sqlite3_column_int(st, 1);
		snprintf(who, n, "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return r;
}

/* No cause the report supports on its own: its reading. other: the
 * process the artifacts follow (entity "pid:N") when the victim was
 * another one, else NULL. */
static int kreading(struct rule_ctx *c, const struct kreport *k, const char *other)
{
	struct rl_finding f;
	char b1[32], b2[32], sw[80], head[200];
	int memcg = !strcmp(k->constraint, "memcg");

	rl_finding_init(&f, "kernel", "reading", "kernel_report");
	f.score = 0.2;
	kfigures(&f, k);
	victim_text(&f, k, head, sizeof(head));
	if (k->ram > 0)
		snprintf(f.title, sizeof(f.title), "Kernel OOM (%s): %s free of %s RAM, %s; %s",
			 k->constraint[0] ? k->constraint : "constraint unknown",
			 rl_bytes(k->free >= 0 ? k->free : 0, b1, sizeof(b1)),
			 rl_bytes(k->ram, b2, sizeof(b2)), swap_text(k, sw, sizeof(sw)), head);
	else
		snprintf(f.title, sizeof(f.title), "Kernel OOM (%s): %s",
			 !strcmp(k->constraint, "none") ? "the whole host" : k->constraint[0] ?
			 k->constraint : "constraint unknown", head);
	if (!strcmp(k->constraint, "cpuset") || !strcmp(k->constraint, "memory_policy"))
		rl_advice(&f, "Only the NUMA nodes the task was allowed (%s) ran out: memory may"
			  " have been free on other nodes; check the cpuset / numactl binding.",
			  k->constraint);
	alloc_text(&f, k, memcg);
	if (other) {
		rl_advice(&f, "The kernel killed another process than the one whose memory the"
			  " artifacts follow (%s): that process did not die of this OOM, and its"
			  " series says what it held. What else ran on the host, and why %s grew to"
			  " %s, is the question.", other, k->victim,
			  rl_bytes(k->victim_rss, b1, sizeof(b1)));
		return kwrite(c, &f, k, NULL);
	}
	rl_advice(&f, "The report alone does not name a cause%s: a memory series before the"
		  " OOM (smaps_rollup, cgroup memory.current, a metrics export) and the host's"
		  " RAM and swap lines of the report would.", k->ram > 0 ? " (the victim did"
		  " not hold most of RAM)" : " (the RAM it had is not in the log)");
	return kwrite(c, &f, k, NULL);
}

int rule_kernel(struct rule_ctx *c)
{
	struct kreport k;
	char who[64];
	int r = kreport_read(c, &k), followed;

	if (r <= 0)
		return r;
	if (!strcmp(k.constraint, "memcg") ||
	    (k.usage >= 0 && k.limit > 0 && k.usage >= MEMCG_FULL * k.limit) || k.memsw_hit)
		return cgroup_limit(c, &k);
	if ((followed = victim_followed(c, &k, who, sizeof(who))) < 0 && c->failed)
		return -1;
	if (!strcmp(k.constraint, "none") && followed == 0)
		return kreading(c, &k, who);
	if (!strcmp(k.constraint, "none") && k.ram > 0 && k.victim_rss >= HOST_VICTIM_SHARE * k.ram &&
	    k.victim_largest != 0)
		return host_capacity(c, &k);
	if (!strcmp(k.constraint, "none") && k.ram <= 0 && k.victim_largest != 0 && k.victim_rss > 0)
		return host_capacity(c, &k);
	/* a kill line alone is in the events and the summary already */
	if (!k.constraint[0] && k.ram < 0 && k.usage < 0 && k.order < 0 && !k.gfp[0])
		return 0;
	return kreading(c, &k, NULL);
}
