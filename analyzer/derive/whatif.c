/*
 * whatif.c -- the what-if replay of an allocator snapshot's trace: for
 * each snapshot and each device whose trace allocates, replay the trace
 * through the allocator model (whatif_replay.h) with the recorded
 * settings, to prove the model on it, then with expandable_segments,
 * max_split_size_mb and with nothing cached, and write each answer to the
 * `whatif` table (docs/schema.md), which this derive pass makes anew. It
 * writes no finding: the fragmentation rule quotes it.
 *
 * Reads: snapshot.settings (allocator_settings JSON), trace (in rowid
 * order, which is the order the snapshot store writes), segment and
 * block (the state at the snapshot), a torch_oom event of a log when the
 * trace has no oom for that device, the GPU total.
 */
#include "analyzer/derive/dctx.h"
#include "analyzer/derive/derive.h"
#include "analyzer/derive/whatif_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHATIF_MAX_DEVICES 64

static const char sql_table[] =
	"CREATE TABLE IF NOT EXISTS whatif(\n"
	"  id INTEGER PRIMARY KEY, snapshot_id INTEGER, device INTEGER, scenario TEXT,\n"
	"  setting TEXT, fits INTEGER, failed_bytes INTEGER, failed_seq INTEGER,\n"
	"  peak_reserved_bytes INTEGER, peak_allocated_bytes INTEGER, segments INTEGER,\n"
	"  capacity_bytes INTEGER, capacity_source TEXT, events INTEGER,\n"
	"  recorded_segment_events INTEGER, model_segment_events INTEGER,\n"
	"  matched_segment_events INTEGER, recorded_segment_bytes INTEGER,\n"
	"  matched_segment_bytes INTEGER, recorded_peak_reserved_bytes INTEGER,\n"
	"  details TEXT);\n"
	"DELETE FROM whatif;";

static enum wr_action action_of(const char *a)
{
	static const struct { const char *name; enum wr_action a; } map[] = {
		{ "alloc", WR_ALLOC }, { "free_requested", WR_FREE_REQUESTED },
		{ "free_completed", WR_FREE_COMPLETED }, { "free", WR_FREE_COMPLETED },
		{ "segment_alloc", WR_SEG_ALLOC }, { "segment_free", WR_SEG_FREE },
		{ "segment_map", WR_SEG_MAP }, { "segment_unmap", WR_SEG_UNMAP }, { "oom", WR_OOM },
	};
	size_t i;

	for (i = 0; a && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(a, map[i].name))
			return map[i].a;
	return WR_OTHER;
}

/* The recorded settings: allocator_settings JSON of the snapshot (2.3+),
 * else the defaults. A raw PYTORCH_CUDA_ALLOC_CONF in it is read first
 * for what the parsed keys do not carry (max_non_split_rounding_mb). */
static void recorded_settings(const char *json, struct am_settings *s)
{
	json_t *o = json ? json_loads(json, 0, NULL) : NULL, *v, *d;
	const char *k;
	char err[160];

	am_settings_default(s);
	if (!json_is_object(o))
		goto done;
	v = json_object_get(o, "PYTORCH_CUDA_ALLOC_CONF");
	if (json_is_string(v) && am_settings_parse(s, json_string_value(v), err, sizeof(err)) < 0)
		am_settings_default(s);
	v = json_object_get(o, "max_split_size");
	if (json_is_integer(v))
		s->max_split_size = json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v)
			: AM_UNLIMITED;
	v = json_object_get(o, "garbage_collection_threshold");
	if (json_is_number(v))
		s->gc_threshold = json_number_value(v);
	v = json_object_get(o, "expandable_segments");
	if (json_is_boolean(v))
		s->expandable = json_is_true(v);
	d = json_object_get(o, "roundup_power2_divisions");
	json_object_foreach(d, k, v) {
		unsigned long mb = strtoul(k, NULL, 10);
		unsigned i = 0;

		while (mb > 1 && i + 1 < AM_INTERVALS) {
			mb >>= 1;
			i++;
		}
		if (json_is_integer(v) && json_integer_value(v) >= 0)
			s->divisions[i] = (unsigned)json_integer_value(v);
	}
done:
	json_decref(o);
}

/* One device's replay being fed. */
struct dev {
	int64_t device;
	struct wr_trace *t;
	int64_t last_seq;
	uint64_t allocs, completed, requested, ooms;
};

/* Feed the trace rows of snapshot snap (of device only when only is 1) to
 * the devices' traces, adding a device at its first row. 0, or -1
 * (failure recorded). */
static int feed_rows(struct rule_ctx *c, int64_t snap, const struct am_settings *rec,
		     struct dev *d, size_t *n, int only, int64_t device)
{
	sqlite3_stmt *st = rl_prepare(c, only
		? "SELECT device, action, addr, size, stream, seq, device_free FROM trace"
		  " WHERE snapshot_id = ?1 AND device = ?2 ORDER BY rowid"
		: "SELECT device, action, addr, size, stream, seq, device_free FROM trace"
		  " WHERE snapshot_id = ?1 AND action <> 'free_requested' ORDER BY rowid");
	size_t i;
	int rc = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, snap);
	sqlite3_bind_int64(st, 2, device);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_int64(st, 0);
		struct wr_entry e;

		for (i = 0; i < *n && d[i].device != dev; i++)
			;
		if (i == *n) {
			if (*n == WHATIF_MAX_DEVICES)
				continue;
			memset(&d[i], 0, sizeof(d[i]));
			d[i].device = dev;
			d[i].last_seq = INT64_MIN;
			if (!(d[i].t = wr_new(rec, only))) {
				rc = rl_fail(c, "out of memory");
				break;
			}
			(*n)++;
		}
		e.action = action_of((const char *)sqlite3_column_text(st, 1));
		e.addr = (uint64_t)sqlite3_column_int64(st, 2);
		e.size = (uint64_t)sqlite3_column_int64(st, 3);
		e.stream = sqlite3_column_int64(st, 4);
		e.seq = sqlite3_column_int64(st, 5);
		e.device_free = (uint64_t)sqlite3_column_int64(st, 6);
		d[i].allocs += e.action == WR_ALLOC;
		d[i].completed += e.action == WR_FREE_COMPLETED;
		d[i].requested += e.action == WR_FREE_REQUESTED;
		d[i].ooms += e.action == WR_OOM;
		if (e.seq < d[i].last_seq)
			rc = rl_fail(c, "trace rows are not in seq order");
		else if (wr_add(d[i].t, &e) < 0)
			rc = rl_fail(c, "out of memory");
		d[i].last_seq = e.seq;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The devices of snapshot snap with their traces fed; *n of them. The
 * first read skips free_requested rows (a third of a trace; frees are
 * taken at free_completed); a device with allocations but no
 * free_completed is read again whole, frees taken at free_requested.
 * 0, or -1. */
static int feed_traces(struct rule_ctx *c, int64_t snap, const struct am_settings *rec,
		       struct dev *d, size_t *n)
{
	size_t i, one;

	*n = 0;
	if (feed_rows(c, snap, rec, d, n, 0, 0) < 0)
		return -1;
	for (i = 0; i < *n; i++) {
		struct dev again;

		if (d[i].completed || !d[i].allocs)
			continue;
		one = 0;
		if (feed_rows(c, snap, rec, &again, &one, 1, d[i].device) < 0) {
			if (one)
				wr_free(again.t);
			return -1;
		}
		wr_free(d[i].t);
		d[i] = again;
	}
	return 0;
}

/* The snapshot's segments and blocks into the devices' traces. */
static int feed_segments(struct rule_ctx *c, int64_t snap, struct dev *d, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT s.id, s.device, s.address, s.total_size, s.stream, s.segment_type,"
		" s.is_expandable, b.address, b.size, b.requested_size, b.state FROM segment s"
		" LEFT JOIN block b ON b.segment_id = s.id WHERE s.snapshot_id = ?1"
		" ORDER BY s.device, s.address, s.id, b.address");
	struct wr_block *blk = NULL;
	size_t nb = 0, cap = 0, i = n;
	struct wr_segment seg;
	int64_t cur = -1;
	int rc = 0, step;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, snap);
	memset(&seg, 0, sizeof(seg));
	do {
		step = sqlite3_step(st);
		if (cur >= 0 && (step != SQLITE_ROW || sqlite3_column_int64(st, 0) != cur)) {
			if (i < n && wr_add_segment(d[i].t, &seg, blk, nb) < 0) {
				rc = rl_fail(c, "out of memory");
				break;
			}
			cur = -1;
		}
		if (step != SQLITE_ROW)
			break;
		if (cur < 0) {
			const char *type = (const char *)sqlite3_column_text(st, 5);

			cur = sqlite3_column_int64(st, 0);
			for (i = 0; i < n && d[i].device != sqlite3_column_int64(st, 1); i++)
				;
			seg.addr = (uint64_t)sqlite3_column_int64(st, 2);
			seg.size = (uint64_t)sqlite3_column_int64(st, 3);
			seg.stream = sqlite3_column_int64(st, 4);
			seg.small = type ? !strcmp(type, "small") : seg.size == AM_SMALL_BUFFER;
			seg.expandable = sqlite3_column_int(st, 6) == 1;
			nb = 0;
		}
		if (sqlite3_column_type(st, 7) == SQLITE_NULL)
			continue;
		if (nb == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct wr_block *p = realloc(blk, nc * sizeof(*blk));

			if (!p) {
				rc = rl_fail(c, "out of memory");
				break;
			}
			blk = p;
			cap = nc;
		}
		blk[nb].addr = (uint64_t)sqlite3_column_int64(st, 7);
		blk[nb].size = (uint64_t)sqlite3_column_int64(st, 8);
		blk[nb].requested = (uint64_t)sqlite3_column_int64(st, 9);
		blk[nb].active = sqlite3_column_text(st, 10) &&
			strncmp((const char *)sqlite3_column_text(st, 10), "active", 6) == 0;
		nb++;
	} while (1);
	sqlite3_finalize(st);
	free(blk);
	return rc;
}

/* What a log's torch_oom says about device dev when its trace has none. */
static void log_oom(struct rule_ctx *c, int64_t dev, struct wr_options *o)
{
	double v, reserved, free_b;

	if (rl_num(c, &v, "SELECT coalesce(json_extract(data, '$.requested_bytes'), bytes) FROM event"
		   " WHERE kind = 'torch_oom' AND coalesce(json_extract(data, '$.device'), 0) = %lld"
		   " AND coalesce(json_extract(data, '$.requested_bytes'), bytes) > 0"
		   " ORDER BY time_ns, id LIMIT 1", (long long)dev) < 0)
		return;
	o->oom_size = (uint64_t)v;
	if (rl_num(c, &reserved, "SELECT json_extract(data, '$.reserved_bytes') FROM event"
		   " WHERE kind = 'torch_oom' AND coalesce(json_extract(data, '$.device'), 0) = %lld"
		   " ORDER BY time_ns, id LIMIT 1", (long long)dev) == 0 &&
	    rl_num(c, &free_b, "SELECT json_extract(data, '$.free_bytes') FROM event"
		   " WHERE kind = 'torch_oom' AND coalesce(json_extract(data, '$.device'), 0) = %lld"
		   " ORDER BY time_ns, id LIMIT 1", (long long)dev) == 0)
		o->oom_capacity = (uint64_t)(reserved + free_b);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v, int present)
{
	if (present && v <= INT64_MAX)
		sqlite3_bind_int64(st, i, (int64_t)v);
	else
		sqlite3_bind_null(st, i);
}

/* The details of the recorded replay (the `details` column), JSON text;
 * the caller frees. */
static char *details(const struct wr_report *r)
{
	const struct wr_agreement *a = &r->agree;
	static const char *const kinds[] = { "segment_alloc", "segment_free", "segment_map",
		"segment_unmap" };
	json_t *o = json_object(), *rec = json_object(), *mod = json_object();
	char *s;
	int k;

	for (k = 0; k < 4; k++) {
		json_object_set_new(rec, kinds[k], json_integer((json_int_t)a->recorded_by_kind[k]));
		json_object_set_new(mod, kinds[k], json_integer((json_int_t)a->model_by_kind[k]));
	}
	json_object_set_new(o, "recorded_by_action", rec);
	json_object_set_new(o, "model_by_action", mod);
	json_object_set_new(o, "recorded_ooms", json_integer((json_int_t)a->recorded_ooms));
	json_object_set_new(o, "model_failures", json_integer((json_int_t)a->model_ooms));
	json_object_set_new(o, "ooms_reproduced", json_integer((json_int_t)a->matched_ooms));
	json_object_set_new(o, "segments_before_trace", json_integer((json_int_t)a->pre_segments));
	json_object_set_new(o, "blocks_before_trace", json_integer((json_int_t)a->pre_blocks));
	json_object_set_new(o, "blocks_not_placed", json_integer((json_int_t)a->uncovered_blocks));
	json_object_set_new(o, "empty_cache_calls", json_integer((json_int_t)a->empty_cache_calls));
	json_object_set_new(o, "pressure_releases", json_integer((json_int_t)a->pressure_releases));
	json_object_set_new(o, "unmatched_frees", json_integer((json_int_t)a->unmatched_frees));
	json_object_set_new(o, "max_split_candidates", json_integer((json_int_t)r->candidates_tried));
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static int write_rows(struct rule_ctx *c, int64_t snap, int64_t dev, const struct wr_report *r)
{
	sqlite3_stmt *st = rl_prepare(c,
		"INSERT INTO whatif(snapshot_id, device, scenario, setting, fits, failed_bytes,"
		" failed_seq, peak_reserved_bytes, peak_allocated_bytes, segments, capacity_bytes,"
		" capacity_source, events, recorded_segment_events, model_segment_events,"
		" matched_segment_events, recorded_segment_bytes, matched_segment_bytes,"
		" recorded_peak_reserved_bytes, details)"
		" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)");
	const struct wr_agreement *a = &r->agree;
	char *det = details(r);
	size_t i;
	int rc = 0;

	if (!st) {
		free(det);
		return -1;
	}
	for (i = 0; i < r->n_res && !rc; i++) {
		const struct wr_result *x = &r->res[i];
		int rec = i == 0;

		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		sqlite3_bind_int64(st, 1, snap);
		sqlite3_bind_int64(st, 2, dev);
		sqlite3_bind_text(st, 3, x->scenario, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, x->setting, -1, SQLITE_STATIC);
		if (x->fits >= 0)
			sqlite3_bind_int(st, 5, x->fits);
		bind_u64(st, 6, x->failed_bytes, x->failed_bytes > 0);
		if (x->failed_seq >= 0)
			sqlite3_bind_int64(st, 7, x->failed_seq);
		bind_u64(st, 8, x->peak_reserved, 1);
		bind_u64(st, 9, x->peak_allocated, 1);
		if (x->segments >= 0)
			sqlite3_bind_int64(st, 10, x->segments);
		bind_u64(st, 11, r->capacity, r->capacity != AM_UNLIMITED);
		if (r->capacity_source)
			sqlite3_bind_text(st, 12, r->capacity_source, -1, SQLITE_STATIC);
		bind_u64(st, 13, r->events, 1);
		bind_u64(st, 14, a->recorded_events, rec);
		bind_u64(st, 15, a->model_events, rec);
		bind_u64(st, 16, a->matched_events, rec);
		bind_u64(st, 17, a->recorded_bytes, rec);
		bind_u64(st, 18, a->matched_bytes, rec);
		bind_u64(st, 19, a->recorded_peak_reserved, rec);
		if (rec && det)
			sqlite3_bind_text(st, 20, det, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = rl_sql_failed(c);
	}
	sqlite3_finalize(st);
	free(det);
	return rc;
}

/* Replay the traces of snapshot snap (settings JSON) and write the rows. */
static int replay_snapshot(struct rule_ctx *c, int64_t snap, const char *settings)
{
	struct dev d[WHATIF_MAX_DEVICES];
	struct am_settings rec;
	struct wr_report *rep = malloc(sizeof(*rep));
	size_t n = 0, i;
	double total;
	char err[120];
	int rc = -1;

	if (!rep)
		return rl_fail(c, "out of memory");
	recorded_settings(settings, &rec);
	if (feed_traces(c, snap, &rec, d, &n) < 0 || feed_segments(c, snap, d, n) < 0)
		goto done;
	for (i = 0; i < n; i++) {
		struct wr_options o;

		memset(&o, 0, sizeof(o));
		if (!d[i].allocs)
			continue;
		if (!d[i].ooms)
			log_oom(c, d[i].device, &o);
		if (rl_num(c, &total, "SELECT CAST(value AS REAL) FROM meta WHERE key ="
			   " 'gpu.total_bytes.gpu%lld' AND CAST(value AS REAL) > 0 LIMIT 1",
			   (long long)d[i].device) == 0 || rl_gpu_total(c, &total) == 0)
			o.gpu_total = (uint64_t)total;
		if (wr_run(d[i].t, &o, rep, err, sizeof(err)) < 0) {
			rl_fail(c, err);
			goto done;
		}
		if (write_rows(c, snap, d[i].device, rep) < 0)
			goto done;
	}
	rc = 0;
done:
	for (i = 0; i < n; i++)
		wr_free(d[i].t);
	free(rep);
	return rc;
}

/* Replay every snapshot with allocations in its trace, into table whatif
 * (made anew). 0 or -1 (the failure in c). */
static int whatif_write(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	int64_t ids[256];
	char *settings[256];
	size_t n = 0, i;
	int rc = 0;

	if (!q_has_table(c->db, "trace") || !q_has_table(c->db, "snapshot") ||
	    !q_has_table(c->db, "segment") || !q_has_table(c->db, "block"))
		return 0;
	/* tables of another shape than the snapshot store's are not a trace
	 * to replay: nothing to say (the rules that read them report it) */
	st = q_try(c->db, "SELECT device, action, addr, size, stream, seq, device_free FROM trace"
		   " WHERE snapshot_id = 0 LIMIT 0");
	if (!st)
		return 0;
	sqlite3_finalize(st);
	if (rl_exec(c, sql_table) < 0)
		return -1;
	st = rl_prepare(c, "SELECT id, settings FROM snapshot s WHERE EXISTS (SELECT 1 FROM trace t"
			" WHERE t.snapshot_id = s.id AND t.action = 'alloc') ORDER BY id");
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW && n < 256) {
		const char *s = (const char *)sqlite3_column_text(st, 1);

		ids[n] = sqlite3_column_int64(st, 0);
		settings[n] = s ? strdup(s) : NULL;
		if (s && !settings[n])
			rc = rl_fail(c, "out of memory");
		n++;
	}
	sqlite3_finalize(st);
	for (i = 0; i < n; i++) {
		if (!rc && replay_snapshot(c, ids[i], settings[i]) < 0)
			rc = -1;
		free(settings[i]);
	}
	return rc;
}

int derive_whatif(sqlite3 *db, struct strbuf *err)
{
	return dctx_pass(db, err, whatif_write);
}
