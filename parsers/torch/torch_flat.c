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
#include "parsers/torch/torch_snapshot.h"
#include "parsers/torch/torch_model.h"
#include "parsers/common/hashtab.h"
#include "lib/budget.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* ---- writer ---- */

struct ts_writer {
	FILE *f;
	struct sink *s;
	struct strbuf line;
	struct keymap ids;       /* frames key -> flat stack id, once written */
	uint64_t next_id;
	int64_t lines;
	int failed;
};

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

/* Write the stack record of id: frames f[0..n), dropping outer frames
 * until the line fits the reader's line limit. 0, or -1 (write failed). */
static int w_stack_line(struct ts_writer *w, uint64_t id, const struct ol_frame *f, size_t n)
{
	size_t k;

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
	return w_flush(w);
}

static int64_t make_stack(void *ctx, const struct ol_frame *f, size_t n)
{
	struct ts_writer *w = ctx;
	int64_t id = (int64_t)++w->next_id;

	return w_stack_line(w, (uint64_t)id, f, n) < 0 ? -1 : id;
}

/* The flat id of a stack, writing its record on first use; OL_NULL =
 * none, -1 = a write failed. */
static int64_t w_stack(struct ts_writer *w, const struct ts_frames *fr)
{
	return ts_stack_id(&w->ids, fr, make_stack, w);
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

/* A record line of kind k: its type, its fields, its stack's id (the
 * stack's own line written first if new). */
static int w_record(struct ts_writer *w, const struct ts_kind *k, const void *rec)
{
	int64_t st = w_stack(w, *ts_frames_of(rec, k));
	size_t i;

	if (st == -1)
		return -1;
	strbuf_addstr(&w->line, "{\"type\":\"");
	strbuf_addstr(&w->line, k->name);
	strbuf_addch(&w->line, '"');
	for (i = 0; i < k->nfields; i++) {
		const struct ts_field *f = &k->fields[i];
		const int64_t *v = ts_int(rec, f);

		switch (f->type) {
		case TS_F_INT:
			j_kint(&w->line, f->name, *v);
			break;
		case TS_F_FLAG:
			if (*v == 0 || *v == 1)
				strbuf_addf(&w->line, ",\"%s\":%s", f->name, *v ? "true" : "false");
			else
				j_kint(&w->line, f->name, *v);
			break;
		case TS_F_STR:
			j_kstr(&w->line, f->name, *ts_str(rec, f));
			break;
		case TS_F_POOL:
			j_kpool(&w->line, f->name, v[0], v[1]);
			break;
		}
	}
	j_kint(&w->line, "stack", st);
	strbuf_addch(&w->line, '}');
	return w_flush(w);
}

static int w_segment(void *ctx, const struct ts_segment *x)
{
	return w_record(ctx, &ts_segment_kind, x);
}

static int w_block(void *ctx, const struct ts_block *x)
{
	return w_record(ctx, &ts_block_kind, x);
}

static int w_entry(void *ctx, const struct ts_entry *x)
{
	return w_record(ctx, &ts_entry_kind, x);
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
	static const struct ts_ops writer_ops = {
		NULL, w_begin, w_segment, w_block, w_entry, w_settings, w_end, NULL
	};
	struct ts_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = f;
	w->s = s;
	strbuf_init(&w->line);
	*ops = writer_ops;
	ops->ctx = w;
	return w;
}

int64_t ts_writer_free(struct ts_writer *w)
{
	int64_t r = w->failed ? -1 : w->lines;

	strbuf_release(&w->line);
	keymap_free(&w->ids);
	free(w);
	return r;
}

/* ---- reader ---- */

#define FLAT_MAX_STACKS (1u << 20)

/* A stack record read: its frames, whose strings it owns. */
struct fstack {
	uint64_t id;
	struct ol_frame *f;
	char **strs;            /* name, file of each frame */
	size_t n;
};

struct flat {
	struct sink *s;
	struct ts_ops *ops;
	struct fstack *st;      /* the stacks defined so far */
	size_t n, cap;
	struct keymap byid;     /* stack id -> index in st */
	uint64_t lineno;
	unsigned warns;
	uint64_t drawn;         /* bytes of kept stacks drawn from the run's budget */
	int spent;              /* the budget refused a stack: the rest are dropped */
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
	int64_t i;

	return keymap_get(&fl->byid, id, &i) ? &fl->st[i] : NULL;
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
	for (i = 0; i < 2 * x->n; i++)
		free(x->strs[i]);
	free(x->strs);
	free(x->f);
}

/* The first TS_MAX_FRAMES frames of a stack record's array into x (id
 * set by the caller). 0, or -1 when out of memory (x empty). */
static int read_frames(json_t *fr, struct fstack *x)
{
	size_t i;

	x->n = json_array_size(fr) < TS_MAX_FRAMES ? json_array_size(fr) : TS_MAX_FRAMES;
	x->f = calloc(x->n ? x->n : 1, sizeof(*x->f));
	x->strs = calloc(2 * (x->n ? x->n : 1), sizeof(*x->strs));
	if (!x->f || !x->strs) {
		free(x->f);
		free(x->strs);
		return -1;
	}
	for (i = 0; i < x->n; i++) {
		json_t *e = json_array_get(fr, i);
		const char *name = jstr(e, "name"), *file = jstr(e, "file");
		x->strs[2 * i] = name ? strdup(name) : NULL;
		x->strs[2 * i + 1] = file ? strdup(file) : NULL;
		x->f[i].name = x->strs[2 * i];
		x->f[i].file = x->strs[2 * i + 1];
		x->f[i].line = jint(e, "line");
		x->f[i].build_id = NULL;
	}
	return 0;
}

/* What stack x holds in memory: its arrays, its strings (with what malloc
 * adds to each) and its share of the table and index. */
static uint64_t stack_cost(const struct fstack *x)
{
	uint64_t c = sizeof(*x) + 64 + x->n * (sizeof(*x->f) + 2 * sizeof(*x->strs));
	size_t i;

	for (i = 0; i < 2 * x->n; i++)
		if (x->strs[i])
			c += strlen(x->strs[i]) + 1 + 16;
	return c;
}

/* Keep x as stack x->id. 0, or -1 when out of memory (x not kept). */
static int keep_stack(struct flat *fl, const struct fstack *x)
{
	if (fl->n == fl->cap) {
		size_t nc = fl->cap ? fl->cap * 2 : 256;
		struct fstack *ns = realloc(fl->st, nc * sizeof(*ns));
		if (!ns)
			return -1;
		fl->st = ns;
		fl->cap = nc;
	}
	if (keymap_put(&fl->byid, x->id, (int64_t)fl->n) < 0)
		return -1;
	fl->st[fl->n++] = *x;
	return 0;
}

/* A stack record: kept for the records after it that name its id. */
static int add_stack(struct flat *fl, json_t *o)
{
	json_t *fr = json_object_get(o, "frames");
	int64_t id = jint(o, "id");
	struct fstack x;
	uint64_t cost;

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
	if (fl->spent)
		return 0;
	memset(&x, 0, sizeof(x));
	x.id = (uint64_t)id;
	if (read_frames(fr, &x) < 0)
		return 0;
	cost = stack_cost(&x);
	if (ol_budget_take(cost) < 0) {
		fl->spent = 1;
		free_stack(&x);
		return sink_diagf(fl->s, fl->lineno, 0, OL_ERROR, "the stacks kept so far hold "
				  "%llu bytes, and this one does not fit in what is left of %llu "
				  "bytes (%s): this and later stack records are dropped, the "
				  "records that name them keep no stack",
				  (unsigned long long)fl->drawn, (unsigned long long)ol_budget(),
				  OL_BUDGET_HINT) < 0 ? -1 : 0;
	}
	if (keep_stack(fl, &x) < 0) {
		ol_budget_give(cost);
		free_stack(&x);
	} else {
		fl->drawn += cost;
	}
	return 0;
}

/* The fields of kind k from object o into rec (absent or of another
 * type: OL_NULL / NULL), then its stack (through tf). */
static void read_fields(struct flat *fl, json_t *o, const struct ts_kind *k, void *rec,
			struct ts_frames *tf)
{
	size_t i;

	for (i = 0; i < k->nfields; i++) {
		const struct ts_field *f = &k->fields[i];
		int64_t *v = ts_int(rec, f);

		switch (f->type) {
		case TS_F_INT:
		case TS_F_FLAG:
			*v = jint(o, f->name);
			break;
		case TS_F_STR:
			*ts_str(rec, f) = jstr(o, f->name);
			break;
		case TS_F_POOL:
			jpool(o, f->name, &v[0], &v[1]);
			break;
		}
	}
	*ts_frames_of(rec, k) = jframes(fl, o, tf);
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
		read_fields(fl, o, &ts_segment_kind, &g, &tf);
		return fl->ops->segment(fl->ops->ctx, &g);
	}
	if (!strcmp(type, "block")) {
		struct ts_block b;
		read_fields(fl, o, &ts_block_kind, &b, &tf);
		return fl->ops->block(fl->ops->ctx, &b);
	}
	if (!strcmp(type, "trace")) {
		struct ts_entry e;
		read_fields(fl, o, &ts_entry_kind, &e, &tf);
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

/* The header record on the first line. 0 (ops began), 1 not a header
 * (said: nothing is read), -1 if ops failed. */
static int read_header(struct flat *fl, json_t *o)
{
	struct ts_header h;
	const char *fmt = jstr(o, "format");
	int64_t v = jint(o, "version");

	if (!fmt || strcmp(fmt, TS_FLAT_MAGIC) || v == OL_NULL) {
		sink_diagf(fl->s, fl->lineno, 0, OL_ERROR, "expected the header record"
			   " {\"format\":\"%s\",\"version\":N,...}", TS_FLAT_MAGIC);
		return 1;
	}
	if (v > TS_FLAT_VERSION)
		sink_diagf(fl->s, fl->lineno, 0, OL_WARN, "flat format version %lld is newer"
			   " than this oomlens reads (%d); reading what it knows",
			   (long long)v, TS_FLAT_VERSION);
	h.form = jstr(o, "form");
	h.protocol = jint(o, "protocol");
	return fl->ops->begin(fl->ops->ctx, &h) < 0 ? -1 : 0;
}

/* The next line as a JSON object, or NULL (said, or a blank line);
 * *more = 0 at the end of the input. */
static json_t *next_object(struct flat *fl, struct input *in, int *more)
{
	const char *line;
	size_t len;
	json_error_t err;
	json_t *o;

	*more = input_getline(in, &line, &len) == 1;
	if (!*more)
		return NULL;
	fl->lineno = in->lineno;
	if (in->line_cut) {
		sink_diagf(fl->s, in->lineno, 0, OL_ERROR, "line longer than %u bytes; skipped",
			   (unsigned)INPUT_MAX_LINE);
		return NULL;
	}
	if (!len)
		return NULL;
	o = json_loadb(line, len, 0, &err);
	if (!json_is_object(o)) {
		sink_diagf(fl->s, in->lineno, 0, OL_ERROR, "expected one JSON object per line:"
			   " %s (column %d)", o ? "not an object" : err.text, err.column);
		json_decref(o);
		return NULL;
	}
	return o;
}

int torch_flat_parse(struct input *in, struct sink *s)
{
	struct ts_ops ops;
	struct ts_model *m = ts_model_new(s, &ops);
	struct flat fl;
	size_t i;
	int r = 0, ended = 0, header = 0, more = 1;
	int64_t n;

	if (!m)
		return -1;
	memset(&fl, 0, sizeof(fl));
	fl.s = s;
	fl.ops = &ops;
	while (r >= 0 && more) {
		json_t *o = next_object(&fl, in, &more);
		if (!o)
			continue;
		if (!header) {
			r = read_header(&fl, o);
			header = r == 0;
		} else if (ended) {
			warnf(&fl, "record after the end record; skipped");
		} else if ((r = record(&fl, o)) == 1) {
			ended = 1;
			r = 0;
		}
		json_decref(o);
		if (!header)
			break;
	}
	if (r >= 0 && header && !ended) {
		sink_diagf(s, in->lineno + 1, 0, OL_ERROR, "no end record: the file is truncated;"
			   " keeping what was read");
		r = ops.end(ops.ctx, OL_NULL);
	}
	for (i = 0; i < fl.n; i++)
		free_stack(&fl.st[i]);
	free(fl.st);
	ol_budget_give(fl.drawn);
	keymap_free(&fl.byid);
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
