/*
 * ledger_host.c -- the host's memory ledger (see ledger.c): a memory
 * cgroup against its limit, or the host's RAM, from the kernel's OOM
 * report and its task dump, else from the cgroup files alone.
 */
#include "analyzer/derive/ledger_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The first kernel OOM report: the kill and its header's figures
 * (bytes; -1 unknown). */
struct kr {
	int64_t kill, inv, pid, art;
	char comm[64], memcg[200], constraint[24], where[240];
	double usage, limit, ram, free, swap_usage, swap_total, swap_free, victim_bytes;
};

static double kb_col(sqlite3_stmt *st, int i)
{
	double v = ledger_col_size(st, i);

	return v < 0 || v > 1e16 ? -1 : v * 1024;
}

/* Read the first kill and its header (the first header when nothing was
 * killed; none when the kill's header is not in the log). 1, 0, -1. */
static int kr_read(struct rule_ctx *c, struct kr *r)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT id, pid, comm, bytes, json_extract(data,"
		" '$.invoker_event'), coalesce(json_extract(data, '$.oom_memcg'),"
		" json_extract(data, '$.task_memcg')), json_extract(data, '$.constraint')"
		" FROM event WHERE id = " RL_KERNEL_KILL " AND json_valid(data)");
	char name[160];

	memset(r, 0, sizeof(*r));
	r->pid = OL_NULL;
	r->usage = r->limit = r->ram = r->free = r->swap_usage = r->swap_total = r->swap_free = -1;
	r->victim_bytes = -1;
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		r->kill = sqlite3_column_int64(st, 0);
		r->pid = sqlite3_column_type(st, 1) == SQLITE_NULL ? OL_NULL : sqlite3_column_int64(st, 1);
		snprintf(r->comm, sizeof(r->comm), "%s", q_text(st, 2));
		r->victim_bytes = ledger_col_size(st, 3);
		r->inv = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
		snprintf(r->memcg, sizeof(r->memcg), "%s", q_text(st, 5));
		snprintf(r->constraint, sizeof(r->constraint), "%s", q_text(st, 6));
	}
	sqlite3_finalize(st);
	if (r->inv < 0 || !(st = rl_prepare(c, "SELECT id, artifact_id, line,"
	    " json_extract(data, '$.memcg_usage_kb'), json_extract(data, '$.memcg_limit_kb'),"
	    " json_extract(data, '$.ram_kb'), json_extract(data, '$.free_kb'),"
	    " json_extract(data, '$.swap_usage_kb'), json_extract(data, '$.swap_total_kb'),"
	    " json_extract(data, '$.swap_free_kb'), json_extract(data, '$.constraint'),"
	    " coalesce(json_extract(data, '$.oom_memcg'), json_extract(data, '$.task_memcg'))"
	    " FROM event WHERE kind = 'oom_invoked' AND json_valid(data)"
	    " AND id = CASE WHEN ?1 = 0 THEN " RL_KERNEL_HEADER " ELSE ?1 END")))
		return r->kill ? 1 : r->inv < 0 ? 0 : -1;
	sqlite3_bind_int64(st, 1, r->inv);
	r->inv = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		r->inv = sqlite3_column_int64(st, 0);
		r->art = sqlite3_column_int64(st, 1);
		snprintf(r->where, sizeof(r->where), "kernel OOM report (%s line %lld)",
			 ledger_art_name(c, r->art, name, sizeof(name)), (long long)sqlite3_column_int64(st, 2));
		r->usage = kb_col(st, 3), r->limit = kb_col(st, 4);
		r->ram = kb_col(st, 5), r->free = kb_col(st, 6);
		r->swap_usage = kb_col(st, 7), r->swap_total = kb_col(st, 8), r->swap_free = kb_col(st, 9);
		if (!r->constraint[0])
			snprintf(r->constraint, sizeof(r->constraint), "%s", q_text(st, 10));
		if (!r->memcg[0])
			snprintf(r->memcg, sizeof(r->memcg), "%s", q_text(st, 11));
	}
	sqlite3_finalize(st);
	return r->kill || r->inv;
}

/* The task dump's RSS: the victim's and the other tasks' (bytes), and the
 * number of others. */
static void kr_tasks(struct rule_ctx *c, const struct kr *r, struct account *a)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT sum(CASE WHEN pid = ?2 THEN rss END),"
		" sum(CASE WHEN pid IS NOT ?2 THEN rss END), sum(pid IS NOT ?2) FROM (SELECT pid,"
		" rss_pages * coalesce((SELECT json_extract(data, '$.page_size') FROM event"
		" WHERE id = ?1), 4096) AS rss FROM task WHERE event_id = ?1 AND rss_pages IS NOT NULL)");
	struct lline *l;

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, r->inv);
	if (r->pid != OL_NULL)
		sqlite3_bind_int64(st, 2, r->pid);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (ledger_col_size(st, 0) >= 0 &&
		    (l = ledger_add(a, "victim", ledger_col_size(st, 0), 1, "stated", "OOM", "event", r->inv,
			     "%s: its task dump", r->where)))
			snprintf(l->label, sizeof(l->label), "the killed process: %s (pid %lld), RSS",
				 r->comm, (long long)r->pid);
		else if (r->victim_bytes >= 0 && r->kill &&
			 (l = ledger_add(a, "victim", r->victim_bytes, 1, "stated", "OOM", "event", r->kill,
				  "%s: the kill line", r->where)))
			snprintf(l->label, sizeof(l->label), "the killed process: %s (pid %lld)",
				 r->comm, (long long)r->pid);
		if (ledger_col_size(st, 1) >= 0 &&
		    (l = ledger_add(a, "other_tasks", ledger_col_size(st, 1), 1, "stated", "OOM", "event", r->inv,
			     "%s: its task dump", r->where)))
			snprintf(l->label, sizeof(l->label), "%lld other task%s, RSS",
				 (long long)sqlite3_column_int64(st, 2),
				 sqlite3_column_int64(st, 2) == 1 ? "" : "s");
	}
	sqlite3_finalize(st);
}

/* The host's ledger from the kernel's report: a memory cgroup against its
 * limit, else the host's RAM. 1, 0 none, -1. */
static int kernel_account(struct rule_ctx *c, const struct kr *r, struct account *a)
{
	int memcg = !strcmp(r->constraint, "memcg") || (r->usage >= 0 && r->limit > 0);
	struct fig f;
	struct lline *l;

	snprintf(a->entity, sizeof(a->entity), "%s", memcg && r->memcg[0] ? r->memcg :
		 memcg ? "memory cgroup" : "host");
	f.v = -1;
	if (memcg) {
		if (r->limit > 0)
			ledger_add(a, "capacity", r->limit, 0, "stated", "OOM", "event", r->inv,
			    "%s: the memory cgroup's limit", r->where);
		else if (ledger_meta_fig(c, "cgroup.max_bytes", "measured", &f) == 0)
			ledger_add_fig(a, "capacity", 0, &f);
		if (r->usage >= 0)
			ledger_add(a, "in_use", r->usage, 0, "stated", "OOM", "event", r->inv,
			    "%s: the memory cgroup's usage", r->where);
	} else {
		if (r->ram > 0)
			ledger_add(a, "capacity", r->ram, 0, "stated", "OOM", "event", r->inv,
			    "%s: RAM (Mem-Info)", r->where);
		if (r->ram > 0 && r->free >= 0 && r->free <= r->ram)
			ledger_add(a, "in_use", r->ram - r->free, 0, "inferred", "OOM", "event", r->inv,
			    "%s: RAM less free", r->where);
	}
	if (r->inv)
		kr_tasks(c, r, a);
	else if (r->victim_bytes >= 0 && (l = ledger_add(a, "victim", r->victim_bytes, 1, "stated", "OOM",
						  "event", r->kill, "the kernel's kill line")))
		snprintf(l->label, sizeof(l->label), "the killed process: %s (pid %lld)", r->comm,
			 (long long)r->pid);
	if (!memcg && r->free >= 0)
		ledger_add(a, "free", r->free, 1, "stated", "OOM", "event", r->inv, "%s: Mem-Info", r->where);
	else if (memcg && ledger_find(a, "capacity") && ledger_find(a, "in_use") &&
		 ledger_find(a, "capacity")->bytes >= ledger_find(a, "in_use")->bytes)
		ledger_add(a, "free", ledger_find(a, "capacity")->bytes - ledger_find(a, "in_use")->bytes, 1, "inferred",
		    "OOM", "event", r->inv, "the limit less the usage");
	if (memcg && r->swap_usage >= 0)
		ledger_add(a, "swap", r->swap_usage, 0, "stated", "OOM", "event", r->inv,
		    "%s: the memory cgroup's swap", r->where);
	else if (!memcg && r->swap_total > 0 && r->swap_free >= 0 && r->swap_free <= r->swap_total)
		ledger_add(a, "swap", r->swap_total - r->swap_free, 0, "stated", "OOM", "event", r->inv,
		    "%s: swap in use", r->where);
	ledger_balance(a, "not in any task's RSS (page cache, kernel memory, shared memory)",
		"RSS counts shared and file pages in every task that maps them, and pages the"
		" cgroup does not charge");
	return a->n > 0;
}

/* The host's ledger from cgroup files alone: memory.current against
 * memory.max, split by memory.stat. 1, 0 none, -1. */
static int cgroup_account(struct rule_ctx *c, struct account *a)
{
	static const char *const parts[][2] = {
		{ "cgroup.anon_bytes", "anon" }, { "cgroup.file_bytes", "page_cache" },
		{ "cgroup.shmem_bytes", "shmem" },
	};
	sqlite3_stmt *st = rl_prepare(c, "SELECT entity FROM series WHERE name ="
				      " 'cgroup.current_bytes' ORDER BY id LIMIT 1");
	struct fig f;
	size_t i;
	const char *src = "cgroup";

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(a->entity, sizeof(a->entity), "%s", q_text(st, 0));
	sqlite3_finalize(st);
	/* a container's, pod's or node's figure as docker stats or kubectl
	 * top print it (parsers/host/stats_table.c), not the cgroup files */
	if (!strncmp(a->entity, "container:", 10) || !strncmp(a->entity, "pod:", 4) ||
	    !strncmp(a->entity, "node:", 5))
		src = "docker stats / kubectl top";
	if (ledger_series_fig(c, "cgroup.current_bytes", a->entity, 1, src, &f) < 0)
		return 0;
	if (!a->entity[0])
		snprintf(a->entity, sizeof(a->entity), "memory cgroup");
	if (ledger_meta_fig(c, "cgroup.max_bytes", "measured", &f) == 0)
		ledger_add_fig(a, "capacity", 0, &f);
	ledger_series_fig(c, "cgroup.current_bytes", a->entity, 1, src, &f);
	ledger_add_fig(a, "in_use", 0, &f);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (ledger_series_fig(c, parts[i][0], a->entity, 1, "cgroup memory.stat", &f) == 0)
			ledger_add_fig(a, parts[i][1], 1, &f);
	if (ledger_find(a, "capacity") && ledger_find(a, "capacity")->bytes >= ledger_find(a, "in_use")->bytes)
		ledger_add(a, "free", ledger_find(a, "capacity")->bytes - ledger_find(a, "in_use")->bytes, 1, "inferred",
		    f.moment, NULL, 0, "the limit less the usage");
	ledger_balance(a, "the rest (kernel memory, sockets, page tables)",
		"memory.stat and memory.current read at different moments");
	return a->n > 0;
}

int ledger_host_account(struct rule_ctx *c, struct account *a)
{
	struct kr r;
	int n;

	memset(a, 0, sizeof(*a));
	a->scope = "host";
	a->device = OL_NULL;
	if ((n = kr_read(c, &r)) < 0)
		return -1;
	if (n && !r.where[0])
		snprintf(r.where, sizeof(r.where), "the kernel's kill line");
	if (n && kernel_account(c, &r, a) > 0)
		return 1;
	memset(a, 0, sizeof(*a));
	a->scope = "host";
	a->device = OL_NULL;
	return cgroup_account(c, a);
}

