/*
 * whatif_replay.c -- running a compiled trace (whatif_trace.c) through the
 * allocator model: the recorded replay and its comparison with the
 * recorded segment events, then the what-ifs (whatif_replay.h).
 *
 * Comparison: each recorded segment event belongs to the step it came
 * just before (a segment is allocated inside the request that needed it,
 * a release run is an empty_cache() step, or part of the request that
 * released it); the model's events belong to the step that made them. Per
 * step, an event matches one of the other side with the same kind and
 * size. Addresses are not compared: the driver chooses them.
 */
#include "analyzer/derive/whatif_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A model segment event: the step group it was made at. */
struct mev {
	uint64_t size;
	uint32_t group;
	uint8_t kind;
};

/* One replay. */
struct run {
	struct wr_trace *t;
	struct am_model *m;
	struct am_block **h;          /* handles */
	uint32_t group;
	int compare, nomem;
	struct mev *ev;
	size_t n_ev, cap_ev;
	uint64_t failures, failed_bytes, oom_failures;
	int64_t failed_seq;
	size_t rs_cur;                /* first recorded segment event of the step group */
	uint8_t *used;                /* recorded segment_alloc addresses already given */
};

/* The recorded replay's placer: the address of a recorded segment_alloc
 * of that size and stream in the current step, not yet given; else 0. */
static uint64_t place(void *arg, uint64_t size, uint32_t stream)
{
	struct run *r = arg;
	const struct wr_trace *t = r->t;
	size_t i;

	while (r->rs_cur < t->n_rs && t->rs[r->rs_cur].step < r->group)
		r->rs_cur++;
	for (i = r->rs_cur; i < t->n_rs && t->rs[i].step == r->group; i++)
		if (!r->used[i] && t->rs[i].kind == AM_SEG_ALLOC && t->rs[i].size == size &&
		    t->rs[i].stream == stream) {
			r->used[i] = 1;
			return t->rs[i].addr;
		}
	return 0;
}

static void on_segment(void *arg, const struct am_seg_event *e)
{
	struct run *r = arg;

	if (!r->compare)
		return;
	if (wr_grow((void **)&r->ev, &r->cap_ev, r->n_ev, sizeof(*r->ev)) < 0) {
		r->nomem = 1;
		return;
	}
	r->ev[r->n_ev].size = e->size;
	r->ev[r->n_ev].group = r->group;
	r->ev[r->n_ev].kind = (uint8_t)e->kind;
	r->n_ev++;
}

static void failed(struct run *r, uint64_t bytes, int64_t seq)
{
	if (!r->failures++) {
		r->failed_bytes = bytes;
		r->failed_seq = seq;
	}
}

/* The state before the trace, exactly: its segments with their live
 * blocks where the trace says they were. */
static int seed_exact(struct run *r)
{
	struct wr_trace *t = r->t;
	struct am_range *live = NULL;
	struct am_block **out = NULL;
	uint32_t *ids = NULL;
	size_t i, p = 0, n, cap = 0;
	int rc = -1;

	for (i = 0; i < t->n_start; i++) {
		const struct wr_seg *s = &t->start[i];

		for (n = 0; p < t->n_pre && t->pre[p].addr < s->addr + s->size; p++) {
			if (t->pre[p].exact == 2 || t->pre[p].addr < s->addr)
				continue;
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				void *a = realloc(live, nc * sizeof(*live)), *b, *c;

				if (a)
					live = a;
				b = a ? realloc(out, nc * sizeof(*out)) : NULL;
				if (b)
					out = b;
				c = b ? realloc(ids, nc * sizeof(*ids)) : NULL;
				if (!c)
					goto done;
				ids = c;
				cap = nc;
			}
			live[n].addr = t->pre[p].addr;
			live[n].size = t->pre[p].size;
			live[n].requested = t->pre[p].requested;
			ids[n++] = t->pre[p].id;
		}
		if (am_seed_segment(r->m, s->addr, s->size, s->stream, s->small, s->expandable, live,
				    n, out) < 0) {
			if (am_nomem(r->m))
				goto done;
			continue;     /* a range the model cannot place: left out */
		}
		while (n-- > 0)
			r->h[ids[n]] = out[n];
	}
	rc = 0;
done:
	free(live);
	free(out);
	free(ids);
	return rc;
}

/* The live blocks before the trace allocated afresh, in address order. */
static void seed_fresh(struct run *r)
{
	struct wr_trace *t = r->t;
	size_t i;

	for (i = 0; i < t->n_pre; i++) {
		const struct wr_pre *p = &t->pre[i];
		struct am_block *b = am_malloc(r->m, p->requested ? p->requested : p->size, p->stream);

		if (b)
			r->h[p->id] = b;
		else if (!am_nomem(r->m))
			failed(r, am_round_size(&t->rec, p->requested ? p->requested : p->size), -1);
	}
}

/* Whether the release run at step i (ST_CANDIDATE) was the next request
 * releasing the cache itself: it found no cached block and had no room
 * for a new segment. */
static int released_by_request(struct run *r, size_t i)
{
	const struct wr_step *n = &r->t->st[i + 1];

	return i + 1 < r->t->n && !am_would_reuse(r->m, n->size, n->stream) &&
	       !am_can_reserve(r->m, n->size);
}

/* Replay every step; recorded: the run the trace shows (its ooms failed,
 * its release runs decided). -1 when out of memory. */
static int replay(struct run *r, int recorded)
{
	struct wr_trace *t = r->t;
	struct am_block *b;
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct wr_step *s = &t->st[i];

		r->group = (uint32_t)(i && t->st[i - 1].op == ST_EMPTY &&
				      (t->st[i - 1].flag & ST_CANDIDATE) ? i - 1 : i);
		switch (s->op) {
		case ST_MALLOC:
		case ST_OOM:
			b = am_malloc(r->m, s->size, s->stream);
			if (!b) {
				if (am_nomem(r->m))
					return -1;
				failed(r, am_round_size(&t->rec, s->size), t->seq[i]);
				r->oom_failures += s->op == ST_OOM && !(s->flag & ST_LOGGED);
			} else if (recorded && s->op == ST_OOM) {
				am_free(r->m, b);       /* it failed in the recorded run */
			} else {
				r->h[s->id] = b;
			}
			break;
		case ST_FREE:
			if (r->h[s->id]) {
				am_free(r->m, r->h[s->id]);
				r->h[s->id] = NULL;
			}
			break;
		case ST_EMPTY:
			if (recorded && (s->flag & ST_CANDIDATE) && released_by_request(r, i))
				s->flag |= ST_PRESSURE;
			if (!(s->flag & ST_PRESSURE))
				am_empty_cache(r->m);
			break;
		}
		if (r->nomem)
			return -1;
	}
	return am_nomem(r->m) ? -1 : 0;
}

static int mev_cmp(const void *a, const void *b)
{
	const struct mev *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

static void unmatched(const struct run *r, const struct wr_options *o, int recorded,
		      const struct mev *e)
{
	if (o && o->mismatch)
		o->mismatch(o->arg, recorded, e->group < r->t->n ? (int64_t)r->t->seq[e->group] : -1,
			    (enum am_seg_kind)e->kind, e->size);
}

/* The recorded replay's segment events against the trace's; o->mismatch
 * hears what is left unmatched. */
static int compare(struct run *r, struct wr_agreement *ag, const struct wr_options *o)
{
	const struct wr_trace *t = r->t;
	struct mev *rec = malloc((t->n_rs ? t->n_rs : 1) * sizeof(*rec));
	size_t i, j;

	if (!rec)
		return -1;
	for (i = 0; i < t->n_rs; i++) {
		rec[i].size = t->rs[i].size;
		rec[i].group = t->rs[i].step;
		rec[i].kind = t->rs[i].kind;
		ag->recorded_by_kind[t->rs[i].kind]++;
		ag->recorded_bytes += t->rs[i].size;
	}
	for (i = 0; i < r->n_ev; i++)
		ag->model_by_kind[r->ev[i].kind]++;
	ag->recorded_events = t->n_rs;
	ag->model_events = r->n_ev;
	if (t->n_rs > 1)
		qsort(rec, t->n_rs, sizeof(*rec), mev_cmp);
	if (r->n_ev > 1)
		qsort(r->ev, r->n_ev, sizeof(*r->ev), mev_cmp);
	for (i = j = 0; i < t->n_rs && j < r->n_ev;) {
		int c = mev_cmp(&rec[i], &r->ev[j]);

		if (!c) {
			ag->matched_events++;
			ag->matched_bytes += rec[i].size;
			i++;
			j++;
		} else if (c < 0) {
			unmatched(r, o, 1, &rec[i++]);
		} else {
			unmatched(r, o, 0, &r->ev[j++]);
		}
	}
	while (i < t->n_rs)
		unmatched(r, o, 1, &rec[i++]);
	while (j < r->n_ev)
		unmatched(r, o, 0, &r->ev[j++]);
	free(rec);
	return 0;
}

/* The settings as PYTORCH_CUDA_ALLOC_CONF would say them. */
static void format_settings(const struct am_settings *s, char *buf, size_t n)
{
	size_t len = 0;
	int i, divs = 0;

	buf[0] = 0;
	if (s->expandable)
		len += (size_t)snprintf(buf + len, n - len, "expandable_segments:True,");
	if (len < n && s->max_split_size != AM_UNLIMITED)
		len += (size_t)snprintf(buf + len, n - len, "max_split_size_mb:%llu,",
					(unsigned long long)(s->max_split_size >> 20));
	if (len < n && s->max_non_split_rounding != AM_LARGE_BUFFER)
		len += (size_t)snprintf(buf + len, n - len, "max_non_split_rounding_mb:%llu,",
					(unsigned long long)(s->max_non_split_rounding >> 20));
	if (len < n && s->gc_threshold > 0)
		len += (size_t)snprintf(buf + len, n - len, "garbage_collection_threshold:%g,",
					s->gc_threshold);
	for (i = 0; i < AM_INTERVALS; i++)
		divs |= s->divisions[i] > 1;
	if (len < n && divs) {
		len += (size_t)snprintf(buf + len, n - len, "roundup_power2_divisions:[");
		for (i = 0; i < AM_INTERVALS && len < n; i++)
			len += (size_t)snprintf(buf + len, n - len, "%s%u:%u", i ? "," : "", 1u << i,
						s->divisions[i]);
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "],");
	}
	if (len >= n)
		len = n - 1;
	if (len && buf[len - 1] == ',')
		buf[len - 1] = 0;
	if (!buf[0])
		snprintf(buf, n, "(defaults)");
}

/* One scenario under settings s: fresh (or exact) start, replay, result. */
static int scenario(struct wr_trace *t, struct am_block **h, const struct am_settings *s,
		    int recorded, struct wr_result *res, struct wr_agreement *ag,
		    const struct wr_options *o)
{
	struct run r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.t = t;
	r.h = h;
	r.compare = recorded;
	r.failed_seq = -1;
	memset(h, 0, (t->next_id ? t->next_id : 1) * sizeof(*h));
	r.m = am_new(s, on_segment, &r);
	if (!r.m)
		return -1;
	if (recorded) {
		r.used = calloc(t->n_rs ? t->n_rs : 1, 1);
		if (!r.used)
			goto done;
		am_set_placer(r.m, place, &r);
	}
	if (recorded ? seed_exact(&r) < 0 : (seed_fresh(&r), am_nomem(r.m)))
		goto done;
	if (recorded)
		r.n_ev = 0;     /* seeding makes no events; keep the replay's only */
	if (replay(&r, recorded) < 0 || (recorded && compare(&r, ag, o) < 0))
		goto done;
	res->fits = s->capacity == AM_UNLIMITED && !s->allowed ? -1 : r.failures == 0;
	res->failed_bytes = r.failed_bytes;
	res->failed_seq = r.failures ? r.failed_seq : -1;
	res->peak_reserved = am_stats(r.m)->peak_reserved;
	res->peak_allocated = am_stats(r.m)->peak_allocated;
	res->segments = s->no_cache ? -1 : (int64_t)am_stats(r.m)->segment_allocs;
	if (recorded) {
		ag->recorded_ooms = t->recorded_ooms;
		ag->model_ooms = r.failures;
		ag->matched_ooms = r.oom_failures;
	}
	rc = 0;
done:
	am_destroy(r.m);
	free(r.ev);
	free(r.used);
	return rc;
}

/* max_split_size_mb values to try: 20 and the powers of two up to the
 * largest request, the failed request's size; at most max, spread out. */
static size_t candidates(const struct wr_trace *t, uint64_t failed, size_t max, uint64_t *out)
{
	uint64_t all[24];
	size_t n = 0, i, k;
	uint64_t mb;

	all[n++] = 20;
	for (mb = 32; mb <= 65536 && (mb << 20) <= t->max_request; mb <<= 1)
		all[n++] = mb;
	mb = failed >> 20;
	if (mb > 20 && (mb & (mb - 1))) {
		for (i = n; i > 0 && all[i - 1] > mb; i--)
			all[i] = all[i - 1];
		all[i] = mb;
		n++;
	}
	if (n <= max) {
		memcpy(out, all, n * sizeof(*out));
		return n;
	}
	for (k = 0; k < max; k++)
		out[k] = all[max > 1 ? k * (n - 1) / (max - 1) : 0];
	return max;
}

/* Whether result a answers better than b (see wr_run). */
static int better(const struct wr_result *a, uint64_t na, const struct wr_result *b, uint64_t nb)
{
	if (a->fits != b->fits)
		return a->fits > b->fits;
	if (a->fits == 0 && a->failed_seq != b->failed_seq)
		return a->failed_seq > b->failed_seq;
	if (a->peak_reserved != b->peak_reserved)
		return a->peak_reserved < b->peak_reserved;
	return na > nb;
}

static void name(struct wr_result *res, const char *scenario, const struct am_settings *s)
{
	snprintf(res->scenario, sizeof(res->scenario), "%s", scenario);
	format_settings(s, res->setting, sizeof(res->setting));
}

/* The max_split_size_mb scenario: the best of the candidates. */
static int split_scenario(struct wr_trace *t, struct am_block **h, const struct am_settings *base,
			  size_t max, uint64_t failed, struct wr_report *out)
{
	uint64_t cand[24], best_n = 0;
	struct wr_result res, best;
	struct am_settings s;
	size_t n = candidates(t, failed, max, cand), i;

	for (i = 0; i < n; i++) {
		s = *base;
		s.max_split_size = cand[i] << 20;
		memset(&res, 0, sizeof(res));
		if (scenario(t, h, &s, 0, &res, NULL, NULL) < 0)
			return -1;
		name(&res, "max_split_size_mb", &s);
		if (!i || better(&res, cand[i], &best, best_n)) {
			best = res;
			best_n = cand[i];
		}
	}
	out->candidates_tried = n;
	if (n)
		out->res[out->n_res++] = best;
	return 0;
}

int wr_run(struct wr_trace *t, const struct wr_options *opt, struct wr_report *out, char *err,
	   size_t n)
{
	struct am_settings s;
	struct am_block **h = NULL;
	size_t max = opt->max_candidates ? opt->max_candidates : t->n > 2000000 ? 3 : 8, i;
	const char *why = "out of memory";
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (t->nomem || wr_flush(t, -2, 0) < 0)
		goto fail;
	if (t->start) {
		why = "already run";
		goto fail;
	}
	if (opt->oom_size && !t->recorded_ooms && wr_add_logged_oom(t, opt->oom_size) < 0)
		goto fail;
	if (wr_start_state(t, &out->agree) < 0)
		goto fail;
	out->capacity = wr_capacity(t, opt, &out->agree, &out->capacity_source);
	out->agree.unmatched_frees = t->unmatched_frees;
	out->events = t->n;
	h = malloc((t->next_id ? t->next_id : 1) * sizeof(*h));
	if (!h)
		goto fail;
	s = t->rec;
	s.capacity = out->capacity;
	name(&out->res[0], "recorded", &s);
	if (scenario(t, h, &s, 1, &out->res[0], &out->agree, opt) < 0)
		goto fail;
	out->n_res = 1;
	for (i = 0; i < t->n; i++) {
		if (t->st[i].op != ST_EMPTY)
			continue;
		if (t->st[i].flag & ST_PRESSURE)
			out->agree.pressure_releases++;
		else
			out->agree.empty_cache_calls++;
	}
	if (out->capacity_source && !strcmp(out->capacity_source, "peak_reserved") &&
	    !out->agree.pressure_releases) {
		/* no release was the allocator's own: nothing shows the limit */
		out->capacity = opt->gpu_total ? opt->gpu_total : AM_UNLIMITED;
		out->capacity_source = opt->gpu_total ? "gpu_total" : NULL;
		if (!opt->gpu_total && out->res[0].fits == 1)
			out->res[0].fits = -1;
		s.capacity = out->capacity;
	}
	name(&out->res[1], "baseline", &s);
	if (scenario(t, h, &s, 0, &out->res[1], NULL, NULL) < 0)
		goto fail;
	s.expandable = 1;
	name(&out->res[2], "expandable_segments", &s);
	if (scenario(t, h, &s, 0, &out->res[2], NULL, NULL) < 0)
		goto fail;
	out->n_res = 3;
	s = t->rec;
	s.capacity = out->capacity;
	if (split_scenario(t, h, &s, max, out->res[0].failed_bytes, out) < 0)
		goto fail;
	s.no_cache = 1;
	snprintf(out->res[out->n_res].scenario, sizeof(out->res[0].scenario), "empty_cache");
	snprintf(out->res[out->n_res].setting, sizeof(out->res[0].setting),
		 "no cached memory: reserved = allocated");
	if (scenario(t, h, &s, 0, &out->res[out->n_res], NULL, NULL) < 0)
		goto fail;
	out->n_res++;
	rc = 0;
fail:
	free(h);
	if (rc < 0 && err && n)
		snprintf(err, n, "what-if replay: %s", why);
	return rc;
}
