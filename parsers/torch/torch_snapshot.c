/*
 * torch_snapshot.c -- the pickle reader of PyTorch memory snapshots: drives
 * the streaming decoder (pickle.h) and turns segments, blocks and trace
 * entries into normalized records (struct ts_ops) as they complete; and
 * torch_snapshot_parse, which runs it through the pipe (torch_pipe.h) into
 * the model (torch_model.h). See torch_snapshot.h and docs/formats.md.
 *
 * Streaming: the top-level dict, its "segments" and "device_traces" lists
 * and each device's trace list are tagged when the decoder creates them;
 * each segment dict and trace entry dict is handed over when it is added
 * to its list, turned into a record, and freed. Anything the tagging could
 * not place (odd producers) still arrives whole at the top-level dict and
 * is walked there, so the records are the same, only the memory differs.
 */
#include "parsers/torch/torch_snapshot.h"
#include "parsers/torch/torch_model.h"
#include "parsers/torch/torch_pipe.h"
#include "parsers/torch/pickle.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	T_ROOT = 1, T_ROOTLIST, T_SEGMENTS, T_TRACES,
	T_DEV = 16,           /* + device index */
	T_DEV_MAX = T_DEV + (1 << 20),
};

/* Keys, classified once per key string (cached in the str's tag). */
enum key {
	K_UNKNOWN = 0, K_OTHER, K_DEVICE, K_ADDRESS, K_TOTAL_SIZE, K_ALLOCATED_SIZE,
	K_ACTIVE_SIZE, K_REQUESTED_SIZE, K_STREAM, K_SEGMENT_TYPE, K_SEGMENT_POOL_ID,
	K_IS_EXPANDABLE, K_FRAMES, K_BLOCKS, K_SIZE, K_STATE, K_HISTORY, K_ADDR,
	K_REAL_SIZE, K_ACTION, K_DEVICE_FREE, K_TIME_US, K_COMPILE_CONTEXT,
	K_USER_METADATA, K_POOL_ID, K_FILENAME, K_LINE, K_NAME, K_SEGMENTS,
	K_DEVICE_TRACES, K_ALLOCATOR_SETTINGS, K_NKEYS
};

static const char *const key_names[K_NKEYS] = {
	[K_DEVICE] = "device", [K_ADDRESS] = "address", [K_TOTAL_SIZE] = "total_size",
	[K_ALLOCATED_SIZE] = "allocated_size", [K_ACTIVE_SIZE] = "active_size",
	[K_REQUESTED_SIZE] = "requested_size", [K_STREAM] = "stream",
	[K_SEGMENT_TYPE] = "segment_type", [K_SEGMENT_POOL_ID] = "segment_pool_id",
	[K_IS_EXPANDABLE] = "is_expandable", [K_FRAMES] = "frames", [K_BLOCKS] = "blocks",
	[K_SIZE] = "size", [K_STATE] = "state", [K_HISTORY] = "history", [K_ADDR] = "addr",
	[K_REAL_SIZE] = "real_size", [K_ACTION] = "action", [K_DEVICE_FREE] = "device_free",
	[K_TIME_US] = "time_us", [K_COMPILE_CONTEXT] = "compile_context",
	[K_USER_METADATA] = "user_metadata", [K_POOL_ID] = "pool_id",
	[K_FILENAME] = "filename", [K_LINE] = "line", [K_NAME] = "name",
	[K_SEGMENTS] = "segments", [K_DEVICE_TRACES] = "device_traces",
	[K_ALLOCATOR_SETTINGS] = "allocator_settings",
};

static enum key key_of(const struct pk_val *k)
{
	struct pk_obj *o;
	int i;

	if (!k || k->type != PK_STR)
		return K_OTHER;
	o = k->u.o;
	if (o->tag)
		return (enum key)o->tag;
	o->tag = K_OTHER;
	for (i = K_DEVICE; i < K_NKEYS; i++)
		if (!strcmp(o->u.str.s, key_names[i])) {
			o->tag = (uint32_t)i;
			break;
		}
	return (enum key)o->tag;
}

struct frames_src {
	struct ts_frames f;
	struct rdr *r;
	const struct pk_obj *list;
};

struct rdr {
	struct sink *s;
	const struct ts_ops *ops;
	int64_t protocol;
	int began, failed;
	int64_t ndev;            /* device trace lists seen */
	unsigned bigint_warns, shape_warns;
	uint64_t offset;         /* of the opcode handing the current item over */
	struct ol_frame fbuf[TS_MAX_FRAMES];
};

/* An integer field; big ints become OL_NULL with a warning. */
static int64_t ival(struct rdr *r, const struct pk_val *v)
{
	if (v->type == PK_BIGINT && r->bigint_warns++ < 10)
		sink_diagf(r->s, 0, r->offset, OL_WARN,
			   "pickle offset %llu: an integer of %lld bytes does not fit 64 bits;"
			   " stored as unknown", (unsigned long long)r->offset, (long long)v->u.i);
	return pk_int(v);
}

static void shape_warn(struct rdr *r, const char *what)
{
	if (r->shape_warns++ < 20)
		sink_diagf(r->s, 0, r->offset, OL_WARN, "pickle offset %llu: %s; skipped",
			   (unsigned long long)r->offset, what);
}

/* ---- reading the fields of a dict ----
 * Each record is read from its dict through a table: the keys it knows,
 * what each holds and where it goes in the reader's struct. Unknown keys
 * are skipped; a key given twice counts its last value. */

enum pf_type {
	PF_INT,      /* an integer: int64_t (a big one: OL_NULL, warned) */
	PF_FLAG,     /* an integer or bool, not warned: int64_t */
	PF_STR,      /* a str: const char *, else NULL */
	PF_POOL,     /* an (a, b) pair of integers: two int64_t */
	PF_VAL,      /* the value itself, for the caller: const struct pk_val * */
};

struct pfield {
	enum key key;
	enum pf_type type;
	size_t off;
};

#define PF(key, type, in, field) { key, type, offsetof(struct in, field) }

static void pool_of(const struct pk_val *v, int64_t *a, int64_t *b)
{
	*a = *b = OL_NULL;
	if (v && (v->type == PK_TUPLE || v->type == PK_LIST) && v->u.o->u.c.n == 2) {
		*a = pk_int(&v->u.o->u.c.v[0]);
		*b = pk_int(&v->u.o->u.c.v[1]);
	}
}

/* Store value v (NULL: set unknown) of field f into out. */
static void set_field(struct rdr *r, const struct pfield *f, const struct pk_val *v, void *out)
{
	char *at = (char *)out + f->off;

	switch (f->type) {
	case PF_INT:
		*(int64_t *)at = v ? ival(r, v) : OL_NULL;
		break;
	case PF_FLAG:
		*(int64_t *)at = v ? pk_int(v) : OL_NULL;
		break;
	case PF_STR:
		*(const char **)at = v ? pk_str(v) : NULL;
		break;
	case PF_POOL:
		pool_of(v, (int64_t *)at, (int64_t *)at + 1);
		break;
	case PF_VAL:
		*(const struct pk_val **)at = v;
		break;
	}
}

/* Every field of map (n entries) in out: unknown, then what dict d says. */
static void read_dict(struct rdr *r, const struct pk_obj *d, const struct pfield *map,
		      size_t n, void *out)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		set_field(r, &map[i], NULL, out);
	for (j = 0; j + 1 < d->u.c.n; j += 2) {
		enum key k = key_of(&d->u.c.v[j]);
		for (i = 0; i < n && map[i].key != k; i++)
			;
		if (i < n)
			set_field(r, &map[i], &d->u.c.v[j + 1], out);
	}
}

#define READ_DICT(r, d, map, out) read_dict((r), (d), (map), sizeof(map) / sizeof((map)[0]), (out))

/* ---- frames ---- */

static const struct pfield frame_map[] = {
	PF(K_FILENAME, PF_STR, ol_frame, file),
	PF(K_NAME, PF_STR, ol_frame, name),
	PF(K_LINE, PF_FLAG, ol_frame, line),
};

/* ts_frames.get of a pickled frame list: its first TS_MAX_FRAMES frame
 * dicts, in the reader's buffer. */
static int frames_get(const struct ts_frames *tf, const struct ol_frame **out, size_t *n)
{
	const struct frames_src *fs = (const struct frames_src *)tf;
	const struct pk_obj *l = fs->list;
	struct rdr *r = fs->r;
	size_t i, k = 0;

	for (i = 0; i < l->u.c.n && k < TS_MAX_FRAMES; i++) {
		const struct pk_val *fv = &l->u.c.v[i];
		struct ol_frame *f = &r->fbuf[k];
		if (fv->type != PK_DICT)
			continue;
		READ_DICT(r, fv->u.o, frame_map, f);
		f->build_id = NULL;
		k++;
	}
	*out = r->fbuf;
	*n = k;
	return 0;
}

/* A frames value as a ts_frames (NULL when absent or not a list). */
static const struct ts_frames *frames_of(struct rdr *r, const struct pk_val *v,
					 struct frames_src *fs)
{
	if (!v || (v->type != PK_LIST && v->type != PK_TUPLE))
		return NULL;
	fs->f.key = v->u.o->serial;
	fs->f.get = frames_get;
	fs->f.priv = NULL;
	fs->r = r;
	fs->list = v->u.o;
	return &fs->f;
}

static int begin(struct rdr *r, const char *form)
{
	struct ts_header h = { form, r->protocol };

	if (r->began)
		return 0;
	r->began = 1;
	if (r->ops->begin(r->ops->ctx, &h) < 0) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

/* ---- segments, blocks, trace entries ---- */

struct block_in {
	struct ts_block b;
	const struct pk_val *frames, *history;
};

static const struct pfield block_map[] = {
	PF(K_ADDRESS, PF_INT, block_in, b.address),
	PF(K_SIZE, PF_INT, block_in, b.size),
	PF(K_REQUESTED_SIZE, PF_INT, block_in, b.requested_size),
	PF(K_STATE, PF_STR, block_in, b.state),
	PF(K_FRAMES, PF_VAL, block_in, frames),
	PF(K_HISTORY, PF_VAL, block_in, history),
};

/* A block dict of a segment. *next_addr: where the previous block ended
 * (the address of a block that has none), updated. */
static int do_block(struct rdr *r, const struct pk_val *bv, int64_t *next_addr)
{
	struct block_in in;
	struct ts_block *b = &in.b;
	struct frames_src fs;
	const struct pk_val *hist;
	int64_t real_size = OL_NULL, hist_addr = OL_NULL;

	if (bv->type != PK_DICT) {
		shape_warn(r, "a block that is not a dict");
		return 0;
	}
	memset(&in, 0, sizeof(in));
	READ_DICT(r, bv->u.o, block_map, &in);
	/* 1.13-2.0: the last history entry is the block's current allocation */
	hist = in.history;
	if (hist && hist->type == PK_LIST && hist->u.o->u.c.n) {
		const struct pk_val *h = &hist->u.o->u.c.v[hist->u.o->u.c.n - 1];
		if (h->type == PK_DICT) {
			const struct pk_val *x;
			if ((x = pk_dict_get(h->u.o, "real_size")))
				real_size = ival(r, x);
			if ((x = pk_dict_get(h->u.o, "addr")))
				hist_addr = ival(r, x);
			if (!in.frames)
				in.frames = pk_dict_get(h->u.o, "frames");
		}
	}
	if (b->address == OL_NULL)
		b->address = hist_addr != OL_NULL ? hist_addr : *next_addr;
	if (b->requested_size == OL_NULL && b->state && strcmp(b->state, "inactive"))
		b->requested_size = real_size;
	if (b->address == OL_NULL || b->size == OL_NULL ||
	    __builtin_add_overflow(b->address, b->size, next_addr))
		*next_addr = OL_NULL;
	b->frames = frames_of(r, in.frames, &fs);
	return r->ops->block(r->ops->ctx, b);
}

struct segment_in {
	struct ts_segment g;
	const struct pk_val *frames, *blocks;
};

static const struct pfield segment_map[] = {
	PF(K_DEVICE, PF_INT, segment_in, g.device),
	PF(K_ADDRESS, PF_INT, segment_in, g.address),
	PF(K_TOTAL_SIZE, PF_INT, segment_in, g.total_size),
	PF(K_ALLOCATED_SIZE, PF_INT, segment_in, g.allocated_size),
	PF(K_ACTIVE_SIZE, PF_INT, segment_in, g.active_size),
	PF(K_REQUESTED_SIZE, PF_INT, segment_in, g.requested_size),
	PF(K_STREAM, PF_INT, segment_in, g.stream),
	PF(K_SEGMENT_TYPE, PF_STR, segment_in, g.segment_type),
	PF(K_SEGMENT_POOL_ID, PF_POOL, segment_in, g.pool_a),
	PF(K_IS_EXPANDABLE, PF_FLAG, segment_in, g.is_expandable),
	PF(K_FRAMES, PF_VAL, segment_in, frames),
	PF(K_BLOCKS, PF_VAL, segment_in, blocks),
};

/* A segment dict, then its blocks. */
static int do_segment(struct rdr *r, const struct pk_val *sv)
{
	struct segment_in in;
	struct frames_src fs;
	const struct pk_val *blocks;
	int64_t next;
	size_t j;

	if (sv->type != PK_DICT) {
		shape_warn(r, "a segment that is not a dict");
		return 0;
	}
	memset(&in, 0, sizeof(in));
	READ_DICT(r, sv->u.o, segment_map, &in);
	/* A dict is a segment by what every generation writes into one: its
	 * size, its address or its blocks. Without them it is some other
	 * dict (a frame of a pickled frames list that came first in the
	 * stream, before the object STOP returns), never a segment. */
	if (in.g.total_size == OL_NULL && in.g.address == OL_NULL && !in.blocks) {
		shape_warn(r, "a dict that is not a segment (no total_size, address or blocks)");
		return 0;
	}
	if (begin(r, "list") < 0)
		return -1;
	in.g.frames = frames_of(r, in.frames, &fs);
	if (r->ops->segment(r->ops->ctx, &in.g) < 0)
		return -1;
	blocks = in.blocks;
	if (!blocks || (blocks->type != PK_LIST && blocks->type != PK_TUPLE))
		return 0;
	next = in.g.address;
	for (j = 0; j < blocks->u.o->u.c.n; j++)
		if (do_block(r, &blocks->u.o->u.c.v[j], &next) < 0)
			return -1;
	return 0;
}

struct entry_in {
	struct ts_entry e;
	const struct pk_val *frames;
};

static const struct pfield entry_map[] = {
	PF(K_ACTION, PF_STR, entry_in, e.action),
	PF(K_ADDR, PF_INT, entry_in, e.addr),
	PF(K_SIZE, PF_INT, entry_in, e.size),
	PF(K_STREAM, PF_INT, entry_in, e.stream),
	PF(K_TIME_US, PF_INT, entry_in, e.time_us),
	PF(K_DEVICE_FREE, PF_INT, entry_in, e.device_free),
	PF(K_COMPILE_CONTEXT, PF_STR, entry_in, e.compile_context),
	PF(K_USER_METADATA, PF_STR, entry_in, e.user_metadata),
	PF(K_POOL_ID, PF_POOL, entry_in, e.pool_a),
	PF(K_FRAMES, PF_VAL, entry_in, frames),
};

/* Trace entry seq of a device's trace. */
static int do_entry(struct rdr *r, int64_t device, int64_t seq, const struct pk_val *ev)
{
	struct entry_in in;
	struct frames_src fs;

	if (ev->type != PK_DICT) {
		shape_warn(r, "a trace entry that is not a dict");
		return 0;
	}
	memset(&in, 0, sizeof(in));
	READ_DICT(r, ev->u.o, entry_map, &in);
	in.e.device = device;
	in.e.seq = seq;
	if (!in.e.action) {
		shape_warn(r, "a trace entry without an action");
		return 0;
	}
	in.e.frames = frames_of(r, in.frames, &fs);
	return r->ops->entry(r->ops->ctx, &in.e);
}

/* A device's trace list (whatever of it was not streamed). */
static int do_device_list(struct rdr *r, int64_t device, const struct pk_val *lv)
{
	size_t j;

	if (lv->type != PK_LIST) {
		shape_warn(r, "a device trace that is not a list");
		return 0;
	}
	if (device + 1 > r->ndev)
		r->ndev = device + 1;
	for (j = 0; j < lv->u.o->u.c.n; j++)
		if (do_entry(r, device, (int64_t)j, &lv->u.o->u.c.v[j]) < 0)
			return -1;
	return 0;
}

/* A pickled value as JSON (allocator settings). */
static json_t *to_json(const struct pk_val *v, int depth)
{
	json_t *j;
	size_t i;

	if (depth > PK_MAX_DEPTH)
		return json_null();
	switch (v->type) {
	case PK_BOOL: return json_boolean(v->u.i);
	case PK_INT: return json_integer(v->u.i);
	case PK_FLOAT: return isfinite(v->u.f) ? json_real(v->u.f) : json_null();
	case PK_STR: return json_stringn(v->u.o->u.str.s, v->u.o->u.str.n);
	case PK_BYTES: return ol_json_strn(v->u.o->u.str.s, v->u.o->u.str.n);
	case PK_LIST: case PK_TUPLE: case PK_SET:
		j = json_array();
		for (i = 0; i < v->u.o->u.c.n; i++)
			json_array_append_new(j, to_json(&v->u.o->u.c.v[i], depth + 1));
		return j;
	case PK_DICT:
		j = json_object();
		for (i = 0; i + 1 < v->u.o->u.c.n; i += 2) {
			const struct pk_val *k = &v->u.o->u.c.v[i];
			char num[32];
			const char *ks = pk_str(k);
			if (!ks) {
				if (k->type == PK_INT || k->type == PK_BOOL)
					snprintf(num, sizeof(num), "%lld", (long long)k->u.i);
				else
					snprintf(num, sizeof(num), "?");
				ks = num;
			}
			json_object_set_new(j, ks, to_json(&v->u.o->u.c.v[i + 1], depth + 1));
		}
		return j;
	default:
		return json_null();
	}
}

/* ---- decoder callbacks ---- */

static uint32_t on_open(void *ud, uint32_t parent, enum pk_type type,
			const struct pk_val *key, uint64_t index)
{
	struct rdr *r = ud;

	if (parent == PK_TAG_TOP) {
		if (type == PK_DICT)
			return begin(r, "dict") < 0 ? 0 : T_ROOT;
		if (type == PK_LIST)
			return T_ROOTLIST;
		return 0;
	}
	if (parent == T_ROOT && type == PK_LIST) {
		enum key k = key_of(key);
		return k == K_SEGMENTS ? T_SEGMENTS : k == K_DEVICE_TRACES ? T_TRACES : 0;
	}
	if (parent == T_TRACES && type == PK_LIST && index < (uint64_t)(T_DEV_MAX - T_DEV))
		return (uint32_t)(T_DEV + index);
	return 0;
}

static int on_item(void *ud, uint32_t tag, struct pk_obj *c, const struct pk_val *key,
		   const struct pk_val *val, uint64_t index, uint64_t offset)
{
	struct rdr *r = ud;
	size_t j;
	int rc = 0;

	(void)c;
	r->offset = offset;
	if (r->failed)
		return -1;
	switch (tag) {
	case T_ROOT:
		switch (key_of(key)) {
		case K_SEGMENTS:
			if (val->type == PK_LIST)
				for (j = 0; rc == 0 && j < val->u.o->u.c.n; j++)
					rc = do_segment(r, &val->u.o->u.c.v[j]);
			break;
		case K_DEVICE_TRACES:
			if (val->type == PK_LIST) {
				if ((int64_t)val->u.o->u.c.count > r->ndev)
					r->ndev = (int64_t)val->u.o->u.c.count;
				for (j = 0; rc == 0 && j < val->u.o->u.c.n; j++)
					rc = do_device_list(r, (int64_t)j, &val->u.o->u.c.v[j]);
			}
			break;
		case K_ALLOCATOR_SETTINGS:
			if (val->type == PK_DICT) {
				json_t *js = to_json(val, 0);
				rc = r->ops->settings(r->ops->ctx, js);
				json_decref(js);
			}
			break;
		default:
			break;
		}
		break;
	case T_ROOTLIST:
	case T_SEGMENTS:
		rc = do_segment(r, val);
		break;
	case T_TRACES:
		rc = do_device_list(r, (int64_t)index, val);
		break;
	default:
		if (tag >= T_DEV && tag < T_DEV_MAX) {
			if ((int64_t)(tag - T_DEV) + 1 > r->ndev)
				r->ndev = (int64_t)(tag - T_DEV) + 1;
			rc = do_entry(r, (int64_t)(tag - T_DEV), (int64_t)index, val);
		} else {
			return 0;
		}
	}
	if (rc < 0) {
		r->failed = 1;
		return -1;
	}
	return 1;
}

int torch_snapshot_decode(struct input *in, struct sink *s, const struct ts_ops *ops)
{
	struct pk_handler h = { NULL, on_open, on_item };
	struct pk_result res;
	struct rdr *r = calloc(1, sizeof(*r));
	const unsigned char *head;
	size_t n;
	int rc = 0;

	if (!r)
		return -1;
	r->s = s;
	r->ops = ops;
	r->protocol = OL_NULL;
	head = input_peek(in, 2, &n);
	if (n >= 2 && head[0] == 0x80)
		r->protocol = head[1];
	h.ud = r;
	if (pk_decode(in, &h, s, &res) < 0 || r->failed) {
		rc = -1;
		goto out;
	}
	if (res.status == PK_DONE && res.top.type != PK_DICT && res.top.type != PK_LIST)
		sink_diagf(s, 0, res.offset, OL_ERROR,
			   "the pickle holds a %s, not a memory snapshot (a dict or a list of"
			   " segments)", res.top.type == PK_STR ? "string" : "scalar or tuple");
	else if (!r->began && res.status == PK_DONE)
		sink_diagf(s, 0, res.offset, OL_ERROR, "no segments or device traces found");
	if (r->began && ops->end(ops->ctx, r->ndev ? r->ndev : OL_NULL) < 0)
		rc = -1;
out:
	pk_release(&res.top);
	free(r);
	return rc;
}

int torch_snapshot_parse(struct input *in, struct sink *s)
{
	struct ts_ops ops;
	struct ts_model *m = ts_model_new(s, &ops);
	int r;
	int64_t n;

	if (!m)
		return -1;
	r = ts_pipe_run(in, s, torch_snapshot_decode, &ops);
	n = ts_model_free(m);
	if (r < 0)
		return -1;
	return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

int torch_snapshot_sniff(const unsigned char *head, size_t n)
{
	static const char *const keys[] = { "device_traces", "segments", "total_size",
					    "allocated_size", "segment_type" };
	size_t i;

	if (n < 4 || head[0] != 0x80 || head[1] < 2 || head[1] > 5)
		return 0;
	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (memmem(head, n, keys[i], strlen(keys[i])))
			return 95;
	return 0;
}
