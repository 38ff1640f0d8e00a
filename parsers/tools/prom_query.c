/*
 * prom_query.c -- Prometheus HTTP API answers (/api/v1/query and
 * /api/v1/query_range) into series, one per result's label set, and a
 * metrics_query event per answer.
 *
 * {"status": "success", "data": {"resultType": "vector" | "matrix",
 *  "result": [{"metric": {labels}, "value": [unix_s, "v"]}, ...]}}; a
 * matrix has "values": [[unix_s, "v"], ...]. Grafana's query inspector
 * wraps it as {"request": {"url": "...query_range?query=...&step=15"},
 * "response": {...}}; a Python client prints it as a dict (single
 * quotes). Read by parsers/common/pyjson.c: each point is stored as it comes, so
 * an answer cut short keeps its points up to the cut. The series is
 * named by the result's __name__, or "prometheus.result" for an
 * expression's result, which has none; times are UTC.
 */
#include "parsers/tools/prom_text.h"
#include "parsers/common/pyjson.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PQ_READ (64u * 1024)
#define PQ_ENT 512

struct pq_st {
	struct sink *s;
	char name[256], ent[PQ_ENT];
	int have_metric;
	char result_type[16];
	char query[1024];
	int64_t step;
	int series, points;
	double first_ts, first_v, last_ts, last_v;
	uint64_t line;
};

/* %XX and '+' of a URL query value. */
static void url_decode(char *dst, size_t cap, const char *s, size_t n)
{
	size_t o = 0, i;

	for (i = 0; i < n && o + 1 < cap; i++) {
		if (s[i] == '%' && i + 2 < n) {
			char hex[3] = { s[i + 1], s[i + 2], 0 };
			char *end;
			long c = strtol(hex, &end, 16);
			if (!*end) {
				dst[o++] = c ? (char)c : '?';
				i += 2;
				continue;
			}
		}
		dst[o++] = s[i] == '+' ? ' ' : s[i];
	}
	dst[o] = 0;
}

/* The request's url: its query= and step= parameters. */
static void request_url(struct pq_st *st, const char *url)
{
	const char *q = strstr(url, "query="), *e;

	if (q && (q == url || q[-1] == '?' || q[-1] == '&')) {
		q += 6;
		e = strchr(q, '&');
		url_decode(st->query, sizeof(st->query), q, e ? (size_t)(e - q) : strlen(q));
	}
	if ((q = strstr(url, "step=")) && q > url && (q[-1] == '?' || q[-1] == '&'))
		st->step = atoll(q + 5);
}

static int point(struct pq_st *st, const json_t *pair)
{
	double ts, v;
	struct ol_time t = ol_time_none();

	if (json_array_size(pair) != 2 || pj_number(json_array_get(pair, 0), &ts) < 0 ||
	    pj_number(json_array_get(pair, 1), &v) < 0)
		return 0;
	if (ts > 0 && ts < 9.2e9) {
		t.clock = OL_CLOCK_UTC;
		t.utc_ns = (int64_t)llround(ts * 1e6) * 1000;  /* µs: exact in a double */
	}
	if (!st->points) {
		st->first_ts = ts;
		st->first_v = v;
	}
	st->last_ts = ts;
	st->last_v = v;
	st->points++;
	return prom_sample(st->s, st->name[0] ? st->name : "prometheus.result", st->ent, &t, v);
}

static int answer_event(struct pq_st *st)
{
	struct ol_event e;
	char line[300];
	int64_t id;

	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_METRICS_QUERY);
	e.t = ol_time_none();
	e.pid = OL_NULL;
	e.bytes = OL_NULL;
	e.line = st->line;
	snprintf(line, sizeof(line), "Prometheus %s: %d series, %d points%s%.200s",
		 st->result_type[0] ? st->result_type : "answer", st->series, st->points,
		 st->query[0] ? " of " : "", st->query);
	e.summary = line;
	e.data = json_pack("{s:o, s:o, s:i, s:i, s:o, s:o, s:o}",
			   "result_type", st->result_type[0] ? json_string(st->result_type) : json_null(),
			   "query", st->query[0] ? ol_json_strn(st->query, strlen(st->query)) : json_null(),
			   "series", st->series, "points", st->points,
			   "step_s", st->step ? json_integer(st->step) : json_null(),
			   "first", st->points ? json_pack("{s:I, s:f}", "ts_ms",
				(json_int_t)llround(st->first_ts * 1e3), "value", st->first_v) : json_null(),
			   "last", st->points ? json_pack("{s:I, s:f}", "ts_ms",
				(json_int_t)llround(st->last_ts * 1e3), "value", st->last_v) : json_null());
	if (!e.data)
		return -1;
	id = sink_event(st->s, &e);
	json_decref(e.data);
	return id < 0 ? -1 : 0;
}

static int on_value(void *arg, const struct pj_event *ev)
{
	struct pq_st *st = arg;
	const char *k;
	json_t *v;

	if (ev->kind != PJ_VALUE || !ev->key) {
		if (ev->kind == PJ_VALUE && ev->container == '[' && ev->parent_key &&
		    !strcmp(ev->parent_key, "values"))
			return point(st, ev->value) < 0 ? -1 : 1;
		if (ev->kind == PJ_VALUE && ev->container == '{' && ev->parent_key &&
		    !strcmp(ev->parent_key, "result")) {
			st->have_metric = 0;  /* one result done */
			return 1;
		}
		return 0;
	}
	if (!strcmp(ev->key, "metric") && ev->container == '{') {
		const char *name = json_string_value(json_object_get(ev->value, "__name__"));
		if (!st->line)
			st->line = ev->line;
		copy_str(st->name, sizeof(st->name), name ? name : "", name ? strlen(name) : 0);
		st->ent[0] = 0;
		json_object_foreach((json_t *)ev->value, k, v)
			if (json_is_string(v))
				prom_entity_add(st->ent, sizeof(st->ent), k, json_string_value(v));
		st->have_metric = 1;
		st->series++;
		return 1;
	}
	if (!strcmp(ev->key, "value") && ev->container == '[')
		return point(st, ev->value) < 0 ? -1 : 1;
	if (!strcmp(ev->key, "resultType") && json_is_string(ev->value))
		copy_str(st->result_type, sizeof(st->result_type), json_string_value(ev->value),
			 json_string_length(ev->value));
	else if (!strcmp(ev->key, "url") && json_is_string(ev->value))
		request_url(st, json_string_value(ev->value));
	else if (!strcmp(ev->key, "query") && json_is_string(ev->value) && !st->query[0])
		copy_str(st->query, sizeof(st->query), json_string_value(ev->value),
			 json_string_length(ev->value));
	return 0;
}

int prom_query_parse(struct input *in, struct sink *s)
{
	struct pq_st *st = calloc(1, sizeof(*st));
	struct pyjson pj;
	char *buf = malloc(PQ_READ);
	ssize_t k;
	int r = -1, open;

	if (!st || !buf) {
		free(st);
		free(buf);
		return -1;
	}
	st->s = s;
	pj_init(&pj, on_value, st, 0, PJ_PASTE_PIECE);
	while ((k = input_read(in, buf, PQ_READ)) > 0)
		if (pj_feed(&pj, buf, (size_t)k) < 0)
			goto out;
	if ((open = pj_end(&pj)) < 0)
		goto out;
	if (open && sink_diagf(s, 0, in->offset, OL_WARN, "the answer is cut short: its points up"
			       " to the cut are kept") < 0)
		goto out;
	if ((st->series || st->points) && answer_event(st) < 0)
		goto out;
	r = st->points + (st->series || st->points ? 1 : 0);
out:
	pj_release(&pj);
	free(st);
	free(buf);
	return r;
}

int prom_query_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if ((mem_find(h, n, "\"resultType\"") || mem_find(h, n, "'resultType'")) &&
	    (mem_find(h, n, "\"result\"") || mem_find(h, n, "'result'")))
		return 85;
	return 0;
}
