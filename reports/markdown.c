/*
 * markdown.c -- the short summary to paste into a GitHub or Jira ticket:
 * the verdict, the key figures, the top findings with their advice, the
 * process killed, what could not be determined, and the artifacts read.
 * Every string from the database goes through strbuf_add_md (markup
 * characters backslash-escaped, '<' and '&' as entities, newlines folded),
 * so an artifact cannot inject links, images or HTML into the ticket.
 */
#include "reports/report.h"
#include "analyzer/store/query.h"
#include "reports/summary.h"
#include "lib/common.h"
#include "lib/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#define MD_FINDINGS 5
#define MD_ARTIFACTS 30

static void md(struct strbuf *sb, const char *s, size_t n)
{
	struct strbuf u = STRBUF_INIT;

	strbuf_add_utf8(&u, s, n);
	strbuf_add_md(sb, u.buf, u.len);
	strbuf_release(&u);
}

static void md_col(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	if (!s)
		strbuf_addstr(sb, "-");
	else
		md(sb, s, (size_t)sqlite3_column_bytes(st, col));
}

static void md_head(struct strbuf *sb, struct report_summary *s)
{
	char buf[64], buf2[64];

	strbuf_addstr(sb, "## OOM incident: ");
	if (s->has_verdict) {
		md(sb, s->vclass.buf, s->vclass.len);
		if (s->cause.len) {
			strbuf_addstr(sb, " (");
			md(sb, s->cause.buf, s->cause.len);
			strbuf_addstr(sb, ")");
		}
	} else {
		strbuf_addstr(sb, "no verdict");
	}
	strbuf_addstr(sb, "\n\n");
	if (s->has_verdict) {
		strbuf_addstr(sb, "**Verdict:** ");
		md(sb, s->vclass.buf, s->vclass.len);
		if (isfinite(s->confidence))
			strbuf_addf(sb, ", confidence %.0f %%", s->confidence * 100);
		if (s->vsummary.len) {
			strbuf_addstr(sb, ". ");
			md(sb, s->vsummary.buf, s->vsummary.len);
		}
		strbuf_addstr(sb, "\n\n");
	}
	if (s->has_oom) {
		fmt_time(buf, sizeof(buf), s->oom_ns, s->oom_boot_ns);
		strbuf_addstr(sb, "- **First OOM event:** ");
		strbuf_addstr(sb, buf);
		strbuf_addstr(sb, " (");
		md(sb, s->oom_kind.buf, s->oom_kind.len);
		strbuf_addstr(sb, ")\n");
	}
	if (s->has_victim && !strcmp(s->victim_kind.buf, "torch_oom") &&
	    s->victim_bytes != OL_NULL) {
		fmt_bytes(buf, sizeof(buf), (double)s->victim_bytes);
		strbuf_addf(sb, "- **Failed allocation:** %s, CUDA out of memory (torch_oom)", buf);
		if (s->victim_pid != OL_NULL)
			strbuf_addf(sb, ", pid %lld", (long long)s->victim_pid);
	} else if (s->has_victim) {
		strbuf_addstr(sb, "- **Killed:** ");
		if (s->victim_comm.len)
			md(sb, s->victim_comm.buf, s->victim_comm.len);
		else
			strbuf_addstr(sb, "name unknown");
		if (s->victim_pid != OL_NULL)
			strbuf_addf(sb, " (pid %lld)", (long long)s->victim_pid);
		strbuf_addstr(sb, ", ");
		md(sb, s->victim_kind.buf, s->victim_kind.len);
		if (s->victim_bytes != OL_NULL) {
			fmt_bytes(buf, sizeof(buf), (double)s->victim_bytes);
			strbuf_addf(sb, ", %s freed", buf);
		}
	} else {
		strbuf_addstr(sb, "- **Killed:** unknown (no kill recorded)");
	}
	strbuf_addstr(sb, "\n- **Peak memory:** ");
	if (s->has_peak) {
		fmt_bytes(buf, sizeof(buf), s->peak_bytes);
		strbuf_addf(sb, "%s (", buf);
		md(sb, s->peak_series.buf, s->peak_series.len);
		strbuf_addstr(sb, ")");
		if (isfinite(s->limit_bytes) && s->limit_bytes > 0) {
			fmt_bytes(buf2, sizeof(buf2), s->limit_bytes);
			strbuf_addf(sb, ", %.1f %% of %s (", 100 * s->peak_bytes / s->limit_bytes, buf2);
			md(sb, s->limit_what.buf, s->limit_what.len);
			strbuf_addstr(sb, ")");
		}
	} else {
		strbuf_addstr(sb, "unknown (no memory series)");
	}
	strbuf_addstr(sb, "\n");
	if (s->top_key.len) {
		strbuf_addstr(sb, "- **");
		md(sb, s->top_key.buf, s->top_key.len);
		strbuf_addstr(sb, ":** ");
		md(sb, s->top_value.buf, s->top_value.len);
		strbuf_addstr(sb, "\n");
	}
	strbuf_addstr(sb, "\n");
}

static void md_findings(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st = q_prepare(db, "SELECT title, rule, class, cause, score, advice, figures"
					 " FROM finding ORDER BY score DESC, id LIMIT 5");
	int n = 0;
	int64_t total;

	strbuf_addstr(sb, "### Findings\n\n");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_t *f = NULL, *v;
		const char *key;
		int k = 0;

		n++;
		strbuf_addf(sb, "%d. **", n);
		md_col(sb, st, sqlite3_column_type(st, 0) != SQLITE_NULL ? 0 : 1);
		strbuf_addstr(sb, "** (");
		md_col(sb, st, 2);
		if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
			strbuf_addstr(sb, ", ");
			md_col(sb, st, 3);
		}
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			strbuf_addf(sb, ", score %.2f", sqlite3_column_double(st, 4));
		strbuf_addstr(sb, ")");
		if (sqlite3_column_type(st, 6) == SQLITE_TEXT)
			f = json_loads((const char *)sqlite3_column_text(st, 6), 0, NULL);
		if (json_is_object(f)) {
			json_object_foreach(f, key, v) {
				struct strbuf val = STRBUF_INIT;
				if (k == 6)
					break;
				fmt_figure(&val, key, v);
				strbuf_addstr(sb, k++ ? ", " : "\n   ");
				md(sb, key, strlen(key));
				strbuf_addstr(sb, " ");
				md(sb, val.buf, val.len);
				strbuf_release(&val);
			}
		}
		json_decref(f);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			strbuf_addstr(sb, "\n   *Advice:* ");
			md_col(sb, st, 5);
		}
		strbuf_addstr(sb, "\n");
	}
	sqlite3_finalize(st);
	total = q_int(db, "SELECT count(*) FROM finding", n);
	if (!n)
		strbuf_addstr(sb, "No rule found enough evidence to classify the incident.\n");
	else if (total > n)
		strbuf_addf(sb, "\n%lld more findings in the full report.\n", (long long)(total - n));
	strbuf_addstr(sb, "\n");
}

static void md_kills(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st = q_prepare(db, "SELECT time_ns, boot_ns, kind, pid, comm, bytes FROM event"
					 " WHERE kind IN ('oom_kill', 'userspace_kill', 'torch_oom')"
					 " ORDER BY time_ns IS NULL, time_ns, boot_ns, id LIMIT 10");
	int n = 0;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char buf[64], b[32];
		if (!n++)
			strbuf_addstr(sb, "### Processes killed or failed\n\n| time (UTC) | event | pid |"
					  " process | bytes |\n|---|---|---:|---|---:|\n");
		fmt_time(buf, sizeof(buf),
			 sqlite3_column_type(st, 0) == SQLITE_NULL ? OL_NULL : sqlite3_column_int64(st, 0),
			 sqlite3_column_type(st, 1) == SQLITE_NULL ? OL_NULL : sqlite3_column_int64(st, 1));
		strbuf_addstr(sb, "| ");
		strbuf_addstr(sb, buf);
		strbuf_addstr(sb, " | ");
		md_col(sb, st, 2);
		strbuf_addstr(sb, " | ");
		md_col(sb, st, 3);
		strbuf_addstr(sb, " | ");
		md_col(sb, st, 4);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			fmt_bytes(b, sizeof(b), sqlite3_column_double(st, 5));
			strbuf_addf(sb, " | %s |\n", b);
		} else {
			strbuf_addstr(sb, " | - |\n");
		}
	}
	sqlite3_finalize(st);
	if (n)
		strbuf_addstr(sb, "\n");
}

static void md_unknowns(struct strbuf *sb, sqlite3 *db, struct report_summary *s)
{
	int64_t boot = q_int(db, "SELECT count(*) FROM event WHERE time_ns IS NULL", 0);

	if (!s->missing.len && !boot)
		return;
	strbuf_addstr(sb, "### Not determined\n\n");
	if (s->missing.len) {
		strbuf_addstr(sb, "- Missing evidence: ");
		md(sb, s->missing.buf, s->missing.len);
		strbuf_addstr(sb, "\n");
	}
	if (boot)
		strbuf_addf(sb, "- %lld events only on the boot clock (not placed on UTC)\n",
			    (long long)boot);
	strbuf_addstr(sb, "\n");
}

static void md_artifacts(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st = q_prepare(db, "SELECT path, kind, status, errors, warnings FROM artifact"
					 " ORDER BY id LIMIT 30");
	int64_t total = q_int(db, "SELECT count(*) FROM artifact", 0);
	int n = 0;

	strbuf_addstr(sb, "### Artifacts\n\n| file | kind | status | errors | warnings |\n"
			  "|---|---|---|---:|---:|\n");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(sb, "| ");
		md_col(sb, st, 0);
		strbuf_addstr(sb, " | ");
		md_col(sb, st, 1);
		strbuf_addstr(sb, " | ");
		md_col(sb, st, 2);
		strbuf_addf(sb, " | %lld | %lld |\n", (long long)sqlite3_column_int64(st, 3),
			    (long long)sqlite3_column_int64(st, 4));
		n++;
	}
	sqlite3_finalize(st);
	if (total > n)
		strbuf_addf(sb, "\n%lld more artifacts in the database.\n", (long long)(total - n));
}

int report_markdown(sqlite3 *db, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct report_summary s;
	int r;

	if (report_summary_load(db, &s) < 0) {
		report_summary_release(&s);
		return -1;
	}
	md_head(&sb, &s);
	md_findings(&sb, db);
	md_kills(&sb, db);
	md_unknowns(&sb, db, &s);
	md_artifacts(&sb, db);
	strbuf_addf(&sb, "\n_oomlens %s: the full HTML report and the incident database hold the"
		    " timeline and every row behind these figures._\n", OOMLENS_VERSION);
	report_summary_release(&s);
	r = fwrite(sb.buf, 1, sb.len, out) == sb.len ? 0 : -1;
	strbuf_release(&sb);
	return r;
}
