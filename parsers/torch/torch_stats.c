/*
 * torch_stats.c -- torch.cuda.memory_stats() dumps into the allocator
 * statistics of parsers/torch/torch_memfigs.h.
 *
 * memory_stats() returns an OrderedDict of flat keys ("stat.pool.metric",
 * plus counters such as num_alloc_retries and num_ooms), every value an
 * integer, bytes in bytes. Users print it as print() does
 * (`OrderedDict([('active.all.allocated', 21008), ...])`, one long line),
 * as pprint does (one tuple a line), as a plain dict or as JSON; the
 * literal is read by parsers/common/pyjson.c, so any of these forms, one dump or
 * many, inside a log or alone, reads alike. A dump ends where the
 * container holding its entries closes, at a closer whose opener is before
 * the excerpt, at a key seen again, or at the end of the input.
 *
 * Time: memory_stats carries none. A dump after a capture separator
 * ("### <iso> ...") takes its time; any other dump is stored with no time
 * (OL_CLOCK_NONE) and its place in the file (the event's "dump" index and
 * line): the order of the dumps is known, their times are not invented.
 */
#include "parsers/torch/torch_stats.h"
#include "parsers/torch/torch_memfigs.h"
#include "parsers/common/pyjson.h"
#include "parsers/common/seriesutil.h"

#include <string.h>

struct ts_st {
	struct sink *s;
	struct input *in;
	int count;               /* dumps stored */
	json_t *stats;           /* the dump being read, NULL when none */
	uint64_t line;
	int tuples;              /* its entries are ('key', value) tuples */
	int multiline;           /* its entries are on several lines */
	int json;                /* its keys were double-quoted */
	int cut_start;           /* it began before the excerpt */
	uint64_t last_line;
	struct ol_time t;
	const char *cur_line;    /* the raw line being fed, for the form */
	size_t cur_len;
	int failed;
};

/* A memory_stats key: "stat.pool.metric" with a known pool and metric, or
 * a counter ("num_alloc_retries", "max_split_size"). */
static int stat_key(const char *k)
{
	static const char *const pools[] = { ".all.", ".large_pool.", ".small_pool.", NULL };
	static const char *const metrics[] = { "current", "peak", "allocated", "freed", NULL };
	const char *dot = strchr(k, '.');
	size_t i, j;

	if (!strncmp(k, "num_", 4) || !strcmp(k, "max_split_size"))
		return strspn(k, "abcdefghijklmnopqrstuvwxyz_") == strlen(k);
	if (!dot || dot == k || strspn(k, "abcdefghijklmnopqrstuvwxyz_") != (size_t)(dot - k))
		return 0;
	for (i = 0; pools[i]; i++) {
		size_t pl = strlen(pools[i]);
		if (!strncmp(dot, pools[i], pl))
			for (j = 0; metrics[j]; j++)
				if (!strcmp(dot + pl, metrics[j]))
					return 1;
	}
	return 0;
}

static const char *form_of(const struct ts_st *st)
{
	if (st->tuples)
		return st->multiline ? "pprint_ordereddict" : "ordereddict_repr";
	if (st->json)
		return "json";
	return st->multiline ? "pprint_dict" : "dict";
}

/* The dump being read is over. partial_end: it did not end at its own
 * closer. */
static int dump_end(struct ts_st *st, int partial_end)
{
	struct tm_dump d;
	int r;

	if (!st->stats)
		return 0;
	memset(&d, 0, sizeof(d));
	d.stats = st->stats;
	d.source = "memory_stats";
	d.form = form_of(st);
	d.device = OL_NULL;
	d.index = st->count;
	d.partial = st->cut_start || partial_end;
	d.line = st->line;
	d.t = st->t;
	r = tm_emit(st->s, &d);
	json_decref(st->stats);
	st->stats = NULL;
	if (r > 0)
		st->count++;
	return r < 0 ? -1 : 0;
}

static int add_stat(struct ts_st *st, const char *key, const json_t *v, uint64_t line,
		    int depth, int tuple)
{
	int64_t x;

	if (pj_int(v, &x) < 0)
		return 0;
	if (st->stats && json_object_get(st->stats, key) && dump_end(st, 1) < 0)
		return -1;  /* a key again: the next dump */
	if (!st->stats) {
		st->stats = json_object();
		if (!st->stats)
			return -1;
		st->line = line;
		st->tuples = tuple;
		st->multiline = 0;
		st->json = st->cur_line && memchr(st->cur_line, '"', st->cur_len) &&
			   !memchr(st->cur_line, '\'', st->cur_len);
		/* entries at the top level: the opener was cut off */
		st->cut_start = depth == 0;
	} else if (line != st->last_line) {
		st->multiline = 1;
	}
	st->last_line = line;
	return json_object_set_new(st->stats, key, json_integer(x)) < 0 ? -1 : 1;
}

static int on_value(void *arg, const struct pj_event *ev)
{
	struct ts_st *st = arg;

	if (ev->kind == PJ_STRAY_CLOSE)
		return st->stats ? (dump_end(st, 0) < 0 ? -1 : 0) : 0;
	if (ev->container == '(' || ev->container == '[') {
		json_t *k = json_array_get(ev->value, 0);
		if (json_array_size(ev->value) == 2 && json_is_string(k) &&
		    stat_key(json_string_value(k)))
			return add_stat(st, json_string_value(k), json_array_get(ev->value, 1),
					ev->line, ev->depth, 1);
	}
	if (!ev->container && ev->key && stat_key(ev->key))
		return add_stat(st, ev->key, ev->value, ev->line, ev->depth, 0);
	if (ev->container && ev->consumed && st->stats)  /* the dump's container closed */
		return dump_end(st, ev->cut) < 0 ? -1 : 1;
	return 0;
}

int torch_stats_parse(struct input *in, struct sink *s)
{
	struct ts_st st;
	struct pyjson pj;
	struct capsep sep;
	const char *l;
	size_t n;
	int r, open;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	st.t = ol_time_none();
	pj_init(&pj, on_value, &st, 1, PJ_PASTE_PIECE);
	while ((r = input_getline(in, &l, &n)) == 1) {
		if (capsep_parse(l, n, &sep)) {
			if (dump_end(&st, 1) < 0)
				goto fail;
			st.t = capsep_time(&sep);
			if (pj_feed(&pj, "\n", 1) < 0)
				goto fail;
			continue;
		}
		st.cur_line = l;
		st.cur_len = n;
		if (pj_feed(&pj, l, n) < 0 || pj_feed(&pj, "\n", 1) < 0)
			goto fail;
	}
	st.cur_line = NULL;
	open = pj_end(&pj);
	if (open < 0 || dump_end(&st, 1) < 0)
		goto fail;
	if (pj.dropped_items && sink_diagf(s, 0, 0, OL_WARN, "memory_stats: %u items beyond"
					   " %u in one container not read", pj.dropped_items,
					   PJ_MAX_ITEMS) < 0)
		goto fail;
	pj_release(&pj);
	return st.count;
fail:
	pj_release(&pj);
	json_decref(st.stats);
	return -1;
}

int torch_stats_sniff(const unsigned char *head, size_t n)
{
	static const char *const keys[] = {
		"allocated_bytes.all.", "reserved_bytes.all.", "active_bytes.all.", "inactive_split",
		"segment.all.", "num_alloc_retries", "active.all.", "allocation.all.", NULL
	};
	const char *h = (const char *)head;
	int i, found = 0;

	for (i = 0; keys[i]; i++)
		found += quoted_key(h, n, keys[i]);
	if (found >= 2 && mem_find(h, n, "OrderedDict("))
		return 90;
	if (found >= 2)
		return 80;
	if ((found >= 1 || quoted_key(h, n, "num_ooms")) &&
	    (mem_find(h, n, "_pool.allocated'") || mem_find(h, n, "_pool.freed'") ||
	     mem_find(h, n, "_pool.current'") || mem_find(h, n, "_pool.peak'")))
		return 70;
	return 0;
}
