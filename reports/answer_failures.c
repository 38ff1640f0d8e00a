/*
 * answer_failures.c -- the answer's list of every other failure the
 * evidence holds (Xid errors with their meaning and the action NVIDIA's
 * catalogue gives, crashes and kills, CUDA exceptions, NCCL and cuBLAS
 * failures, engine deaths) and of every damaged artifact with what was
 * read before the damage. Read from the database only, for load_answer
 * (answer.c).
 */
#include "reports/section.h"
#include "reports/summary.h"
#include "reports/answer_parts.h"
#include "analyzer/store/query.h"
#include "lib/common.h"
#include "lib/xid.h"

#include <string.h>

#define ANSWER_FAILURES 6
#define ANSWER_DAMAGED 4

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* The failures besides the OOM: Xid errors, crashes, CUDA exceptions,
 * NCCL and cuBLAS failures, engine deaths; each {kind, what, action,
 * source}, in time order, at most ANSWER_FAILURES, and their count. */
json_t *answer_failures(struct report_ctx *c, int64_t *total)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT e.kind, e.summary, e.data, a.path, e.line FROM event e"
				     " LEFT JOIN artifact a ON a.id = e.artifact_id" FAILURE_WHERE
				     " ORDER BY e.time_ns IS NULL, e.time_ns, e.boot_ns, e.id LIMIT ?1");
	json_t *a = json_array();

	*total = r_int(c, "SELECT count(*) FROM event e" FAILURE_WHERE, 0);
	if (st)
		sqlite3_bind_int(st, 1, ANSWER_FAILURES);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = col(st, 0) ? col(st, 0) : "", *sum = col(st, 1);
		struct strbuf what = STRBUF_INIT, act = STRBUF_INIT, src = STRBUF_INIT;
		json_t *d = col(st, 2) ? json_loads(col(st, 2), 0, NULL) : NULL;

		if (sum)
			strbuf_add_utf8(&what, sum, strlen(sum));
		if (!strcmp(kind, "gpu_xid")) {
			int64_t x = jv_int_or_null(d, "xid");
			const char *rec = json_string_value(json_object_get(d, "recovery_action"));
			const struct xid_info *xi = x == OL_NULL ? NULL : xid_info(x);
			if (xi && !xi->meaning)    /* named, no advice of oomlens' */
				xi = NULL;
			if (x == OL_NULL)
				strbuf_addstr(&act, "the card is gone: reboot the node; repeated,"
						    " check the hardware");
			else if (xi && x == 154 && rec)
				strbuf_addf(&act, "%s: %s", xi->meaning, rec);
			else if (xi)
				strbuf_addf(&act, "%s: %s", xi->meaning, xi->action);
			else
				strbuf_addstr(&act, "not in oomlens' table: see NVIDIA's Xid"
						    " catalogue (docs.nvidia.com/deploy/xid-errors)");
		} else if (!strcmp(kind, "process_crash")) {
			/* SIGKILL (exit 137) cannot be caught and leaves no core:
			 * a kill from outside, not a crash that dumped */
			const char *sig = json_string_value(json_object_get(d, "signal"));
			int64_t ec = jv_int_or_null(d, "exit_code");
			if ((sig && !strcmp(sig, "SIGKILL")) || ec == 137)
				strbuf_addstr(&act, "the process was killed from outside (SIGKILL:"
						    " no core dump)");
			else if (sig)
				strbuf_addf(&act, "the process ended on %s", sig);
			else
				strbuf_addstr(&act, "the process ended on a signal");
		} else if (!strcmp(kind, "cuda_exception")) {
			strbuf_addstr(&act, "a kernel raised a CUDA exception (a CUDA core dump)");
		} else if (sum && (strstr(sum, "NCCL") || strstr(sum, "nccl"))) {
			strbuf_addstr(&act, "an NCCL (collective communication) failure");
		} else if (sum && (strstr(sum, "CUBLAS") || strstr(sum, "cublas"))) {
			strbuf_addstr(&act, "a cuBLAS failure (its workspace or handle)");
		} else {
			strbuf_addstr(&act, "the serving engine died");
		}
		if (col(st, 3)) {
			const char *p = col(st, 3), *b = strrchr(p, '/');
			p = b && b[1] ? b + 1 : p;
			strbuf_add_utf8(&src, p, strlen(p));
			if (sqlite3_column_type(st, 4) != SQLITE_NULL)
				strbuf_addf(&src, " line %lld", (long long)sqlite3_column_int64(st, 4));
		}
		if (!strbuf_failed(&what) && !strbuf_failed(&act) && !strbuf_failed(&src))
			json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "kind", kind,
							   "what", what.buf, "meaning", act.buf,
							   "source", src.buf));
		json_decref(d);
		strbuf_release(&what);
		strbuf_release(&act);
		strbuf_release(&src);
	}
	sqlite3_finalize(st);
	return a;
}

/* Damaged artifacts (status partial or failed): path, status, what was
 * read, the first problem found. */
json_t *answer_damaged(struct report_ctx *c)
{
	json_t *a = r_rows(c, "SELECT a.path, a.container, a.status, a.bytes_read, a.size,"
			   " (SELECT d.message FROM diagnostic d WHERE d.artifact_id = a.id"
			   "  ORDER BY d.severity <> 'error', d.rowid LIMIT 1) AS problem,"
			   " (SELECT count(*) FROM event e WHERE e.artifact_id = a.id) AS events"
			   " FROM artifact a WHERE a.status IN ('partial', 'failed')"
			   " ORDER BY a.id", ANSWER_DAMAGED);

	return a ? a : json_array();
}
