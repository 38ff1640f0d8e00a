/*
 * torch_trace.c -- the memory events of a PyTorch profiler Chrome trace
 * (export_chrome_trace, Kineto) into torch.* series, torch_oom events for
 * "[OutOfMemory]" and one torch_profiler_trace event.
 *
 * With profile_memory=True Kineto writes instant events
 *   {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "ts": µs,
 *    "args": {"Total Reserved": B, "Total Allocated": B, "Bytes": B
 *             (negative on free), "Addr": A, "Device Id": N,
 *             "Device Type": T, "Ev Idx": I}}
 * Device Type is c10's DeviceType: 0 CPU, 1 CUDA (ROCm builds say 1 too).
 * ts is microseconds on Kineto's clock; the UTC time is
 * "baseTimeNanoseconds" + ts (written in the header by recent Kineto, at
 * the end of the file by older ones: memory events seen before it are held,
 * at most PT_MAX_HELD, until it comes). Without a base a ts from 2001 on
 * reads as Unix microseconds; any other has no time (kept in order, never
 * guessed). The trace is read by parsers/common/pyjson.c, one event at a time.
 */
#include "parsers/torch/torch_trace.h"
#include "parsers/common/pyjson.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_MAX_HELD (1u << 20)
#define PT_READ (64u * 1024)

struct pt_mem {
	double ts;                   /* µs on the trace's clock */
	int64_t allocated, reserved, bytes, addr;
	int32_t device, type;
};

struct pt_st {
	struct sink *s;
	int64_t base_ns;             /* baseTimeNanoseconds, OL_NULL until seen */
	struct pt_mem *held;
	size_t nheld, cap;
	int held_overflow;
	uint64_t events, ooms, samples, cpu_events;
	int64_t peak_alloc, peak_resv, largest, largest_addr;
	double largest_ts, first_ts, last_ts;
	int32_t largest_dev;
	int timed, untimed;
	unsigned devices;            /* bit per CUDA device index < 32 */
};

static int64_t arg_int(const json_t *args, const char *key)
{
	int64_t v;

	return pj_int(json_object_get(args, key), &v) == 0 ? v : OL_NULL;
}

/* The UTC time of a ts, or none. Integer nanoseconds added to the base:
 * a double holding ns since the epoch is only good to a quarter µs. */
static struct ol_time ts_time(const struct pt_st *st, double ts)
{
	struct ol_time t = ol_time_none();
	double whole = floor(ts);
	int64_t ns;

	if (!(ts > -9e12 && ts < 9e15))
		return t;
	ns = (int64_t)whole * 1000 + (int64_t)llround((ts - whole) * 1000.0);
	if (st->base_ns != OL_NULL) {
		if (ns > INT64_MAX - st->base_ns || st->base_ns + ns <= 0)
			return t;
		ns += st->base_ns;
	} else if (!(ts >= 1e15 && ts < 4e15)) {
		return t;
	}
	t.clock = OL_CLOCK_UTC;
	t.utc_ns = ns;
	return t;
}

static int trace_sample(struct pt_st *st, const char *name, const char *entity,
		      const struct ol_time *t, int64_t v)
{
	int64_t id;

	if (v == OL_NULL)
		return 0;
	id = sink_series(st->s, name, "bytes", entity);
	if (id < 0 || sink_sample(st->s, id, t, (double)v) < 0)
		return -1;
	st->samples++;
	return 0;
}

/* One memory event, now that its time can be told. */
static int store_mem(struct pt_st *st, const struct pt_mem *m)
{
	struct ol_time t = ts_time(st, m->ts);
	char entity[32];

	if (t.clock == OL_CLOCK_UTC)
		st->timed++;
	else
		st->untimed++;
	if (m->type == 0)
		return trace_sample(st, vocab_series_name(VS_TORCH_CPU_ALLOCATED_BYTES), "cpu",
				&t, m->allocated);
	if (m->type == 1)
		snprintf(entity, sizeof(entity), "cuda:%d", (int)m->device);
	else
		snprintf(entity, sizeof(entity), "device%d:%d", (int)m->type, (int)m->device);
	if (trace_sample(st, vocab_series_name(VS_TORCH_ALLOCATED_BYTES), entity, &t,
			m->allocated) < 0 ||
	    trace_sample(st, vocab_series_name(VS_TORCH_RESERVED_BYTES), entity, &t,
			m->reserved) < 0)
		return -1;
	return 0;
}

static int flush_held(struct pt_st *st)
{
	size_t i;

	for (i = 0; i < st->nheld; i++)
		if (store_mem(st, &st->held[i]) < 0)
			return -1;
	st->nheld = 0;
	return 0;
}

static int memory_event(struct pt_st *st, const json_t *ev)
{
	const json_t *args = json_object_get(ev, "args");
	struct pt_mem m;
	double ts = NAN;
	int64_t v;

	memset(&m, 0, sizeof(m));
	if (pj_number(json_object_get(ev, "ts"), &ts) < 0)
		ts = NAN;
	m.ts = ts;
	m.allocated = arg_int(args, "Total Allocated");
	m.reserved = arg_int(args, "Total Reserved");
	m.bytes = arg_int(args, "Bytes");
	m.addr = arg_int(args, "Addr");
	v = arg_int(args, "Device Id");
	m.device = v != OL_NULL && v >= -1 && v < 1 << 16 ? (int32_t)v : -1;
	v = arg_int(args, "Device Type");
	m.type = v != OL_NULL && v >= 0 && v < 64 ? (int32_t)v : 1;
	st->events++;
	if (m.type == 0)
		st->cpu_events++;
	if (m.type == 1 && m.device >= 0 && m.device < 32)
		st->devices |= 1u << m.device;
	if (m.type != 0) {
		if (m.allocated != OL_NULL && m.allocated > st->peak_alloc)
			st->peak_alloc = m.allocated;
		if (m.reserved != OL_NULL && m.reserved > st->peak_resv)
			st->peak_resv = m.reserved;
		if (m.bytes != OL_NULL && m.bytes > st->largest) {
			st->largest = m.bytes;
			st->largest_addr = m.addr;
			st->largest_ts = ts;
			st->largest_dev = m.device;
		}
	}
	if (!isnan(ts)) {
		if (isnan(st->first_ts))
			st->first_ts = ts;
		st->last_ts = ts;
	}
	if (st->base_ns != OL_NULL || (ts >= 1e15 && ts < 4e15) || isnan(ts))
		return store_mem(st, &m);
	if (st->nheld == PT_MAX_HELD) {
		/* no base yet and too many to hold: these keep no time */
		st->held_overflow = 1;
		return store_mem(st, &m);
	}
	if (st->nheld == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 1024;
		struct pt_mem *p = realloc(st->held, cap * sizeof(*p));
		if (!p)
			return -1;
		st->held = p;
		st->cap = cap;
	}
	st->held[st->nheld++] = m;
	return 0;
}

static int oom_event(struct pt_st *st, const json_t *ev)
{
	const json_t *args = json_object_get(ev, "args");
	struct ol_event e;
	double ts = NAN;
	int64_t id;

	memset(&e, 0, sizeof(e));
	if (pj_number(json_object_get(ev, "ts"), &ts) == 0)
		e.t = ts_time(st, ts);
	else
		e.t = ol_time_none();
	e.kind = vocab_event_kind(VE_TORCH_OOM);
	e.pid = OL_NULL;
	e.bytes = arg_int(args, "Bytes");
	e.summary = "[OutOfMemory] event in the profiler trace";
	e.data = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			   "source", "profiler_trace",
			   "device", ol_json_int(arg_int(args, "Device Id")),
			   "requested_bytes", ol_json_int(e.bytes),
			   "allocated_bytes", ol_json_int(arg_int(args, "Total Allocated")),
			   "reserved_bytes", ol_json_int(arg_int(args, "Total Reserved")),
			   "total_bytes", json_null(), "free_bytes", json_null(),
			   "ts_us", isnan(ts) ? json_null() : json_real(ts));
	if (!e.data)
		return -1;
	id = sink_event(st->s, &e);
	json_decref(e.data);
	st->ooms++;
	return id < 0 ? -1 : 0;
}

static int on_value(void *arg, const struct pj_event *ev)
{
	struct pt_st *st = arg;
	const char *name;

	if (ev->kind != PJ_VALUE)
		return 0;
	if (!ev->container && ev->key && !strcmp(ev->key, "baseTimeNanoseconds")) {
		int64_t b;
		if (pj_int(ev->value, &b) == 0 && b > 0) {
			st->base_ns = b;
			if (flush_held(st) < 0)
				return -1;
		}
		return 0;
	}
	if (ev->container != '{')
		return 0;
	name = json_string_value(json_object_get(ev->value, "name"));
	if (name && !strcmp(name, "[memory]"))
		return memory_event(st, ev->value) < 0 ? -1 : 1;
	if (name && !strcmp(name, "[OutOfMemory]"))
		return oom_event(st, ev->value) < 0 ? -1 : 1;
	/* any other trace event: not kept, so that memory stays bounded */
	return json_object_get(ev->value, "ph") || json_object_get(ev->value, "name") ? 1 : 0;
}

static int summary_event(struct pt_st *st)
{
	struct ol_event e;
	char line[200];
	int64_t id;
	int d, ndev = 0;

	for (d = 0; d < 32; d++)
		ndev += !!(st->devices & (1u << d));
	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_TORCH_PROFILER_TRACE);
	e.t = ol_time_none();
	e.pid = OL_NULL;
	e.bytes = st->peak_resv ? st->peak_resv : OL_NULL;
	snprintf(line, sizeof(line), "profiler trace: %llu memory events, peak allocated %.2f GiB,"
		 " peak reserved %.2f GiB", (unsigned long long)st->events,
		 (double)st->peak_alloc / 1073741824.0, (double)st->peak_resv / 1073741824.0);
	e.summary = line;
	e.data = json_pack("{s:I, s:I, s:I, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
			   "memory_events", (json_int_t)st->events,
			   "cpu_memory_events", (json_int_t)st->cpu_events,
			   "oom_events", (json_int_t)st->ooms, "devices", ndev,
			   "peak_allocated_bytes", st->peak_alloc ? json_integer(st->peak_alloc) : json_null(),
			   "peak_reserved_bytes", st->peak_resv ? json_integer(st->peak_resv) : json_null(),
			   "largest_alloc_bytes", st->largest ? json_integer(st->largest) : json_null(),
			   "largest_alloc_addr", st->largest ? ol_json_int(st->largest_addr) : json_null(),
			   "largest_alloc_device", st->largest ? json_integer(st->largest_dev) : json_null(),
			   "largest_alloc_ts_us", st->largest ? json_real(st->largest_ts) : json_null(),
			   "first_ts_us", isnan(st->first_ts) ? json_null() : json_real(st->first_ts),
			   "last_ts_us", isnan(st->last_ts) ? json_null() : json_real(st->last_ts),
			   "base_time_ns", ol_json_int(st->base_ns),
			   "untimed_samples", st->untimed);
	if (!e.data)
		return -1;
	id = sink_event(st->s, &e);
	json_decref(e.data);
	return id < 0 ? -1 : 0;
}

int torch_trace_parse(struct input *in, struct sink *s)
{
	struct pt_st st;
	struct pyjson pj;
	char *buf = malloc(PT_READ);
	ssize_t k;
	int r = -1;

	if (!buf)
		return -1;
	memset(&st, 0, sizeof(st));
	st.s = s;
	st.base_ns = OL_NULL;
	st.first_ts = st.last_ts = NAN;
	pj_init(&pj, on_value, &st, 0, 0);
	while ((k = input_read(in, buf, PT_READ)) > 0)
		if (pj_feed(&pj, buf, (size_t)k) < 0)
			goto out;
	if (pj_end(&pj) < 0 || flush_held(&st) < 0)
		goto out;
	if (st.held_overflow &&
	    sink_diagf(s, 0, 0, OL_WARN, "more than %u memory events before the trace's"
		       " baseTimeNanoseconds: those past it keep no time", PT_MAX_HELD) < 0)
		goto out;
	if (st.untimed && st.events &&
	    sink_diagf(s, 0, 0, OL_INFO, "no baseTimeNanoseconds in the trace: %d samples"
		       " keep no time (ts is Kineto's own clock)", st.untimed) < 0)
		goto out;
	if (st.events || st.ooms) {
		if (summary_event(&st) < 0)
			goto out;
	}
	r = (int)(st.events + st.ooms > 0x7fffffff ? 0x7fffffff : st.events + st.ooms);
out:
	pj_release(&pj);
	free(st.held);
	free(buf);
	return r;
}

int torch_trace_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "\"[memory]\"") && mem_find(h, n, "\"Total Allocated\""))
		return 90;
	if (mem_find(h, n, "\"traceEvents\"") && mem_find(h, n, "\"profile_memory\""))
		return 80;
	if (mem_find(h, n, "\"traceEvents\"") && mem_find(h, n, "\"ph\""))
		return 40;
	return 0;
}
