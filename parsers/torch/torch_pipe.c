/*
 * torch_pipe.c -- run a snapshot producer (the pickle decoder) in a second
 * thread, so that decoding and storing (model + SQLite, in the caller's
 * thread) run side by side. See torch_pipe.h.
 *
 * The decoder thread turns each record (struct ts_ops call) and each
 * diagnostic into a copy in a batch: the struct by value, its strings in
 * the batch's arena, and a stack's frames only the first time its key is
 * seen (the model caches key -> stack id, so it asks for frames once per
 * key). Two batches alternate: the decoder fills one while the caller
 * replays the other, in order, into the ops and onto the real sink.
 * Nothing is shared between the threads but the batches, handed over
 * under the mutex: the decoder never touches the caller's sink. While
 * replaying, the caller tells the consumer of the entry AHEAD records on
 * (ts_ops.ahead), so that its look-ups are fetched before they are made.
 */
#include "parsers/torch/torch_pipe.h"
#include "parsers/common/hashtab.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_RECS 4096
#define ARENA_CHUNK (256 * 1024)

enum { R_BEGIN, R_SEG, R_BLOCK, R_ENTRY, R_SETTINGS, R_END, R_DIAG };

/* A diagnostic of the decoder, for sink_diagf in the caller's thread. */
struct pdiag {
	uint64_t line, offset;
	enum ol_severity sev;
	const char *msg;
};

struct prec {
	int kind;
	union {
		struct ts_header h;
		struct ts_segment g;
		struct ts_block b;
		struct ts_entry e;
		json_t *settings;
		int64_t devices;
		struct pdiag d;
	} u;
	int has_frames;          /* the record has a stack */
	uint64_t fkey;
	size_t f0, fn;           /* its frames in the batch, if sent here */
	int frames_here;
};

struct batch {
	struct prec *r;
	size_t n;
	char **chunks;           /* arena */
	size_t nchunks, used;
	struct ol_frame *fr;
	size_t nfr, frcap;
	int full;
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[2];
	int cur;                 /* batch the decoder fills */
	int done, abort, oom;
	int result;              /* the decoder's */
	struct input *in;
	ts_decode_fn decode;
	struct sink ds;          /* the decoder's sink: diagnostics, queued */
	struct keymap sent;      /* frames keys already sent */
};

/* ---- batches ---- */

static char *arena_dup(struct batch *b, const char *s)
{
	size_t n;
	char *p;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	if (!b->nchunks || b->used + n > ARENA_CHUNK) {
		char **nc = realloc(b->chunks, (b->nchunks + 1) * sizeof(*nc));
		if (!nc)
			return NULL;
		b->chunks = nc;
		b->chunks[b->nchunks] = malloc(n > ARENA_CHUNK ? n : ARENA_CHUNK);
		if (!b->chunks[b->nchunks])
			return NULL;
		b->nchunks++;
		b->used = 0;
	}
	p = b->chunks[b->nchunks - 1] + b->used;
	memcpy(p, s, n);
	b->used += n;
	return p;
}

static void batch_reset(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->r[i].kind == R_SETTINGS)
			json_decref(b->r[i].u.settings);
	for (i = 1; i < b->nchunks; i++)
		free(b->chunks[i]);
	b->nchunks = b->nchunks ? 1 : 0;
	b->used = 0;
	b->n = 0;
	b->nfr = 0;
}

static void batch_free(struct batch *b)
{
	batch_reset(b);
	if (b->nchunks)
		free(b->chunks[0]);
	free(b->chunks);
	free(b->r);
	free(b->fr);
}

/* ---- decoder side ---- */

/* Hand the current batch over and wait for the other one. 0 or -1 (the
 * caller gave up). */
static int publish(struct pipe *p)
{
	int r;

	pthread_mutex_lock(&p->mu);
	p->b[p->cur].full = 1;
	pthread_cond_broadcast(&p->cv);
	p->cur ^= 1;
	while (p->b[p->cur].full && !p->abort)
		pthread_cond_wait(&p->cv, &p->mu);
	r = p->abort ? -1 : 0;
	pthread_mutex_unlock(&p->mu);
	if (r == 0)
		batch_reset(&p->b[p->cur]);
	return r;
}

static struct prec *new_rec(struct pipe *p, int kind)
{
	struct batch *b = &p->b[p->cur];
	struct prec *x;

	if (b->n == BATCH_RECS || b->nchunks > 8) {
		if (publish(p) < 0)
			return NULL;
		b = &p->b[p->cur];
	}
	if (!b->r && !(b->r = malloc(BATCH_RECS * sizeof(*b->r)))) {
		p->oom = 1;
		return NULL;
	}
	x = &b->r[b->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	return x;
}

/* Was key sent before? Marks it sent (when memory allows). */
static int seen(struct pipe *p, uint64_t key)
{
	if (keymap_get(&p->sent, key, NULL))
		return 1;
	keymap_put(&p->sent, key, 1);
	return 0;
}

static int copy_frames(struct pipe *p, struct prec *x, const struct ts_frames *fr)
{
	struct batch *b = &p->b[p->cur];
	const struct ol_frame *f;
	size_t n, i;

	if (!fr)
		return 0;
	x->has_frames = 1;
	x->fkey = fr->key;
	if (fr->key && seen(p, fr->key))
		return 0;
	if (fr->get(fr, &f, &n) < 0)
		return 0;
	if (b->nfr + n > b->frcap) {
		size_t nc = b->frcap ? b->frcap : 1024;
		struct ol_frame *nf;
		while (nc < b->nfr + n)
			nc *= 2;
		nf = realloc(b->fr, nc * sizeof(*nf));
		if (!nf)
			return -1;
		b->fr = nf;
		b->frcap = nc;
	}
	x->f0 = b->nfr;
	x->fn = n;
	x->frames_here = 1;
	for (i = 0; i < n; i++) {
		struct ol_frame *d = &b->fr[b->nfr++];
		d->name = arena_dup(b, f[i].name);
		d->file = arena_dup(b, f[i].file);
		d->line = f[i].line;
		d->build_id = NULL;
	}
	return 0;
}

static int q_begin(void *ctx, const struct ts_header *h)
{
	struct pipe *p = ctx;
	struct prec *x = new_rec(p, R_BEGIN);

	if (!x)
		return -1;
	x->u.h = *h;
	x->u.h.form = arena_dup(&p->b[p->cur], h->form);
	return 0;
}

/* Queue a copy of record rec of kind k as a record of type rk: the
 * struct by value, its strings in the arena, its frames if new. */
static int q_record(struct pipe *p, int rk, const struct ts_kind *k, const void *rec)
{
	struct prec *x = new_rec(p, rk);
	struct batch *b;
	size_t i;

	if (!x)
		return -1;
	b = &p->b[p->cur];
	memcpy(&x->u, rec, k->size);
	for (i = 0; i < k->nfields; i++)
		if (k->fields[i].type == TS_F_STR)
			*ts_str(&x->u, &k->fields[i]) = arena_dup(b, *ts_str(rec, &k->fields[i]));
	*ts_frames_of(&x->u, k) = NULL;
	return copy_frames(p, x, *ts_frames_of(rec, k));
}

static int q_segment(void *ctx, const struct ts_segment *g)
{
	return q_record(ctx, R_SEG, &ts_segment_kind, g);
}

static int q_block(void *ctx, const struct ts_block *bl)
{
	return q_record(ctx, R_BLOCK, &ts_block_kind, bl);
}

static int q_entry(void *ctx, const struct ts_entry *e)
{
	return q_record(ctx, R_ENTRY, &ts_entry_kind, e);
}

static int q_settings(void *ctx, json_t *settings)
{
	struct pipe *p = ctx;
	struct prec *x = new_rec(p, R_SETTINGS);

	if (!x)
		return -1;
	x->u.settings = json_deep_copy(settings);
	return 0;
}

static int q_end(void *ctx, int64_t devices)
{
	struct pipe *p = ctx;
	struct prec *x = new_rec(p, R_END);

	if (!x)
		return -1;
	x->u.devices = devices;
	return 0;
}

/* The decoder's sink op: queue the diagnostic (-1: the caller gave up, or
 * no memory). */
static int64_t q_diag(struct sink *ds, uint64_t line, uint64_t offset, enum ol_severity sev,
		      const char *msg)
{
	struct pipe *p = ds->ctx;
	struct prec *x = new_rec(p, R_DIAG);

	if (!x)
		return -1;
	x->u.d.line = line;
	x->u.d.offset = offset;
	x->u.d.sev = sev;
	x->u.d.msg = arena_dup(&p->b[p->cur], msg);
	if (!x->u.d.msg) {
		p->oom = 1;
		return -1;
	}
	return 1;
}

static void *decoder_main(void *arg)
{
	struct pipe *p = arg;
	struct ts_ops ops = { p, q_begin, q_segment, q_block, q_entry, q_settings, q_end, NULL };

	p->result = p->decode(p->in, &p->ds, &ops);
	pthread_mutex_lock(&p->mu);
	p->b[p->cur].full = 1;
	p->done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- caller side ---- */

struct fref {
	struct ts_frames f;
	const struct batch *b;
	const struct prec *x;
};

static int p_get(const struct ts_frames *tf, const struct ol_frame **f, size_t *n)
{
	const struct fref *r = (const struct fref *)tf;

	if (!r->x->frames_here || !r->x->fn) {
		/* sent with an earlier record (the model has it cached), or empty */
		*f = NULL;
		*n = 0;
		return 0;
	}
	*f = r->b->fr + r->x->f0;
	*n = r->x->fn;
	return 0;
}

/* Replay batch b into ops and, for diagnostics, onto s. 0, or -1 when
 * ops or the sink failed. */
#define AHEAD 8                  /* entries the consumer is told of in advance */

static int replay(const struct batch *b, const struct ts_ops *ops, struct sink *s)
{
	size_t i;
	struct fref fr;
	int r = 0;

	fr.f.get = p_get;
	fr.f.priv = NULL;
	fr.b = b;
	for (i = 0; i < b->n && r >= 0; i++) {
		struct prec *x = &b->r[i];
		const struct ts_frames *f = NULL;
		if (ops->ahead && i + AHEAD < b->n && b->r[i + AHEAD].kind == R_ENTRY)
			ops->ahead(ops->ctx, &b->r[i + AHEAD].u.e);
		if (x->has_frames) {
			fr.f.key = x->fkey;
			fr.x = x;
			f = &fr.f;
		}
		switch (x->kind) {
		case R_BEGIN: r = ops->begin(ops->ctx, &x->u.h); break;
		case R_SEG: x->u.g.frames = f; r = ops->segment(ops->ctx, &x->u.g); break;
		case R_BLOCK: x->u.b.frames = f; r = ops->block(ops->ctx, &x->u.b); break;
		case R_ENTRY: x->u.e.frames = f; r = ops->entry(ops->ctx, &x->u.e); break;
		case R_SETTINGS:
			r = x->u.settings ? ops->settings(ops->ctx, x->u.settings) : 0;
			break;
		case R_END: r = ops->end(ops->ctx, x->u.devices); break;
		case R_DIAG:
			r = sink_diagf(s, x->u.d.line, x->u.d.offset, x->u.d.sev, "%s",
				       x->u.d.msg) < 0 ? -1 : 0;
			break;
		}
	}
	return r;
}

int ts_pipe_run(struct input *in, struct sink *s, ts_decode_fn decode,
		const struct ts_ops *ops)
{
	struct pipe *p = calloc(1, sizeof(*p));
	pthread_t th;
	int cur = 0, failed = 0, stop, r;

	if (!p)
		return -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->in = in;
	p->decode = decode;
	p->ds.ctx = p;
	p->ds.opts = s->opts;
	p->ds.path = s->path;
	p->ds.diag = q_diag;
	if (pthread_create(&th, NULL, decoder_main, p) != 0) {
		/* no thread: decode here */
		r = decode(in, s, ops);
		goto out;
	}
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->b[cur].full && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->b[cur].full) {
			pthread_mutex_unlock(&p->mu);
			break;
		}
		pthread_mutex_unlock(&p->mu);
		if (!failed && replay(&p->b[cur], ops, s) < 0)
			failed = 1;
		pthread_mutex_lock(&p->mu);
		if (failed)
			p->abort = 1;
		p->b[cur].full = 0;
		pthread_cond_broadcast(&p->cv);
		stop = p->done && !p->b[cur ^ 1].full;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			break;
		cur ^= 1;
	}
	pthread_join(th, NULL);
	r = failed || p->result < 0 || p->oom ? -1 : 0;
out:
	batch_free(&p->b[0]);
	batch_free(&p->b[1]);
	keymap_free(&p->sent);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
	return r;
}
