/*
 * ledger_lines.c -- the ledger's lines and figures: adding a line to an
 * account (with its label, certainty, moment and source), a figure read
 * from a series or a meta value with the artifact it came from, and the
 * balance of an account (what its lines leave unexplained or count
 * twice). Shared by the card accounts (ledger.c), PyTorch's lines
 * (ledger_torch.c) and the host's (ledger_host.c).
 */
#include "analyzer/derive/ledger_impl.h"
#include "analyzer/store/samples.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A rest smaller than this is the rounding of printed figures (an engine
 * prints GiB to two decimals), not a line: 16 MiB or 0.1% of the whole. */
#define REST_MIN(whole) fmax(16 * MIB, 0.001 * fabs(whole))

static const struct { const char *line, *label; } labels[] = {
	{ "capacity", "capacity" }, { "in_use", "in use" },
	{ "weights", "weights" }, { "kv_cache", "KV cache" }, { "cuda_graphs", "CUDA graphs" },
	{ "activations", "activations and other PyTorch tensors" },
	{ "pytorch_cache", "cached by PyTorch, not allocated" },
	{ "non_pytorch", "outside PyTorch in this process (CUDA context, NCCL, cuBLAS workspaces)" },
	{ "other_processes", "other processes" }, { "process", "the process" },
	{ "victim", "the killed process (RSS)" }, { "other_tasks", "other tasks (RSS)" },
	{ "anon", "anonymous memory" }, { "page_cache", "page cache" }, { "shmem", "shared memory" },
	{ "unexplained", "unexplained" }, { "over_counted", "over-counted" },
	{ "free", "free" }, { "swap", "in swap" },
	{ "allocated_peak", "PyTorch's peak allocated" },
	{ "reserved_peak", "PyTorch's peak reserved" },
};


struct lline *ledger_add(struct account *a, const char *line, double bytes, int part,
			 const char *certainty, const char *moment, const char *ref_table,
			 int64_t ref_id, const char *fmt, ...)
{
	struct lline *l;
	va_list ap;
	size_t i;

	if (a->n == LEDGER_LINES || !isfinite(bytes) || bytes < 0)
		return NULL;
	l = &a->l[a->n++];
	memset(l, 0, sizeof(*l));
	l->line = line;
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i].line, line))
			snprintf(l->label, sizeof(l->label), "%s", labels[i].label);
	l->bytes = bytes;
	l->part = part;
	l->certainty = certainty;
	l->moment = moment;
	l->ref_table = ref_table;
	l->ref_id = ref_id;
	va_start(ap, fmt);
	vsnprintf(l->source, sizeof(l->source), fmt, ap);
	va_end(ap);
	return l;
}

struct lline *ledger_find(struct account *a, const char *line)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->l[i].line, line))
			return &a->l[i];
	return NULL;
}

/* The file name of artifact id into buf ("" when unknown). */
const char *ledger_art_name(struct rule_ctx *c, int64_t id, char *buf, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT path FROM artifact WHERE id = ?");
	const char *p, *slash;

	buf[0] = 0;
	if (!st)
		return buf;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && (p = (const char *)sqlite3_column_text(st, 0))) {
		slash = strrchr(p, '/');
		snprintf(buf, n, "%s", slash && slash[1] ? slash + 1 : p);
	}
	sqlite3_finalize(st);
	return buf;
}

double ledger_col_size(sqlite3_stmt *st, int i)
{
	double v;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return -1;
	v = sqlite3_column_double(st, i);
	return isfinite(v) && v >= 0 && v < 1e19 ? v : -1;
}

/* The moment a series value read at the OOM stands for. */
const char *ledger_at_oom(const struct rule_ctx *c)
{
	return c->oom_ns == OL_NULL ? "last sample" : "OOM";
}

void ledger_fig_set(struct fig *f, double v, const char *certainty, const char *moment,
		    const char *ref_table, int64_t ref_id, const char *source)
{
	f->v = v;
	f->certainty = certainty;
	f->moment = moment;
	f->ref_table = ref_table;
	f->ref_id = ref_id;
	snprintf(f->source, sizeof(f->source), "%s", source);
}

struct lline *ledger_add_fig(struct account *a, const char *line, int part, const struct fig *f)
{
	if (f->v < 0)
		return NULL;
	return ledger_add(a, line, f->v, part, f->certainty, f->moment, f->ref_table, f->ref_id, "%s",
		   f->source);
}

/* The last sample of the series (name, entity) with a value at or
 * before until_ns, over every series of that name and entity: the one of
 * the greatest time (then rowid), else, none being timed, the last
 * untimed one in the order read (a memory_stats dump counts after every
 * timed one) -- what ORDER BY time_ns IS NULL, time_ns DESC, rowid DESC
 * gave. 1 and *best set, 0 none, -1 failed. */
static int last_sample(struct rule_ctx *c, const char *name, const char *entity, int64_t until_ns,
		       struct sample_rec *best, int64_t *sid, int64_t *art)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT id, artifact_id FROM series"
				      " WHERE name = ?1 AND entity = ?2");
	int found = 0;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, entity, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct samples_iter it;
		const struct sample_rec *r;
		if (samples_iter_open(&it, c->db, sqlite3_column_int64(st, 0), SI_VALUED, 0, 0) < 0) {
			rl_fail(c, it.err);
			found = -1;
			break;
		}
		while ((r = samples_iter_next(&it))) {
			if (r->has_time && r->time_ns > until_ns)
				continue;
			if (found && (best->has_time ? !r->has_time || r->time_ns < best->time_ns ||
						      (r->time_ns == best->time_ns &&
						       r->rowid < best->rowid)
						    : !r->has_time && r->rowid < best->rowid))
				continue;
			*best = *r;
			*sid = sqlite3_column_int64(st, 0);
			*art = sqlite3_column_int64(st, 1);
			found = 1;
		}
		samples_iter_close(&it);
	}
	sqlite3_finalize(st);
	return found;
}

int64_t ledger_sample_art(struct rule_ctx *c, int64_t sid, int64_t rowid, int64_t fallback)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT artifact_id FROM sample_block"
		" WHERE parent = ?1 AND ?2 >= first_rowid AND ?2 < first_rowid + rows LIMIT 1");
	int64_t art = fallback;

	if (!st)
		return fallback;
	sqlite3_bind_int64(st, 1, sid);
	sqlite3_bind_int64(st, 2, rowid);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		art = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return art;
}

/* A series' value on one entity: its highest (at_oom 0) or the last at
 * or before the OOM (1), with the series id and its file. 0, or -1. */
int ledger_series_fig(struct rule_ctx *c, const char *name, const char *entity, int last,
		      const char *what, struct fig *f)
{
	sqlite3_stmt *st = NULL;
	struct sample_rec rec = { 0 };
	char name_buf[160], src[240];
	int64_t sid = 0, art = 0, rowid = 0;
	double v = -1;
	int r = -1, untimed = 0;

	if (last) {
		if (last_sample(c, name, entity, c->oom_ns == OL_NULL ? INT64_MAX : c->oom_ns, &rec,
				&sid, &art) != 1)
			return -1;
		v = isfinite(rec.value) && rec.value >= 0 && rec.value < 1e19 ? rec.value : -1;
		untimed = !rec.has_time;
		art = ledger_sample_art(c, sid, rec.rowid, art);
	} else {
		st = rl_prepare(c, "SELECT s.id, s.artifact_id, p.value, p.rowid FROM series s JOIN sample p"
				" ON p.series_id = s.id WHERE s.name = ?1 AND s.entity = ?2"
				" AND p.value IS NOT NULL ORDER BY p.value DESC LIMIT 1");
		if (!st)
			return -1;
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, entity, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW) {
			sid = sqlite3_column_int64(st, 0);
			art = sqlite3_column_int64(st, 1);
			v = ledger_col_size(st, 2);
			rowid = sqlite3_column_int64(st, 3);
		}
		sqlite3_finalize(st);
		if (v >= 0)
			art = ledger_sample_art(c, sid, rowid, art);
	}
	if (v >= 0) {
		snprintf(src, sizeof(src), "%s %s %s (%s)", what, name, entity,
			 ledger_art_name(c, art, name_buf, sizeof(name_buf)));
		ledger_fig_set(f, v, "measured", !last ? "highest sample" :
			untimed ? "last sample" : ledger_at_oom(c), "series", sid, src);
		r = 0;
	}
	return r;
}

/* A numeric meta value of key, with its file. 0, or -1. */
int ledger_meta_fig(struct rule_ctx *c, const char *key, const char *certainty, struct fig *f)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT rowid, artifact_id, CAST(value AS REAL) FROM meta"
				      " WHERE key = ? AND value GLOB '[0-9]*' ORDER BY rowid DESC LIMIT 1");
	char name[160], src[240];
	int r = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW && ledger_col_size(st, 2) > 0) {
		snprintf(src, sizeof(src), "%s (%s)", key,
			 ledger_art_name(c, sqlite3_column_int64(st, 1), name, sizeof(name)));
		ledger_fig_set(f, ledger_col_size(st, 2), certainty, "as configured", "meta",
			sqlite3_column_int64(st, 0), src);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

/* Why a's slices add up to more than the whole, from the slices
 * themselves, into buf: moments that differ (the engine's start-up
 * figures against the OOM's) are named with their lines; else sources
 * that differ count some memory twice; else one source's own printed
 * figures overlap by their rounding. Returns buf. */
static const char *why_over_of(const struct account *a, char *buf, size_t n)
{
	const char *moment[LEDGER_LINES];
	int i, j, nm = 0, nsrc = 0;
	size_t len;

	buf[0] = 0;
	for (i = 0; i < a->n; i++) {
		const struct lline *l = &a->l[i];
		if (!l->part || !strcmp(l->line, "free"))
			continue;
		for (j = 0; j < nm && strcmp(moment[j], l->moment); j++)
			;
		if (j == nm)
			moment[nm++] = l->moment;
		for (j = 0; j < i; j++)
			if (a->l[j].part && strcmp(a->l[j].line, "free") &&
			    !strcmp(a->l[j].source, l->source))
				break;
		nsrc += j == i;
	}
	if (nm > 1) {
		snprintf(buf, n, "figures from different moments (");
		for (j = 0; j < nm; j++) {
			len = strlen(buf);
			snprintf(buf + len, n - len, "%s%s:", j ? "; " : "", moment[j]);
			for (i = 0; i < a->n; i++)
				if (a->l[i].part && strcmp(a->l[i].line, "free") &&
				    !strcmp(a->l[i].moment, moment[j])) {
					len = strlen(buf);
					snprintf(buf + len, n - len, " %s,", a->l[i].label);
				}
			len = strlen(buf);
			if (len && buf[len - 1] == ',')
				buf[len - 1] = 0;
		}
		len = strlen(buf);
		snprintf(buf + len, n - len, ")");
	} else if (nsrc > 1) {
		snprintf(buf, n, "figures from different sources at the same moment count some memory"
			 " twice");
	} else {
		snprintf(buf, n, "the source's own figures overlap (its printed rounding)");
	}
	return buf;
}

/* A slice larger than the whole it is a slice of is no slice: it stays,
 * as a note saying so (a count of other processes that includes this
 * one, WDDM's shared memory counted as the card's). */
static void cap_slices(struct account *a, double whole)
{
	int i;
	size_t len;

	for (i = 0; i < a->n; i++) {
		struct lline *l = &a->l[i];
		if (!l->part || !strcmp(l->line, "free") || l->bytes <= whole + REST_MIN(whole))
			continue;
		l->part = 0;
		len = strlen(l->label);
		snprintf(l->label + len, sizeof(l->label) - len, " (more than the card: not a slice)");
	}
}

/* What the lines leave of the capacity (or of what is in use when the
 * capacity is unknown): unexplained, or over-counted (why_over, NULL:
 * the reason read from the lines). No slice exceeds the capacity. A
 * label names what the rest is made of (the host's "kernel memory,
 * sockets, page tables"); it is a claim about a breakdown, so with no
 * slice read (a cgroup's usage alone, a kernel report without its task
 * dump) no rest is written at all: all of it would be "the rest". */
void ledger_balance(struct account *a, const char *label, const char *why_over)
{
	char why[400];
	struct lline *cap = ledger_find(a, "capacity"), *used = ledger_find(a, "in_use"), *fr = ledger_find(a, "free"), *l;
	double sum = 0, whole, rest;
	int i, parts = 0;

	if (cap && cap->bytes > 0)
		cap_slices(a, cap->bytes);
	for (i = 0; i < a->n; i++)
		if (a->l[i].part && strcmp(a->l[i].line, "free")) {
			sum += a->l[i].bytes;
			parts++;
		}
	if (cap && fr)
		whole = cap->bytes - fr->bytes;
	else if (used)
		whole = used->bytes;
	else if (cap)
		whole = cap->bytes;
	else
		return;
	if (!parts && label)
		return;   /* not broken down: nothing to say of the rest */
	rest = whole - sum;
	if (rest >= REST_MIN(whole)) {
		l = ledger_add(a, "unexplained", rest, 1, "inferred", cap && fr ? fr->moment : used ?
			used->moment : "OOM", NULL, 0, parts ? "%s less every line above" :
			"%s: no artifact says what held it", cap && fr ? "capacity less free" :
			used ? "in use" : "capacity");
		if (l && label)
			snprintf(l->label, sizeof(l->label), "%s", label);
	} else if (rest <= -REST_MIN(whole)) {
		ledger_add(a, "over_counted", -rest, 0, "inferred", "mixed", NULL, 0, "the lines add up to"
		    " more than %s: %s", cap && fr ? "the capacity less free" : "what was in use",
		    why_over ? why_over : why_over_of(a, why, sizeof(why)));
	}
}

