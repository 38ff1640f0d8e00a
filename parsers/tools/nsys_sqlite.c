/*
 * nsys_sqlite.c -- Nsight Systems SQLite exports, read in place.
 *
 * The one parser that speaks SQL: its input is itself a database. It
 * opens the file read-only and immutable (SQLite then writes nothing,
 * not even a lock or a journal, beside the evidence), in defensive mode
 * with the schema untrusted, reads only tables (never a view a hostile
 * file could define under a table's name) and stops a statement that
 * runs past a step budget. It never touches the timeline: what it reads
 * goes to the sink like any other parser's records.
 *
 * What an export holds, by NVIDIA's schema (docs/formats.md):
 *   TARGET_INFO_SESSION_START_TIME.utcEpochNs  the capture's start; every
 *       `start` column is nanoseconds after it;
 *   TARGET_INFO_GPU(id, name, totalMemory, busLocation)  the cards:
 *       gpu.total_bytes "gpuN" at the capture's start;
 *   CUDA_GPU_MEMORY_USAGE_EVENTS(start, deviceId, bytes, memKind,
 *       memoryOperationType)  device allocations (memKind 2, "Device")
 *       and frees (memoryOperationType 1): series cuda.allocated_bytes
 *       "gpuN", the running sum, at most one sample per card per
 *       NS_BUCKET_NS (the bucket's highest), and an nsys_memory event per
 *       card with its peak; empty unless the capture asked for
 *       --cuda-memory-usage=true, which the capture event says;
 *   CUPTI_ACTIVITY_KIND_RUNTIME(start, nameId, returnValue) with
 *       StringIds: the allocation calls (cudaMalloc*, cuMemAlloc*,
 *       cuMemCreate) counted, and each that returned an error an
 *       alloc_failed event (2: out of memory).
 * One nsys_capture event per file says what was there and what was not.
 */
#include "parsers/tools/nsys_sqlite.h"
#include "lib/vocab.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_BUCKET_NS 10000000LL     /* 10 ms */
#define NS_MAX_DEVICES 64
#define NS_MAX_FAILED_EVENTS 1000
#define NS_STEP_BUDGET 5000000      /* progress calls of 1000 VM steps each, per table */

struct ns_dev {
	int64_t id, cur, peak, peak_ns;
	int64_t allocs, frees, largest;
	int64_t bucket, bucket_max, bucket_max_ns;  /* bucket OL_NULL: none open */
	int64_t series;
};

struct ns_st {
	struct sink *s;
	sqlite3 *db;
	int64_t epoch_ns;           /* OL_NULL: the export has no start time */
	int records;
	int steps;
	struct ns_dev dev[NS_MAX_DEVICES];
	int ndev;
	int64_t alloc_calls, failed_calls, mem_events, other_kinds;
	int gpus;
	char gpu_name[128];
};

static int budget(void *arg)
{
	struct ns_st *st = arg;

	return ++st->steps > NS_STEP_BUDGET;
}

static struct ol_time at(const struct ns_st *st, int64_t start)
{
	struct ol_time t = ol_time_none();

	if (st->epoch_ns != OL_NULL && start >= 0 && start < INT64_MAX - st->epoch_ns) {
		t.clock = OL_CLOCK_UTC;
		t.utc_ns = st->epoch_ns + start;
	}
	return t;
}

/* A table of that name (not a view) is in the export. */
static int has_table(struct ns_st *st, const char *name)
{
	sqlite3_stmt *q;
	int r = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM sqlite_master WHERE type = 'table'"
			       " AND name = ?1", -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	r = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return r;
}

/* Prepare sql, or say why not (a column an older export lacks, a damaged
 * page) and return NULL. */
static sqlite3_stmt *prepare(struct ns_st *st, const char *table, const char *sql)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) == SQLITE_OK)
		return q;
	sink_diagf(st->s, 0, 0, OL_WARN, "%s not read: %s", table, sqlite3_errmsg(st->db));
	return NULL;
}

/* The end of a statement's rows: a damaged page or a spent budget said. */
static void finish(struct ns_st *st, sqlite3_stmt *q, int rc, const char *table)
{
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		sink_diagf(st->s, 0, 0, OL_ERROR, "%s: read stopped (%s): the rows before"
			   " are kept", table, rc == SQLITE_INTERRUPT ? "too much work for"
			   " one table" : sqlite3_errmsg(st->db));
	sqlite3_finalize(q);
}

static void read_start(struct ns_st *st)
{
	sqlite3_stmt *q;
	int rc;

	st->epoch_ns = OL_NULL;
	if (!has_table(st, "TARGET_INFO_SESSION_START_TIME") ||
	    !(q = prepare(st, "TARGET_INFO_SESSION_START_TIME",
			  "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1")))
		return;
	if ((rc = sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER &&
	    sqlite3_column_int64(q, 0) > 0)
		st->epoch_ns = sqlite3_column_int64(q, 0);
	finish(st, q, rc, "TARGET_INFO_SESSION_START_TIME");
}

static int sample(struct ns_st *st, const char *name, int64_t dev, const struct ol_time *t,
		  double v, int64_t *cache)
{
	char entity[32];
	int64_t id = cache ? *cache : 0;

	if (!id) {
		snprintf(entity, sizeof(entity), "gpu%lld", (long long)dev);
		if ((id = sink_series(st->s, name, "bytes", entity)) < 0)
			return -1;
		if (cache)
			*cache = id;
	}
	if (sink_sample(st->s, id, t, v) < 0)
		return -1;
	st->records++;
	return 0;
}

static int read_gpus(struct ns_st *st)
{
	struct ol_time t = at(st, 0);
	sqlite3_stmt *q;
	int rc;

	if (!has_table(st, "TARGET_INFO_GPU") ||
	    !(q = prepare(st, "TARGET_INFO_GPU", "SELECT id, name, totalMemory FROM TARGET_INFO_GPU")))
		return 0;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(q, 1);
		st->gpus++;
		if (name && !st->gpu_name[0])
			snprintf(st->gpu_name, sizeof(st->gpu_name), "%s", (const char *)name);
		if (sqlite3_column_type(q, 2) == SQLITE_INTEGER && sqlite3_column_int64(q, 2) > 0 &&
		    sample(st, vocab_series_name(VS_GPU_TOTAL_BYTES), sqlite3_column_int64(q,
				0), &t,
			   (double)sqlite3_column_int64(q, 2), NULL) < 0) {
			sqlite3_finalize(q);
			return -1;
		}
	}
	finish(st, q, rc, "TARGET_INFO_GPU");
	return 0;
}

static struct ns_dev *device(struct ns_st *st, int64_t id)
{
	int i;

	for (i = 0; i < st->ndev; i++)
		if (st->dev[i].id == id)
			return &st->dev[i];
	if (st->ndev == NS_MAX_DEVICES)
		return NULL;
	memset(&st->dev[i], 0, sizeof(st->dev[i]));
	st->dev[i].id = id;
	st->dev[i].bucket = OL_NULL;
	st->ndev++;
	return &st->dev[i];
}

static int flush_bucket(struct ns_st *st, struct ns_dev *d)
{
	struct ol_time t;

	if (d->bucket == OL_NULL)
		return 0;
	t = at(st, d->bucket_max_ns);
	d->bucket = OL_NULL;
	return sample(st, vocab_series_name(VS_CUDA_ALLOCATED_BYTES), d->id, &t,
			(double)d->bucket_max, &d->series);
}

/* One allocation or free on a card: the running sum, its peak, and the
 * bucketed series. */
static int mem_event(struct ns_st *st, int64_t start, int64_t dev, int64_t bytes, int op)
{
	struct ns_dev *d = device(st, dev);

	if (!d)
		return 0;
	if (op == 0) {
		d->allocs++;
		d->cur += bytes;
		if (bytes > d->largest)
			d->largest = bytes;
	} else {
		d->frees++;
		d->cur -= bytes;
	}
	if (d->cur > d->peak) {
		d->peak = d->cur;
		d->peak_ns = start;
	}
	if (d->bucket != OL_NULL && start / NS_BUCKET_NS != d->bucket && flush_bucket(st, d) < 0)
		return -1;
	if (d->bucket == OL_NULL) {
		d->bucket = start / NS_BUCKET_NS;
		d->bucket_max = d->cur;
		d->bucket_max_ns = start;
	} else if (d->cur > d->bucket_max) {
		d->bucket_max = d->cur;
		d->bucket_max_ns = start;
	}
	return 0;
}

static int read_memory(struct ns_st *st)
{
	sqlite3_stmt *q;
	int rc;

	if (!has_table(st, "CUDA_GPU_MEMORY_USAGE_EVENTS") ||
	    !(q = prepare(st, "CUDA_GPU_MEMORY_USAGE_EVENTS",
			  "SELECT start, deviceId, bytes, memKind, memoryOperationType"
			  " FROM CUDA_GPU_MEMORY_USAGE_EVENTS ORDER BY start")))
		return 0;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t start = sqlite3_column_int64(q, 0), bytes = sqlite3_column_int64(q, 2);
		int op = sqlite3_column_int(q, 4);
		st->mem_events++;
		if (sqlite3_column_int(q, 3) != 2 || bytes < 0 || (op != 0 && op != 1)) {
			st->other_kinds++;     /* pinned host memory, statics, managed */
			continue;
		}
		if (mem_event(st, start, sqlite3_column_int64(q, 1), bytes, op) < 0) {
			sqlite3_finalize(q);
			return -1;
		}
	}
	finish(st, q, rc, "CUDA_GPU_MEMORY_USAGE_EVENTS");
	return 0;
}

/* One event of kind at t; data is taken (freed here). 0, or -1. */
static int emit(struct ns_st *st, const char *kind, struct ol_time t, int64_t bytes,
		const char *summary, json_t *data)
{
	struct ol_event e;
	int64_t id;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.t = t;
	e.pid = OL_NULL;
	e.bytes = bytes;
	e.summary = summary;
	e.data = data;
	id = sink_event(st->s, &e);
	json_decref(data);
	if (id < 0)
		return -1;
	st->records++;
	return 0;
}

/* Per card: the last bucket, and the nsys_memory event with its peak. */
static int memory_events(struct ns_st *st)
{
	char line[256];
	int i;

	for (i = 0; i < st->ndev; i++) {
		struct ns_dev *d = &st->dev[i];
		json_t *data = json_object();
		if (!data || flush_bucket(st, d) < 0) {
			json_decref(data);
			return -1;
		}
		json_object_set_new(data, "device", json_integer(d->id));
		json_object_set_new(data, "allocations", json_integer(d->allocs));
		json_object_set_new(data, "frees", json_integer(d->frees));
		json_object_set_new(data, "peak_bytes", json_integer(d->peak));
		json_object_set_new(data, "live_at_end_bytes", json_integer(d->cur));
		json_object_set_new(data, "largest_allocation_bytes", json_integer(d->largest));
		snprintf(line, sizeof(line), "Nsight Systems: gpu%lld peak of CUDA device"
			 " allocations %lld bytes (%lld allocations, %lld frees, %lld bytes"
			 " still allocated at the end of the capture)", (long long)d->id,
			 (long long)d->peak, (long long)d->allocs, (long long)d->frees,
			 (long long)d->cur);
		if (emit(st, vocab_event_kind(VE_NSYS_MEMORY), at(st, d->peak_ns), d->peak,
				line, data) < 0)
			return -1;
	}
	return 0;
}

static int failed_call(struct ns_st *st, int64_t start, const char *fn, int64_t rv)
{
	char line[256];
	json_t *data;

	if (st->failed_calls > NS_MAX_FAILED_EVENTS)
		return 0;
	if (!(data = json_object()))
		return -1;
	json_object_set_new(data, "function", ol_json_str(fn));
	json_object_set_new(data, "return_value", json_integer(rv));
	json_object_set_new(data, "out_of_memory", json_boolean(rv == 2));
	snprintf(line, sizeof(line), "Nsight Systems: %s returned %lld%s", fn ? fn : "?",
		 (long long)rv, rv == 2 ? " (out of memory)" : "");
	return emit(st, vocab_event_kind(VE_ALLOC_FAILED), at(st, start), OL_NULL, line, data);
}

/* The API's name without the entry point's version: "cudaMalloc_v3020"
 * is "cudaMalloc". */
static size_t base_len(const char *fn)
{
	const char *v = fn ? strstr(fn, "_v") : NULL;

	return v ? (size_t)(v - fn) : fn ? strlen(fn) : 0;
}

/* Allocation calls, once each: nsys may record a call twice, the API
 * (cudaMalloc) and inside it the versioned entry point
 * (cudaMalloc_v3020), on one thread within the outer call's time. */
static int read_runtime(struct ns_st *st)
{
	char last[64] = "";
	int64_t last_tid = OL_NULL, last_end = OL_NULL;
	sqlite3_stmt *q;
	int rc;

	if (!has_table(st, "CUPTI_ACTIVITY_KIND_RUNTIME") || !has_table(st, "StringIds") ||
	    !(q = prepare(st, "CUPTI_ACTIVITY_KIND_RUNTIME",
			  "SELECT r.start, r.end, r.globalTid, s.value, r.returnValue"
			  " FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId"
			  " WHERE s.value GLOB 'cudaMalloc*' OR s.value GLOB 'cuMemAlloc*'"
			  " OR s.value GLOB 'cuMemCreate*' ORDER BY r.start")))
		return 0;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t start = sqlite3_column_int64(q, 0), tid = sqlite3_column_int64(q, 2);
		const char *fn = (const char *)sqlite3_column_text(q, 3);
		int64_t rv = sqlite3_column_int64(q, 4);
		size_t bl = base_len(fn);
		if (tid == last_tid && start <= last_end && bl == strlen(last) &&
		    !memcmp(fn, last, bl))
			continue;
		snprintf(last, sizeof(last), "%.*s", (int)bl, fn ? fn : "");
		last_tid = tid;
		last_end = sqlite3_column_int64(q, 1);
		st->alloc_calls++;
		if (rv != 0 && (++st->failed_calls, failed_call(st, start, fn, rv) < 0)) {
			sqlite3_finalize(q);
			return -1;
		}
	}
	finish(st, q, rc, "CUPTI_ACTIVITY_KIND_RUNTIME");
	return 0;
}

/* The nsys_capture event: what the export held and what it did not. */
static int capture_event(struct ns_st *st)
{
	char line[512];
	json_t *data = json_object();

	if (!data)
		return -1;
	json_object_set_new(data, "gpus", json_integer(st->gpus));
	json_object_set_new(data, "gpu_name", st->gpu_name[0] ? json_string(st->gpu_name) : json_null());
	json_object_set_new(data, "memory_usage_events", json_integer(st->mem_events));
	json_object_set_new(data, "other_memory_kinds", json_integer(st->other_kinds));
	json_object_set_new(data, "allocation_calls", json_integer(st->alloc_calls));
	json_object_set_new(data, "failed_allocation_calls", json_integer(st->failed_calls));
	json_object_set_new(data, "start_known", json_boolean(st->epoch_ns != OL_NULL));
	snprintf(line, sizeof(line), "Nsight Systems export: %d GPU%s%s%s, %lld allocation"
		 " calls, %lld failed; %s", st->gpus, st->gpus == 1 ? "" : "s",
		 st->gpu_name[0] ? " " : "", st->gpu_name, (long long)st->alloc_calls,
		 (long long)st->failed_calls, st->mem_events ? "CUDA memory usage recorded" :
		 "no CUDA memory usage events (profile with --cuda-memory-usage=true to"
		 " record them)");
	return emit(st, vocab_event_kind(VE_NSYS_CAPTURE), at(st, 0), OL_NULL, line, data);
}

/* The database: the file itself, read-only and immutable, or (a memory
 * input: the fuzzers, the tests) a read-only copy of its bytes. */
static int open_db(struct ns_st *st, struct input *in)
{
	char uri[64];
	int rc;

	if (in->fd >= 0 && !in->compressed) {
		snprintf(uri, sizeof(uri), "file:/proc/self/fd/%d?mode=ro&immutable=1", in->fd);
		rc = sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	} else if (in->mem) {
		unsigned char *copy = sqlite3_malloc64(in->mem_len ? in->mem_len : 1);
		if (!copy)
			return -1;
		memcpy(copy, in->mem, in->mem_len);
		rc = sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_deserialize(st->db, "main", copy, (sqlite3_int64)in->mem_len,
						 (sqlite3_int64)in->mem_len,
						 SQLITE_DESERIALIZE_FREEONCLOSE |
						 SQLITE_DESERIALIZE_READONLY);
		else
			sqlite3_free(copy);
	} else {
		sink_diagf(st->s, 0, 0, OL_ERROR, "a compressed SQLite export: oomlens reads"
			   " these in place; decompress a copy and give that");
		return -1;
	}
	if (rc != SQLITE_OK) {
		sink_diagf(st->s, 0, 0, OL_ERROR, "not a database SQLite can open: %s",
			   st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		return -1;
	}
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_progress_handler(st->db, 1000, budget, st);
	return 0;
}

/* The header's page size times its page count against the file's size:
 * SQLite reads the pages past a cut as zeros, so a cut export would look
 * merely empty. Says so; 0 either way, -1 only if the store failed. */
static int check_size(struct input *in, struct sink *s)
{
	const unsigned char *h;
	uint64_t page, pages, want, have;
	size_t n;

	h = input_peek(in, 100, &n);
	if (n < 100)
		return 0;
	page = (uint64_t)h[16] << 8 | h[17];
	if (page == 1)
		page = 65536;
	pages = (uint64_t)h[28] << 24 | (uint64_t)h[29] << 16 | (uint64_t)h[30] << 8 | h[31];
	want = page * pages;
	have = in->mem ? in->mem_len : in->size;
	if (!pages || want <= have)
		return 0;
	return sink_diagf(s, 0, have, OL_ERROR, "the export is cut: its header says %llu"
			  " bytes, the file has %llu; what lay past the cut is lost",
			  (unsigned long long)want, (unsigned long long)have) < 0 ? -1 : 0;
}

int nsys_sqlite_parse(struct input *in, struct sink *s)
{
	struct ns_st *st = calloc(1, sizeof(*st));
	int r = -1;

	if (!st)
		return -1;
	st->s = s;
	if (check_size(in, s) < 0 || open_db(st, in) < 0)
		goto out;
	if (!has_table(st, "TARGET_INFO_GPU") && !has_table(st, "CUPTI_ACTIVITY_KIND_RUNTIME") &&
	    !has_table(st, "CUDA_GPU_MEMORY_USAGE_EVENTS")) {
		sink_diagf(s, 0, 0, OL_WARN, "an SQLite database, but not an Nsight Systems"
			   " export (no TARGET_INFO_GPU, CUPTI_ACTIVITY_KIND_RUNTIME or"
			   " CUDA_GPU_MEMORY_USAGE_EVENTS table): nothing read");
		r = 0;
		goto out;
	}
	read_start(st);
	if (st->epoch_ns == OL_NULL)
		sink_diagf(s, 0, 0, OL_WARN, "no TARGET_INFO_SESSION_START_TIME.utcEpochNs: the"
			   " capture's times are not placed on the clock");
	if (read_gpus(st) < 0 || (st->steps = 0, read_memory(st)) < 0 ||
	    memory_events(st) < 0 || (st->steps = 0, read_runtime(st)) < 0 ||
	    capture_event(st) < 0)
		goto out;
	if (st->failed_calls > NS_MAX_FAILED_EVENTS)
		sink_diagf(s, 0, 0, OL_INFO, "%lld failed allocation calls: the first %d kept as"
			   " events", (long long)st->failed_calls, NS_MAX_FAILED_EVENTS);
	r = st->records;
out:
	if (st->db)
		sqlite3_close(st->db);
	free(st);
	return r;
}

int nsys_sqlite_sniff(const unsigned char *head, size_t n)
{
	static const char *const names[] = { "TARGET_INFO_SESSION_START_TIME",
		"CUPTI_ACTIVITY_KIND_RUNTIME", "CUDA_GPU_MEMORY_USAGE_EVENTS", "TARGET_INFO_GPU", NULL };
	int i;

	if (n < 100 || memcmp(head, "SQLite format 3", 16) != 0)
		return 0;
	for (i = 0; names[i]; i++)
		if (memmem(head, n, names[i], strlen(names[i])))
			return 90;
	return 10;   /* another SQLite file: the parse says it is not an export */
}
