/*
 * oom_tasks.c -- the kernel OOM task dumps: for each OOM the oom-killer
 * reported with its task list, when, who invoked it, the victim, and
 * every process with its memory, largest RSS first. The HTML shows the
 * first DUMPS_CAP dumps of TASKS_CAP processes each, sizes in bytes from
 * pages of the kernel's page size.
 */
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "reports/html_util.h"
#include "lib/common.h"

/* The victim: the one the derived table oom gives this report (its
 * header is the row's main event; analyzer/derive/oom.c). */
#define VICTIM_PID "(SELECT o.victim_pid FROM oom o WHERE o.event_id = e.id)"
#define DUMPS_SELECT "SELECT e.id, e.time_ns AS time, e.pid AS invoked_by_pid," \
	" e.comm AS invoked_by, " VICTIM_PID " AS victim_pid"
#define DUMPS_FROM " FROM event e WHERE e.kind = 'oom_invoked'" \
	" AND EXISTS (SELECT 1 FROM task t WHERE t.event_id = e.id)" \
	" ORDER BY e.time_ns, e.boot_ns, e.id"
#define DUMPS_CAP 5
#define TASKS_CAP 40
#define TASKS_COLUMNS "SELECT pid, uid, tgid, name, total_vm_pages, rss_pages, rss_anon_pages," \
	" rss_file_pages, rss_shmem_pages, pgtables_bytes, swapents, oom_score_adj" \
	" FROM task WHERE event_id = ?1"
#define TASKS_SQL TASKS_COLUMNS " ORDER BY rss_pages DESC, pid LIMIT ?2"
/* TASKS_SQL's order, by column index, for q_jw_rows_sorted */
#define TASKS_BY_RSS 5
#define TASKS_BY_PID 0

/* The JSON's oom_tasks array. Capped: the first DUMPS_CAP as a list whose
 * total counts every dump, each dump with boot_ns and tasks_total, and
 * the model's page_size (meta kernel.page_size, else 4096). */
json_t *load_oom_tasks(struct report_ctx *c)
{
	json_t *dumps, *m;
	int64_t total;

	if (!c->capped)
		dumps = r_rows(c, DUMPS_SELECT DUMPS_FROM, -1);
	else
		dumps = r_rows(c, DUMPS_SELECT ", e.boot_ns, (SELECT count(*) FROM task t"
			       " WHERE t.event_id = e.id) AS tasks_total" DUMPS_FROM " LIMIT 5",
			       DUMPS_CAP);
	r_attach(c, dumps, "tasks", TASKS_SQL, TASKS_CAP, NULL);
	if (!c->capped)
		return dumps;
	total = r_int(c, "SELECT count(DISTINCT event_id) FROM task", 0);
	m = r_list(c, dumps, total);
	json_object_set_new(m, "page_size", json_integer(r_int(c,
		"SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'kernel.page_size'"
		" AND value GLOB '[0-9]*' LIMIT 1", 4096)));
	return m;
}

/* The JSON's oom_tasks array, one dump at a time: 20,000 OOM reports of
 * 24 tasks each are half a million objects, never all in memory. The
 * same rows as load_oom_tasks gives uncapped, written as the whole array
 * would be (q_jw: the bytes of the jansson objects, without them). */
int stream_oom_tasks(struct report_ctx *c, FILE *out)
{
	sqlite3_stmt *st = r_prepare(c, DUMPS_SELECT DUMPS_FROM);
	sqlite3_stmt *kids = r_prepare(c, TASKS_SQL);
	sqlite3_stmt *unsorted = r_prepare(c, TASKS_COLUMNS);
	struct q_jw_cols dc, tc, uc;
	struct q_jw w;
	int n = 0, r = st && kids && unsorted ? 0 : -1;

	q_jw_init(&w, out, 2, 1);
	if (q_jw_cols_init(&dc, st, "id", NULL) < 0 || q_jw_cols_init(&tc, kids, NULL, NULL) < 0 ||
	    q_jw_cols_init(&uc, unsorted, NULL, NULL) < 0)
		r = -1;
	q_jw_raw(&w, "[", 1);
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		q_jw_raw(&w, n ? ",\n  " : "\n  ", n ? 4 : 3);
		n++;
		q_jw_open(&w, '{');
		r = q_jw_row(&w, &dc);
		q_jw_key(&w, "tasks");
		/* sorted here, or by SQLite where only it knows the order */
		sqlite3_bind_int64(unsorted, 1, id);
		if (r == 0 && (r = q_jw_rows_sorted(&w, &uc, TASKS_BY_RSS, TASKS_BY_PID)) == 1) {
			sqlite3_bind_int64(kids, 1, id);
			sqlite3_bind_int64(kids, 2, -1);
			r = q_jw_rows(&w, &tc);
		}
		q_jw_close(&w, '}');
		q_jw_flush(&w);
	}
	q_jw_cols_release(&dc);
	q_jw_cols_release(&tc);
	q_jw_cols_release(&uc);
	sqlite3_finalize(st);
	sqlite3_finalize(kids);
	sqlite3_finalize(unsorted);
	q_jw_raw(&w, n ? "\n]" : "]", n ? 2 : 1);
	return q_jw_finish(&w) < 0 ? -1 : r;
}

/* pages * page as SQLite multiplies them: an integer, or a real when the
 * product does not fit (or the pages are not an integer); new reference. */
static json_t *pages_bytes(const json_t *pages, int64_t page)
{
	long long p;

	if (!pages || json_is_null(pages))
		return json_null();
	if (json_is_integer(pages) &&
	    !__builtin_mul_overflow((long long)json_integer_value(pages), (long long)page, &p))
		return json_integer(p);
	return json_real(jv_real(pages) * (double)page);
}

/* One process of a dump, sizes in bytes; the victim marked killed. */
static void html_task(struct strbuf *sb, const json_t *t, int64_t victim, int64_t page)
{
	static const char *const sizes[] = {
		"rss_pages", "rss_anon_pages", "rss_file_pages", "rss_shmem_pages",
		"total_vm_pages", "swapents", NULL
	};
	int64_t pid = jv_int_or_null(t, "pid");
	int is_victim = victim != OL_NULL && pid != OL_NULL && pid == victim, i;

	strbuf_addstr(sb, is_victim ? "<tr class=victim>" : "<tr>");
	h_num_td(sb, json_object_get(t, "pid"));
	h_num_td(sb, json_object_get(t, "uid"));
	strbuf_addstr(sb, "<td>");
	h_key(sb, t, "name");
	strbuf_addstr(sb, is_victim ? " <b class=killed>killed</b></td>" : "</td>");
	for (i = 0; sizes[i]; i++) {
		json_t *b = pages_bytes(json_object_get(t, sizes[i]), page);
		h_bytes_td(sb, b);
		json_decref(b);
	}
	h_num_td(sb, json_object_get(t, "oom_score_adj"));
	strbuf_addstr(sb, "</tr>\n");
}

/* One OOM: when, who invoked it, its processes by RSS. */
static void html_dump(struct strbuf *sb, const json_t *d, int64_t page)
{
	const json_t *tasks = json_object_get(d, "tasks"), *t;
	int64_t victim = jv_int_or_null(d, "victim_pid");
	size_t i;

	strbuf_addstr(sb, "<h3>OOM at ");
	h_time_iso(sb, json_string_value(json_object_get(d, "time")), jv_int_or_null(d, "boot_ns"));
	strbuf_addstr(sb, ", invoked by ");
	h_key(sb, d, "invoked_by");
	if (!jv_null(d, "invoked_by_pid"))
		strbuf_addf(sb, " (pid %lld)", (long long)jv_int_or_null(d, "invoked_by_pid"));
	strbuf_addf(sb, "</h3>\n<p class=muted>Largest RSS first; sizes from pages of %lld"
		    " bytes.</p>\n", (long long)page);
	strbuf_addstr(sb, "<table><tr><th class=n>pid</th><th class=n>uid</th><th>name</th>"
			  "<th class=n>RSS</th><th class=n>anon</th><th class=n>file</th>"
			  "<th class=n>shmem</th><th class=n>virtual</th><th class=n>swap</th>"
			  "<th class=n>oom_score_adj</th></tr>\n");
	json_array_foreach(tasks, i, t)
		html_task(sb, t, victim, page);
	strbuf_addstr(sb, "</table>\n");
	h_more(sb, jv_int_or_null(d, "tasks_total"), (int64_t)json_array_size(tasks),
	       "processes in this dump");
}

/* Each dump to the cap, or why there is none. */
void html_oom_tasks(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *dumps = model_rows(m), *d;
	int64_t page = jv_int_or_null(m, "page_size");
	size_t i;

	(void)c;
	json_array_foreach(dumps, i, d)
		html_dump(sb, d, page);
	if (!json_array_size(dumps))
		h_na(sb, "No kernel OOM task dump in the artifacts (a kernel log with the"
			 " oom-killer's task list would show every process and its memory).");
	else
		h_more(sb, model_total(m), (int64_t)json_array_size(dumps), "OOM task dumps");
}
