/*
 * torch_model.c -- what a memory snapshot means for the timeline: turns
 * the normalized records of a reader (struct ts_ops, torch_records.h)
 * into sink calls; see torch_model.h. Shared by the pickle and the flat reader, so both give
 * the same rows.
 *
 * Allocation lifetimes: `alloc` opens a lifetime keyed by (device, addr)
 * in a hash table; `free_completed` at that key closes it (state freed).
 * A free_completed with no open lifetime is an allocation made before the
 * trace window (the ring buffer dropped it): state orphan_free. What is
 * still open at the end is state live. An `alloc` at a key already open
 * (a free the trace did not record, e.g. skip_actions) closes the old
 * lifetime as freed with unknown free time.
 *
 * Series per device (entity cuda:N), from the entries that have a time;
 * per millisecond, the peak and the level at its end (at most two samples): torch.allocated_bytes = bytes of the allocations made
 * inside the trace window and not yet freed (frees of older allocations
 * do not count: their size was never added); torch.reserved_bytes = bytes
 * of segment_alloc/segment_map minus segment_free/segment_unmap, never
 * below 0 (segments older than the window are unknown).
 *
 * Both series are then anchored to the snapshot's segments: at the end of
 * the trace the allocator held what the segments say (sum of
 * allocated_size and total_size per device), so the difference between
 * that and the trace's closing level (the weights and caches allocated
 * before the trace window) is added to every sample of the series
 * (sink_series_shift). A reserved series that was clamped at 0 is left
 * relative: its offset is not a constant.
 */
#include "parsers/torch/torch_model.h"
#include "parsers/common/hashtab.h"
#include "lib/vocab.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lifetime, as emit_alloc writes it. */
struct live {
	int64_t addr, device, size, seq, ns, stack;
};

/* The live table is two parallel arrays: the keys, probed on every alloc
 * and free (16 bytes a slot, so that a probe run stays in a cache line
 * and the whole key array in cache), and what each lifetime carries,
 * touched once the key is found. */
struct lkey {
	int64_t addr;
	int32_t device;               /* 0..TS_MAX_DEVICES-1 (dev_of checked it) */
	int32_t used;
};

struct lval {
	int64_t size, seq, ns, stack;
};

/* A series being sampled: the open millisecond's peak and last value. */
struct ser {
	int64_t sid;                /* series id, 0 = not made yet */
	int pending;
	int64_t bucket;             /* the open millisecond */
	int64_t max, max_ns, last, last_ns;
};

struct dev {
	int64_t allocated, reserved, peak;
	struct ser ser[2];          /* 0 allocated, 1 reserved */
	int64_t seg_allocated, seg_reserved; /* from the snapshot's segments */
	int has_segments;
	int reserved_clamped;       /* the reserved level was clamped at 0 */
};

struct ts_model {
	struct sink *s;
	int64_t snap;               /* snapshot id, 0 before begin */
	int64_t seg;                /* current segment id */
	int64_t records;
	int64_t trace_events;
	int failed;
	struct ol_snapshot info;
	struct lkey *lkey;          /* lcap slots, a power of 2, or none */
	struct lval *lval;          /* lcap slots, beside lkey */
	size_t lcap, ln;
	struct keymap stacks;       /* frames key -> stack id */
	struct dev *devs;
	size_t ndev;
	int64_t max_device;
};

/* a + b, saturated (sizes come from the file and may be hostile) */
static int64_t add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN + 1;
	return r;
}

/* ---- live allocations ---- */

static size_t live_hash(int64_t dev, int64_t addr)
{
	return ol_hash64((uint64_t)addr ^ ((uint64_t)dev << 56));
}

/* The live table's slot of (dev, addr): where it is, or the free slot
 * where it would go (linear probing, load at most 1/2). */
static size_t live_slot(const struct ts_model *m, int64_t dev, int64_t addr)
{
	size_t mask = m->lcap - 1;
	size_t i = live_hash(dev, addr) & mask;

	while (m->lkey[i].used && (m->lkey[i].addr != addr || m->lkey[i].device != dev))
		i = (i + 1) & mask;
	return i;
}

/* The lifetime in slot i. */
static struct live live_at(const struct ts_model *m, size_t i)
{
	struct live l = { m->lkey[i].addr, m->lkey[i].device, m->lval[i].size,
			  m->lval[i].seq, m->lval[i].ns, m->lval[i].stack };
	return l;
}

/* Double the live table. 0, or -1 (unchanged). */
static int live_grow(struct ts_model *m)
{
	size_t nc = m->lcap ? m->lcap * 2 : 4096, i, j;
	struct lkey *nk = calloc(nc, sizeof(*nk));
	struct lval *nv = malloc(nc * sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	for (i = 0; i < m->lcap; i++) {
		if (!m->lkey[i].used)
			continue;
		for (j = live_hash(m->lkey[i].device, m->lkey[i].addr) & (nc - 1); nk[j].used;
		     j = (j + 1) & (nc - 1))
			;
		nk[j] = m->lkey[i];
		nv[j] = m->lval[i];
	}
	free(m->lkey);
	free(m->lval);
	m->lkey = nk;
	m->lval = nv;
	m->lcap = nc;
	return 0;
}

/* Remove the lifetime at slot i: backward-shift deletion, so that every
 * entry after it in its probe run stays reachable. */
static void live_del(struct ts_model *m, size_t i)
{
	size_t mask = m->lcap - 1, j = i, k;

	m->lkey[i].used = 0;
	m->ln--;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->lkey[j].used)
			return;
		k = live_hash(m->lkey[j].device, m->lkey[j].addr) & mask;
		/* can entry j move to the hole at i? */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			m->lkey[i] = m->lkey[j];
			m->lval[i] = m->lval[j];
			m->lkey[j].used = 0;
			i = j;
		}
	}
}

/* ---- stacks ---- */

static int64_t make_stack(void *ctx, const struct ol_frame *f, size_t n)
{
	struct ts_model *m = ctx;
	return sink_stack(m->s, f, n);
}

/* The stack id of fr (sink_stack once per key), OL_NULL for none, -1
 * when the sink failed. */
static int64_t stack_of(struct ts_model *m, const struct ts_frames *fr)
{
	return ts_stack_id(&m->stacks, fr, make_stack, m);
}

/* ---- per device ---- */

static struct dev *dev_of(struct ts_model *m, int64_t device)
{
	if (device < 0 || device >= TS_MAX_DEVICES)
		return NULL;
	if ((size_t)device >= m->ndev) {
		size_t n = (size_t)device + 1;
		struct dev *nd = realloc(m->devs, n * sizeof(*nd));
		if (!nd)
			return NULL;
		memset(nd + m->ndev, 0, (n - m->ndev) * sizeof(*nd));
		m->devs = nd;
		m->ndev = n;
	}
	if (device > m->max_device)
		m->max_device = device;
	return &m->devs[device];
}

static int emit_sample(struct ts_model *m, int64_t device, int reserved, struct ser *x,
		       int64_t ns, int64_t v)
{
	struct ol_time t = { OL_CLOCK_UTC, ns, OL_NULL, NULL };

	if (!x->sid) {
		char ent[32];
		snprintf(ent, sizeof(ent), "cuda:%lld", (long long)device);
		x->sid = sink_series(m->s, reserved ? "torch.reserved_bytes" : "torch.allocated_bytes",
				     "bytes", ent);
		if (x->sid < 0)
			return -1;
	}
	return sink_sample(m->s, x->sid, &t, (double)v) < 0 ? -1 : 0;
}

/* Close the open millisecond: its peak, then its last value if different. */
static int flush_ser(struct ts_model *m, int64_t device, int reserved, struct ser *x)
{
	if (!x->pending)
		return 0;
	x->pending = 0;
	if (emit_sample(m, device, reserved, x, x->max_ns, x->max) < 0)
		return -1;
	if (x->last_ns != x->max_ns && x->last != x->max)
		return emit_sample(m, device, reserved, x, x->last_ns, x->last);
	return 0;
}

/* A new value of a series at ns. Samples are kept per millisecond: the
 * peak of each millisecond and the level at its end (at most two points),
 * so that millions of trace events do not become millions of samples. */
static int sample(struct ts_model *m, int64_t device, int reserved, int64_t ns, int64_t v)
{
	struct dev *d = dev_of(m, device);
	struct ser *x;
	int64_t b;

	if (!d || ns == OL_NULL)
		return 0;
	x = &d->ser[reserved];
	b = ns / 1000000;
	if (x->pending && b != x->bucket && flush_ser(m, device, reserved, x) < 0)
		return -1;
	if (!x->pending) {
		x->pending = 1;
		x->bucket = b;
		x->max = v;
		x->max_ns = ns;
	} else if (v > x->max) {
		x->max = v;
		x->max_ns = ns;
	}
	x->last = v;
	x->last_ns = ns;
	return 0;
}

static void pool_text(char *buf, size_t n, int64_t a, int64_t b, const char **out)
{
	if (a == OL_NULL && b == OL_NULL) {
		*out = NULL;
		return;
	}
	snprintf(buf, n, "%lld,%lld", (long long)(a == OL_NULL ? -1 : a),
		 (long long)(b == OL_NULL ? -1 : b));
	*out = buf;
}

/* ---- ops ---- */

static int m_begin(void *ctx, const struct ts_header *h)
{
	struct ts_model *m = ctx;

	if (m->snap)
		return 0;
	m->info.form = h->form;
	m->info.protocol = h->protocol;
	m->info.devices = m->info.trace_events = m->info.peak_allocated_bytes = OL_NULL;
	m->snap = sink_snapshot(m->s, &m->info);
	m->info.form = NULL;
	if (m->snap < 0)
		return -1;
	m->records++;
	return 0;
}

static int m_segment(void *ctx, const struct ts_segment *x)
{
	struct ts_model *m = ctx;
	struct ol_segment r;
	char pool[48];

	r.device = x->device;
	r.address = x->address;
	r.total_size = x->total_size;
	r.allocated_size = x->allocated_size;
	r.active_size = x->active_size;
	r.requested_size = x->requested_size;
	r.stream = x->stream;
	r.segment_type = x->segment_type;
	pool_text(pool, sizeof(pool), x->pool_a, x->pool_b, &r.pool_id);
	r.is_expandable = x->is_expandable;
	r.stack_id = stack_of(m, x->frames);
	if (r.stack_id == -1)
		return -1;
	m->seg = sink_segment(m->s, m->snap, &r);
	if (m->seg < 0)
		return -1;
	if (x->device != OL_NULL) {
		struct dev *d = dev_of(m, x->device);
		if (d) {
			d->has_segments = 1;
			if (x->allocated_size != OL_NULL)
				d->seg_allocated = add(d->seg_allocated, x->allocated_size);
			if (x->total_size != OL_NULL)
				d->seg_reserved = add(d->seg_reserved, x->total_size);
		}
	}
	m->records++;
	return 0;
}

static int m_block(void *ctx, const struct ts_block *x)
{
	struct ts_model *m = ctx;
	struct ol_block r;

	if (!m->seg)
		return 0;
	r.address = x->address;
	r.size = x->size;
	r.requested_size = x->requested_size;
	r.state = x->state;
	r.stack_id = stack_of(m, x->frames);
	if (r.stack_id == -1 || sink_block(m->s, m->seg, &r) < 0)
		return -1;
	m->records++;
	return 0;
}

static int emit_alloc(struct ts_model *m, const struct live *l, int64_t free_seq,
		      int64_t free_ns, const char *state)
{
	struct ol_alloc a = { l->device, l->addr, l->size, l->seq, l->ns, free_seq, free_ns,
			      state, l->stack };

	if (sink_alloc(m->s, m->snap, &a) < 0)
		return -1;
	m->records++;
	return 0;
}

static int oom_event(struct ts_model *m, const struct ts_entry *x, int64_t ns)
{
	struct ol_event e;
	char summary[200];
	json_t *data = json_object();
	int64_t id;

	json_object_set_new(data, "device", ol_json_int(x->device));
	json_object_set_new(data, "requested_bytes", ol_json_int(x->size));
	json_object_set_new(data, "device_free_bytes", ol_json_int(x->device_free));
	snprintf(summary, sizeof(summary),
		 "PyTorch CUDA out of memory on cuda:%lld: %lld bytes requested, %lld free",
		 (long long)x->device, (long long)x->size, (long long)x->device_free);
	if (x->size == OL_NULL || x->device_free == OL_NULL)
		snprintf(summary, sizeof(summary), "PyTorch CUDA out of memory on cuda:%lld",
			 (long long)x->device);
	e.kind = vocab_event_kind(VE_TORCH_OOM);
	e.t.clock = ns == OL_NULL ? OL_CLOCK_NONE : OL_CLOCK_UTC;
	e.t.utc_ns = ns;
	e.t.boot_ns = OL_NULL;
	e.t.boot_id = NULL;
	e.pid = OL_NULL;
	e.comm = NULL;
	e.bytes = x->size;
	e.line = 0;
	e.summary = summary;
	e.data = data;
	id = sink_event(m->s, &e);
	json_decref(data);
	if (id < 0)
		return -1;
	m->records++;
	return 0;
}

/* The entry's time in ns (UTC), OL_NULL if it has none or it is absurd. */
static int64_t entry_ns(const struct ts_entry *x)
{
	if (x->time_us != OL_NULL && x->time_us > -9000000000000000LL &&
	    x->time_us < 9000000000000000LL)
		return x->time_us * 1000;
	return OL_NULL;
}

/* The trace row of entry x. Its stack id (or OL_NULL), or -1 when the
 * sink failed. */
static int64_t trace_row(struct ts_model *m, const struct ts_entry *x, int64_t ns)
{
	struct ol_trace r;
	char pool[48];

	r.device = x->device;
	r.seq = x->seq;
	r.action = x->action;
	r.addr = x->addr;
	r.size = x->size;
	r.stream = x->stream;
	r.time_ns = ns;
	r.device_free = x->device_free;
	r.compile_context = x->compile_context;
	r.user_metadata = x->user_metadata;
	pool_text(pool, sizeof(pool), x->pool_a, x->pool_b, &r.pool_id);
	r.stack_id = stack_of(m, x->frames);
	if (r.stack_id == -1 || sink_trace(m->s, m->snap, &r) < 0)
		return -1;
	m->records++;
	m->trace_events++;
	return r.stack_id;
}

/* An alloc: opens a lifetime at (device, addr); one already open there
 * (a free the trace did not record) is closed as freed, time unknown. */
static int on_alloc(struct ts_model *m, struct dev *d, const struct ts_entry *x, int64_t ns,
		    int64_t stack)
{
	struct lval *v;
	size_t i;

	if ((m->ln + 1) * 2 >= m->lcap && live_grow(m) < 0)  /* load <= 1/2: misses probe short */
		return 0;
	i = live_slot(m, x->device, x->addr);
	v = &m->lval[i];
	if (m->lkey[i].used) {
		struct live old = live_at(m, i);
		if (emit_alloc(m, &old, OL_NULL, OL_NULL, "freed") < 0)
			return -1;
		d->allocated = add(d->allocated, v->size == OL_NULL ? 0 : -v->size);
	} else {
		m->ln++;
	}
	m->lkey[i].used = 1;
	m->lkey[i].addr = x->addr;
	m->lkey[i].device = (int32_t)x->device;
	v->size = x->size;
	v->seq = x->seq;
	v->ns = ns;
	v->stack = stack;
	if (x->size != OL_NULL)
		d->allocated = add(d->allocated, x->size);
	if (d->allocated > d->peak)
		d->peak = d->allocated;
	return sample(m, x->device, 0, ns, d->allocated);
}

/* A free_completed: closes the lifetime open at (device, addr), or is an
 * orphan free of an allocation made before the trace window. */
static int on_free(struct ts_model *m, struct dev *d, const struct ts_entry *x, int64_t ns,
		   int64_t stack)
{
	size_t i = m->lcap ? live_slot(m, x->device, x->addr) : 0;
	struct live l;

	if (!m->lcap || !m->lkey[i].used) {
		struct live o = { x->addr, x->device, x->size, OL_NULL, OL_NULL, stack };
		return emit_alloc(m, &o, x->seq, ns, "orphan_free");
	}
	l = live_at(m, i);
	live_del(m, i);
	if (emit_alloc(m, &l, x->seq, ns, "freed") < 0)
		return -1;
	if (l.size != OL_NULL)
		d->allocated = add(d->allocated, -l.size);
	return sample(m, x->device, 0, ns, d->allocated);
}

/* A segment mapped (grow > 0) or unmapped: the reserved level, never
 * below 0 (segments older than the window are unknown). */
static int on_segment(struct ts_model *m, struct dev *d, const struct ts_entry *x, int64_t ns,
		      int grow)
{
	if (grow) {
		d->reserved = add(d->reserved, x->size);
	} else {
		d->reserved = add(d->reserved, x->size == INT64_MIN ? INT64_MAX : -x->size);
		if (d->reserved < 0) {
			d->reserved = 0;
			d->reserved_clamped = 1;
		}
	}
	return sample(m, x->device, 1, ns, d->reserved);
}

static int m_entry(void *ctx, const struct ts_entry *x)
{
	struct ts_model *m = ctx;
	const char *a = x->action;
	int64_t ns = entry_ns(x), stack = trace_row(m, x, ns);
	struct dev *d;

	if (stack == -1)
		return -1;
	d = x->device == OL_NULL ? NULL : dev_of(m, x->device);
	if (!a || !d)
		return 0;
	if (!strcmp(a, "alloc") && x->addr != OL_NULL)
		return on_alloc(m, d, x, ns, stack);
	if (!strcmp(a, "free_completed") && x->addr != OL_NULL)
		return on_free(m, d, x, ns, stack);
	if ((!strcmp(a, "segment_alloc") || !strcmp(a, "segment_map")) && x->size != OL_NULL)
		return on_segment(m, d, x, ns, 1);
	if ((!strcmp(a, "segment_free") || !strcmp(a, "segment_unmap")) && x->size != OL_NULL)
		return on_segment(m, d, x, ns, 0);
	if (!strcmp(a, "oom"))
		return oom_event(m, x, ns);
	return 0;
}

/* Start loading the live table's slot of an entry to come: its probe is
 * a cache miss otherwise (the keys are megabytes, visited at random). */
static void m_ahead(void *ctx, const struct ts_entry *x)
{
	const struct ts_model *m = ctx;

	size_t i;

	if (!m->lcap || x->addr == OL_NULL)
		return;
	i = live_hash(x->device, x->addr) & (m->lcap - 1);
	__builtin_prefetch(&m->lkey[i]);
	__builtin_prefetch(&m->lval[i]);
}

static int m_settings(void *ctx, json_t *settings)
{
	struct ts_model *m = ctx;
	const char *k;
	json_t *v;

	if (!json_is_object(settings))
		return 0;
	json_decref(m->info.settings);
	m->info.settings = json_incref(settings);
	json_object_foreach(settings, k, v) {
		char key[200];
		char *text = json_is_string(v) ? NULL
			: json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);
		int64_t r;
		snprintf(key, sizeof(key), "torch.allocator.%s", k);
		r = sink_meta(m->s, key, json_is_string(v) ? json_string_value(v) : text);
		free(text);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int cmp_live(const void *a, const void *b)
{
	const struct live *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Place a device's series on the level the segments give (see the top of
 * the file); the peak moves with the allocated series. */
static int anchor_series(struct ts_model *m, struct dev *d)
{
	int64_t off;

	if (!d->has_segments)
		return 0;
	off = d->seg_allocated - d->allocated;
	if (d->ser[0].sid > 0 && off > 0) {
		if (sink_series_shift(m->s, d->ser[0].sid, (double)off) < 0)
			return -1;
		d->peak = add(d->peak, off);
	}
	off = d->seg_reserved - d->reserved;
	if (d->ser[1].sid > 0 && off > 0 && !d->reserved_clamped &&
	    sink_series_shift(m->s, d->ser[1].sid, (double)off) < 0)
		return -1;
	return 0;
}

static int m_end(void *ctx, int64_t devices)
{
	struct ts_model *m = ctx;
	struct live *v;
	size_t i, n = 0;
	int64_t peak = OL_NULL;

	if (!m->snap)
		return 0;
	v = malloc((m->ln ? m->ln : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < m->lcap; i++)
		if (m->lkey[i].used)
			v[n++] = live_at(m, i);
	qsort(v, n, sizeof(*v), cmp_live);
	for (i = 0; i < n; i++)
		if (emit_alloc(m, &v[i], OL_NULL, OL_NULL, "live") < 0) {
			free(v);
			return -1;
		}
	free(v);
	if (m->lkey)
		memset(m->lkey, 0, m->lcap * sizeof(*m->lkey));
	m->ln = 0;
	for (i = 0; i < m->ndev; i++)
		if (flush_ser(m, (int64_t)i, 0, &m->devs[i].ser[0]) < 0 ||
		    flush_ser(m, (int64_t)i, 1, &m->devs[i].ser[1]) < 0 ||
		    anchor_series(m, &m->devs[i]) < 0)
			return -1;
	for (i = 0; i < m->ndev; i++)
		if (m->trace_events && (peak == OL_NULL || m->devs[i].peak > peak))
			peak = m->devs[i].peak;
	m->info.devices = devices != OL_NULL ? devices
			  : m->max_device >= 0 ? m->max_device + 1 : 0;
	m->info.trace_events = m->trace_events;
	m->info.peak_allocated_bytes = peak;
	if (sink_snapshot_end(m->s, m->snap, &m->info) < 0)
		return -1;
	return 0;
}

struct ts_model *ts_model_new(struct sink *s, struct ts_ops *ops)
{
	static const struct ts_ops model_ops = {
		NULL, m_begin, m_segment, m_block, m_entry, m_settings, m_end, m_ahead
	};
	struct ts_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->s = s;
	m->max_device = -1;
	*ops = model_ops;
	ops->ctx = m;
	return m;
}

int64_t ts_model_free(struct ts_model *m)
{
	int64_t r;

	if (!m)
		return 0;
	r = m->records;
	json_decref(m->info.settings);
	free(m->lkey);
	free(m->lval);
	keymap_free(&m->stacks);
	free(m->devs);
	free(m);
	return r;
}
