/*
 * summary.c -- the incident at a glance (see summary.h): verdict, OOM
 * time and victim, peak against limit, strongest finding; and the number
 * formatting the reports share.
 */
#include "reports/summary.h"
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "lib/bytes.h"
#include "lib/timeutil.h"
#include "lib/common.h"
#include "lib/mem_family.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Append column col of st as raw text (UTF-8 cleaned); nothing if NULL. */
static void col_text(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	if (s)
		strbuf_add_utf8(sb, s, (size_t)sqlite3_column_bytes(st, col));
}

static int64_t col_int(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? OL_NULL
							   : sqlite3_column_int64(st, col);
}

void summary_add_escaped(struct strbuf *sb, const char *s, size_t n,
		 int (*escape)(struct strbuf *, const char *, size_t))
{
	struct strbuf u = STRBUF_INIT;

	strbuf_add_utf8(&u, s, n);
	escape(sb, u.buf, u.len);
	strbuf_inherit(sb, &u);
	strbuf_release(&u);
}

void summary_add_value(struct strbuf *sb, const json_t *v,
	       int (*escape)(struct strbuf *, const char *, size_t), const char *null_text)
{
	char buf[40];
	const char *s;
	long n = jv_text(v, buf, sizeof(buf), &s);

	if (n < 0)
		strbuf_addstr(sb, null_text);
	else
		summary_add_escaped(sb, s, (size_t)n, escape);
}

int peak_share(const struct report_summary *s, double *percent, char *limit, size_t n)
{
	if (!s->has_peak || !isfinite(s->limit_bytes) || s->limit_bytes <= 0)
		return 0;
	*percent = 100 * s->peak_bytes / s->limit_bytes;
	fmt_bytes(limit, n, s->limit_bytes);
	return 1;
}

void fmt_bytes(char *buf, size_t n, double b)
{
	ol_fmt_bytes(buf, n, b);
}

void fmt_time(char *buf, size_t n, int64_t utc_ns, int64_t boot_ns)
{
	if (utc_ns != OL_NULL)
		format_iso8601(utc_ns, buf, n);
	else if (boot_ns != OL_NULL)
		snprintf(buf, n, "boot+%.3fs (not on UTC)", (double)boot_ns / 1e9);
	else
		snprintf(buf, n, "unknown");
}

int summary_oom_kills(const char *kind)
{
	static const char *const kills[] = {
		"kernel_oom", "memcg_oom", "userspace_kill", "k8s_oom_kill", "k8s_eviction",
		"slurm_oom", "lsf_memlimit", "systemd_unit_oom", NULL
	};
	int i;

	for (i = 0; kind && kills[i]; i++)
		if (!strcmp(kind, kills[i]))
			return 1;
	return 0;
}

int summary_own_failure(const struct report_summary *s)
{
	/* the event kinds that name a process killed for memory */
	static const char *const killed[] = {
		"oom_kill", "oom_reaper", "userspace_kill", "systemd_unit_oom", "slurm_oom",
		"lsf_memlimit",
		"k8s_oom_kill", "k8s_eviction", NULL
	};
	int i;

	if (!s->has_oom || summary_oom_kills(s->oom_kind.buf))
		return 0;
	for (i = 0; s->has_victim && killed[i]; i++)
		if (!strcmp(s->victim_kind.buf, killed[i]))
			return 0;
	return 1;
}

void fmt_oom_time(char *buf, size_t n, int64_t utc_ns, int64_t boot_ns)
{
	if (utc_ns == OL_NULL && boot_ns == OL_NULL)
		snprintf(buf, n, "time not recorded");
	else
		fmt_time(buf, n, utc_ns, boot_ns);
}

static int ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

void fmt_figure(struct strbuf *out, const char *key, const json_t *v)
{
	char buf[64];
	double d;

	if (json_is_string(v)) {
		strbuf_add_utf8(out, json_string_value(v), json_string_length(v));
		return;
	}
	if (json_is_boolean(v)) {
		strbuf_addstr(out, json_is_true(v) ? "yes" : "no");
		return;
	}
	if (!json_is_number(v)) {
		strbuf_addstr(out, json_is_null(v) ? "unknown" : "(structured)");
		return;
	}
	d = json_number_value(v);
	if (ends(key, "_bytes")) {
		fmt_bytes(buf, sizeof(buf), d);
		strbuf_addstr(out, buf);
	} else if (ends(key, "_mb_per_hour")) {
		strbuf_addf(out, "%+.1f MiB/h", d);
	} else if (ends(key, "_bytes_per_request")) {
		fmt_bytes(buf, sizeof(buf), d);
		strbuf_addf(out, "%s per request", buf);
	} else if (ends(key, "_ns") && d > 1e17 && d < 9e18) { /* a time: after 1973 */
		format_iso8601((int64_t)d, buf, sizeof(buf));
		strbuf_addstr(out, buf);
	} else if (ends(key, "_ns")) {             /* a duration */
		strbuf_addf(out, "%.3f s", d / 1e9);
	} else if (ends(key, "_s") || ends(key, "_seconds")) {
		/* a duration in the unit a reader counts it in */
		if (fabs(d) >= 7200)
			strbuf_addf(out, "%.1f h", d / 3600);
		else if (fabs(d) >= 120)
			strbuf_addf(out, "%.0f min", d / 60);
		else
			strbuf_addf(out, "%.3g s", d);
	} else if (ends(key, "_percent") || !strncmp(key, "kv_usage", 8)) {
		/* KV-cache usage is stored in percent (docs/schema.md) */
		strbuf_addf(out, "%.1f %%", d);
	} else if (ends(key, "_ratio") || ends(key, "_fraction")) {
		strbuf_addf(out, "%.2f (%.0f %%)", d, d * 100);
	} else if (json_is_integer(v)) {
		strbuf_addf(out, "%lld", (long long)json_integer_value(v));
	} else {
		strbuf_addf(out, "%.4g", d);
	}
}

/* The figure a reader looks at first, by name; else the first one. */
static const char *const lead_figures[] = {
	"slope_mb_per_hour", "peak_over_baseline_ratio", "headroom_bytes",
	"contexts_per_device", "largest_free_block_bytes", "rise_top_bytes",
	"needed_bytes", "fill_ratio", "largest_other_bytes", "non_pytorch_share",
	"memcg_usage_bytes", "victim_rss_bytes", "request_over_card_ratio", NULL
};

/* The strongest finding (the first of the findings model) and its lead
 * figure. */
static void top_finding(struct report_ctx *c, struct report_summary *s)
{
	const json_t *fs = report_model(c, "findings");
	const json_t *f = json_array_get(model_rows(fs), 0);
	const json_t *fig = json_object_get(f, "figures"), *v = NULL, *t;
	const char *key = NULL;
	int i;

	s->n_findings = (int)model_total(fs);
	if (!f)
		return;
	t = json_object_get(f, "title");
	if (!json_is_string(t) || !json_string_length(t))
		t = json_object_get(f, "rule");
	if (json_is_string(t))
		strbuf_add(&s->top_title, json_string_value(t), json_string_length(t));
	if (!json_is_object(fig))
		return;
	for (i = 0; lead_figures[i] && !v; i++)
		if ((v = json_object_get(fig, lead_figures[i])))
			key = lead_figures[i];
	if (!v) {
		void *it = json_object_iter((json_t *)fig);
		while (it && figure_hidden(json_object_iter_key(it)))
			it = json_object_iter_next((json_t *)fig, it);
		if (it) {
			key = json_object_iter_key(it);
			v = json_object_iter_value(it);
		}
	}
	if (v) {
		strbuf_add_utf8(&s->top_key, key, strlen(key));
		fmt_figure(&s->top_value, key, v);
	}
}

/* No series of a known kind: the memory series the strongest finding
 * read (a Grafana panel the rules took for memory in use), named as such. */
static void finding_peak(struct report_ctx *c, struct report_summary *s)
{
	sqlite3_stmt *st = r_prepare(c,
		"SELECT s.name, s.entity, m.value, m.time_ns, m.boot_ns FROM evidence e"
		" JOIN finding f ON f.id = e.finding_id JOIN series s ON s.id = e.ref_id"
		" JOIN sample m ON m.series_id = s.id WHERE e.ref_table = 'series'"
		" AND f.class IN ('leak', 'spike', 'misconfig') AND m.value IS NOT NULL"
		" AND coalesce(s.unit, '') IN ('', 'bytes')"
		" ORDER BY f.score DESC, f.id, m.value DESC LIMIT 1");

	if (st && sqlite3_step(st) == SQLITE_ROW) {
		s->has_peak = 1;
		col_text(&s->peak_series, st, 0);
		if (sqlite3_column_type(st, 1) == SQLITE_TEXT) {
			strbuf_addch(&s->peak_series, ' ');
			strbuf_add_utf8(&s->peak_series, (const char *)sqlite3_column_text(st, 1),
					(size_t)sqlite3_column_bytes(st, 1));
		}
		strbuf_addstr(&s->peak_series, ", the series the finding read");
		s->peak_bytes = sqlite3_column_double(st, 2);
		s->peak_ns = col_int(st, 3);
		s->peak_untimed = s->peak_ns == OL_NULL && col_int(st, 4) == OL_NULL;
	}
	sqlite3_finalize(st);
}

/* A PyTorch OOM's words as its backend prints them, from the OOM's
 * wording family and scope (oom.family, oom.scope): PyTorch's message
 * names the device type ("XPU out of memory", "MPS backend out of
 * memory": lib/mem_family.h's torch_words); CUDA's unless the row says
 * otherwise. */
static const char *torch_words(const char *family, const char *scope)
{
	const struct mem_family *mf = mem_family_find(family);

	if (mf && mf->torch_words)
		return mf->torch_words;
	if (scope && strcmp(scope, "gpu") && strcmp(scope, "host"))
		return "out of memory";
	return "CUDA out of memory";
}


int report_summary_load(struct report_ctx *c, struct report_summary *s)
{
	sqlite3_stmt *st;
	int i;

	memset(s, 0, sizeof(*s));
	strbuf_init(&s->vclass);
	strbuf_init(&s->cause);
	strbuf_init(&s->vsummary);
	strbuf_init(&s->missing);
	strbuf_init(&s->oom_kind);
	strbuf_init(&s->victim_comm);
	strbuf_init(&s->victim_kind);
	strbuf_init(&s->peak_series);
	strbuf_init(&s->peak_account);
	strbuf_init(&s->peak_measure);
	strbuf_init(&s->peak_file);
	strbuf_init(&s->limit_what);
	strbuf_init(&s->top_title);
	strbuf_init(&s->top_key);
	strbuf_init(&s->top_value);
	for (i = 0; i < KREADING; i++)
		strbuf_init(&s->kernel[i]);
	s->card_total = s->card_req = s->card_alloc = s->card_cache = s->card_nonpt = NAN;
	s->card_others = s->card_outside = s->card_free = NAN;
	s->confidence = NAN;
	s->oom_ns = s->oom_boot_ns = s->oom_req = s->victim_pid = s->victim_bytes = s->peak_ns = OL_NULL;
	s->limit_bytes = NAN;

	st = r_prepare(c, "SELECT class, cause, confidence, summary, missing, phase, basis FROM verdict"
			  " ORDER BY id LIMIT 1");
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		s->has_verdict = 1;
		s->verdict = q_row(st);
		col_text(&s->vclass, st, 0);
		col_text(&s->cause, st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
			/* a confidence is 0..1: one clamp here for every format */
			double c = sqlite3_column_double(st, 2);
			s->confidence = c < 0 ? 0 : c > 1 ? 1 : c;
		}
		col_text(&s->vsummary, st, 3);
		col_text(&s->missing, st, 4);
	}
	sqlite3_finalize(st);

	/* the OOM, row 1 of the derived table oom, and the incident's victim,
	 * its view oom_victim (analyzer/derive/oom.c); a PyTorch OOM's
	 * "victim" bytes are its failed allocation */
	st = r_prepare(c, "SELECT kind, time_ns, boot_ns, CAST(requested_bytes AS INTEGER),"
		       " family, scope FROM oom WHERE id = 1");
	s->torch_said = "CUDA out of memory";
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		s->has_oom = 1;
		col_text(&s->oom_kind, st, 0);
		s->oom_ns = col_int(st, 1);
		s->oom_boot_ns = col_int(st, 2);
		s->oom_req = col_int(st, 3);
		s->torch_said = torch_words((const char *)sqlite3_column_text(st, 4),
					    (const char *)sqlite3_column_text(st, 5));
	}
	sqlite3_finalize(st);

	st = r_prepare(c, "SELECT kind, pid, comm, bytes FROM oom_victim");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		s->has_victim = 1;
		col_text(&s->victim_kind, st, 0);
		s->victim_pid = col_int(st, 1);
		col_text(&s->victim_comm, st, 2);
		s->victim_bytes = col_int(st, 3);
	}
	sqlite3_finalize(st);

	summary_peak_load(c, s);
	summary_profile_load(c, s);
	if (!s->has_peak)
		finding_peak(c, s);
	summary_reading_load(c, s);
	top_finding(c, s);
	return 0;
}

int summary_is_profile(const struct report_summary *s)
{
	return s->has_verdict && !strcmp(s->vclass.buf, "no_oom");
}

int report_summary_failed(const struct report_summary *s)
{
	int i;

	for (i = 0; i < s->n_kernel; i++)
		if (strbuf_failed(&s->kernel[i]))
			return 1;
	return strbuf_failed(&s->vclass) || strbuf_failed(&s->cause) ||
	       strbuf_failed(&s->vsummary) || strbuf_failed(&s->missing) ||
	       strbuf_failed(&s->oom_kind) || strbuf_failed(&s->victim_comm) ||
	       strbuf_failed(&s->victim_kind) || strbuf_failed(&s->peak_series) ||
	       strbuf_failed(&s->peak_account) || strbuf_failed(&s->peak_measure) ||
	       strbuf_failed(&s->peak_file) ||
	       strbuf_failed(&s->limit_what) || strbuf_failed(&s->top_title) ||
	       strbuf_failed(&s->top_key) || strbuf_failed(&s->top_value);
}

void report_summary_release(struct report_summary *s)
{
	int i;

	for (i = 0; i < KREADING; i++)
		strbuf_release(&s->kernel[i]);
	json_decref(s->verdict);
	s->verdict = NULL;
	strbuf_release(&s->vclass);
	strbuf_release(&s->cause);
	strbuf_release(&s->vsummary);
	strbuf_release(&s->missing);
	strbuf_release(&s->oom_kind);
	strbuf_release(&s->victim_comm);
	strbuf_release(&s->victim_kind);
	strbuf_release(&s->peak_series);
	strbuf_release(&s->peak_account);
	strbuf_release(&s->peak_measure);
	strbuf_release(&s->peak_file);
	json_decref(s->peaks);
	s->peaks = NULL;
	json_decref(s->profile);
	s->profile = NULL;
	strbuf_release(&s->limit_what);
	strbuf_release(&s->top_title);
	strbuf_release(&s->top_key);
	strbuf_release(&s->top_value);
}
