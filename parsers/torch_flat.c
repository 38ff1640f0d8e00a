/*
 * torch_flat.c -- the flat JSON Lines form of a PyTorch memory snapshot
 * (docs/flat-format.md): the writer used by `oomlens convert` (struct
 * ts_ops -> lines) and the reader (lines -> the same ts_ops calls), so that
 * ingesting the flat file gives the same timeline as ingesting the pickle.
 *
 * One JSON object per line: a header {"format": TS_FLAT_MAGIC, "version",
 * "form", "protocol"}, then records with a "type": stack (before first
 * use), segment, block (after its segment), trace, settings, end.
 */
#include "parsers/torch_snapshot.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* ---- writer ---- */

struct ts_writer {
	FILE *f;
	struct sink *s;
	struct strbuf line;
	uint64_t *keys;          /* frames keys already written (hash set) */
	uint64_t *ids;
	size_t kcap, kn;
	uint64_t next_id;
	int64_t lines;
	int failed;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void j_str(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		strbuf_addstr(sb, "null");
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, c);
		} else if (c < 0x20) {
			char e[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
			strbuf_addstr(sb, e);
		} else {
			strbuf_addch(sb, c);
		}
	}
	strbuf_addch(sb, '"');
}

static void j_int(struct strbuf *sb, int64_t v)
{
	if (v == OL_NULL)
		strbuf_addstr(sb, "null");
	else
		strbuf_addf(sb, "%lld", (long long)v);
}

static void j_kint(struct strbuf *sb, const char *k, int64_t v)
{
	strbuf_addf(sb, ",\"%s\":", k);
	j_int(sb, v);
}

static void j_kstr(struct strbuf *sb, const char *k, const char *v)
{
	strbuf_addf(sb, ",\"%s\":", k);
	j_str(sb, v);
}

static void j_kpool(struct strbuf *sb, const char *k, int64_t a, int64_t b)
{
	strbuf_addf(sb, ",\"%s\":", k);
	if (a == OL_NULL && b == OL_NULL) {
		strbuf_addstr(sb, "null");
		return;
	}
	strbuf_addch(sb, '[');
	j_int(sb, a);
	strbuf_addch(sb, ',');
	j_int(sb, b);
	strbuf_addch(sb, ']');
}

static int w_flush(struct ts_writer *w)
{
	strbuf_addch(&w->line, '\n');
	if (strbuf_failed(&w->line) ||   /* out of memory: never a cut line */
	    fwrite(w->line.buf, 1, w->line.len, w->f) != w->line.len) {
		w->failed = 1;
		return -1;
	}
	w->lines++;
	strbuf_reset(&w->line);
	return 0;
}

/* The flat id of a stack, writing its record on first use; 0 = none. */
static int64_t w_stack(struct ts_writer *w, const struct ts_frames *fr)
{
	const struct ol_frame *f;
	size_t n, i, k, mask;
	uint64_t id;

	if (!fr)
		return OL_NULL;
	if (w->kcap) {
		mask = w->kcap - 1;
		for (i = mix(fr->key) & mask; w->keys[i]; i = (i + 1) & mask)
			if (w->keys[i] == fr->key)
				return (int64_t)w->ids[i];
	}
	if (fr->get(fr, &f, &n) < 0 || n == 0)
		return OL_NULL;
	id = ++w->next_id;
	/* a line must fit the reader's line limit: drop outer frames if not */
	for (;;) {
		strbuf_reset(&w->line);
		strbuf_addf(&w->line, "{\"type\":\"stack\",\"id\":%llu,\"frames\":[",
			    (unsigned long long)id);
		for (k = 0; k < n; k++) {
			strbuf_addstr(&w->line, k ? ",{\"name\":" : "{\"name\":");
			j_str(&w->line, f[k].name);
			j_kstr(&w->line, "file", f[k].file);
			j_kint(&w->line, "line", f[k].line);
			strbuf_addch(&w->line, '}');
		}
		strbuf_addstr(&w->line, "]}");
		if (w->line.len < INPUT_MAX_LINE - 1 || n <= 1)
			break;
		sink_diagf(w->s, 0, 0, OL_WARN, "stack of %zu frames too long for one line;"
			   " keeping the innermost %zu", n, n * 3 / 4);
		n = n * 3 / 4;
	}
	if (w_flush(w) < 0)
		return -1;
	if (fr->key) {
		if ((w->kn + 1) * 2 > w->kcap) {
			size_t nc = w->kcap ? w->kcap * 2 : 1024;
			uint64_t *nk = calloc(nc, sizeof(*nk)), *ni = calloc(nc, sizeof(*ni));
			if (!nk || !ni) {
				free(nk);
				free(ni);
				return (int64_t)id;
			}
			for (i = 0; i < w->kcap; i++)
				if (w->keys[i]) {
					size_t j = mix(w->keys[i]) & (nc - 1);
					while (nk[j])
						j = (j + 1) & (nc - 1);
					nk[j] = w->keys[i];
					ni[j] = w->ids[i];
				}
			free(w->keys);
			free(w->ids);
			w->keys = nk;
			w->ids = ni;
			w->kcap = nc;
		}
		mask = w->kcap - 1;
		for (i = mix(fr->key) & mask; w->keys[i]; i = (i + 1) & mask)
			;
		w->keys[i] = fr->key;
		w->ids[i] = id;
		w->kn++;
	}
	return (int64_t)id;
}

static int w_begin(void *ctx, const struct ts_header *h)
{
	struct ts_writer *w = ctx;

	strbuf_addf(&w->line, "{\"format\":\"%s\",\"version\":%d", TS_FLAT_MAGIC, TS_FLAT_VERSION);
	j_kstr(&w->line, "form", h->form);
	j_kint(&w->line, "protocol", h->protocol);
	strbuf_addch(&w->line, '}');
	return w_flush(w);
}

static int w_segment(void *ctx, const struct ts_segment *x)
{
	struct ts_writer *w = ctx;
	int64_t st = w_stack(w, x->frames);

	if (st == -1)
		return -1;
	strbuf_addstr(&w->line, "{\"type\":\"segment\"");
	j_kint(&w->line, "device", x->device);
	j_kint(&w->line, "address", x->address);
	j_kint(&w->line, "total_size", x->total_size);
	j_kint(&w->line, "allocated_size", x->allocated_size);
	j_kint(&w->line, "active_size", x->active_size);
	j_kint(&w->line, "requested_size", x->requested_size);
	j_kint(&w->line, "stream", x->stream);
	j_kstr(&w->line, "segment_type", x->segment_type);
	j_kpool(&w->line, "pool_id", x->pool_a, x->pool_b);
	if (x->is_expandable == 0 || x->is_expandable == 1)
		strbuf_addf(&w->line, ",\"is_expandable\":%s", x->is_expandable ? "true" : "false");
	else
		j_kint(&w->line, "is_expandable", x->is_expandable);
	j_kint(&w->line, "stack", st);
	strbuf_addch(&w->line, '}');
	return w_flush(w);
}

static int w_block(void *ctx, const struct ts_block *x)
{
	struct ts_writer *w = ctx;
	int64_t st = w_stack(w, x->frames);

	if (st == -1)
		return -1;
	strbuf_addstr(&w->line, "{\"type\":\"block\"");
	j_kint(&w->line, "address", x->address);
	j_kint(&w->line, "size", x->size);
	j_kint(&w->line, "requested_size", x->requested_size);
	j_kstr(&w->line, "state", x->state);
	j_kint(&w->line, "stack", st);
	strbuf_addch(&w->line, '}');
	return w_flush(w);
}

static int w_entry(void *ctx, const struct ts_entry *x)
{
	struct ts_writer *w = ctx;
	int64_t st = w_stack(w, x->frames);

	if (st == -1)
		return -1;
	strbuf_addstr(&w->line, "{\"type\":\"trace\"");
	j_kint(&w->line, "device", x->device);
	j_kint(&w->line, "seq", x->seq);
	j_kstr(&w->line, "action", x->action);
	j_kint(&w->line, "addr", x->addr);
	j_kint(&w->line, "size", x->size);
	j_kint(&w->line, "stream", x->stream);
	j_kint(&w->line, "time_us", x->time_us);
	j_kint(&w->line, "device_free", x->device_free);
	j_kstr(&w->line, "compile_context", x->compile_context);
	j_kstr(&w->line, "user_metadata", x->user_metadata);
	j_kpool(&w->line, "pool_id", x->pool_a, x->pool_b);
	j_kint(&w->line, "stack", st);
	strbuf_addch(&w->line, '}');
	return w_flush(w);
}

static int w_settings(void *ctx, json_t *settings)
{
	struct ts_writer *w = ctx;
	char *js = json_dumps(settings, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (!js)
		return 0;
	strbuf_addf(&w->line, "{\"type\":\"settings\",\"settings\":%s}", js);
	free(js);
	return w_flush(w);
}

static int w_end(void *ctx, int64_t devices)
{
	struct ts_writer *w = ctx;

	strbuf_addstr(&w->line, "{\"type\":\"end\"");
	j_kint(&w->line, "devices", devices);
	strbuf_addch(&w->line, '}');
	return w_flush(w);
}

struct ts_writer *ts_writer_new(FILE *f, struct sink *s, struct ts_ops *ops)
{
	struct ts_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = f;
	w->s = s;
	strbuf_init(&w->line);
	memset(ops, 0, sizeof(*ops));
	ops->ctx = w;
	ops->begin = w_begin;
	ops->segment = w_segment;
	ops->block = w_block;
	ops->entry = w_entry;
	ops->settings = w_settings;
	ops->end = w_end;
	return w;
}

int64_t ts_writer_free(struct ts_writer *w)
{
	int64_t r = w->failed ? -1 : w->lines;

	strbuf_release(&w->line);
	free(w->keys);
	free(w->ids);
	free(w);
	return r;
}

/* ---- reader ---- */

#define FLAT_MAX_STACKS (1u << 20)

struct fstack {
	uint64_t id;            /* 0 = empty slot */
	struct ol_frame *f;
	char **strs;            /* owned copies */
	size_t n;
};

struct flat {
	struct sink *s;
	struct ts_ops *ops;
	struct fstack *st;
	size_t cap, n;
	uint64_t lineno;
	unsigned warns;
};

static int f_get(const struct ts_frames *tf, const struct ol_frame **f, size_t *n)
{
	const struct fstack *x = tf->priv;
	*f = x->f;
	*n = x->n;
	return 0;
}

static struct fstack *find_stack(struct flat *fl, uint64_t id)
{
	size_t i, mask;

	if (!fl->cap || !id)
		return NULL;
	mask = fl->cap - 1;
	for (i = mix(id) & mask; fl->st[i].id; i = (i + 1) & mask)
		if (fl->st[i].id == id)
			return &fl->st[i];
	return NULL;
}

static void warnf(struct flat *fl, const char *what)
{
	if (fl->warns++ < 50)
		sink_diagf(fl->s, fl->lineno, 0, OL_WARN, "%s", what);
}

static int64_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_boolean(v))
		return json_is_true(v);
	return OL_NULL;
}

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void jpool(json_t *o, const char *k, int64_t *a, int64_t *b)
{
	json_t *v = json_object_get(o, k);
	*a = *b = OL_NULL;
	if (json_is_array(v) && json_array_size(v) == 2) {
		json_t *x = json_array_get(v, 0), *y = json_array_get(v, 1);
		*a = json_is_integer(x) ? json_integer_value(x) : OL_NULL;
		*b = json_is_integer(y) ? json_integer_value(y) : OL_NULL;
	}
}

static const struct ts_frames *jframes(struct flat *fl, json_t *o, struct ts_frames *tf)
{
	json_t *v = json_object_get(o, "stack");
	struct fstack *x;

	if (!json_is_integer(v))
		return NULL;
	x = find_stack(fl, (uint64_t)json_integer_value(v));
	if (!x) {
		warnf(fl, "reference to a stack id not defined before; no stack");
		return NULL;
	}
	tf->key = x->id;
	tf->get = f_get;
	tf->priv = x;
	return tf;
}

static void free_stack(struct fstack *x)
{
	size_t i;
	for (i = 0; i < 3 * x->n; i++)
		free(x->strs[i]);
	free(x->strs);
	free(x->f);
}

static int add_stack(struct flat *fl, json_t *o)
{
	json_t *fr = json_object_get(o, "frames");
	int64_t id = jint(o, "id");
	struct fstack x;
	size_t i, mask;

	if (id <= 0 || !json_is_array(fr)) {
		warnf(fl, "stack record without a positive id and a frames array; skipped");
		return 0;
	}
	if (find_stack(fl, (uint64_t)id)) {
		warnf(fl, "stack id defined twice; the first definition is kept");
		return 0;
	}
	if (fl->n >= FLAT_MAX_STACKS) {
		warnf(fl, "more than 1048576 distinct stacks; the rest are dropped");
		return 0;
	}
	memset(&x, 0, sizeof(x));
	x.id = (uint64_t)id;
	x.n = json_array_size(fr) < TS_MAX_FRAMES ? json_array_size(fr) : TS_MAX_FRAMES;
	x.f = calloc(x.n ? x.n : 1, sizeof(*x.f));
	x.strs = calloc(3 * (x.n ? x.n : 1), sizeof(*x.strs));
	if (!x.f || !x.strs) {
		free(x.f);
		free(x.strs);
		return 0;
	}
	for (i = 0; i < x.n; i++) {
		json_t *e = json_array_get(fr, i);
		const char *name = jstr(e, "name"), *file = jstr(e, "file");
		x.strs[3 * i] = name ? strdup(name) : NULL;
		x.strs[3 * i + 1] = file ? strdup(file) : NULL;
		x.f[i].name = x.strs[3 * i];
		x.f[i].file = x.strs[3 * i + 1];
		x.f[i].line = jint(e, "line");
		x.f[i].build_id = NULL;
	}
	if ((fl->n + 1) * 2 > fl->cap) {
		size_t nc = fl->cap ? fl->cap * 2 : 1024;
		struct fstack *ns = calloc(nc, sizeof(*ns));
		if (!ns) {
			free_stack(&x);
			return 0;
		}
		for (i = 0; i < fl->cap; i++)
			if (fl->st[i].id) {
				size_t j = mix(fl->st[i].id) & (nc - 1);
				while (ns[j].id)
					j = (j + 1) & (nc - 1);
				ns[j] = fl->st[i];
			}
		free(fl->st);
		fl->st = ns;
		fl->cap = nc;
	}
	mask = fl->cap - 1;
	for (i = mix(x.id) & mask; fl->st[i].id; i = (i + 1) & mask)
		;
	fl->st[i] = x;
	fl->n++;
	return 0;
}

/* One record line. Returns 1 at "end", 0 to go on, -1 if ops failed. */
static int record(struct flat *fl, json_t *o)
{
	const char *type = jstr(o, "type");
	struct ts_frames tf;

	if (!type) {
		warnf(fl, "record without a \"type\"; skipped");
		return 0;
	}
	if (!strcmp(type, "stack"))
		return add_stack(fl, o);
	if (!strcmp(type, "segment")) {
		struct ts_segment g;
		g.device = jint(o, "device");
		g.address = jint(o, "address");
		g.total_size = jint(o, "total_size");
		g.allocated_size = jint(o, "allocated_size");
		g.active_size = jint(o, "active_size");
		g.requested_size = jint(o, "requested_size");
		g.stream = jint(o, "stream");
		g.segment_type = jstr(o, "segment_type");
		jpool(o, "pool_id", &g.pool_a, &g.pool_b);
		g.is_expandable = jint(o, "is_expandable");
		g.frames = jframes(fl, o, &tf);
		return fl->ops->segment(fl->ops->ctx, &g);
	}
	if (!strcmp(type, "block")) {
		struct ts_block b;
		b.address = jint(o, "address");
		b.size = jint(o, "size");
		b.requested_size = jint(o, "requested_size");
		b.state = jstr(o, "state");
		b.frames = jframes(fl, o, &tf);
		return fl->ops->block(fl->ops->ctx, &b);
	}
	if (!strcmp(type, "trace")) {
		struct ts_entry e;
		e.device = jint(o, "device");
		e.seq = jint(o, "seq");
		e.action = jstr(o, "action");
		e.addr = jint(o, "addr");
		e.size = jint(o, "size");
		e.stream = jint(o, "stream");
		e.time_us = jint(o, "time_us");
		e.device_free = jint(o, "device_free");
		e.compile_context = jstr(o, "compile_context");
		e.user_metadata = jstr(o, "user_metadata");
		jpool(o, "pool_id", &e.pool_a, &e.pool_b);
		e.frames = jframes(fl, o, &tf);
		if (!e.action) {
			warnf(fl, "trace record without an action; skipped");
			return 0;
		}
		return fl->ops->entry(fl->ops->ctx, &e);
	}
	if (!strcmp(type, "settings")) {
		json_t *v = json_object_get(o, "settings");
		return json_is_object(v) ? fl->ops->settings(fl->ops->ctx, v) : 0;
	}
	if (!strcmp(type, "end"))
		return fl->ops->end(fl->ops->ctx, jint(o, "devices")) < 0 ? -1 : 1;
	warnf(fl, "unknown record type; skipped");
	return 0;
}

int torch_flat_parse(struct input *in, struct sink *s)
{
	struct ts_ops ops;
	struct ts_model *m = ts_model_new(s, &ops);
	struct flat fl;
	const char *line;
	size_t len, i;
	int r = 0, ended = 0, header = 0;
	int64_t n;

	if (!m)
		return -1;
	memset(&fl, 0, sizeof(fl));
	fl.s = s;
	fl.ops = &ops;
	while (r >= 0 && input_getline(in, &line, &len) == 1) {
		json_error_t err;
		json_t *o;
		fl.lineno = in->lineno;
		if (in->line_cut) {
			sink_diagf(s, in->lineno, 0, OL_ERROR, "line longer than %u bytes; skipped",
				   (unsigned)INPUT_MAX_LINE);
			continue;
		}
		if (!len)
			continue;
		o = json_loadb(line, len, 0, &err);
		if (!json_is_object(o)) {
			sink_diagf(s, in->lineno, 0, OL_ERROR, "expected one JSON object per line:"
				   " %s (column %d)", o ? "not an object" : err.text, err.column);
			json_decref(o);
			continue;
		}
		if (!header) {
			struct ts_header h;
			const char *fmt = jstr(o, "format");
			int64_t v = jint(o, "version");
			if (!fmt || strcmp(fmt, TS_FLAT_MAGIC) || v == OL_NULL) {
				sink_diagf(s, in->lineno, 0, OL_ERROR, "expected the header record"
					   " {\"format\":\"%s\",\"version\":N,...}", TS_FLAT_MAGIC);
				json_decref(o);
				break;
			}
			if (v > TS_FLAT_VERSION)
				sink_diagf(s, in->lineno, 0, OL_WARN, "flat format version %lld is newer"
					   " than this oomlens reads (%d); reading what it knows",
					   (long long)v, TS_FLAT_VERSION);
			h.form = jstr(o, "form");
			h.protocol = jint(o, "protocol");
			header = 1;
			r = ops.begin(ops.ctx, &h);
		} else if (ended) {
			warnf(&fl, "record after the end record; skipped");
		} else {
			r = record(&fl, o);
			if (r == 1) {
				ended = 1;
				r = 0;
			}
		}
		json_decref(o);
	}
	if (r >= 0 && header && !ended) {
		sink_diagf(s, in->lineno + 1, 0, OL_ERROR, "no end record: the file is truncated;"
			   " keeping what was read");
		r = ops.end(ops.ctx, OL_NULL);
	}
	for (i = 0; i < fl.cap; i++)
		if (fl.st[i].id)
			free_stack(&fl.st[i]);
	free(fl.st);
	n = ts_model_free(m);
	if (r < 0)
		return -1;
	return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

int torch_flat_sniff(const unsigned char *head, size_t n)
{
	const unsigned char *nl = memchr(head, '\n', n);
	size_t l = nl ? (size_t)(nl - head) : n;

	if (l && head[0] == '{' && memmem(head, l, "\"" TS_FLAT_MAGIC "\"",
					  sizeof(TS_FLAT_MAGIC) + 1))
		return 100;
	return 0;
}
