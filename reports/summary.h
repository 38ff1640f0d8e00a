/*
 * summary.h -- the incident at a glance, shared by the three report forms:
 * the verdict, when the OOM happened and whom it killed, the peak of the
 * memory that ran out against its limit, and the strongest finding with its
 * lead figure. Also the number formatting the reports share (bytes,
 * figures named with their unit in the key).
 *
 * Every string here is raw text from the database (UTF-8 cleaned): each
 * report escapes it for its own output.
 */
#ifndef OOMLENS_SUMMARY_H
#define OOMLENS_SUMMARY_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>

#include "lib/strbuf.h"

struct report_summary {
	int has_verdict;
	struct strbuf vclass, cause, vsummary, missing;
	double confidence;          /* NAN when unknown */

	/* first OOM-like event (oom_kill, oom_invoked, torch_oom, ...) */
	int has_oom;
	struct strbuf oom_kind;
	int64_t oom_ns;             /* OL_NULL when not on UTC */
	int64_t oom_boot_ns;        /* OL_NULL when unknown */

	/* the process the OOM took: first oom_kill (else torch_oom/crash) */
	int has_victim;
	int64_t victim_pid;         /* OL_NULL when unknown */
	struct strbuf victim_comm, victim_kind;
	int64_t victim_bytes;       /* event bytes (anon-rss freed, bytes requested) */

	/* peak of the memory that ran out */
	int has_peak;
	struct strbuf peak_series;  /* "gpu.used_bytes gpu0" */
	double peak_bytes;
	int64_t peak_ns;
	double limit_bytes;         /* NAN when no limit is known */
	struct strbuf limit_what;   /* "gpu.total_bytes gpu0", "cgroup.max_bytes" */

	/* strongest finding */
	int n_findings;
	struct strbuf top_title;
	struct strbuf top_key, top_value;    /* "slope_mb_per_hour", "+512.0 MiB/h" */
};

/* Fill s from db (every field set, unknowns as documented). 0 or -1. */
int report_summary_load(sqlite3 *db, struct report_summary *s);
void report_summary_release(struct report_summary *s);

/* "79.1 GiB", "512 B", "-3.0 MiB" (binary prefixes). */
void fmt_bytes(char *buf, size_t n, double bytes);
/* A finding figure for people: the unit is read from the key's suffix
 * (_bytes, _mb_per_hour, _ns, _ratio, _percent, _s, r2 ...). Strings are
 * copied as they are (caller escapes). */
void fmt_figure(struct strbuf *out, const char *key, const json_t *v);
/* A time: ISO 8601 UTC, or "boot+12.345s (not on UTC)", or "unknown". */
void fmt_time(char *buf, size_t n, int64_t utc_ns, int64_t boot_ns);
/* Append column col of st as raw text (UTF-8 cleaned); nothing if NULL. */
void col_text(struct strbuf *sb, sqlite3_stmt *st, int col);

#endif
