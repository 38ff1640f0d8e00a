/*
 * kernel_oom.c -- kernel OOM-killer reports from any kernel log source.
 *
 * parsers/kernel_prefix.c strips each line's log-source wrapper (dmesg,
 * syslog, journalctl text and JSON, /dev/kmsg) and hands back the kernel
 * text with its time. This file is the message layer: one state machine
 * over that text (docs/formats.md, spec linux-oom-artifacts.md sections
 * 1-2): header -> context -> Mem-Info or memcg block -> task table ->
 * victim selection -> Killed line(s), with the oom_reaper, allocation
 * failures and userspace killers recognised on their own.
 *
 * Speed: outside an OOM report only lines holding one of a few byte
 * patterns ("oom", "OOM", "ill", "ailure") can matter; every other line is
 * rejected by one table-driven pass over its bytes, before any prefix work
 * and without building a string.
 *
 * Memory: one report at a time; its task table is capped at MAX_TASKS rows.
 */
#include "parsers/kernel_oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parsers/kernel_prefix.h"
#include "parsers/kernel_scan.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#define MAX_TASKS 100000
#define RECENT_KILLS 16
#define GAP_NS (30 * NS_PER_S)   /* a header this long without a kill is over */
#define PAGE_UNLIMITED_KB (1LL << 52)

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

/* ---------------------------------------------------------------------
 * Cheap rejection: does the line hold one of the patterns that can start
 * or continue something we read outside a report's body? Every such line
 * holds "oom" (header, oom_reaper, oom-kill:, oom.group, systemd-oomd,
 * earlyoom), "OOM" (sysrq), "Kil" (Kill/Killed process, systemd-oomd) or
 * "lure" (page allocation failure). SSE2 finds the first two bytes of each
 * 16 positions at a time; a hit is confirmed byte by byte.
 */

static int hot_at(const unsigned char *p, const unsigned char *e)
{
	if (e - p < 3)
		return 0;
	switch (p[0]) {
	case 'o': return p[1] == 'o' && p[2] == 'm';
	case 'O': return p[1] == 'O' && p[2] == 'M';
	case 'K': return p[1] == 'i' && p[2] == 'l';
	case 'l': return p[1] == 'u' && p[2] == 'r' && e - p >= 4 && p[3] == 'e';
	default: return 0;
	}
}

static int line_is_hot(const char *l, size_t n)
{
	const unsigned char *p = (const unsigned char *)l, *e = p + n;
	size_t i = 0;

#ifdef __SSE2__
	const __m128i co = _mm_set1_epi8('o'), cO = _mm_set1_epi8('O'), cK = _mm_set1_epi8('K'),
		      ci = _mm_set1_epi8('i'), cl = _mm_set1_epi8('l'), cu = _mm_set1_epi8('u');

	for (; i + 17 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(p + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(p + i + 1));
		__m128i m = _mm_or_si128(
			_mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, co), _mm_cmpeq_epi8(b, co)),
				     _mm_and_si128(_mm_cmpeq_epi8(a, cO), _mm_cmpeq_epi8(b, cO))),
			_mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, cK), _mm_cmpeq_epi8(b, ci)),
				     _mm_and_si128(_mm_cmpeq_epi8(a, cl), _mm_cmpeq_epi8(b, cu))));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		while (bits) {
			unsigned k = (unsigned)__builtin_ctz(bits);
			if (hot_at(p + i + k, e))
				return 1;
			bits &= bits - 1;
		}
	}
#endif
	for (; i + 2 < n; i++)
		if (hot_at(p + i, e))
			return 1;
	return 0;
}

/* ---------------------------------------------------------------------
 * The state of one parse.
 */

struct ktask {
	struct ol_task t;
	size_t name_off;  /* into names */
};

/* One OOM report being assembled. */
struct oomev {
	int open;                 /* 1: header seen or kill selection seen */
	int have_header;
	int finalized;            /* oom_invoked emitted */
	uint64_t line;
	struct ol_time t;
	char boot_id[64];
	char comm[64];
	int64_t pid;              /* invoker, from the CPU line */
	char gfp[32], gfp_flags[160];
	int64_t order, score_adj, oom_adj;
	char nodemask[64], cpuset[256], mems[64];
	int have_nodemask, have_cpuset, cpu_seen;
	char release[96];
	int operator_triggered;
	char constraint[32];      /* from oom-kill: (lower case, no prefix) */
	char oom_memcg[512], task_memcg[512];
	int memcg_hint, mpol_hint, global_oom;
	int64_t mc[4][3];         /* memory, memory+swap, kmem, swap: usage, limit, failcnt */
	int64_t mi_free, mi_aa, mi_ia, mi_af, mi_if, mi_sr, mi_su, mi_shmem;
	int64_t swap_free_kb, swap_total_kb, pages_ram, pages_reserved, pagecache;
	int64_t buddy_kb, present_kb;
	uint64_t nodes_seen;
	int in_meminfo;
	/* task table */
	int ncols;
	unsigned char cols[24];
	struct ktask *tasks;
	size_t ntasks, cap;
	struct strbuf names;
	int tasks_dropped;
	/* victim selection */
	int64_t sel_pid, sel_score;
	char sel_comm[64];
	char ck_task[64];
	int64_t ck_pid, ck_uid;
	int group;
	char group_path[512];
	int64_t invoked_id;
	int nkills;
	int64_t killed[64];       /* pids killed in this report (oom.group repeats) */
	int64_t last_kill_pid;
	const char *nokill_reason;
	int panic;
};

struct recent_kill {
	int64_t pid, event_id, boot_ns, utc_ns;
};

struct kparse {
	struct sink *s;
	struct input *in;
	struct kprefix px;        /* the log-source wrapper layer */
	struct oomev ev;
	char boot_id[64];         /* journal _BOOT_ID, or "boot-N" guessed from stamps */
	char last_boot_id[64];    /* the boot id last anchored */
	int page_kb;              /* inferred page size in kB, 0 = not yet */
	char release[96];
	struct recent_kill recent[RECENT_KILLS];
	unsigned nrecent;
	int n;                    /* records produced */
	int reports;              /* OOM reports or kills seen */
	int64_t max_boot_ns;      /* text logs: a stamp far below it = a reboot */
	int boots;
	int failed;
	int sysrq_pending;
	int rate_limited;
};

enum col { C_NONE, C_UID, C_TGID, C_TOTAL_VM, C_RSS, C_CPU, C_OOM_ADJ, C_OOM_SCORE_ADJ,
	   C_NR_PTES, C_NR_PMDS, C_SWAPENTS, C_PGTABLES, C_RSS_ANON, C_RSS_FILE, C_RSS_SHMEM,
	   C_NAME };

static const struct { const char *name; enum col c; } col_names[] = {
	{ "uid", C_UID }, { "tgid", C_TGID }, { "total_vm", C_TOTAL_VM }, { "rss", C_RSS },
	{ "cpu", C_CPU }, { "oom_adj", C_OOM_ADJ }, { "oom_score_adj", C_OOM_SCORE_ADJ },
	{ "nr_ptes", C_NR_PTES }, { "nr_pmds", C_NR_PMDS }, { "swapents", C_SWAPENTS },
	{ "pgtables_bytes", C_PGTABLES }, { "rss_anon", C_RSS_ANON }, { "rss_file", C_RSS_FILE },
	{ "rss_shmem", C_RSS_SHMEM }, { "name", C_NAME },
};

static void ev_reset(struct oomev *ev)
{
	struct strbuf names = ev->names;
	struct ktask *tasks = ev->tasks;
	size_t cap = ev->cap;
	int i, j;

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
}

/* b - a in ns, on the boot clock when both have it, else on a shared
 * wall clock; 0 when they cannot be compared. */
static int64_t ns_between(const struct ol_time *a, const struct ol_time *b)
{
	if (a->boot_ns != OL_NULL && b->boot_ns != OL_NULL)
		return b->boot_ns - a->boot_ns;
	if (a->utc_ns != OL_NULL && b->utc_ns != OL_NULL && a->clock == b->clock)
		return b->utc_ns - a->utc_ns;
	return 0;
}

/* ---------------------------------------------------------------------
 * Emitting.
 */

static int emit(struct kparse *kp, int64_t id)
{
	if (id < 0)
		kp->failed = 1;
	else
		kp->n++;
	return id < 0 ? -1 : 0;
}

static json_t *mk_json_int(int64_t v) { return ol_json_int(v); }

static void set_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, v && *v ? json_string(v) : json_null());
}

static void set_int(json_t *o, const char *k, int64_t v)
{
	json_object_set_new(o, k, mk_json_int(v));
}

/* Send one event to the sink and count it: kind at time t, read at source
 * line, with data d (released here); boot_id and comm "" mean none.
 * Returns the event's id, or -1 when the sink failed. */
static int64_t send_event(struct kparse *kp, const char *kind, struct ol_time t,
			  const char *boot_id, uint64_t line, int64_t pid, const char *comm,
			  int64_t bytes, const char *summary, json_t *d)
{
	struct ol_event ee;
	int64_t id;

	ee.kind = kind;
	ee.t = t;
	ee.t.boot_id = boot_id[0] ? boot_id : NULL;
	ee.pid = pid;
	ee.comm = comm[0] ? comm : NULL;
	ee.bytes = bytes;
	ee.line = line;
	ee.summary = summary;
	ee.data = d;
	id = sink_event(kp->s, &ee);
	json_decref(d);
	return emit(kp, id) < 0 ? -1 : id;
}

/* send_event for the record r being read: its time and line, the current
 * boot id. */
static int64_t record_event(struct kparse *kp, const struct krec *r, const char *kind,
			    int64_t pid, const char *comm, int64_t bytes, const char *summary,
			    json_t *d)
{
	return send_event(kp, kind, r->t, kp->boot_id, kp->in->lineno, pid, comm, bytes,
			  summary, d);
}

/* send_event for the open report: the time, line and boot id of its first
 * line, its invoker. */
static int64_t report_event(struct kparse *kp, const char *kind, int64_t bytes,
			    const char *summary, json_t *d)
{
	struct oomev *ev = &kp->ev;

	return send_event(kp, kind, ev->t, ev->boot_id, ev->line, ev->pid, ev->comm, bytes,
			  summary, d);
}

/* Page size in kB for this report (spec 1.3), and whether assumed. */
static int page_kb_for(struct kparse *kp, struct oomev *ev, int64_t victim_pid,
		       int64_t victim_vm_kb, int *assumed)
{
	size_t i;
	int64_t k;

	*assumed = 0;
	if (victim_pid != OL_NULL && victim_vm_kb != OL_NULL && victim_vm_kb > 0)
		for (i = 0; i < ev->ntasks; i++)
			if (ev->tasks[i].t.pid == victim_pid && ev->tasks[i].t.total_vm_pages > 0 &&
			    victim_vm_kb % ev->tasks[i].t.total_vm_pages == 0) {
				k = victim_vm_kb / ev->tasks[i].t.total_vm_pages;
				if (k == 4 || k == 8 || k == 16 || k == 64) {
					kp->page_kb = (int)k;
					return (int)k;
				}
			}
	if (ev->buddy_kb == 4 || ev->buddy_kb == 8 || ev->buddy_kb == 16 || ev->buddy_kb == 64) {
		kp->page_kb = (int)ev->buddy_kb;
		return kp->page_kb;
	}
	if (ev->pages_ram > 0 && ev->present_kb > 0) {
		static const int cand[] = { 4, 8, 16, 64 };
		for (i = 0; i < 4; i++) {
			double r = (double)ev->present_kb / (double)ev->pages_ram / cand[i];
			if (r > 0.9 && r < 1.15) {
				kp->page_kb = cand[i];
				return cand[i];
			}
		}
	}
	if (kp->page_kb)
		return kp->page_kb;
	*assumed = 1;
	return 4;
}

/* Arithmetic on values read from the log: OL_NULL in, or overflow, gives OL_NULL. */
static int64_t pages_kb(int64_t pages, int pk)
{
	return pages == OL_NULL || pages < 0 || pages > INT64_MAX / 1024 ? OL_NULL : pages * pk;
}

static int64_t sum2(int64_t a, int64_t b)
{
	return a == OL_NULL || b == OL_NULL || a < 0 || b < 0 || a > INT64_MAX / 4 ||
	       b > INT64_MAX / 4 ? OL_NULL : a + b;
}

/* The CONSTRAINT_* word for this report, or NULL when it cannot be told. */
static const char *constraint_of(struct oomev *ev)
{
	int64_t nm, ma, online;

	if (ev->constraint[0])
		return ev->constraint;
	if (ev->memcg_hint)
		return "memcg";
	if (ev->mpol_hint)
		return "memory_policy";
	if (!ev->have_header)
		return NULL;
	online = ev->nodes_seen ? (int64_t)(ev->nodes_seen & INT64_MAX) : -1;
	if (ev->have_nodemask && strcmp(ev->nodemask, "(null)") &&
	    (nm = node_mask(ev->nodemask, ev->nodemask + strlen(ev->nodemask))) >= 0 &&
	    online > 0 && (nm & online) != online)
		return "memory_policy";
	if (ev->have_cpuset && (ma = node_mask(ev->mems, ev->mems + strlen(ev->mems))) >= 0 &&
	    online > 0 && (ma & online) != online)
		return "cpuset";
	if (ev->mi_free != OL_NULL || ev->pages_ram != OL_NULL)
		return "none";
	return NULL;
}

static json_t *invoker_json(struct oomev *ev)
{
	json_t *o = json_object();
	int h = ev->have_header;

	set_str(o, "comm", h ? ev->comm : NULL);
	set_int(o, "pid", h ? ev->pid : OL_NULL);
	set_str(o, "gfp_mask", h ? ev->gfp : NULL);
	set_int(o, "order", h ? ev->order : OL_NULL);
	set_int(o, "oom_score_adj", h ? ev->score_adj : OL_NULL);
	return o;
}

static void note_release(struct kparse *kp, const char *rel)
{
	if (!rel[0] || kp->release[0])
		return;
	snprintf(kp->release, sizeof(kp->release), "%s", rel);
	emit(kp, sink_meta(kp->s, "kernel.release", rel));
}

/* Emit the oom_invoked event of the open report (once) with its tasks. */
static int emit_invoked(struct kparse *kp, int64_t victim_pid, int64_t victim_vm_kb)
{
	struct oomev *ev = &kp->ev;
	json_t *d;
	int pk, assumed;
	size_t i;
	int64_t id, bytes;
	static const char *mcn[4] = { "memcg", "memsw", "kmem", "swap" };
	char key[40], summary[256];

	if (!ev->have_header || ev->finalized)
		return 0;
	ev->finalized = 1;
	kp->reports++;
	pk = page_kb_for(kp, ev, victim_pid, victim_vm_kb, &assumed);
	d = json_object();
	set_str(d, "gfp_mask", ev->gfp);
	set_str(d, "gfp_flags", ev->gfp_flags[0] ? ev->gfp_flags : NULL);
	set_int(d, "order", ev->order);
	set_int(d, "oom_score_adj", ev->score_adj);
	set_str(d, "nodemask", ev->have_nodemask ? ev->nodemask : NULL);
	set_str(d, "cpuset", ev->have_cpuset ? ev->cpuset : NULL);
	set_str(d, "mems_allowed", ev->mems[0] ? ev->mems : NULL);
	set_str(d, "constraint", constraint_of(ev));
	set_str(d, "oom_memcg", ev->oom_memcg);
	set_str(d, "task_memcg", ev->task_memcg);
	for (i = 0; i < 4; i++) {
		int64_t lim = ev->mc[i][1];
		snprintf(key, sizeof(key), "%s_usage_kb", mcn[i]);
		set_int(d, key, ev->mc[i][0]);
		snprintf(key, sizeof(key), "%s_limit_kb", mcn[i]);
		set_int(d, key, lim != OL_NULL && lim >= PAGE_UNLIMITED_KB ? OL_NULL : lim);
		snprintf(key, sizeof(key), "%s_failcnt", mcn[i]);
		set_int(d, key, ev->mc[i][2]);
	}
	set_int(d, "free_kb", pages_kb(ev->mi_free, pk));
	set_int(d, "anon_kb", pages_kb(sum2(ev->mi_aa, ev->mi_ia), pk));
	set_int(d, "file_kb", pages_kb(sum2(ev->mi_af, ev->mi_if), pk));
	set_int(d, "slab_kb", pages_kb(sum2(ev->mi_sr, ev->mi_su), pk));
	set_int(d, "shmem_kb", pages_kb(ev->mi_shmem, pk));
	set_int(d, "swap_free_kb", ev->swap_free_kb);
	set_int(d, "swap_total_kb", ev->swap_total_kb);
	set_int(d, "ram_kb", pages_kb(ev->pages_ram, pk));
	set_int(d, "reserved_kb", pages_kb(ev->pages_reserved, pk));
	json_object_set_new(d, "page_size", json_integer(pk * 1024));
	json_object_set_new(d, "page_size_assumed", json_boolean(assumed));
	set_str(d, "kernel_release", ev->release);
	json_object_set_new(d, "operator_triggered", json_boolean(ev->operator_triggered));
	json_object_set_new(d, "tasks", json_integer((json_int_t)ev->ntasks));
	if (ev->tasks_dropped)
		set_int(d, "tasks_dropped", ev->tasks_dropped);
	snprintf(summary, sizeof(summary), "%s invoked the OOM killer (order=%lld, constraint %s)",
		 ev->comm[0] ? ev->comm : "?", (long long)(ev->order == OL_NULL ? 0 : ev->order),
		 constraint_of(ev) ? constraint_of(ev) : "unknown");
	bytes = ev->order != OL_NULL && ev->order >= 0 && ev->order < 30
		? ((int64_t)pk * 1024) << ev->order : OL_NULL;
	id = report_event(kp, "oom_invoked", bytes, summary, d);
	if (id < 0)
		return -1;
	ev->invoked_id = id;
	for (i = 0; i < ev->ntasks; i++) {
		struct ol_task t = ev->tasks[i].t;
		t.name = ev->names.buf + ev->tasks[i].name_off;
		if (emit(kp, sink_task(kp->s, id, &t)) < 0)
			return -1;
	}
	if (ev->t.boot_ns != OL_NULL && ev->t.utc_ns != OL_NULL && ev->t.clock == OL_CLOCK_UTC)
		if (emit(kp, sink_anchor(kp->s, ev->boot_id[0] ? ev->boot_id : NULL,
					 ev->t.boot_ns, ev->t.utc_ns,
					 "kernel log line with wall clock and kernel stamp")) < 0)
			return -1;
	return 0;
}

/* Close the open report: a header without a kill becomes oom_no_kill. */
static int ev_close(struct kparse *kp)
{
	struct oomev *ev = &kp->ev;
	int r = 0;

	if (ev->open && ev->have_header && !ev->nkills) {
		if (emit_invoked(kp, OL_NULL, OL_NULL) < 0)
			return -1;
		{
			json_t *d = json_object();
			char summary[200];
			set_str(d, "reason", ev->nokill_reason ? ev->nokill_reason
				: (ev->panic ? "panic" : NULL));
			set_int(d, "invoker_event", ev->invoked_id);
			json_object_set_new(d, "invoker", invoker_json(ev));
			set_str(d, "constraint", constraint_of(ev));
			json_object_set_new(d, "panic", json_boolean(ev->panic));
			snprintf(summary, sizeof(summary), "OOM report by %s without a kill",
				 ev->comm[0] ? ev->comm : "?");
			if (report_event(kp, "oom_no_kill", OL_NULL, summary, d) < 0)
				r = -1;
		}
	}
	ev_reset(ev);
	return r;
}

static void ev_open(struct kparse *kp, const struct krec *r)
{
	ev_reset(&kp->ev);
	kp->ev.open = 1;
	kp->ev.line = kp->in->lineno;
	kp->ev.t = r->t;
	snprintf(kp->ev.boot_id, sizeof(kp->ev.boot_id), "%s", kp->boot_id);
}

/* ---------------------------------------------------------------------
 * Message matchers. Each gets the message (prefix stripped, leading blanks
 * skipped) and returns 1 when it took the line, 0 when not, -1 on a sink
 * failure.
 */

/* "<comm> invoked oom-killer: gfp_mask=0x..(..), [nodemask=..,] order=N, ..." */
static int m_header(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomev *ev;
	const char *k = find(p, e, " invoked oom-killer: "), *q, *c;
	int64_t v;

	if (!k)
		return 0;
	if (ev_close(kp) < 0)
		return -1;
	ev_open(kp, r);
	ev = &kp->ev;
	ev->have_header = 1;
	copy_str(ev->comm, sizeof(ev->comm), p, k);
	q = k + 21;
	if ((c = find(q, e, "gfp_mask="))) {
		const char *s = c + 9, *t = s;
		while (t < e && *t != '(' && *t != ',' && *t != ' ')
			t++;
		copy_str(ev->gfp, sizeof(ev->gfp), s, t);
		if (t < e && *t == '(') {
			const char *cl = memchr(t, ')', (size_t)(e - t));
			copy_str(ev->gfp_flags, sizeof(ev->gfp_flags), t + 1, cl ? cl : e);
		}
	}
	if ((c = find(q, e, "nodemask="))) {
		const char *s = c + 9, *t = s;
		while (t < e && *t != ',' && *t != ' ')
			t++;
		copy_str(ev->nodemask, sizeof(ev->nodemask), s, t);
		ev->have_nodemask = 1;
	}
	ev->order = key_int(q, e, "order=");
	if ((c = find(q, e, "oom_score_adj=")) && parse_int(c + 14, e, &v))
		ev->score_adj = v;
	else if ((c = find(q, e, "oomkilladj=")) && parse_int(c + 11, e, &v))
		ev->oom_adj = v;
	if ((c = find(q, e, "oom_adj=")) && (c == q || c[-1] != '_') && parse_int(c + 8, e, &v))
		ev->oom_adj = v;
	if (ev->order == -1 || kp->sysrq_pending)
		ev->operator_triggered = 1;
	kp->sysrq_pending = 0;
	return 1;
}

/* "CPU: 2 PID: 1842 Comm: x Not tainted 5.15.0 #1" / "Pid: 1234, comm: x Not tainted 3.2.0" */
static int m_cpu(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c, *t, *s, *x;
	int64_t v;

	if (starts(p, e, "CPU: ")) {
		if (!(c = find(p, e, " PID: ")) || !(s = find(c, e, " Comm: ")))
			return 0;
		if (parse_int(c + 6, e, &v))
			ev->pid = v;
		s += 7;
	} else if (starts(p, e, "Pid: ")) {
		if (!parse_int(p + 5, e, &v) || !(s = find(p, e, ", comm: ")))
			return 0;
		ev->pid = v;
		s += 8;
	} else {
		return 0;
	}
	ev->cpu_seen = 1;
	t = find(s, e, " Not tainted");
	x = find(s, e, " Tainted: ");
	if (!t || (x && x < t))
		t = x;
	if (!t)
		return 1;
	/* release: the first token that starts "<digits>.<digit>" after the taint */
	c = t + 1;
	while (c < e) {
		const char *w = skip_ws(c, e), *we = w;
		while (we < e && *we != ' ')
			we++;
		if (we - w >= 3 && is_digit((unsigned char)w[0])) {
			const char *d = w;
			while (d < we && is_digit((unsigned char)*d))
				d++;
			if (d + 1 < we && *d == '.' && is_digit((unsigned char)d[1])) {
				copy_str(ev->release, sizeof(ev->release), w, we);
				note_release(kp, ev->release);
				break;
			}
		}
		if (we == w)
			break;
		c = we;
	}
	return 1;
}

/* "memory: usage 524288kB, limit 524288kB, failcnt 123456" and friends. */
static int m_memcg_counter(struct kparse *kp, const char *p, const char *e)
{
	static const char *keys[4] = { "memory: usage ", "memory+swap: usage ", "kmem: usage ",
				       "swap: usage " };
	int i;

	for (i = 0; i < 4; i++)
		if (starts(p, e, keys[i])) {
			struct oomev *ev = &kp->ev;
			ev->mc[i][0] = key_int(p, e, "usage ");
			ev->mc[i][1] = key_int(p, e, "limit ");
			ev->mc[i][2] = key_int(p, e, "failcnt ");
			ev->memcg_hint = 1;
			return 1;
		}
	return 0;
}

/* Mem-Info summary "key:value" tokens (values in pages, no unit). */
static void meminfo_tokens(struct oomev *ev, const char *p, const char *e)
{
	static const struct { const char *k; size_t off; } keys[] = {
		{ "free", offsetof(struct oomev, mi_free) },
		{ "active_anon", offsetof(struct oomev, mi_aa) },
		{ "inactive_anon", offsetof(struct oomev, mi_ia) },
		{ "active_file", offsetof(struct oomev, mi_af) },
		{ "inactive_file", offsetof(struct oomev, mi_if) },
		{ "slab_reclaimable", offsetof(struct oomev, mi_sr) },
		{ "slab_unreclaimable", offsetof(struct oomev, mi_su) },
		{ "shmem", offsetof(struct oomev, mi_shmem) },
	};
	while (p < e) {
		const char *k = skip_ws(p, e), *c = k, *v;
		int64_t x;
		size_t i;

		while (c < e && *c != ':' && *c != ' ')
			c++;
		if (c >= e || *c != ':') {
			p = c < e ? c + 1 : e;
			continue;
		}
		v = parse_int(c + 1, e, &x);
		if (v && (v == e || *v == ' ' || *v == '\t'))
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				if ((size_t)(c - k) == strlen(keys[i].k) &&
				    !memcmp(k, keys[i].k, (size_t)(c - k)))
					*(int64_t *)((char *)ev + keys[i].off) = x;
		p = v ? v : c + 1;
	}
}

/* Zone, buddy, swap and RAM lines of the global memory block. */
static int m_meminfo(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c;
	int64_t v;

	if (starts(p, e, "Mem-Info:") || starts(p, e, "Mem-info:")) {
		ev->in_meminfo = 1;
		if (e - p > 10)
			meminfo_tokens(ev, p + 9, e);
		return 1;
	}
	if (starts(p, e, "Free swap")) {
		if ((c = memchr(p, '=', (size_t)(e - p))))
			ev->swap_free_kb = key_int(c, e, "=");
		return 1;
	}
	if (starts(p, e, "Total swap")) {
		if ((c = memchr(p, '=', (size_t)(e - p))))
			ev->swap_total_kb = key_int(c, e, "=");
		return 1;
	}
	if (is_digit((unsigned char)*p) && (c = parse_int(p, e, &v))) {
		if (starts(c, e, " pages RAM"))
			ev->pages_ram = v;
		else if (starts(c, e, " pages reserved"))
			ev->pages_reserved = v;
		else if (starts(c, e, " total pagecache pages"))
			ev->pagecache = v;
		else
			return 0;
		return 1;
	}
	if (starts(p, e, "Node ")) {
		if (parse_int(p + 5, e, &v) && v >= 0 && v < 64)
			ev->nodes_seen |= 1ull << v;
	}
	/* buddy list "Node 0 DMA: 21*4kB (UM) ..." (or "DMA: ..." on 4.8-4.13) */
	if ((c = memchr(p, '*', (size_t)(e - p))) && c > p && is_digit((unsigned char)c[-1]) &&
	    ev->buddy_kb == OL_NULL && find(p, c, ": ")) {
		const char *d = parse_int(c + 1, e, &v);
		if (d && starts(d, e, "kB"))
			ev->buddy_kb = v;
		return 1;
	}
	if ((c = find(p, e, " present:"))) {
		v = key_int(c, e, "present:");
		if (v != OL_NULL)
			ev->present_kb = sum2(ev->present_kb == OL_NULL ? 0 : ev->present_kb, v);
		return 1;
	}
	if (ev->in_meminfo && !starts(p, e, "Node ") && find(p, e, ":"))
		meminfo_tokens(ev, p, e);
	return 0;
}

/* Task table header "[ pid ]   uid  tgid total_vm rss ... name". */
static int m_task_header(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c;
	int n = 0;

	if (e - p < 7 || *p != '[' || !(c = memchr(p, ']', (size_t)(e - p))) ||
	    !find(p, c, "pid"))
		return 0;
	c++;
	while (c < e && n < (int)sizeof(ev->cols)) {
		const char *w = skip_ws(c, e), *we = w;
		size_t i;
		unsigned char col = C_NONE;
		while (we < e && !is_space((unsigned char)*we))
			we++;
		if (we == w)
			break;
		for (i = 0; i < sizeof(col_names) / sizeof(col_names[0]); i++)
			if ((size_t)(we - w) == strlen(col_names[i].name) &&
			    !memcmp(w, col_names[i].name, (size_t)(we - w)))
				col = (unsigned char)col_names[i].c;
		ev->cols[n++] = col;
		c = we;
	}
	ev->ncols = n;
	ev->in_meminfo = 0;
	return 1;
}

/* Task row "[  1234]  1000  1234  123456  7890 ... name". */
static int m_task_row(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	struct ktask kt;
	const char *c;
	int64_t v;
	int i;

	if (!ev->ncols || *p != '[')
		return 0;
	c = parse_int(skip_ws(p + 1, e), e, &v);
	if (!c || c >= e || *c != ']')
		return 0;
	memset(&kt, 0, sizeof(kt));
	kt.t.pid = v;
	kt.t.uid = kt.t.tgid = kt.t.total_vm_pages = kt.t.rss_pages = OL_NULL;
	kt.t.rss_anon_pages = kt.t.rss_file_pages = kt.t.rss_shmem_pages = OL_NULL;
	kt.t.pgtables_bytes = kt.t.nr_ptes = kt.t.nr_pmds = kt.t.swapents = OL_NULL;
	kt.t.oom_adj = kt.t.oom_score_adj = OL_NULL;
	c++;
	for (i = 0; i < ev->ncols; i++) {
		const char *w = skip_ws(c, e), *d;
		if (ev->cols[i] == C_NAME) {
			c = w;
			break;
		}
		if (!(d = parse_int(w, e, &v)) || (d < e && !is_space((unsigned char)*d))) {
			/* truncated or damaged row: keep what we have */
			c = w;
			break;
		}
		switch (ev->cols[i]) {
		case C_UID: kt.t.uid = v; break;
		case C_TGID: kt.t.tgid = v; break;
		case C_TOTAL_VM: kt.t.total_vm_pages = v; break;
		case C_RSS: kt.t.rss_pages = v; break;
		case C_OOM_ADJ: kt.t.oom_adj = v; break;
		case C_OOM_SCORE_ADJ: kt.t.oom_score_adj = v; break;
		case C_NR_PTES: kt.t.nr_ptes = v; break;
		case C_NR_PMDS: kt.t.nr_pmds = v; break;
		case C_SWAPENTS: kt.t.swapents = v; break;
		case C_PGTABLES: kt.t.pgtables_bytes = v; break;
		case C_RSS_ANON: kt.t.rss_anon_pages = v; break;
		case C_RSS_FILE: kt.t.rss_file_pages = v; break;
		case C_RSS_SHMEM: kt.t.rss_shmem_pages = v; break;
		default: break;
		}
		c = d;
	}
	if (ev->ntasks >= MAX_TASKS) {
		ev->tasks_dropped++;
		return 1;
	}
	if (ev->ntasks == ev->cap) {
		size_t nc = ev->cap ? ev->cap * 2 : 64;
		struct ktask *nt = realloc(ev->tasks, nc * sizeof(*nt));
		if (!nt) {
			ev->tasks_dropped++;
			return 1;
		}
		ev->tasks = nt;
		ev->cap = nc;
	}
	kt.name_off = ev->names.len;
	{
		const char *ne = e;
		c = skip_ws(c, e);
		while (ne > c && is_space((unsigned char)ne[-1]))
			ne--;
		if (strbuf_add_utf8(&ev->names, c, (size_t)(ne - c)) < 0 ||
		    strbuf_addch(&ev->names, '\0') < 0) {
			ev->tasks_dropped++;
			return 1;
		}
	}
	ev->tasks[ev->ntasks++] = kt;
	return 1;
}

/* "oom-kill:constraint=CONSTRAINT_X,nodemask=..,...,task=c,pid=N,uid=N" */
static int m_oomkill_summary(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c, *t, *f;
	int64_t v;
	size_t i;

	if (!starts(p, e, "oom-kill:"))
		return 0;
	if ((c = find(p, e, "constraint="))) {
		c += 11;
		if (starts(c, e, "CONSTRAINT_"))
			c += 11;
		t = c;
		while (t < e && *t != ',')
			t++;
		copy_str(ev->constraint, sizeof(ev->constraint), c, t);
		for (i = 0; ev->constraint[i]; i++)
			if (ev->constraint[i] >= 'A' && ev->constraint[i] <= 'Z')
				ev->constraint[i] = (char)(ev->constraint[i] | 0x20);
	}
	if ((c = find(p, e, ",nodemask=")) && !ev->have_nodemask) {
		c += 10;
		t = c;
		while (t < e && *t != ',')
			t++;
		copy_str(ev->nodemask, sizeof(ev->nodemask), c, t);
		ev->have_nodemask = 1;
	}
	if ((c = find(p, e, ",cpuset=")) && !ev->have_cpuset) {
		c += 8;
		t = find(c, e, ",mems_allowed=");
		copy_str(ev->cpuset, sizeof(ev->cpuset), c, t ? t : e);
		ev->have_cpuset = 1;
		if (t) {
			const char *m = t + 14, *me = m;
			while (me < e && (is_digit((unsigned char)*me) || *me == '-' ||
					  (*me == ',' && me + 1 < e && is_digit((unsigned char)me[1]))))
				me++;
			copy_str(ev->mems, sizeof(ev->mems), m, me);
		}
	}
	if (find(p, e, ",global_oom"))
		ev->global_oom = 1;
	/* from the right: ,uid= ,pid= ,task= */
	f = e;
	if ((c = rfind(p, f, ",uid=")) && parse_int(c + 5, e, &v)) {
		ev->ck_uid = v;
		f = c;
	}
	if ((c = rfind(p, f, ",pid=")) && parse_int(c + 5, e, &v)) {
		ev->ck_pid = v;
		f = c;
	}
	if ((c = rfind(p, f, ",task="))) {
		copy_str(ev->ck_task, sizeof(ev->ck_task), c + 6, f);
		f = c;
	}
	if ((c = find(p, f, ",task_memcg="))) {
		copy_str(ev->task_memcg, sizeof(ev->task_memcg), c + 12, f);
		f = c;
	}
	if ((c = find(p, f, ",oom_memcg="))) {
		t = find(c + 11, f, ",task_memcg=");
		copy_str(ev->oom_memcg, sizeof(ev->oom_memcg), c + 11, t ? t : f);
	}
	return 1;
}

/* "...Kill process N (c) score S or sacrifice child" (pre-5.1 selection). */
static int m_kill_select(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *k = find(p, e, "Kill process "), *c, *o, *cl;
	int64_t pid;

	if (!k || find(k, e, "sharing same memory"))
		return k ? 1 : 0;
	if (!(c = parse_int(k + 13, e, &pid)))
		return 0;
	if (!ev->open || ev->nkills || ev->sel_pid != OL_NULL) {
		if (ev_close(kp) < 0)
			return -1;
		ev_open(kp, r);
	}
	ev = &kp->ev;
	ev->sel_pid = pid;
	ev->sel_score = key_int(c, e, ") score ");
	if ((o = memchr(c, '(', (size_t)(e - c))) && (cl = find(o, e, ") score ")))
		copy_str(ev->sel_comm, sizeof(ev->sel_comm), o + 1, cl);
	if (find(p, k, "Memory cgroup out of memory"))
		ev->memcg_hint = 1;
	if (find(p, k, "MPOL_BIND"))
		ev->mpol_hint = 1;
	return 1;
}

static void recent_add(struct kparse *kp, int64_t pid, int64_t id, const struct ol_time *t)
{
	struct recent_kill *rk = &kp->recent[kp->nrecent++ % RECENT_KILLS];
	rk->pid = pid;
	rk->event_id = id;
	rk->boot_ns = t->boot_ns;
	rk->utc_ns = t->utc_ns;
}

/* Victim line in every variant (spec 1.6). */
static int m_killed(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *k = find(p, e, "Killed process "), *c, *o, *cl, *fields;
	int64_t pid, uid = OL_NULL, score_adj, vm, anon, file, shmem, pgt, kb;
	char comm[64] = "", summary[256];
	const char *constraint;
	int memcg_wording;
	json_t *d;
	int64_t id;
	size_t i;

	if (!k || !(c = parse_int(k + 15, e, &pid)))
		return 0;
	memcg_wording = find(p, k, "Memory cgroup out of memory") != NULL;
	fields = c;
	if (starts(c, e, ", UID ")) {            /* RHEL 6 */
		const char *d2 = parse_int(c + 6, e, &uid);
		c = d2 ? d2 : c + 6;
	}
	if ((o = memchr(c, '(', (size_t)(e - c)))) {
		cl = find(o, e, ") total-vm:");
		if (!cl)
			cl = find(o, e, "), UID ");
		if (!cl)
			cl = rfind(o, e, ")");
		if (cl && cl > o) {
			copy_str(comm, sizeof(comm), o + 1, cl);
			fields = cl;
		}
	}
	if (starts(fields, e, "), UID "))           /* RHEL 7 */
		parse_int(fields + 7, e, &uid);
	vm = key_int(fields, e, "total-vm:");
	anon = key_int(fields, e, "anon-rss:");
	file = key_int(fields, e, "file-rss:");
	shmem = key_int(fields, e, "shmem-rss:");
	if (uid == OL_NULL)
		uid = key_int(fields, e, "UID:");
	pgt = key_int(fields, e, "pgtables:");
	score_adj = key_int(fields, e, "oom_score_adj:");

	/* Which report does it belong to? A repeat of the last victim, or of
	 * any victim of an oom.group kill, is the same victim (spec 1.9.3). */
	if (ev->open && ev->nkills) {
		if (pid == ev->last_kill_pid && !ev->group)
			return 1;
		if (!ev->group || ns_between(&ev->t, &r->t) > GAP_NS) {
			if (ev_close(kp) < 0)
				return -1;
		} else {
			for (i = 0; i < (size_t)ev->nkills && i < 64; i++)
				if (ev->killed[i] == pid)
					return 1;
		}
	}
	if (ev->open && ev->have_header && !ev->nkills && ns_between(&ev->t, &r->t) > GAP_NS)
		if (ev_close(kp) < 0)
			return -1;
	if (!ev->open)
		ev_open(kp, r);
	if (memcg_wording)
		ev->memcg_hint = 1;
	if (score_adj == OL_NULL)
		for (i = 0; i < ev->ntasks; i++)
			if (ev->tasks[i].t.pid == pid) {
				score_adj = ev->tasks[i].t.oom_score_adj;
				break;
			}
	if (emit_invoked(kp, pid, vm) < 0)
		return -1;
	constraint = constraint_of(ev);
	if (!comm[0] && ev->ck_pid == pid)
		snprintf(comm, sizeof(comm), "%s", ev->ck_task);
	if (uid == OL_NULL && ev->ck_pid == pid)
		uid = ev->ck_uid;

	d = json_object();
	set_int(d, "uid", uid);
	set_int(d, "total_vm_kb", vm);
	set_int(d, "anon_rss_kb", anon);
	set_int(d, "file_rss_kb", file);
	set_int(d, "shmem_rss_kb", shmem);
	set_int(d, "pgtables_kb", pgt);
	set_int(d, "oom_score_adj", score_adj);
	set_str(d, "constraint", constraint);
	set_str(d, "task_memcg", ev->task_memcg);
	set_str(d, "oom_memcg", ev->oom_memcg);
	json_object_set_new(d, "invoker", invoker_json(ev));
	set_int(d, "invoker_event", ev->invoked_id);
	set_int(d, "score", ev->sel_pid == pid || ev->sel_pid == OL_NULL ? ev->sel_score : OL_NULL);
	set_int(d, "selected_pid", ev->sel_pid);
	json_object_set_new(d, "oom_group", json_boolean(ev->group));
	json_object_set_new(d, "operator_triggered", json_boolean(ev->operator_triggered));
	set_str(d, "kernel_release", ev->release[0] ? ev->release : NULL);
	snprintf(summary, sizeof(summary), "%s killed %s (pid %lld)",
		 memcg_wording ? "memcg OOM" : "OOM killer", comm[0] ? comm : "?", (long long)pid);
	kb = sum2(sum2(anon, file == OL_NULL ? 0 : file), shmem == OL_NULL ? 0 : shmem);
	id = record_event(kp, r, "oom_kill", pid, comm,
			  kb == OL_NULL || kb > INT64_MAX / 1024 ? OL_NULL : kb * 1024, summary, d);
	if (id < 0)
		return -1;
	recent_add(kp, pid, id, &r->t);
	kp->reports++;
	if (ev->nkills < 64)
		ev->killed[ev->nkills] = pid;
	ev->nkills++;
	ev->last_kill_pid = pid;
	return 1;
}

/* "oom_reaper: reaped process N (c), now anon-rss:0kB, ..." / "unable to reap pid:N (c)" */
static int m_reaper(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *c, *o, *cl;
	int64_t pid = OL_NULL, kill_id = OL_NULL, anon, file, shmem;
	char comm[64] = "", summary[200];
	int reaped;
	unsigned i;
	json_t *d;

	if (!starts(p, e, "oom_reaper: "))
		return 0;
	if ((c = find(p, e, "reaped process ")))
		reaped = 1, c = parse_int(c + 15, e, &pid);
	else if ((c = find(p, e, "unable to reap pid:")))
		reaped = 0, c = parse_int(c + 19, e, &pid);
	else
		return 1;
	if (c && (o = memchr(c, '(', (size_t)(e - c)))) {
		cl = find(o, e, "), now");
		if (!cl)
			cl = rfind(o, e, ")");
		if (cl)
			copy_str(comm, sizeof(comm), o + 1, cl);
	}
	anon = key_int(p, e, "anon-rss:");
	file = key_int(p, e, "file-rss:");
	shmem = key_int(p, e, "shmem-rss:");
	for (i = 0; i < RECENT_KILLS && i < kp->nrecent; i++) {
		struct recent_kill *rk = &kp->recent[(kp->nrecent - 1 - i) % RECENT_KILLS];
		if (rk->pid == pid) {
			kill_id = rk->event_id;
			break;
		}
	}
	d = json_object();
	json_object_set_new(d, "reaped", json_boolean(reaped));
	set_int(d, "anon_rss_kb", anon);
	set_int(d, "file_rss_kb", file);
	set_int(d, "shmem_rss_kb", shmem);
	set_int(d, "kill_event", kill_id);
	snprintf(summary, sizeof(summary), "oom_reaper %s %s (pid %lld)",
		 reaped ? "reaped" : "could not reap", comm[0] ? comm : "?", (long long)pid);
	if (record_event(kp, r, "oom_reaper", pid, comm, OL_NULL, summary, d) < 0)
		return -1;
	return 1;
}

/* "<comm>: page allocation failure: order:N, mode:0x..(..), nodemask=..." */
static int m_alloc_failure(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *k = find(p, e, ": page allocation failure: "), *c, *t;
	char comm[64], mode[32] = "", summary[200];
	json_t *d;
	int64_t order;

	if (!k)
		return 0;
	if (kp->ev.open && kp->ev.nkills && ev_close(kp) < 0)
		return -1;
	copy_str(comm, sizeof(comm), p, k);
	order = key_int(k, e, "order:");
	if ((c = find(k, e, "mode:"))) {
		t = c + 5;
		while (t < e && *t != '(' && *t != ',' && *t != ' ')
			t++;
		copy_str(mode, sizeof(mode), c + 5, t);
	}
	d = json_object();
	set_int(d, "order", order);
	set_str(d, "gfp_mask", mode);
	snprintf(summary, sizeof(summary), "%s: page allocation failure (order %lld)", comm,
		 (long long)(order == OL_NULL ? 0 : order));
	if (record_event(kp, r, "alloc_failure", OL_NULL, comm, OL_NULL, summary, d) < 0)
		return -1;
	return 1;
}

/* systemd-oomd and earlyoom kills. */
static int m_userspace(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *killer = NULL, *c, *t;
	char target[512] = "", reason[256] = "", comm[64] = "", summary[300], sig[16] = "";
	int64_t pid = OL_NULL, uid = OL_NULL;
	json_t *d;

	if (!strcmp(r->ident, "systemd-oomd") && starts(p, e, "Killed ")) {
		killer = "systemd-oomd";
		c = p + 7;
		t = find(c, e, " due to ");
		copy_str(target, sizeof(target), c, t ? t : e);
		if (t)
			copy_str(reason, sizeof(reason), t + 8, e);
	} else if ((!strcmp(r->ident, "earlyoom") || !r->has_ident) &&
		   starts(p, e, "sending SIG") && (c = find(p, e, " to process "))) {
		killer = "earlyoom";
		copy_str(sig, sizeof(sig), p + 8, c);
		t = parse_int(c + 12, e, &pid);
		uid = key_int(c, e, " uid ");
		if (t && (c = memchr(t, '"', (size_t)(e - t))) &&
		    (t = memchr(c + 1, '"', (size_t)(e - c - 1))))
			copy_str(comm, sizeof(comm), c + 1, t);
		if ((c = find(p, e, ": badness ")))
			copy_str(reason, sizeof(reason), c + 2, e);
	} else {
		return 0;
	}
	d = json_object();
	json_object_set_new(d, "killer", json_string(killer));
	set_str(d, "cgroup", target);
	set_str(d, "reason", reason);
	set_str(d, "signal", sig);
	set_int(d, "uid", uid);
	snprintf(summary, sizeof(summary), "%s killed %s", killer,
		 target[0] ? target : comm[0] ? comm : "?");
	if (record_event(kp, r, "userspace_kill", pid, comm, OL_NULL, summary, d) < 0)
		return -1;
	return 1;
}

/* "Tasks in /x are going to be killed due to memory.oom.group set": an
 * oom.group kill (before the Killed lines, or between them). */
static int m_group(struct kparse *kp, const char *p, const char *e)
{
	const char *c;

	if (!starts(p, e, "Tasks in ") || !find(p, e, "memory.oom.group"))
		return 0;
	c = find(p, e, " are going to be killed");
	copy_str(kp->ev.group_path, sizeof(kp->ev.group_path), p + 9, c ? c : e);
	kp->ev.group = 1;
	return 1;
}

/* Lines that only matter inside an open report. */
static int m_context(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c;
	int r;

	if (!ev->cpu_seen && (r = m_cpu(kp, p, e)))
		return r;
	if ((c = find(p, e, " cpuset=")) && find(c, e, " mems_allowed=") && !ev->have_cpuset) {
		const char *m = find(c, e, " mems_allowed=");
		copy_str(ev->cpuset, sizeof(ev->cpuset), c + 8, m);
		copy_str(ev->mems, sizeof(ev->mems), m + 14, e);
		ev->have_cpuset = 1;
		return 1;
	}
	if (starts(p, e, "Workqueue:") && find(p, e, "moom_callback")) {
		ev->operator_triggered = 1;
		return 1;
	}
	if (find(p, e, "mem_cgroup_out_of_memory") || find(p, e, "try_charge")) {
		ev->memcg_hint = 1;
		return 1;
	}
	if (starts(p, e, "Task in ") && (c = find(p, e, " killed as a result of limit of "))) {
		copy_str(ev->task_memcg, sizeof(ev->task_memcg), p + 8, c);
		copy_str(ev->oom_memcg, sizeof(ev->oom_memcg), c + 32, e);
		ev->memcg_hint = 1;
		return 1;
	}
	if ((r = m_memcg_counter(kp, p, e)))
		return r;
	if (starts(p, e, "Memory cgroup stats for ")) {
		ev->memcg_hint = 1;
		ev->in_meminfo = 0;
		return 1;
	}
	if ((r = m_task_header(kp, p, e)))
		return r;
	if ((r = m_task_row(kp, p, e)))
		return r;
	if ((r = m_group(kp, p, e)))
		return r;
	if (find(p, e, "Out of memory and no killable processes")) {
		ev->nokill_reason = "no_killable_processes";
		if (find(p, e, "Kernel panic"))
			ev->panic = 1;
		return 1;
	}
	if (find(p, e, "Kernel panic - not syncing")) {
		ev->panic = 1;
		if (find(p, e, "panic_on_oom"))
			ev->nokill_reason = "panic_on_oom";
		return 1;
	}
	if (find(p, e, "is already exiting. Skip killing")) {
		ev->nokill_reason = "victim_exiting";
		return 1;
	}
	if (find(p, e, "OOM request ignored")) {
		ev->nokill_reason = "no_eligible_task";
		return 1;
	}
	return m_meminfo(kp, p, e);
}

/* One kernel (or daemon) message, prefix already stripped. */
static int message(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	int rc;

	p = skip_ws(p, e);
	while (e > p && is_space((unsigned char)e[-1]))
		e--;
	if (p >= e)
		return 0;
	if (r->has_ident && strcmp(r->ident, "kernel"))
		return m_userspace(kp, r, p, e);
	if ((rc = m_header(kp, r, p, e)))
		return rc;
	if ((rc = m_killed(kp, r, p, e)))
		return rc;
	if ((rc = m_reaper(kp, r, p, e)))
		return rc;
	if ((rc = m_kill_select(kp, r, p, e)))
		return rc;
	if (kp->ev.open && (rc = m_oomkill_summary(kp, p, e)))
		return rc;
	if ((rc = m_alloc_failure(kp, r, p, e)))
		return rc;
	if (find(p, e, "Manual OOM execution")) {
		kp->sysrq_pending = 1;
		return 1;
	}
	if (find(p, e, "oom_kill_process") && find(p, e, "callbacks suppressed")) {
		kp->rate_limited = 1;
		return 1;
	}
	if (!r->has_ident && (rc = m_userspace(kp, r, p, e)))
		return rc;
	if (kp->ev.open && kp->ev.have_header && !kp->ev.nkills)
		return m_context(kp, p, e);
	if (kp->ev.open && kp->ev.nkills)
		return m_group(kp, p, e);
	return 0;
}

/* A record's message, split at rsyslog "#012" and journal "\n". */
static int record(struct kparse *kp, const struct krec *r)
{
	const char *p = r->msg, *e = r->end, *c;

	/* Text logs carry no boot id: a kernel stamp going back by more than
	 * 10 s means the machine rebooted; later boots get "boot-N". */
	if (r->t.boot_ns != OL_NULL && !r->from_json) {
		if (kp->max_boot_ns != 0 && r->t.boot_ns + 10 * NS_PER_S < kp->max_boot_ns) {
			if (ev_close(kp) < 0)
				return -1;
			snprintf(kp->boot_id, sizeof(kp->boot_id), "boot-%d", ++kp->boots + 1);
			kp->max_boot_ns = r->t.boot_ns;
		}
		if (r->t.boot_ns > kp->max_boot_ns)
			kp->max_boot_ns = r->t.boot_ns;
	}
	/* a header that found no kill in GAP_NS is over */
	if (kp->ev.open && kp->ev.have_header && !kp->ev.nkills &&
	    ns_between(&kp->ev.t, &r->t) > GAP_NS && ev_close(kp) < 0)
		return -1;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *h = find(p, nl ? nl : e, "#012");
		c = h ? h : nl ? nl : e;
		if (message(kp, r, p, c) < 0)
			return -1;
		p = c + (h ? 4 : 1);
	}
	return 0;
}

/* One journalctl -o json line: its boot id becomes the current one (even
 * without a message), the first record of each boot id with both clocks
 * anchors them, and its message is read as any other record's. Returns -1
 * when the sink failed. */
static int journal_record(struct kparse *kp, const char *l, size_t n)
{
	struct krec r;
	int has_msg = kprefix_journal_json(&kp->px, l, n, &r);

	if (r.has_boot_id)
		snprintf(kp->boot_id, sizeof(kp->boot_id), "%s", r.boot_id);
	if (!has_msg)
		return 0;
	if (r.t.utc_ns != OL_NULL && r.t.boot_ns != OL_NULL && kp->boot_id[0] &&
	    strcmp(kp->boot_id, kp->last_boot_id)) {
		snprintf(kp->last_boot_id, sizeof(kp->last_boot_id), "%s", kp->boot_id);
		if (emit(kp, sink_anchor(kp->s, kp->boot_id, r.t.boot_ns, r.t.utc_ns,
					 "journal __REALTIME_TIMESTAMP + _SOURCE_MONOTONIC_TIMESTAMP")) < 0)
			return -1;
	}
	return record(kp, &r);
}


/* ---------------------------------------------------------------------
 * Entry points.
 */

int kernel_oom_sniff(const unsigned char *head, size_t n)
{
	static const char *strong[] = { "invoked oom-killer", "Killed process ", "oom_reaper: ",
					"oom-kill:constraint=", "Out of memory: Kill" };
	static const char *weak[] = { "kernel: ", "\"_TRANSPORT\":\"kernel\"", "\"_TRANSPORT\" : \"kernel\"", "] Linux version ",
				      "Mem-Info:", "page allocation failure" };
	size_t i;

	for (i = 0; i < sizeof(strong) / sizeof(strong[0]); i++)
		if (memmem(head, n, strong[i], strlen(strong[i])))
			return 80;
	for (i = 0; i < sizeof(weak) / sizeof(weak[0]); i++)
		if (memmem(head, n, weak[i], strlen(weak[i])))
			return 30;
	return 0;
}

int kernel_oom_parse(struct input *in, struct sink *s)
{
	struct kparse *kp = calloc(1, sizeof(*kp));
	const char *line;
	size_t len;
	int rc, result = -1;

	if (!kp)
		return -1;
	kp->s = s;
	kp->in = in;
	kprefix_init(&kp->px, in, s);
	strbuf_init(&kp->ev.names);
	ev_reset(&kp->ev);
	while ((rc = input_getline(in, &line, &len)) == 1) {
		struct krec r;
		const char *e = line + len;

		if (in->line_cut)
			sink_diagf(s, in->lineno, 0, OL_WARN,
				   "line longer than %u bytes: read its start only", INPUT_MAX_LINE);
		/* cheap reject: outside a report's body only hot lines matter */
		if (!(kp->ev.open && kp->ev.have_header && !kp->ev.nkills) && !line_is_hot(line, len) &&
		    !(len && *line == '{' && kprefix_json_message_is_array(line, e)))
			continue;
		if (len && *line == '{') {
			if (journal_record(kp, line, len) < 0)
				goto out;
			continue;
		}
		if (!len)
			continue;
		kprefix_strip(&kp->px, line, e, &r);
		if (record(kp, &r) < 0)
			goto out;
		if (kp->failed)
			goto out;
	}
	if (rc < 0)
		sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
			   (unsigned long long)in->lineno);
	if (ev_close(kp) < 0 || kp->failed)
		goto out;
	if (kp->reports) {
		char v[16];
		snprintf(v, sizeof(v), "%d", (kp->page_kb ? kp->page_kb : 4) * 1024);
		if (emit(kp, sink_meta(s, "kernel.page_size", v)) < 0 ||
		    emit(kp, sink_meta(s, "kernel.page_size_assumed", kp->page_kb ? "0" : "1")) < 0)
			goto out;
	}
	if (kp->rate_limited && sink_diagf(s, 0, 0, OL_INFO,
			"the kernel suppressed OOM reports (ratelimit): some kills have no header") < 0)
		goto out;
	result = kp->n;
out:
	kprefix_release(&kp->px);
	strbuf_release(&kp->ev.names);
	free(kp->ev.tasks);
	free(kp);
	return result;
}
