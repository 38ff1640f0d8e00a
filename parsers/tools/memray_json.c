/*
 * memray_json.c -- `memray stats --json` (memray 1.10+, reporters/stats.py
 * _render_to_json: json.dump(indent=2)) into the memray_stats event and
 * holders of memray_stats.c; also that dict as Python prints it (single
 * quotes, True/False, "[...]" where the user elided a list).
 *
 * Keys read: total_num_allocations, total_bytes_allocated,
 * allocation_size_histogram [{min_bytes, max_bytes, count}],
 * allocator_type_distribution {name: count}, top_allocations_by_size
 * [{location, size}], top_allocations_by_count [{location, count}],
 * top_modules_by_allocation_size|count [{module, num_allocations,
 * total_bytes}] (1.20), metadata {peak_memory, total_allocations, ...}.
 * Sizes are bytes. Each list item is stored as it completes, so a file
 * cut short keeps what came before the cut.
 */
#include "parsers/tools/memray_stats.h"
#include "parsers/common/pyjson.h"
#include "parsers/common/seriesutil.h"

#include <stdlib.h>
#include <string.h>

#define MJ_READ (64u * 1024)

struct mj_st {
	struct sink *s;
	json_t *d;               /* the event's data being built */
	int reports, single_quotes, quote_seen, cut;
	int64_t rank_size, rank_count, rank_msize, rank_mcount;
	uint64_t line;
	json_t *hist, *elided;
};

static int64_t get_int(const json_t *o, const char *k)
{
	int64_t v;

	return pj_int(json_object_get(o, k), &v) == 0 ? v : OL_NULL;
}

static int start(struct mj_st *st, uint64_t line)
{
	if (st->d)
		return 0;
	st->d = json_object();
	st->hist = json_array();
	st->elided = json_array();
	st->rank_size = st->rank_count = st->rank_msize = st->rank_mcount = 0;
	st->line = line;
	return st->d && st->hist && st->elided ? 0 : -1;
}

/* The report is over: its event. */
static int finish(struct mj_st *st)
{
	json_t *d = st->d;
	int r;

	if (!d)
		return 0;
	json_object_set_new(d, "form", json_string(st->single_quotes ? "python_dict" : "json"));
	json_object_set(d, "histogram", st->hist);
	json_object_set(d, "elided", st->elided);
	if (!json_object_get(d, "top_location"))
		json_object_set_new(d, "top_location", json_null());
	r = memray_event(st->s, d, st->line);
	json_decref(d);
	json_decref(st->hist);
	json_decref(st->elided);
	st->d = st->hist = st->elided = NULL;
	st->reports++;
	return r;
}

/* One item of a top list. */
static int top_item(struct mj_st *st, const char *list, const json_t *o, uint64_t line)
{
	const char *where = json_string_value(json_object_get(o, "location"));
	const char *module = json_string_value(json_object_get(o, "module"));
	int64_t bytes, count;

	if (!strcmp(list, "top_allocations_by_size") && where) {
		bytes = get_int(o, "size");
		if (!json_object_get(st->d, "top_location")) {
			json_object_set_new(st->d, "top_location", json_string(where));
			json_object_set_new(st->d, "top_location_bytes", ol_json_int(bytes));
		}
		if (!json_object_get(st->d, "top_python_location") &&
		    strcmp(where, "<stack trace unavailable>")) {
			json_object_set_new(st->d, "top_python_location", json_string(where));
			json_object_set_new(st->d, "top_python_location_bytes", ol_json_int(bytes));
		}
		return memray_holder(st->s, where, bytes, OL_NULL, ++st->rank_size, 0, line, NULL);
	}
	if (!strcmp(list, "top_allocations_by_count") && where)
		return memray_holder(st->s, where, OL_NULL, get_int(o, "count"), ++st->rank_count,
				     0, line, NULL);
	if (module && (!strcmp(list, "top_modules_by_allocation_size") ||
		       !strcmp(list, "top_modules_by_allocation_count"))) {
		int64_t *rank = !strcmp(list, "top_modules_by_allocation_size") ? &st->rank_msize
									     : &st->rank_mcount;
		count = get_int(o, "num_allocations");
		return memray_holder(st->s, module, get_int(o, "total_bytes"), count, ++*rank, 1,
				     line, NULL);
	}
	return 0;
}

static int on_value(void *arg, const struct pj_event *ev)
{
	struct mj_st *st = arg;
	const json_t *v = ev->value;

	if (ev->kind != PJ_VALUE)
		return 0;
	if (ev->depth == 0 && ev->container == '{') {
		st->cut |= ev->cut;
		return finish(st) < 0 ? -1 : 1;  /* the whole report closed */
	}
	if (ev->depth == 1 && ev->key && !ev->container) {
		int64_t x;
		if (pj_int(v, &x) < 0)
			return 0;
		if (!strcmp(ev->key, "total_num_allocations") || !strcmp(ev->key, "total_bytes_allocated")) {
			if (start(st, ev->line) < 0)
				return -1;
			json_object_set_new(st->d, ev->key[6] == 'n' ? "total_allocations"
					    : "total_allocated_bytes", json_integer(x));
			return 1;
		}
		return 0;
	}
	if (!ev->key && ev->parent_key && ev->container == '{' && ev->depth == 2) {
		if (start(st, ev->line) < 0)
			return -1;
		if (!strcmp(ev->parent_key, "allocation_size_histogram")) {
			json_array_append_new(st->hist, json_pack("{s:o, s:o, s:o}",
				"lower_bytes", ol_json_int(get_int(v, "min_bytes")),
				"upper_bytes", ol_json_int(get_int(v, "max_bytes")),
				"count", ol_json_int(get_int(v, "count"))));
			return 1;
		}
		return top_item(st, ev->parent_key, v, ev->line) < 0 ? -1 : 1;
	}
	if (ev->depth == 1 && ev->key && ev->container) {
		if (start(st, ev->line) < 0)
			return -1;
		if (ev->container == '[' && json_array_size(v) == 1 &&
		    json_is_null(json_array_get(v, 0)) && !ev->consumed) {
			json_array_append_new(st->elided, json_string(ev->key));  /* "[...]" */
			return 1;
		}
		if (!strcmp(ev->key, "allocator_type_distribution") && json_is_object(v)) {
			json_object_set(st->d, "allocators", (json_t *)v);
			return 1;
		}
		if (!strcmp(ev->key, "metadata") && json_is_object(v)) {
			json_object_set_new(st->d, "peak_bytes", ol_json_int(get_int(v, "peak_memory")));
			json_object_set_new(st->d, "metadata_total_allocations",
					    ol_json_int(get_int(v, "total_allocations")));
			json_object_set(st->d, "metadata", (json_t *)v);
			return 1;
		}
		return 1;
	}
	return 0;
}

int memray_json_parse(struct input *in, struct sink *s)
{
	struct mj_st st;
	struct pyjson pj;
	char *buf = malloc(MJ_READ);
	ssize_t k;
	int r = -1;

	if (!buf)
		return -1;
	memset(&st, 0, sizeof(st));
	st.s = s;
	pj_init(&pj, on_value, &st, 0, PJ_PASTE_PIECE);
	while ((k = input_read(in, buf, MJ_READ)) > 0) {
		if (!st.quote_seen) {
			char *q1 = memchr(buf, '\'', (size_t)k), *q2 = memchr(buf, '"', (size_t)k);
			if (q1 || q2) {
				st.quote_seen = 1;
				st.single_quotes = q1 && (!q2 || q1 < q2);
			}
		}
		if (pj_feed(&pj, buf, (size_t)k) < 0)
			goto out;
	}
	if (pj_end(&pj) < 0)
		goto out;
	if ((st.d || st.cut) && sink_diagf(s, 0, in->offset, OL_WARN, "memray stats JSON cut"
					   " short: what came before the cut is kept") < 0)
		goto out;
	if (finish(&st) < 0)
		goto out;
	r = st.reports;
out:
	pj_release(&pj);
	json_decref(st.d);
	json_decref(st.hist);
	json_decref(st.elided);
	free(buf);
	return r;
}

int memray_json_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (quoted_key(h, n, "total_num_allocations") &&
	    (quoted_key(h, n, "total_bytes_allocated") ||
	     quoted_key(h, n, "allocator_type_distribution") ||
	     quoted_key(h, n, "top_allocations_by_size")))
		return 90;
	return 0;
}
