/*
 * reading.c -- the first screen's plain words (summary.h): what a kernel
 * OOM report says (from the kernel rule's finding: memcg usage against its
 * limit and its failcnt, RAM, free and swap, the victim against the
 * largest task, what the failed allocation's GFP flags and order mean),
 * the peak card of a kernel-only incident, and the card strip of a
 * PyTorch OOM message (from the capacity rule's figures: allocated,
 * cached, outside PyTorch, other processes, free). The figures are the
 * findings', so the header and the findings never disagree; the names
 * (the memcg, the GFP flags, the largest task's) are the events'.
 */
#include "reports/summary.h"
#include "reports/ledger.h"
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double figure(const json_t *f, const char *k)
{
	const json_t *v = json_object_get(f, k);

	return json_is_number(v) && isfinite(json_number_value(v)) ? json_number_value(v) : NAN;
}

/* The strongest finding of rule: its id and figures (a new reference), or
 * NULL; *cause gets its cause (at most n bytes). */
static json_t *rule_figures(struct report_ctx *c, const char *sql, int64_t *id, char *cause,
			    size_t n)
{
	sqlite3_stmt *st = r_prepare(c, sql);
	json_t *f = NULL;
	const char *t;

	cause[0] = 0;
	if (st && sqlite3_step(st) == SQLITE_ROW && (t = (const char *)sqlite3_column_text(st, 1))) {
		*id = sqlite3_column_int64(st, 0);
		f = json_loads(t, 0, NULL);
		snprintf(cause, n, "%s", sqlite3_column_text(st, 2) ?
			 (const char *)sqlite3_column_text(st, 2) : "");
		if (!json_is_object(f)) {
			json_decref(f);
			f = NULL;
		}
	}
	sqlite3_finalize(st);
	return f;
}

/* The report's names: the memcg, the constraint, the GFP flags (of the
 * events the finding used) and the largest task's name. */
struct knames {
	char memcg[200], constraint[24], gfp[120], largest[64];
};

static void kernel_names(struct report_ctx *c, int64_t fid, double largest_pid,
			 struct knames *k)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT coalesce(json_extract(e.data, '$.oom_memcg'),"
		" json_extract(e.data, '$.task_memcg')), json_extract(e.data, '$.constraint'),"
		" coalesce(json_extract(e.data, '$.gfp_flags'), json_extract(e.data, '$.gfp_mask'),"
		" json_extract(e.data, '$.invoker.gfp_mask')), e.id, e.kind FROM evidence v"
		" JOIN event e ON e.id = v.ref_id WHERE v.finding_id = ? AND v.ref_table = 'event'"
		" AND json_valid(e.data) ORDER BY e.kind = 'oom_invoked' DESC");
	int64_t inv = 0;

	memset(k, 0, sizeof(*k));
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, fid);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!k->memcg[0] && sqlite3_column_text(st, 0))
			snprintf(k->memcg, sizeof(k->memcg), "%s", sqlite3_column_text(st, 0));
		if (!k->constraint[0] && sqlite3_column_text(st, 1))
			snprintf(k->constraint, sizeof(k->constraint), "%s", sqlite3_column_text(st, 1));
		if (!k->gfp[0] && sqlite3_column_text(st, 2))
			snprintf(k->gfp, sizeof(k->gfp), "%s", sqlite3_column_text(st, 2));
		if (!inv && !strcmp((const char *)sqlite3_column_text(st, 4), "oom_invoked"))
			inv = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	if (!isfinite(largest_pid) || !(st = r_prepare(c, "SELECT name FROM task WHERE pid = ?1"
						       " ORDER BY event_id = ?2 DESC, event_id LIMIT 1")))
		return;
	sqlite3_bind_int64(st, 1, (int64_t)largest_pid);
	sqlite3_bind_int64(st, 2, inv);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(k->largest, sizeof(k->largest), "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static struct strbuf *next(struct report_summary *s)
{
	return s->n_kernel < KREADING ? &s->kernel[s->n_kernel++] : &s->kernel[KREADING - 1];
}

/* What ran out: the cgroup against its limit, the host's RAM, a NUMA
 * binding; and swap. */
static void what_ran_out(struct report_summary *s, const json_t *f, const struct knames *k,
			 int memcg)
{
	double use = figure(f, "memcg_usage_bytes"), lim = figure(f, "memcg_limit_bytes");
	double fc = figure(f, "memcg_failcnt"), ram = figure(f, "ram_bytes"), fr = figure(f, "free_bytes");
	double st = figure(f, "swap_total_bytes"), sf = figure(f, "swap_free_bytes");
	double sw = figure(f, "memcg_swap_usage_bytes");
	/* cgroup v1's memory+swap limit, when it was the one hit (rules/kernel.c) */
	double swu = figure(f, "memsw_usage_bytes"), swl = figure(f, "memsw_limit_bytes");
	struct strbuf *b = next(s);
	char b1[32], b2[32], b3[32];

	fmt_bytes(b1, sizeof(b1), use);
	fmt_bytes(b2, sizeof(b2), lim);
	if (memcg && isfinite(swu) && swl > 0) {
		strbuf_addf(b, "The memory cgroup%s%s was at its memory+swap (memsw) limit: %s of"
			    " RAM and swap used of %s (%.1f %%)", k->memcg[0] ? " " : "", k->memcg,
			    (fmt_bytes(b3, sizeof(b3), swu), b3),
			    (fmt_bytes(b2, sizeof(b2), swl), b2), 100 * swu / swl);
		if (isfinite(use))
			strbuf_addf(b, "; RAM alone %s%s%s", b1, lim > 0 ? " of its memory limit of " : "",
				    lim > 0 ? (fmt_bytes(b2, sizeof(b2), lim), b2) : "");
		fc = figure(f, "memsw_failcnt");
		if (fc == 0)   /* 6.x kernels leave memsw's failcnt at 0 */
			fc = -1;
	} else if (memcg && isfinite(use) && lim > 0)
		strbuf_addf(b, "The memory cgroup%s%s was at its limit: %s used of %s (%.1f %%)",
			    k->memcg[0] ? " " : "", k->memcg, b1, b2, 100 * use / lim);
	else if (memcg)
		strbuf_addf(b, "The memory cgroup%s%s hit its limit (the report does not print its"
			    " usage)", k->memcg[0] ? " " : "", k->memcg);
	else if (!strcmp(k->constraint, "cpuset") || !strcmp(k->constraint, "memory_policy"))
		strbuf_addf(b, "Only the memory the task's NUMA binding allows (%s) ran out: other"
			    " nodes may have had memory free", k->constraint);
	else if (ram > 0 && isfinite(fr))
		strbuf_addf(b, "The whole host ran out of memory: %s free of %s RAM",
			    (fmt_bytes(b1, sizeof(b1), fr), b1), (fmt_bytes(b2, sizeof(b2), ram), b2));
	else if (isfinite(fr))
		strbuf_addf(b, "The whole host ran out of memory: %s free (the log does not give the"
			    " RAM total)", (fmt_bytes(b1, sizeof(b1), fr), b1));
	else
		strbuf_addstr(b, "The kernel ran out of memory for the allocation below");
	if (memcg && fc >= 0)
		strbuf_addf(b, "; it had failed to charge a page %.0f times before the kill (failcnt)%s",
			    fc, fc >= 100 ? ": pressed against its limit, reclaiming, for a while" : "");
	if (memcg && sw > 0)
		strbuf_addf(b, "; %s of it in swap", (fmt_bytes(b1, sizeof(b1), sw), b1));
	else if (!memcg && st == 0)
		strbuf_addstr(b, "; no swap");
	else if (!memcg && st > 0 && sf >= 0)
		strbuf_addf(b, "; swap %s of %s free%s", (fmt_bytes(b1, sizeof(b1), sf), b1),
			    (fmt_bytes(b2, sizeof(b2), st), b2), sf <= 0.05 * st ? " (exhausted)" : "");
	strbuf_addch(b, '.');
}

/* The victim against the largest task. */
static void victim(struct report_summary *s, const json_t *f, const struct knames *k)
{
	double pid = figure(f, "victim_pid"), rss = figure(f, "victim_rss_bytes");
	double lpid = figure(f, "largest_pid"), lrss = figure(f, "largest_rss_bytes");
	double adj = figure(f, "victim_oom_score_adj");
	struct strbuf *b;
	char b1[32];

	if (!isfinite(pid))
		return;
	b = next(s);
	strbuf_addstr(b, "The kernel killed ");
	strbuf_add(b, s->victim_comm.len ? s->victim_comm.buf : "a process",
		   s->victim_comm.len ? s->victim_comm.len : 9);
	strbuf_addf(b, " (pid %.0f)", pid);
	if (isfinite(rss))
		strbuf_addf(b, ", which held %s", (fmt_bytes(b1, sizeof(b1), rss), b1));
	if (isfinite(lpid) && lpid == pid)
		strbuf_addstr(b, ": the largest task");
	else if (isfinite(lpid))
		strbuf_addf(b, ", not the largest task: %s (pid %.0f) held %s", k->largest[0] ?
			    k->largest : "another", lpid, (fmt_bytes(b1, sizeof(b1), lrss), b1));
	if (isfinite(adj) && adj != 0)
		strbuf_addf(b, " (its oom_score_adj was %.0f%s)", adj, adj > 0 ? ", which made it"
			    " the kernel's preferred victim" : "");
	strbuf_addch(b, '.');
}

/* The allocation that failed: its GFP flags and order, in words. */
static void allocation(struct report_summary *s, const json_t *f, const struct knames *k,
		       int memcg)
{
	const char *meaning = json_string_value(json_object_get(f, "gfp_meaning"));
	double order = figure(f, "order");
	struct strbuf *b;

	if (!meaning && !k->gfp[0] && !isfinite(order))
		return;
	b = next(s);
	strbuf_addstr(b, "The allocation that failed");
	if (k->gfp[0])
		strbuf_addf(b, " (%s)", k->gfp);
	if (meaning)
		strbuf_addf(b, " was %s", meaning);
	if (order == 0)
		strbuf_addf(b, "; order 0, a single page: no contiguous block was needed, so this is"
			    " not fragmentation: %s", memcg ? "the cgroup had no page left to charge"
			    : "there was no page left to give");
	else if (order > 0)
		strbuf_addf(b, "; order %.0f, %.0f contiguous pages: with memory still free, physical"
			    " fragmentation can cause this", order, pow(2, order < 20 ? order : 20));
	strbuf_addch(b, '.');
}

/* The kernel reading, and the peak card's kernel figures. */
static void kernel_reading(struct report_ctx *c, struct report_summary *s)
{
	char cause[64];
	int64_t fid = 0;
	struct knames k;
	json_t *f = rule_figures(c, "SELECT id, figures, cause FROM finding WHERE rule = 'kernel'"
				 " ORDER BY score DESC, id LIMIT 1", &fid, cause, sizeof(cause));
	int memcg;

	s->k_usage = s->k_limit = s->k_ram = s->k_free = NAN;
	if (!f)
		return;
	kernel_names(c, fid, figure(f, "largest_pid"), &k);
	memcg = !strcmp(cause, "cgroup_limit") || !strcmp(k.constraint, "memcg") ||
		isfinite(figure(f, "memcg_limit_bytes"));
	s->k_usage = figure(f, "memcg_usage_bytes");
	s->k_limit = figure(f, "memcg_limit_bytes");
	s->k_ram = figure(f, "ram_bytes");
	s->k_free = figure(f, "free_bytes");
	what_ran_out(s, f, &k, memcg);
	victim(s, f, &k);
	allocation(s, f, &k, memcg);
	if (figure(f, "oom_kills") > 1)
		strbuf_addf(next(s), "The log holds %.0f OOM kills; this reads the first.",
			    figure(f, "oom_kills"));
	json_decref(f);
}

/* The peak card from the kernel report: memcg usage against its limit,
 * else RAM less free against RAM. */
static void kernel_peak(struct report_summary *s)
{
	if (s->has_peak)
		return;
	if (isfinite(s->k_usage)) {
		s->peak_bytes = s->k_usage;
		strbuf_addstr(&s->peak_series, "memcg usage at the kernel OOM (kernel report)");
		if (s->k_limit > 0) {
			s->limit_bytes = s->k_limit;
			strbuf_addstr(&s->limit_what, "the memcg's limit");
		}
	} else if (s->k_ram > 0 && isfinite(s->k_free) && s->k_free <= s->k_ram) {
		s->peak_bytes = s->k_ram - s->k_free;
		strbuf_addstr(&s->peak_series, "RAM in use at the kernel OOM (kernel report: RAM"
			      " less free)");
		s->limit_bytes = s->k_ram;
		strbuf_addstr(&s->limit_what, "RAM");
	} else {
		return;
	}
	s->has_peak = 1;
	s->peak_ns = s->oom_ns;
}

/* The card strip's figures from the capacity rule's strongest finding. */
static void card_strip(struct report_ctx *c, struct report_summary *s)
{
	char cause[64];
	int64_t fid = 0;
	json_t *f = rule_figures(c, "SELECT id, figures, cause FROM finding WHERE rule = 'capacity'"
				 " AND json_extract(figures, '$.total_bytes') > 0"
				 " ORDER BY score DESC, id LIMIT 1", &fid, cause, sizeof(cause));

	if (!f)
		return;
	s->has_card = 1;
	s->card_total = figure(f, "total_bytes");
	s->card_req = figure(f, "requested_bytes");
	s->card_alloc = figure(f, "allocated_bytes");
	s->card_cache = figure(f, "reserved_unallocated_bytes");
	s->card_nonpt = figure(f, "non_pytorch_bytes");
	s->card_others = figure(f, "other_processes_bytes");
	s->card_listed = isfinite(s->card_others);
	s->card_unseen = figure(f, "process_unseen") == 1;
	s->card_no_reserve = figure(f, "reserve_unstated") == 1;
	s->card_outside = figure(f, "outside_bytes");
	s->card_free = figure(f, "free_bytes");
	json_decref(f);
}

/* The slices of the card at a PyTorch OOM (the capacity rule's figures):
 * allocated, cached, outside PyTorch, other processes, the rest, free. */
int summary_card_slices(const struct report_summary *s, struct bar_seg *g)
{
	double sum = 0;
	int n = 0, i;

	if (isfinite(s->card_alloc))
		g[n++] = (struct bar_seg){ "activations", "allocated by PyTorch", s->card_alloc, NULL };
	if (isfinite(s->card_cache))
		g[n++] = (struct bar_seg){ "pytorch_cache", "cached by PyTorch, not allocated",
					   s->card_cache, NULL };
	if (isfinite(s->card_nonpt))
		g[n++] = (struct bar_seg){ "non_pytorch", "outside PyTorch in this process",
					   s->card_nonpt, NULL };
	if (s->card_listed && s->card_others > 0)
		g[n++] = (struct bar_seg){ "other_processes", "other processes", s->card_others, NULL };
	else if (!isfinite(s->card_nonpt) && isfinite(s->card_outside) && s->card_outside > 0 &&
		 s->card_unseen)
		g[n++] = (struct bar_seg){ "other_processes", "outside PyTorch's reserve, not"
					   " attributable (the driver saw 0 bytes for this process: NVML"
					   " does not see it, as in a container)", s->card_outside, NULL };
	else if (!isfinite(s->card_nonpt) && isfinite(s->card_outside) && s->card_outside > 0 &&
		 s->card_no_reserve)
		g[n++] = (struct bar_seg){ "other_processes", "not allocated, not stated by the"
					   " message (PyTorch's own cache, this process's CUDA context,"
					   " or another process)", s->card_outside, NULL };
	else if (!isfinite(s->card_nonpt) && isfinite(s->card_outside) && s->card_outside > 0)
		g[n++] = (struct bar_seg){ "other_processes", "outside PyTorch's reserve (another"
					   " process, or this one's CUDA context)", s->card_outside, NULL };
	for (i = 0; i < n; i++)
		sum += g[i].bytes;
	if (isfinite(s->card_free) && s->card_total - sum - s->card_free > 16 * 1048576.0)
		g[n++] = (struct bar_seg){ "unexplained", "unexplained (the driver, or processes"
					   " not listed)", s->card_total - sum - s->card_free, NULL };
	if (isfinite(s->card_free))
		g[n++] = (struct bar_seg){ "free", "free", s->card_free, NULL };
	return n;
}

/* The peak card from PyTorch's message, when nothing else gave one: what
 * was in use on the card at the OOM (its capacity less free). */
static void card_peak(struct report_summary *s)
{
	if (s->has_peak || !s->has_card || !(s->card_total > 0) || !isfinite(s->card_free) ||
	    s->card_free > s->card_total)
		return;
	s->has_peak = 1;
	s->peak_bytes = s->card_total - s->card_free;
	strbuf_addstr(&s->peak_series, "in use on the card at the PyTorch OOM (its message:"
		      " capacity less free)");
	s->limit_bytes = s->card_total;
	strbuf_addstr(&s->limit_what, "the card, as PyTorch's message states it");
	s->peak_ns = s->oom_ns;
}

void summary_reading_load(struct report_ctx *c, struct report_summary *s)
{
	kernel_reading(c, s);
	kernel_peak(s);
	card_strip(c, s);
	card_peak(s);
}
