/*
 * whatif_trace.c -- compiling a device's allocator trace for the replay
 * (whatif_replay.h): model requests on handles from the trace's allocs and
 * frees, empty_cache() calls from its release runs, the recorded segment
 * events; then the state before the trace and the device's capacity.
 *
 * Handles: every allocation of the trace and every block alive before it
 * gets a number; a free names the number its address holds. A free whose
 * address the trace never allocated is a block from before the trace; a
 * live block of the snapshot whose address the trace never allocated is
 * one too.
 */
#include "analyzer/derive/whatif_impl.h"

#include <stdlib.h>
#include <string.h>

#define FREED UINT32_MAX

int wr_grow(void **v, size_t *cap, size_t n, size_t sz)
{
	size_t nc;
	void *p;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 256;
	p = realloc(*v, nc * sz);
	if (!p)
		return -1;
	*v = p;
	*cap = nc;
	return 0;
}

/* ---- the address map ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The value slot of addr, NULL when absent. */
static uint32_t *map_find(const struct wr_map *m, uint64_t addr)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = mix(addr + 1) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == addr + 1)
			return &m->val[i];
	return NULL;
}

static int map_put(struct wr_map *m, uint64_t addr, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct wr_map g = { NULL, NULL, m->cap ? m->cap * 2 : 1024, 0 };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = malloc(g.cap * sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return -1;
		}
		for (i = 0; i < m->cap; i++)
			if (m->key[i] && map_put(&g, m->key[i] - 1, m->val[i]) < 0)
				return -1;
		free(m->key);
		free(m->val);
		*m = g;
	}
	for (i = mix(addr + 1) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == addr + 1)
			break;
	if (!m->key[i])
		m->n++;
	m->key[i] = addr + 1;
	m->val[i] = val;
	return 0;
}

/* ---- building ---- */

struct wr_trace *wr_new(const struct am_settings *recorded, int frees_at_requested)
{
	struct wr_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->rec = *recorded;
	t->rec.capacity = AM_UNLIMITED;
	t->use_requested = frees_at_requested;
	t->first_oom_rs = -1;
	return t;
}

void wr_free(struct wr_trace *t)
{
	if (!t)
		return;
	free(t->st);
	free(t->seq);
	free(t->rs);
	free(t->pre);
	free(t->end);
	free(t->start);
	free(t->live.key);
	free(t->live.val);
	free(t->streams);
	free(t);
}

/* Index of stream value v (new ones appended). -1 when out of memory or
 * past 65535 streams. */
static int stream_index(struct wr_trace *t, int64_t v)
{
	size_t i;

	for (i = t->n_streams; i-- > 0;)
		if (t->streams[i] == v)
			return (int)i;
	if (t->n_streams >= 65535 ||
	    wr_grow((void **)&t->streams, &t->cap_streams, t->n_streams, sizeof(*t->streams)) < 0)
		return -1;
	t->streams[t->n_streams] = v;
	return (int)t->n_streams++;
}

static int push_step(struct wr_trace *t, int op, uint64_t size, uint32_t id, int stream,
		     int64_t seq)
{
	size_t cap = t->cap;

	if (wr_grow((void **)&t->st, &cap, t->n, sizeof(*t->st)) < 0 ||
	    wr_grow((void **)&t->seq, &t->cap, t->n, sizeof(*t->seq)) < 0)
		return -1;
	t->st[t->n].op = (uint8_t)op;
	t->st[t->n].flag = 0;
	t->st[t->n].size = size;
	t->st[t->n].id = id;
	t->st[t->n].stream = (uint16_t)stream;
	t->seq[t->n] = (uint32_t)seq;
	t->n++;
	return 0;
}

/* Give the recorded segment events waiting since the last step a step to
 * be compared at, before a step of kind next (ST_MALLOC, ST_OOM, ST_FREE;
 * -1 another entry; -2 the end). A run that released memory becomes an
 * empty_cache() step; when a request follows with the segment it needed
 * (or an oom), the request may be what released it (ST_CANDIDATE): the
 * recorded replay decides, and both steps are compared as one. */
int wr_flush(struct wr_trace *t, int next, int64_t seq)
{
	size_t i, e = t->n;
	int rel = 0, grow = 0, req = next == ST_MALLOC || next == ST_OOM;

	for (i = t->pending; i < t->n_rs; i++) {
		if (t->rs[i].kind == AM_SEG_FREE || t->rs[i].kind == AM_SEG_UNMAP)
			rel = 1;
		else
			grow = 1;
	}
	if (next == -1 && !rel)
		return 0;
	if (rel) {
		if (push_step(t, ST_EMPTY, 0, 0, 0, seq) < 0)
			return -1;
		if (req && (grow || next == ST_OOM))
			t->st[e].flag = ST_CANDIDATE;
	}
	for (i = t->pending; i < t->n_rs; i++) {
		int r = t->rs[i].kind == AM_SEG_FREE || t->rs[i].kind == AM_SEG_UNMAP;

		t->rs[i].step = (uint32_t)(rel && (r || t->st[e].flag || !req) ? e : t->n);
	}
	t->pending = t->n_rs;
	return 0;
}

static int add_segment_event(struct wr_trace *t, const struct wr_entry *e, int stream)
{
	static const uint8_t kind[] = { [WR_SEG_ALLOC] = AM_SEG_ALLOC, [WR_SEG_FREE] = AM_SEG_FREE,
		[WR_SEG_MAP] = AM_SEG_MAP, [WR_SEG_UNMAP] = AM_SEG_UNMAP };
	struct wr_rseg *r;

	if (wr_grow((void **)&t->rs, &t->cap_rs, t->n_rs, sizeof(*t->rs)) < 0)
		return -1;
	r = &t->rs[t->n_rs++];
	r->addr = e->addr;
	r->size = e->size;
	r->stream = (uint16_t)stream;
	r->kind = kind[e->action];
	r->step = UINT32_MAX;
	return 0;
}

/* A block alive before the trace: a new handle for it. */
static int add_pre(struct wr_trace *t, uint64_t addr, uint64_t size, uint64_t requested,
		   int stream, int exact, uint32_t *id)
{
	struct wr_pre *p;

	if (wr_grow((void **)&t->pre, &t->cap_pre, t->n_pre, sizeof(*t->pre)) < 0)
		return -1;
	p = &t->pre[t->n_pre++];
	memset(p, 0, sizeof(*p));
	p->addr = addr;
	p->size = size;
	p->requested = requested;
	p->stream = (uint16_t)stream;
	p->exact = (uint8_t)exact;
	p->id = *id = t->next_id++;
	return 0;
}

static int add_free(struct wr_trace *t, const struct wr_entry *e, int stream)
{
	uint32_t *v = map_find(&t->live, e->addr), id;

	if (wr_flush(t, ST_FREE, e->seq) < 0)
		return -1;
	if (v && *v != FREED) {
		id = *v;
		*v = FREED;
		return push_step(t, ST_FREE, 0, id, stream, e->seq);
	}
	if (v) {
		t->unmatched_frees++;   /* freed twice, or its alloc was not recorded */
		return 0;
	}
	if (add_pre(t, e->addr, 0, e->size, stream, 0, &id) < 0 ||
	    map_put(&t->live, e->addr, FREED) < 0)
		return -1;
	return push_step(t, ST_FREE, 0, id, stream, e->seq);
}

static int add_request(struct wr_trace *t, const struct wr_entry *e, int stream)
{
	int op = e->action == WR_OOM ? ST_OOM : ST_MALLOC;
	uint32_t id, *v;
	uint64_t r = am_round_size(&t->rec, e->size);

	if (wr_flush(t, op, e->seq) < 0)
		return -1;
	if (r > t->max_request)
		t->max_request = r;
	if (op == ST_OOM) {
		if (!t->recorded_ooms++) {
			t->first_oom_free = e->device_free;
			t->first_oom_rs = (int64_t)t->n_rs;
		}
		return push_step(t, op, e->size, t->next_id++, stream, e->seq);
	}
	v = map_find(&t->live, e->addr);
	if (v && *v != FREED) {
		/* the address is handed out again: its free was not recorded */
		t->unmatched_frees++;
		if (push_step(t, ST_FREE, 0, *v, stream, e->seq) < 0)
			return -1;
	}
	id = t->next_id++;
	if (push_step(t, op, e->size, id, stream, e->seq) < 0)
		return -1;
	return map_put(&t->live, e->addr, id);
}

int wr_add_logged_oom(struct wr_trace *t, uint64_t size)
{
	int64_t seq = t->n ? (int64_t)t->seq[t->n - 1] + 1 : 0;

	if (wr_flush(t, ST_OOM, seq) < 0 || push_step(t, ST_OOM, size, t->next_id++, 0, seq) < 0)
		return -1;
	t->st[t->n - 1].flag = ST_LOGGED;
	if (am_round_size(&t->rec, size) > t->max_request)
		t->max_request = am_round_size(&t->rec, size);
	return 0;
}

int wr_add(struct wr_trace *t, const struct wr_entry *e)
{
	int stream, r = 0;

	if (t->nomem)
		return -1;
	stream = stream_index(t, e->stream);
	if (stream < 0) {
		t->nomem = 1;
		return -1;
	}
	switch (e->action) {
	case WR_ALLOC:
	case WR_OOM:
		r = add_request(t, e, stream);
		break;
	case WR_FREE_COMPLETED:
	case WR_FREE_REQUESTED:
		if ((e->action == WR_FREE_REQUESTED) == !!t->use_requested)
			r = add_free(t, e, stream);
		break;
	case WR_SEG_ALLOC:
	case WR_SEG_FREE:
	case WR_SEG_MAP:
	case WR_SEG_UNMAP:
		r = add_segment_event(t, e, stream);
		break;
	default:
		r = wr_flush(t, -1, e->seq);
		break;
	}
	if (r < 0)
		t->nomem = 1;
	return r;
}

int wr_add_segment(struct wr_trace *t, const struct wr_segment *s, const struct wr_block *b,
		   size_t n)
{
	int stream = stream_index(t, s->stream);
	struct wr_seg *g;
	uint32_t id, *v;
	size_t i;

	if (t->nomem || stream < 0 ||
	    wr_grow((void **)&t->end, &t->cap_end, t->n_end, sizeof(*t->end)) < 0) {
		t->nomem = 1;
		return -1;
	}
	g = &t->end[t->n_end++];
	g->addr = s->addr;
	g->size = s->size;
	g->stream = (uint16_t)stream;
	g->small = (uint8_t)!!s->small;
	g->expandable = (uint8_t)!!s->expandable;
	for (i = 0; i < n; i++) {
		if (!b[i].active || !b[i].size)
			continue;
		v = map_find(&t->live, b[i].addr);
		if (v)
			continue;    /* allocated in the trace (alive, or freed and reused unseen) */
		if (add_pre(t, b[i].addr, b[i].size, b[i].requested, stream, 1, &id) < 0 ||
		    map_put(&t->live, b[i].addr, id) < 0) {
			t->nomem = 1;
			return -1;
		}
	}
	return 0;
}

/* ---- the state before the trace ---- */

static int seg_cmp(const void *a, const void *b)
{
	const struct wr_seg *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int pre_cmp(const void *a, const void *b)
{
	const struct wr_pre *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Take [addr, addr + size) out of the expandable ranges of s[0..*n). */
static int ranges_cut(struct wr_seg **s, size_t *n, size_t *cap, uint64_t addr, uint64_t size)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		struct wr_seg *g = &(*s)[i];
		uint64_t a = g->addr, e = g->addr + g->size, ce = addr + size;

		if (!g->expandable || ce <= a || addr >= e)
			continue;
		if (addr > a && ce < e) {       /* a hole in the middle: two ranges */
			if (wr_grow((void **)s, cap, *n, sizeof(**s)) < 0)
				return -1;
			g = &(*s)[i];
			(*s)[*n] = *g;
			(*s)[*n].addr = ce;
			(*s)[*n].size = e - ce;
			(*n)++;
			g->size = addr - a;
		} else if (addr <= a && ce >= e) {
			(*s)[i--] = (*s)[--(*n)];
		} else if (addr <= a) {
			g->addr = ce;
			g->size = e - ce;
		} else {
			g->size = addr - a;
		}
	}
	return 0;
}

/* The segments before the trace: the snapshot's, undoing the trace's
 * segment events from the last to the first. */
static int undo_segments(struct wr_trace *t)
{
	size_t cap = t->n_end, n = t->n_end, i, j;
	struct wr_seg *s = malloc((cap ? cap : 1) * sizeof(*s));

	if (!s)
		return -1;
	if (n)
		memcpy(s, t->end, n * sizeof(*s));
	for (i = t->n_rs; i-- > 0;) {
		const struct wr_rseg *r = &t->rs[i];
		struct wr_seg add = { r->addr, r->size, r->stream, r->size == AM_SMALL_BUFFER, 0 };

		if (r->kind == AM_SEG_ALLOC) {
			for (j = 0; j < n && (s[j].addr != r->addr || s[j].expandable); j++)
				;
			if (j < n)
				s[j] = s[--n];
			continue;
		}
		if (r->kind == AM_SEG_MAP) {
			if (ranges_cut(&s, &n, &cap, r->addr, r->size) < 0)
				goto fail;
			continue;
		}
		if (r->kind == AM_SEG_UNMAP) {
			/* the pool of the nearest range of the stream; large if none */
			uint64_t best = UINT64_MAX;

			add.expandable = 1;
			add.small = 0;
			for (j = 0; j < n; j++)
				if (s[j].expandable && s[j].stream == r->stream) {
					uint64_t d = s[j].addr > r->addr ? s[j].addr - r->addr : r->addr - s[j].addr;
					if (d < best) {
						best = d;
						add.small = s[j].small;
					}
				}
		}
		if (wr_grow((void **)&s, &cap, n, sizeof(*s)) < 0)
			goto fail;
		s[n++] = add;
	}
	if (n > 1)
		qsort(s, n, sizeof(*s), seg_cmp);
	/* expandable ranges that touch are one mapped range */
	for (i = j = 0; i < n; i++) {
		if (j && s[i].expandable && s[j - 1].expandable && s[j - 1].stream == s[i].stream &&
		    s[j - 1].small == s[i].small && s[j - 1].addr + s[j - 1].size == s[i].addr)
			s[j - 1].size += s[i].size;
		else
			s[j++] = s[i];
	}
	t->start = s;
	t->n_start = j;
	return 0;
fail:
	free(s);
	return -1;
}

/* Index of the segment of t->start holding addr, or -1. */
static long start_of(const struct wr_trace *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n_start;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->start[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - t->start[lo - 1].addr >= t->start[lo - 1].size)
		return -1;
	return (long)lo - 1;
}

int wr_start_state(struct wr_trace *t, struct wr_agreement *ag)
{
	size_t i;

	if (undo_segments(t) < 0)
		return -1;
	if (t->n_pre > 1)
		qsort(t->pre, t->n_pre, sizeof(*t->pre), pre_cmp);
	for (i = 0; i < t->n_pre; i++) {
		struct wr_pre *p = &t->pre[i];
		long s = start_of(t, p->addr);
		uint64_t end, limit;

		if (!p->exact)
			p->size = am_round_size(&t->rec, p->requested);
		if (s < 0 || (i && t->pre[i - 1].exact != 2 && start_of(t, t->pre[i - 1].addr) == s &&
			      t->pre[i - 1].addr + t->pre[i - 1].size > p->addr)) {
			p->exact = 2;            /* not placed: outside, or overlapping */
			ag->uncovered_blocks++;
			continue;
		}
		limit = t->start[s].addr + t->start[s].size;
		if (i + 1 < t->n_pre && t->pre[i + 1].addr < limit)
			limit = t->pre[i + 1].addr;
		end = p->addr + p->size;
		if (end > limit)
			p->size = limit - p->addr;
		else if (!p->exact && !t->start[s].small && !t->start[s].expandable &&
			 limit - end <= AM_SMALL_SIZE)
			p->size = limit - p->addr;   /* a large block is never split to leave <= 1 MiB */
		if (!p->size) {
			p->exact = 2;
			ag->uncovered_blocks++;
		}
	}
	ag->pre_segments = t->n_start;
	ag->pre_blocks = t->n_pre;
	return 0;
}

uint64_t wr_capacity(const struct wr_trace *t, const struct wr_options *opt,
		     struct wr_agreement *ag, const char **source)
{
	uint64_t r = 0, peak, at_oom = 0;
	size_t i;
	int candidates = 0;

	for (i = 0; i < t->n_start; i++)
		r += t->start[i].size;
	peak = r;
	for (i = 0; i < t->n_rs; i++) {
		if ((int64_t)i == t->first_oom_rs)
			at_oom = r;
		if (t->rs[i].kind == AM_SEG_ALLOC || t->rs[i].kind == AM_SEG_MAP)
			r += t->rs[i].size;
		else
			r = r > t->rs[i].size ? r - t->rs[i].size : 0;
		if (r > peak)
			peak = r;
	}
	if ((int64_t)t->n_rs == t->first_oom_rs)
		at_oom = r;
	ag->recorded_peak_reserved = peak;
	for (i = 0; i < t->n; i++)
		if (t->st[i].op == ST_EMPTY && (t->st[i].flag & ST_CANDIDATE))
			candidates = 1;
	if (t->first_oom_rs >= 0) {
		*source = "oom";
		return at_oom + t->first_oom_free;
	}
	if (opt->oom_size && opt->oom_capacity) {
		*source = "torch_oom";
		return opt->oom_capacity;
	}
	if (candidates) {
		*source = "peak_reserved";
		return peak;
	}
	if (opt->gpu_total) {
		*source = "gpu_total";
		return opt->gpu_total;
	}
	*source = NULL;
	return AM_UNLIMITED;
}
