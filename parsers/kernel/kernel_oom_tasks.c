/*
 * kernel_oom_tasks.c -- the task dump of a kernel OOM report: the column
 * header "[  pid  ]   uid  tgid total_vm      rss ... name" and one row per
 * task (see kernel_oom_report.h for the files around it).
 *
 * Kernels from 2.6.32 to 6.x print different columns (rss split into
 * rss_anon/rss_file/rss_shmem in 6.x, nr_pmds for a while, pgtables_bytes
 * from 4.15), so the header's column names are read into a per-report
 * list, and each row is read by that list. Rows are kept in the report
 * (up to MAX_TASKS; more are counted as dropped) and sent with its
 * oom_invoked event. A paste of the rows alone (no header, issue 27) is
 * read by columns inferred from the rows' shape (infer_columns).
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"

#define MAX_TASKS 100000

/* Where a column of the task dump goes. */
enum { COL_SKIP = -1, COL_NAME = -2 };

/* The columns oomlens knows, and the offset in struct ol_task of the
 * int64_t each fills (COL_SKIP: read, not kept; COL_NAME: the last
 * column, the rest of the row). An unknown name is index 0 (skipped). */
static const struct { const char *name; ptrdiff_t off; } task_cols[] = {
	{ "", COL_SKIP },
	{ "uid", offsetof(struct ol_task, uid) },
	{ "tgid", offsetof(struct ol_task, tgid) },
	{ "total_vm", offsetof(struct ol_task, total_vm_pages) },
	{ "rss", offsetof(struct ol_task, rss_pages) },
	{ "cpu", COL_SKIP },
	{ "oom_adj", offsetof(struct ol_task, oom_adj) },
	{ "oom_score_adj", offsetof(struct ol_task, oom_score_adj) },
	{ "nr_ptes", offsetof(struct ol_task, nr_ptes) },
	{ "nr_pmds", offsetof(struct ol_task, nr_pmds) },
	{ "swapents", offsetof(struct ol_task, swapents) },
	{ "pgtables_bytes", offsetof(struct ol_task, pgtables_bytes) },
	{ "rss_anon", offsetof(struct ol_task, rss_anon_pages) },
	{ "rss_file", offsetof(struct ol_task, rss_file_pages) },
	{ "rss_shmem", offsetof(struct ol_task, rss_shmem_pages) },
	{ "name", COL_NAME },
};
#define N_TASK_COLS (sizeof(task_cols) / sizeof(task_cols[0]))

/* The index in task_cols of the column named [w, we), 0 when unknown. */
static unsigned char col_index(const char *w, const char *we)
{
	size_t i;

	for (i = 1; i < N_TASK_COLS; i++)
		if ((size_t)(we - w) == strlen(task_cols[i].name) &&
		    !memcmp(w, task_cols[i].name, (size_t)(we - w)))
			return (unsigned char)i;
	return 0;
}

/* Task table header "[ pid ]   uid  tgid total_vm rss ... name". */
int m_task_header(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c;
	int n = 0;

	if (e - p < 7 || *p != '[' || !(c = memchr(p, ']', (size_t)(e - p))) ||
	    !find(p, c, "pid"))
		return 0;
	c++;
	while (c < e && n < TASK_COLS) {
		const char *w = skip_ws(c, e), *we = w;
		while (we < e && !is_space((unsigned char)*we))
			we++;
		if (we == w)
			break;
		ev->cols[n++] = col_index(w, we);
		c = we;
	}
	ev->ncols = n;
	ev->in_meminfo = 0;
	ev->oom_evidence = 1;
	return 1;
}

/* Read the numeric columns of a row after its "[pid]" at c into t, by the
 * report's column list; returns where the name starts. A truncated or
 * damaged row keeps the columns read before the damage. */
static const char *row_columns(const struct oomev *ev, const char *c, const char *e,
			       struct ol_task *t)
{
	int i;

	for (i = 0; i < ev->ncols; i++) {
		ptrdiff_t off = task_cols[ev->cols[i]].off;
		const char *w = skip_ws(c, e), *d;
		int64_t v;

		if (off == COL_NAME)
			return w;
		if (!(d = parse_int(w, e, &v)) || (d < e && !is_space((unsigned char)*d)))
			return w;
		if (off != COL_SKIP)
			*(int64_t *)((char *)t + off) = v;
		c = d;
	}
	return c;
}

/* Keep t, named [c, e) (trimmed, made valid UTF-8), in the report; a row
 * past MAX_TASKS or that memory cannot hold is counted as dropped. */
static void keep_task(struct oomev *ev, const struct ol_task *t, const char *c, const char *e)
{
	struct ktask kt;

	if (ev->ntasks >= MAX_TASKS) {
		ev->tasks_dropped++;
		return;
	}
	if (ev->ntasks == ev->cap) {
		size_t nc = ev->cap ? ev->cap * 2 : 64;
		struct ktask *nt = realloc(ev->tasks, nc * sizeof(*nt));
		if (!nt) {
			ev->tasks_dropped++;
			return;
		}
		ev->tasks = nt;
		ev->cap = nc;
	}
	c = skip_ws(c, e);
	while (e > c && is_space((unsigned char)e[-1]))
		e--;
	kt.t = *t;
	kt.name_off = ev->names.len;
	/* names is sticky on failure: once it failed, every later row is dropped */
	if (strbuf_add_utf8(&ev->names, c, (size_t)(e - c)) < 0 ||
	    strbuf_addch(&ev->names, '\0') < 0) {
		ev->tasks_dropped++;
		return;
	}
	ev->tasks[ev->ntasks++] = kt;
}

int task_row_shape(const char *p, const char *e)
{
	const char *c;
	int64_t v;
	int k = 0;

	if (p >= e || *p != '[' || !(c = parse_int(skip_ws(p + 1, e), e, &v)) || c >= e || *c != ']')
		return 0;
	c++;
	for (;;) {
		const char *w = skip_ws(c, e), *d = parse_int(w, e, &v);
		if (!d || (d < e && !is_space((unsigned char)*d)))
			break;
		k++;
		c = d;
	}
	c = skip_ws(c, e);
	return k >= 7 && k <= 10 && c < e ? k : 0;
}

int task_row_line(const char *l, size_t n)
{
	const char *le = l + n, *c = l;

	/* a dmesg stamp: "[  65.766239]", or dmesg -T's clock in any locale
	 * ("[Thu Mar 20 21:01:25 2025]", "[四 3月 20 21:01:25 2025]"); a
	 * row's own "[  pid  ]" holds neither a '.' nor a ':' */
	if (c < le && *c == '[' && (c = memchr(c, ']', n)) && c + 1 < le &&
	    (memchr(l, '.', (size_t)(c - l)) || memchr(l, ':', (size_t)(c - l))))
		c = skip_ws(c + 1, le);
	else
		c = skip_ws(l, le);
	return task_row_shape(c, le) > 0;
}

int task_table_head(const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;
	int rows = 0;

	while (p < end && rows < 3) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return 0;            /* a whole line only */
		if (skip_ws(p, nl) < nl) {
			if (!task_row_line(p, (size_t)(nl - p)))
				return 0;
			rows++;
		}
		p = nl + 1;
	}
	return rows == 3;
}

/* The columns of a task dump whose header is not in the input, from a
 * row's count k of numbers after "[pid]": every kernel prints uid, tgid,
 * total_vm and rss first and oom_score_adj last; with ten, the 6.x split
 * (rss_anon rss_file rss_shmem pgtables_bytes swapents) between; the
 * columns between of the other layouts (cpu/oom_adj, nr_ptes, nr_pmds,
 * pgtables_bytes, swapents) are not told apart, so not kept. */
static void infer_columns(struct oomev *ev, int k)
{
	static const char *const first[] = { "uid", "tgid", "total_vm", "rss" };
	static const char *const split[] = { "rss_anon", "rss_file", "rss_shmem",
					     "pgtables_bytes", "swapents" };
	static const char adj[] = "oom_score_adj", name[] = "name";
	int i;

	for (i = 0; i < 4; i++)
		ev->cols[i] = col_index(first[i], first[i] + strlen(first[i]));
	for (i = 4; i < k - 1; i++)
		ev->cols[i] = k == 10 ? col_index(split[i - 4], split[i - 4] + strlen(split[i - 4])) : 0;
	ev->cols[k - 1] = col_index(adj, adj + sizeof adj - 1);
	ev->cols[k] = col_index(name, name + sizeof name - 1);
	ev->ncols = k + 1;
	ev->oom_evidence = 1;
}

/* Task row "[  1234]  1000  1234  123456  7890 ... name". */
int m_task_row(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	struct ol_task t;
	const char *c;
	int64_t v;
	int k;

	if (!ev->ncols && kp->table_only && (k = task_row_shape(p, e)) && k + 1 <= TASK_COLS)
		infer_columns(ev, k);
	if (!ev->ncols || *p != '[')
		return 0;
	c = parse_int(skip_ws(p + 1, e), e, &v);
	if (!c || c >= e || *c != ']')
		return 0;
	memset(&t, 0, sizeof(t));
	t.pid = v;
	t.uid = t.tgid = t.total_vm_pages = t.rss_pages = OL_NULL;
	t.rss_anon_pages = t.rss_file_pages = t.rss_shmem_pages = OL_NULL;
	t.pgtables_bytes = t.nr_ptes = t.nr_pmds = t.swapents = OL_NULL;
	t.oom_adj = t.oom_score_adj = OL_NULL;
	c = row_columns(ev, c + 1, e, &t);
	keep_task(ev, &t, c, e);
	return 1;
}

const struct ol_task *report_task(const struct oomev *ev, int64_t pid)
{
	size_t i;

	for (i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].t.pid == pid)
			return &ev->tasks[i].t;
	return NULL;
}
