/*
 * torch_memfigs.c -- allocator statistics of one moment into torch.*
 * series and a torch_memory_stats event; see torch_memfigs.h.
 */
#include "parsers/torch/torch_memfigs.h"
#include "lib/vocab.h"
#include "lib/bytes.h"

#include <stdio.h>
#include <string.h>

/* The keys that become series: current levels, peaks, and the counters
 * the fragmentation rule and the ledger read. */
static const struct { const char *key, *series, *unit, *figure; } tm_series[] = {
	{ "allocated_bytes.all.current", "torch.allocated_bytes", "bytes", "allocated_bytes" },
	{ "allocated_bytes.all.peak", "torch.allocated_peak_bytes", "bytes", "allocated_peak_bytes" },
	{ "reserved_bytes.all.current", "torch.reserved_bytes", "bytes", "reserved_bytes" },
	{ "reserved_bytes.all.peak", "torch.reserved_peak_bytes", "bytes", "reserved_peak_bytes" },
	{ "active_bytes.all.current", "torch.active_bytes", "bytes", "active_bytes" },
	{ "active_bytes.all.peak", "torch.active_peak_bytes", "bytes", "active_peak_bytes" },
	{ "inactive_split_bytes.all.current", "torch.inactive_split_bytes", "bytes",
	  "inactive_split_bytes" },
	{ "inactive_split_bytes.all.peak", "torch.inactive_split_peak_bytes", "bytes",
	  "inactive_split_peak_bytes" },
	{ "requested_bytes.all.current", "torch.requested_bytes", "bytes", "requested_bytes" },
	{ "requested_bytes.all.peak", "torch.requested_peak_bytes", "bytes", "requested_peak_bytes" },
	{ "allocation.all.current", "torch.allocations", "count", "allocations" },
	{ "segment.all.current", "torch.segments", "count", "segments" },
	{ "num_alloc_retries", "torch.num_alloc_retries", "count", "num_alloc_retries" },
	{ "num_ooms", "torch.num_ooms", "count", "num_ooms" },
	{ NULL, NULL, NULL, NULL }
};

const char *tm_series_of(const char *key, const char **unit)
{
	int i;

	for (i = 0; tm_series[i].key; i++)
		if (!strcmp(tm_series[i].key, key)) {
			if (unit)
				*unit = tm_series[i].unit;
			return tm_series[i].series;
		}
	return NULL;
}

/* "1.50 GiB" for people: lib/bytes.h's one rule. */
static void fmt_bytes(char *buf, size_t n, json_int_t v)
{
	ol_fmt_bytes(buf, n, (double)v);
}

static json_int_t stat_of(const json_t *stats, const char *key, int *has)
{
	json_t *v = json_object_get(stats, key);

	*has = json_is_integer(v);
	return *has ? json_integer_value(v) : 0;
}

/* The event's one line: "memory_summary, device 0: allocated 1.04 GiB
 * (peak 4.76 GiB), reserved 12.13 GiB, 1 OOM, 1 alloc retry". */
static void summary_line(char *buf, size_t n, const struct tm_dump *d)
{
	char a[32], b[32], item[96];
	const char *sep = ": ";
	int has, has2, k = 0;
	json_int_t v, w;

	snprintf(buf, n, "%s", d->source);
	if (d->device != OL_NULL)
		snprintf(buf + strlen(buf), n - strlen(buf), ", device %lld", (long long)d->device);
#define ITEM(...) do { snprintf(item, sizeof(item), __VA_ARGS__); \
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", sep, item); \
		sep = ", "; k++; } while (0)
	v = stat_of(d->stats, "allocated_bytes.all.current", &has);
	w = stat_of(d->stats, "allocated_bytes.all.peak", &has2);
	fmt_bytes(a, sizeof(a), v);
	fmt_bytes(b, sizeof(b), w);
	if (has && has2)
		ITEM("allocated %s (peak %s)", a, b);
	else if (has || has2)
		ITEM("allocated %s%s", has ? "" : "peak ", has ? a : b);
	v = stat_of(d->stats, "reserved_bytes.all.current", &has);
	fmt_bytes(a, sizeof(a), v);
	if (has)
		ITEM("reserved %s", a);
	v = stat_of(d->stats, "num_ooms", &has);
	if (has)
		ITEM("%lld OOM%s", (long long)v, v == 1 ? "" : "s");
	v = stat_of(d->stats, "num_alloc_retries", &has);
	if (has)
		ITEM("%lld alloc retr%s", (long long)v, v == 1 ? "y" : "ies");
	if (!k)
		ITEM("%zu statistics", json_object_size(d->stats));
#undef ITEM
}

/* The event's data: where it came from, the lead figures flat, every key
 * read under "stats". */
static json_t *event_data(const struct tm_dump *d)
{
	json_t *o = json_object();
	int i, has;
	json_int_t v;

	if (!o)
		return NULL;
	json_object_set_new(o, "source", json_string(d->source));
	json_object_set_new(o, "form", ol_json_str(d->form));
	json_object_set_new(o, "dump", json_integer(d->index));
	json_object_set_new(o, "device", ol_json_int(d->device));
	json_object_set_new(o, "partial", json_boolean(d->partial));
	for (i = 0; tm_series[i].key; i++) {
		v = stat_of(d->stats, tm_series[i].key, &has);
		json_object_set_new(o, tm_series[i].figure, has ? json_integer(v) : json_null());
	}
	json_object_set(o, "stats", d->stats);
	if (d->resolution && json_object_size(d->resolution))
		json_object_set(o, "resolution", d->resolution);
	if (d->extra)
		json_object_update(o, d->extra);
	return o;
}

int tm_emit(struct sink *s, const struct tm_dump *d)
{
	struct ol_event e;
	char entity[32], line[300];
	int i, has;
	json_int_t v;
	int64_t id;

	if (!d->stats || !json_object_size(d->stats))
		return 0;
	if (d->device != OL_NULL)
		snprintf(entity, sizeof(entity), "cuda:%lld", (long long)d->device);
	else
		snprintf(entity, sizeof(entity), "cuda");
	for (i = 0; tm_series[i].key; i++) {
		v = stat_of(d->stats, tm_series[i].key, &has);
		if (!has)
			continue;
		id = sink_series(s, tm_series[i].series, tm_series[i].unit, entity);
		if (id < 0 || sink_sample(s, id, &d->t, (double)v) < 0)
			return -1;
	}
	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_TORCH_MEMORY_STATS);
	e.t = d->t;
	e.pid = OL_NULL;
	v = stat_of(d->stats, "reserved_bytes.all.current", &has);
	e.bytes = has ? (int64_t)v : OL_NULL;
	e.line = d->line;
	summary_line(line, sizeof(line), d);
	e.summary = line;
	e.data = event_data(d);
	if (!e.data)
		return -1;
	id = sink_event(s, &e);
	json_decref(e.data);
	return id < 0 ? -1 : 1;
}
