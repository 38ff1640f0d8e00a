/*
 * holders_replay.c -- one device's Active Memory Timeline, the way
 * memory_viz builds it (torch/utils/viz/process_alloc_data.js, and the
 * oracle of tests/data/real/snapshots): every allocation of the trace is
 * an element alive from its alloc to its free_completed; a free whose
 * alloc the trace lost, and a live block whose alloc it never saw, are
 * alive from the start. Walking the trace in order gives the live bytes
 * after each entry: their peak (the first one, the state before the first
 * entry included), the bytes just before the first OOM, and per pixel
 * column the bytes of each top holder at the column's own peak (so that
 * no peak is lost when a million entries become HD_COLS columns).
 *
 * Sizes are those of the elements: an alloc's requested bytes, a live
 * block's requested_size.
 */
#include "analyzer/derive/holders.h"

#include <stdlib.h>
#include <string.h>

/* The trace index of event o (elem << 1 | is_end). */
static int64_t ev_seq(const struct hd_elem *e, uint32_t o)
{
	return o & 1 ? e[o >> 1].end : e[o >> 1].start;
}

static int cmp_ev(const void *a, const void *b, void *arg)
{
	const struct hd_elem *e = arg;
	int64_t x = ev_seq(e, *(const uint32_t *)a), y = ev_seq(e, *(const uint32_t *)b);

	if (x != y)
		return x < y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The events of d's elements in trace order, by counting when the
 * indexes are dense (always, from PyTorch), else by sorting. -1 out of
 * memory, or past 2^31 elements (a trace of tens of GB). */
static int order_events(const struct hd_device *d, struct hd_replay *r)
{
	size_t i, n = 0, *cnt;
	int64_t max = -1;

	if (d->n >= (size_t)1 << 31)
		return -1;
	for (i = 0; i < d->n; i++) {
		n += (d->e[i].start >= 0) + (d->e[i].end != HD_NEVER);
		if (d->e[i].start > max)
			max = d->e[i].start;
		if (d->e[i].end != HD_NEVER && d->e[i].end > max)
			max = d->e[i].end;
	}
	if (!(r->order = malloc((n ? n : 1) * sizeof(*r->order))))
		return -1;
	r->nord = n;
	if (max >= (int64_t)(4 * n + 4096) || !(cnt = calloc((size_t)max + 2, sizeof(*cnt)))) {
		for (i = 0, n = 0; i < d->n; i++) {
			if (d->e[i].start >= 0)
				r->order[n++] = (uint32_t)(i << 1);
			if (d->e[i].end != HD_NEVER)
				r->order[n++] = (uint32_t)(i << 1 | 1);
		}
		qsort_r(r->order, n, sizeof(*r->order), cmp_ev, d->e);
		return 0;
	}
	for (i = 0; i < d->n; i++) {
		if (d->e[i].start >= 0)
			cnt[d->e[i].start + 1]++;
		if (d->e[i].end != HD_NEVER)
			cnt[d->e[i].end + 1]++;
	}
	for (i = 1; i <= (size_t)max + 1; i++)
		cnt[i] += cnt[i - 1];
	for (i = 0; i < d->n; i++) {
		if (d->e[i].start >= 0)
			r->order[cnt[d->e[i].start]++] = (uint32_t)(i << 1);
		if (d->e[i].end != HD_NEVER)
			r->order[cnt[d->e[i].end]++] = (uint32_t)(i << 1 | 1);
	}
	free(cnt);
	return 0;
}

/* The bytes event o adds to the live total (negative for a free). */
static int64_t ev_delta(const struct hd_elem *e, uint32_t o)
{
	return o & 1 ? -e[o >> 1].size : e[o >> 1].size;
}

static int64_t ev_ns(const struct hd_elem *e, uint32_t o)
{
	return o & 1 ? e[o >> 1].t1 : e[o >> 1].t0;
}

int hd_replay(const struct hd_device *d, struct hd_replay *r)
{
	int64_t total = 0;
	size_t i;
	int oom_seen = d->oom_seq < 0;

	memset(r, 0, sizeof(*r));
	if (order_events(d, r) < 0)
		return -1;
	for (i = 0; i < d->n; i++)
		if (d->e[i].start < 0)
			total += d->e[i].size;
	r->initial = total;
	r->peak = total;
	r->peak_seq = -1;
	r->peak_ns = OL_NULL;
	r->oom_live = total;
	for (i = 0; i < r->nord; i++) {
		uint32_t o = r->order[i];
		if (!oom_seen && ev_seq(d->e, o) >= d->oom_seq) {
			r->oom_live = total;
			oom_seen = 1;
		}
		total += ev_delta(d->e, o);
		if (total > r->peak) {
			r->peak = total;
			r->peak_seq = ev_seq(d->e, o);
			r->peak_ns = ev_ns(d->e, o);
		}
	}
	if (!oom_seen)
		r->oom_live = total;
	r->time_axis = d->events > 0 && d->events_timed == d->events && d->t_last > d->t_first;
	r->x0 = r->time_axis ? d->t_first : 0;
	r->x1 = r->time_axis ? d->t_last : d->max_seq > 0 ? d->max_seq : 1;
	return 0;
}

/* The column of event o on r's axis; never before col (the trace's
 * order decides when times go backwards). */
static int column(const struct hd_device *d, const struct hd_replay *r, uint32_t o, int col)
{
	double x = r->time_axis ? (double)ev_ns(d->e, o) : (double)ev_seq(d->e, o);
	double c = (x - (double)r->x0) / ((double)r->x1 - (double)r->x0 + 1) * HD_COLS;
	int k = c < 0 ? 0 : c >= HD_COLS ? HD_COLS - 1 : (int)c;

	return k < col ? col : k;
}

/* Column c takes the state as it stands (no entry of its own yet). */
static void carry(struct hd_replay *r, int c, const int64_t *cur, int64_t seq, int64_t ns)
{
	memcpy(r->col_bytes[c], cur, sizeof(r->col_bytes[c]));
	r->col_seq[c] = seq;
	r->col_ns[c] = ns;
}

/* The start time of column c on a time axis, else OL_NULL. */
static int64_t col_start(const struct hd_replay *r, int c)
{
	if (!r->time_axis)
		return OL_NULL;
	return r->x0 + (int64_t)((double)(r->x1 - r->x0) * c / HD_COLS);
}

void hd_timeline(const struct hd_device *d, struct hd_replay *r)
{
	int64_t cur[HD_BANDS + 1] = { 0 }, total = 0, top[HD_COLS], last_seq = -1;
	size_t i;
	int c = 0, k;

	for (i = 0; i < d->n; i++)
		if (d->e[i].start < 0) {
			cur[d->e[i].band] += d->e[i].size;
			total += d->e[i].size;
		}
	carry(r, 0, cur, -1, col_start(r, 0));
	top[0] = total;
	for (i = 0; i < r->nord; i++) {
		uint32_t o = r->order[i];
		int nc = column(d, r, o, c);
		const struct hd_elem *e = &d->e[o >> 1];
		while (c < nc) {
			c++;
			carry(r, c, cur, last_seq, col_start(r, c));
			top[c] = total;
		}
		cur[e->band] += ev_delta(d->e, o);
		total += ev_delta(d->e, o);
		last_seq = ev_seq(d->e, o);
		if (total > top[c]) {
			top[c] = total;
			carry(r, c, cur, last_seq, ev_ns(d->e, o));
		}
	}
	for (k = c + 1; k < HD_COLS; k++)
		carry(r, k, cur, last_seq, col_start(r, k));
}

void hd_replay_free(struct hd_replay *r)
{
	free(r->order);
	r->order = NULL;
}

int hd_alive_after(const struct hd_elem *e, int64_t x)
{
	return e->start <= x && e->end > x;
}

int hd_alive_before(const struct hd_elem *e, int64_t x)
{
	return e->start < x && e->end >= x;
}
