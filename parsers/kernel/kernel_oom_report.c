/*
 * kernel_oom_report.c -- one kernel OOM report's life and the events it
 * becomes (see kernel_oom_report.h for the files around it).
 *
 * A report opens at its header (or, without one, at a selection or
 * "Killed process" line), gathers what the matchers read into struct
 * oomev, and closes at the next report, a reboot, a gap of GAP_NS without
 * a kill, or the end of the log. It becomes one oom_invoked event (the
 * header's figures, its task rows, an anchor when its line had both
 * clocks) emitted when the first victim is read or at close, and, when no
 * victim came, one oom_no_kill event. The page size and the constraint
 * are inferred here from what the report held (docs/formats.md).
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <stdio.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"
#include "lib/vocab.h"

/* A limit at or above this many kB is the kernel's "unlimited" (PAGE_COUNTER_MAX). */
#define PAGE_UNLIMITED_KB (1LL << 52)

/* ---------------------------------------------------------------------
 * Emitting.
 */

int kp_emit(struct kparse *kp, int64_t id)
{
	if (id < 0)
		kp->failed = 1;
	else
		kp->n++;
	return id < 0 ? -1 : 0;
}

void jset_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, v && *v ? json_string(v) : json_null());
}

void jset_int(json_t *o, const char *k, int64_t v)
{
	json_object_set_new(o, k, ol_json_int(v));
}

/* Send one event to the sink and count it: kind at time t, read at source
 * line, with data d (released here); boot_id and comm "" mean none.
 * Returns the event's id, or -1 when the sink failed. */
static int64_t send_event(struct kparse *kp, const char *kind, struct ol_time t,
			  const char *boot_id, uint64_t line, int64_t pid, const char *comm,
			  int64_t bytes, const char *summary, json_t *d)
{
	struct ol_event ee = {
		.kind = kind, .t = t, .pid = pid, .comm = comm[0] ? comm : NULL,
		.bytes = bytes, .line = line, .summary = summary, .data = d,
	};
	int64_t id;

	ee.t.boot_id = boot_id[0] ? boot_id : NULL;
	id = sink_event(kp->s, &ee);
	json_decref(d);
	return kp_emit(kp, id) < 0 ? -1 : id;
}

int64_t kp_record_event(struct kparse *kp, const struct krec *r, const char *kind,
			int64_t pid, const char *comm, int64_t bytes, const char *summary,
			json_t *d)
{
	return send_event(kp, kind, r->t, kp->boot_id, kp->in->lineno, pid, comm, bytes,
			  summary, d);
}

int64_t kp_event_at(struct kparse *kp, const struct ol_time *t, uint64_t line, const char *kind,
		    int64_t pid, const char *comm, int64_t bytes, const char *summary, json_t *d)
{
	return send_event(kp, kind, *t, kp->boot_id, line, pid, comm, bytes, summary, d);
}

int64_t kp_report_event(struct kparse *kp, const char *kind, int64_t bytes,
			const char *summary, json_t *d)
{
	struct oomev *ev = &kp->ev;

	return send_event(kp, kind, ev->t, ev->boot_id, ev->line, ev->pid, ev->comm, bytes,
			  summary, d);
}

void kp_note_release(struct kparse *kp, const char *rel)
{
	if (!rel[0] || kp->release[0])
		return;
	snprintf(kp->release, sizeof(kp->release), "%s", rel);
	kp_emit(kp, sink_meta(kp->s, vocab_meta_key(VM_KERNEL_RELEASE), rel));
}

/* ---------------------------------------------------------------------
 * Arithmetic and inference.
 */

int64_t ns_between(const struct ol_time *a, const struct ol_time *b)
{
	if (a->boot_ns != OL_NULL && b->boot_ns != OL_NULL)
		return b->boot_ns - a->boot_ns;
	if (a->utc_ns != OL_NULL && b->utc_ns != OL_NULL && a->clock == b->clock)
		return b->utc_ns - a->utc_ns;
	return 0;
}

int64_t kb_sum(int64_t a, int64_t b)
{
	return a == OL_NULL || b == OL_NULL || a < 0 || b < 0 || a > INT64_MAX / 4 ||
	       b > INT64_MAX / 4 ? OL_NULL : a + b;
}

/* pages * pk kB; OL_NULL in, a negative, or an overflow gives OL_NULL. */
static int64_t pages_kb(int64_t pages, int pk)
{
	return pages == OL_NULL || pages < 0 || pages > INT64_MAX / 1024 ? OL_NULL : pages * pk;
}

static int known_page_kb(int64_t k)
{
	return k == 4 || k == 8 || k == 16 || k == 64;
}

/* The page size in kB of this report and whether it was assumed: from the
 * victim's total-vm kB over its task row's pages, else the buddy list's
 * smallest order, else present kB over RAM pages, else the size found
 * earlier in the log, else 4 (assumed). A size found is kept in kp. */
static int page_kb_for(struct kparse *kp, struct oomev *ev, int64_t victim_pid,
		       int64_t victim_vm_kb, int *assumed)
{
	static const int cand[] = { 4, 8, 16, 64 };
	size_t i;
	int64_t k;

	*assumed = 0;
	if (victim_pid != OL_NULL && victim_vm_kb != OL_NULL && victim_vm_kb > 0)
		for (i = 0; i < ev->ntasks; i++)
			if (ev->tasks[i].t.pid == victim_pid && ev->tasks[i].t.total_vm_pages > 0 &&
			    victim_vm_kb % ev->tasks[i].t.total_vm_pages == 0) {
				k = victim_vm_kb / ev->tasks[i].t.total_vm_pages;
				if (known_page_kb(k))
					return kp->page_kb = (int)k;
			}
	if (known_page_kb(ev->buddy_kb))
		return kp->page_kb = (int)ev->buddy_kb;
	if (ev->pages_ram > 0 && ev->present_kb > 0)
		for (i = 0; i < 4; i++) {
			double r = (double)ev->present_kb / (double)ev->pages_ram / cand[i];
			if (r > 0.9 && r < 1.15)
				return kp->page_kb = cand[i];
		}
	if (kp->page_kb)
		return kp->page_kb;
	*assumed = 1;
	return 4;
}

/* Node list "0-1,3" -> bit mask (nodes < 64); -1 when not a list. */
static int64_t node_mask(const char *p, const char *e)
{
	uint64_t m = 0;
	int64_t a, b;

	if (p >= e)
		return -1;
	while (p < e) {
		if (!(p = parse_int(p, e, &a)) || a < 0 || a > 63)
			return -1;
		b = a;
		if (p < e && *p == '-' && !(p = parse_int(p + 1, e, &b)))
			return -1;
		if (b < a || b > 63)
			return -1;
		for (; a <= b; a++)
			m |= 1ull << a;
		if (p < e && *p != ',')
			return -1;
		if (p < e)
			p++;
	}
	return (int64_t)(m & INT64_MAX);
}

/* Does node list s leave out some of the online nodes? */
static int fewer_nodes(const char *s, int64_t online)
{
	int64_t m = node_mask(s, s + strlen(s));

	return m >= 0 && online > 0 && (m & online) != online;
}

const char *report_constraint(struct oomev *ev)
{
	int64_t online;

	if (ev->constraint[0])
		return ev->constraint;
	if (ev->memcg_hint)
		return "memcg";
	if (ev->mpol_hint)
		return "memory_policy";
	if (!ev->have_header)
		return NULL;
	/* pre-4.19 kernels print no constraint: a nodemask or cpuset that
	 * leaves out online nodes says it */
	online = ev->nodes_seen ? (int64_t)(ev->nodes_seen & INT64_MAX) : -1;
	if (ev->have_nodemask && strcmp(ev->nodemask, "(null)") &&
	    fewer_nodes(ev->nodemask, online))
		return "memory_policy";
	if (ev->have_cpuset && fewer_nodes(ev->mems, online))
		return "cpuset";
	if (ev->mi_free != OL_NULL || ev->pages_ram != OL_NULL)
		return "none";
	return NULL;
}

json_t *report_invoker_json(struct oomev *ev)
{
	json_t *o = json_object();
	int h = ev->have_header;

	jset_str(o, "comm", h ? ev->comm : NULL);
	jset_int(o, "pid", h ? ev->pid : OL_NULL);
	jset_int(o, "uid", h ? ev->invoker_uid : OL_NULL);
	jset_str(o, "gfp_mask", h ? ev->gfp : NULL);
	jset_int(o, "order", h ? ev->order : OL_NULL);
	jset_int(o, "oom_score_adj", h ? ev->score_adj : OL_NULL);
	return o;
}

/* ---------------------------------------------------------------------
 * The report's life.
 */

void report_reset(struct oomev *ev)
{
	struct strbuf names = ev->names;
	struct ktask *tasks = ev->tasks;
	size_t cap = ev->cap;
	int i, j;

	json_decref(ev->mi_pages);
	json_decref(ev->memcg_stats);
	memset(ev, 0, sizeof(*ev));
	strbuf_reset(&names);
	ev->names = names;
	ev->tasks = tasks;
	ev->cap = cap;
	ev->t = ol_time_none();
	ev->pid = ev->order = ev->score_adj = ev->oom_adj = OL_NULL;
	for (i = 0; i < 4; i++)
		for (j = 0; j < 3; j++)
			ev->mc[i][j] = OL_NULL;
	ev->mi_free = ev->mi_aa = ev->mi_ia = ev->mi_af = ev->mi_if = OL_NULL;
	ev->mi_sr = ev->mi_su = ev->mi_shmem = OL_NULL;
	ev->swap_free_kb = ev->swap_total_kb = ev->pages_ram = ev->pages_reserved = OL_NULL;
	ev->pagecache = ev->buddy_kb = ev->present_kb = OL_NULL;
	ev->sel_pid = ev->sel_score = ev->ck_pid = ev->ck_uid = OL_NULL;
	ev->invoked_id = OL_NULL;
	ev->last_kill_pid = OL_NULL;
	ev->invoker_uid = OL_NULL;
}

void report_open(struct kparse *kp, const struct krec *r)
{
	report_reset(&kp->ev);
	kp->ev.open = 1;
	kp->ev.line = kp->in->lineno;
	kp->ev.t = r->t;
	snprintf(kp->ev.boot_id, sizeof(kp->ev.boot_id), "%s", kp->boot_id);
}

int report_open_partial(struct kparse *kp, const struct krec *r)
{
	if (report_close(kp) < 0)
		return -1;
	report_open(kp, r);
	kp->ev.partial = 1;
	return 0;
}

/* The memcg counters of ev into d as <name>_usage_kb, _limit_kb (null
 * when unlimited) and _failcnt. */
static void memcg_json(json_t *d, const struct oomev *ev)
{
	static const char *mcn[4] = { "memcg", "memsw", "kmem", "swap" };
	char key[40];
	int i;

	for (i = 0; i < 4; i++) {
		int64_t lim = ev->mc[i][1];
		snprintf(key, sizeof(key), "%s_usage_kb", mcn[i]);
		jset_int(d, key, ev->mc[i][0]);
		snprintf(key, sizeof(key), "%s_limit_kb", mcn[i]);
		jset_int(d, key, lim != OL_NULL && lim >= PAGE_UNLIMITED_KB ? OL_NULL : lim);
		snprintf(key, sizeof(key), "%s_failcnt", mcn[i]);
		jset_int(d, key, ev->mc[i][2]);
	}
}

/* The memory block of ev with page size pk kB into d: the Mem-Info
 * summary in kB and every key of it in pages, swap and RAM, the zones. */
static void memory_json(json_t *d, const struct oomev *ev, int pk)
{
	json_t *z = json_array();
	int i;

	jset_int(d, "free_kb", pages_kb(ev->mi_free, pk));
	jset_int(d, "anon_kb", pages_kb(kb_sum(ev->mi_aa, ev->mi_ia), pk));
	jset_int(d, "file_kb", pages_kb(kb_sum(ev->mi_af, ev->mi_if), pk));
	jset_int(d, "slab_kb", pages_kb(kb_sum(ev->mi_sr, ev->mi_su), pk));
	jset_int(d, "shmem_kb", pages_kb(ev->mi_shmem, pk));
	jset_int(d, "swap_free_kb", ev->swap_free_kb);
	jset_int(d, "swap_total_kb", ev->swap_total_kb);
	jset_int(d, "ram_kb", pages_kb(ev->pages_ram, pk));
	jset_int(d, "reserved_kb", pages_kb(ev->pages_reserved, pk));
	json_object_set_new(d, "mem_info_pages", ev->mi_pages ? json_copy(ev->mi_pages)
							       : json_null());
	for (i = 0; i < ev->nzones; i++) {
		const struct kzone *k = &ev->zones[i];
		json_t *o = json_object();
		jset_str(o, "zone", k->name);
		jset_int(o, "free_kb", k->free_kb);
		jset_int(o, "min_kb", k->min_kb);
		jset_int(o, "low_kb", k->low_kb);
		jset_int(o, "high_kb", k->high_kb);
		jset_int(o, "present_kb", k->present_kb);
		jset_int(o, "managed_kb", k->managed_kb);
		json_array_append_new(z, o);
	}
	json_object_set_new(d, "zones", z);
}

/* The data of the oom_invoked event of ev with page size pk kB (docs/json.md);
 * the caller owns it. */
static json_t *invoked_json(struct oomev *ev, int pk, int assumed)
{
	json_t *d = json_object();

	json_object_set_new(d, "partial", json_boolean(ev->partial));
	jset_str(d, "gfp_mask", ev->gfp);
	jset_str(d, "gfp_flags", ev->gfp_flags[0] ? ev->gfp_flags : NULL);
	jset_int(d, "order", ev->order);
	jset_int(d, "oom_score_adj", ev->score_adj);
	jset_str(d, "nodemask", ev->have_nodemask ? ev->nodemask : NULL);
	jset_str(d, "cpuset", ev->have_cpuset ? ev->cpuset : NULL);
	jset_str(d, "mems_allowed", ev->mems[0] ? ev->mems : NULL);
	jset_str(d, "constraint", report_constraint(ev));
	jset_str(d, "oom_memcg", ev->oom_memcg);
	jset_str(d, "task_memcg", ev->task_memcg);
	memcg_json(d, ev);
	jset_str(d, "memcg_stats_path", ev->memcg_stats_path);
	json_object_set_new(d, "memcg_stats", ev->memcg_stats ? json_copy(ev->memcg_stats)
								 : json_null());
	memory_json(d, ev, pk);
	json_object_set_new(d, "page_size", json_integer(pk * 1024));
	json_object_set_new(d, "page_size_assumed", json_boolean(assumed));
	jset_str(d, "kernel_release", ev->release);
	json_object_set_new(d, "operator_triggered", json_boolean(ev->operator_triggered));
	json_object_set_new(d, "tasks", json_integer((json_int_t)ev->ntasks));
	/* kernels to 5.0: the process chosen ("Kill process N (c) score S or
	 * sacrifice child"), kept here too for a report whose kill line is
	 * not in the log */
	jset_int(d, "selected_pid", ev->sel_pid);
	jset_str(d, "selected_comm", ev->sel_pid != OL_NULL && ev->sel_comm[0] ? ev->sel_comm : NULL);
	jset_int(d, "selected_score", ev->sel_pid != OL_NULL ? ev->sel_score : OL_NULL);
	if (ev->tasks_dropped)
		jset_int(d, "tasks_dropped", ev->tasks_dropped);
	return d;
}

int report_emit_invoked(struct kparse *kp, int64_t victim_pid, int64_t victim_vm_kb)
{
	struct oomev *ev = &kp->ev;
	int pk, assumed;
	size_t i;
	int64_t id, bytes;
	char summary[256];

	if ((!ev->have_header && !ev->partial) || ev->finalized)
		return 0;
	ev->finalized = 1;
	kp->reports++;
	pk = page_kb_for(kp, ev, victim_pid, victim_vm_kb, &assumed);
	if (ev->have_header)
		snprintf(summary, sizeof(summary),
			 "%s invoked the OOM killer (order=%lld, constraint %s)",
			 ev->comm[0] ? ev->comm : "?",
			 (long long)(ev->order == OL_NULL ? 0 : ev->order),
			 report_constraint(ev) ? report_constraint(ev) : "unknown");
	else
		snprintf(summary, sizeof(summary),
			 "OOM report whose header is not in the log (constraint %s)",
			 report_constraint(ev) ? report_constraint(ev) : "unknown");
	/* the request: 2^order pages */
	bytes = ev->order != OL_NULL && ev->order >= 0 && ev->order < 30
		? ((int64_t)pk * 1024) << ev->order : OL_NULL;
	id = kp_report_event(kp, "oom_invoked", bytes, summary, invoked_json(ev, pk, assumed));
	if (id < 0)
		return -1;
	ev->invoked_id = id;
	for (i = 0; i < ev->ntasks; i++) {
		struct ol_task t = ev->tasks[i].t;
		t.name = ev->names.buf + ev->tasks[i].name_off;
		if (kp_emit(kp, sink_task(kp->s, id, &t)) < 0)
			return -1;
	}
	if (ev->t.boot_ns != OL_NULL && ev->t.utc_ns != OL_NULL && ev->t.clock == OL_CLOCK_UTC)
		if (kp_emit(kp, sink_anchor(kp->s, ev->boot_id[0] ? ev->boot_id : NULL,
					    ev->t.boot_ns, ev->t.utc_ns,
					    "kernel log line with wall clock and kernel stamp")) < 0)
			return -1;
	return 0;
}

/* The oom_no_kill event of the open report: why no victim was killed. */
static int emit_no_kill(struct kparse *kp)
{
	struct oomev *ev = &kp->ev;
	json_t *d = json_object();
	char summary[200];

	jset_str(d, "reason", ev->nokill_reason ? ev->nokill_reason
		 : (ev->panic ? "panic" : NULL));
	jset_int(d, "invoker_event", ev->invoked_id);
	json_object_set_new(d, "invoker", report_invoker_json(ev));
	jset_str(d, "constraint", report_constraint(ev));
	json_object_set_new(d, "panic", json_boolean(ev->panic));
	snprintf(summary, sizeof(summary), "OOM report by %s without a kill",
		 ev->comm[0] ? ev->comm : "?");
	return kp_report_event(kp, "oom_no_kill", OL_NULL, summary, d) < 0 ? -1 : 0;
}

/* A memory dump (Mem-Info) with nothing of an OOM report around it, not
 * part of a page allocation failure just read: the mem_info event. */
static int emit_mem_info(struct kparse *kp)
{
	struct oomev *ev = &kp->ev;
	json_t *d;
	int pk, assumed;

	if (kp->alloc_fail_line && ev->line - kp->alloc_fail_line < 200)
		return 0;
	pk = page_kb_for(kp, ev, OL_NULL, OL_NULL, &assumed);
	d = json_object();
	memory_json(d, ev, pk);
	json_object_set_new(d, "page_size", json_integer(pk * 1024));
	json_object_set_new(d, "page_size_assumed", json_boolean(assumed));
	return kp_report_event(kp, "mem_info", OL_NULL, "kernel memory dump (Mem-Info)", d) < 0
	       ? -1 : 0;
}

int report_close(struct kparse *kp)
{
	struct oomev *ev = &kp->ev;
	int r = 0;

	if (report_in_body(ev) && ev->partial) {
		/* an excerpt: what it held, but no claim that nothing was killed */
		if (ev->oom_evidence)
			r = report_emit_invoked(kp, OL_NULL, OL_NULL);
		else if (ev->mi_free != OL_NULL || ev->mi_pages || ev->nzones)
			r = emit_mem_info(kp);
	} else if (report_in_body(ev)) {
		if (report_emit_invoked(kp, OL_NULL, OL_NULL) < 0)
			return -1;
		r = emit_no_kill(kp);
	}
	report_reset(ev);
	return r;
}
