/*
 * pickle.h -- a streaming, non-executing decoder for Python pickles
 * (protocols 0 to 5, plain data only).
 *
 * It understands every opcode CPython's pickler emits for dict, list,
 * tuple, set, str, bytes, int (any size), float, bool and None, with the
 * memo. It never runs anything: opcodes that import or call (GLOBAL,
 * STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4,
 * PERSID, BINPERSID, NEXT_BUFFER, READONLY_BUFFER) stop the decode with an
 * error naming the opcode and its byte offset.
 *
 * Streaming: the caller tags containers as they are created (open) and is
 * handed each item as it is added to a tagged container (item); an item
 * the caller takes is not stored, so a list of ten million trace entries
 * is never built. Memory is bounded by what the data's structure needs:
 * the decoder stack, the memo entries that are referenced again (pinned),
 * and a ring of the most recent memo entries (PK_MEMO_WINDOW slots), and
 * in total by pk_budget.
 *
 * Values: scalars are held inline in a pk_val; strings, bytes and
 * containers are reference-counted pk_obj. Strings are UTF-8 cleaned
 * (invalid sequences and NUL become U+FFFD) and NUL-terminated.
 */
#ifndef OOMLENS_PICKLE_H
#define OOMLENS_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "parsers/common/sink.h"
#include "lib/input.h"

enum pk_type {
	PK_NONE, PK_BOOL, PK_INT, PK_BIGINT, PK_FLOAT,   /* inline */
	PK_STR, PK_BYTES, PK_LIST, PK_TUPLE, PK_DICT, PK_SET, /* pk_obj */
};

/* Limits (a pickle that needs more is refused with a diagnostic). */
#define PK_MAX_DEPTH 64              /* nesting of containers */
#define PK_MAX_STACK (1u << 22)      /* values on the decoder stack */
#define PK_MAX_MARKS 4096            /* open MARKs */
#define PK_MAX_STRING (256u << 20)   /* one str/bytes */
#define PK_MAX_ITEMS (64u << 20)     /* items held in one container */
#define PK_MEMO_WINDOW (1u << 16)    /* recent memo entries kept (a power of 2) */
#define PK_MAX_MEMO (1u << 25)       /* memo entries held in all */

/* The decode's memory budget, in bytes: what one decode holds at once in
 * items (stored in containers), strings, memo entries (pinned and recent)
 * and its stack, together. The limits above are per kind; this one bounds
 * the sum, so no nesting, item count or memo pinning takes more. On
 * reaching it the decode stops with what it read kept (PK_CORRUPT, said:
 * the artifact is partial). A variable so that a run (and tests) can set
 * it; PK_BUDGET_DEFAULT unless changed. */
#define PK_BUDGET_DEFAULT (1ull << 30)
extern uint64_t pk_budget;

struct pk_obj;

struct pk_val {
	enum pk_type type;
	union {
		int64_t i;          /* PK_BOOL, PK_INT; PK_BIGINT: its byte count */
		double f;           /* PK_FLOAT */
		struct pk_obj *o;   /* PK_STR .. PK_SET */
	} u;
};

struct pk_obj {
	size_t refs;
	enum pk_type type;
	uint32_t tag;           /* the caller's tag (containers) or key cache (str) */
	uint32_t depth;         /* 1 + deepest child */
	uint32_t parents;       /* containers holding it */
	int shared;             /* fetched from the memo at least once */
	int64_t memo;           /* memo index holding it, or -1 */
	uint64_t serial;        /* unique per object, never reused */
	union {
		struct { char *s; size_t n; } str;      /* PK_STR, PK_BYTES */
		struct {
			struct pk_val *v;   /* PK_DICT: key, value, key, value ... */
			size_t n, cap;      /* values held */
			uint64_t count;     /* items added, taken ones included */
		} c;
	} u;
};

/* Tag meaning "this container is the pickle's top-level value". */
#define PK_TAG_TOP 0xffffffffu

struct pk_handler {
	void *ud;
	/* A container was created in a known slot: as item index of the
	 * container tagged parent, or under key (a str, or NULL) of a dict
	 * tagged parent; parent is PK_TAG_TOP for the top-level value. Returns
	 * the new container's tag (0: not interesting). May be NULL. */
	uint32_t (*open)(void *ud, uint32_t parent, enum pk_type type,
			 const struct pk_val *key, uint64_t index);
	/* An item is being added to container c (tag != 0): key is NULL for a
	 * list/set. index = position in c. offset = the byte offset of the
	 * opcode adding it. Returns 1 if the caller took it (not stored), 0 to
	 * store it, -1 to stop (the sink failed). */
	int (*item)(void *ud, uint32_t tag, struct pk_obj *c, const struct pk_val *key,
		    const struct pk_val *val, uint64_t index, uint64_t offset);
};

enum pk_status {
	PK_DONE = 0,     /* STOP reached */
	PK_TRUNCATED,    /* input ended before STOP */
	PK_REFUSED,      /* an opcode that would execute code */
	PK_CORRUPT,      /* not a valid pickle, or a limit was passed */
	PK_ABORTED,      /* the handler returned -1 */
};

struct pk_result {
	enum pk_status status;
	int protocol;           /* from PROTO, -1 if none */
	uint64_t offset;        /* where decoding stopped */
	uint64_t opcodes;       /* opcodes decoded */
	struct pk_val top;      /* STOP's value (release with pk_release) */
};

/* Decode the pickle in `in`, reporting problems on s (offsets are byte
 * offsets in the input). On anything but PK_DONE, the items pending in
 * open MARK groups are handed over as if their APPENDS/SETITEMS had come,
 * so that what was read is kept. Returns 0, or -1 if the handler asked to
 * stop (the sink failed). res->top holds the result (PK_NONE if none). */
int pk_decode(struct input *in, const struct pk_handler *h, struct sink *s,
	      struct pk_result *res);

void pk_incref(const struct pk_val *v);
void pk_release(struct pk_val *v);   /* decref; sets v to None */

/* Helpers for consumers. */
static inline int pk_is_str(const struct pk_val *v) { return v->type == PK_STR; }
static inline const char *pk_str(const struct pk_val *v)
{ return v->type == PK_STR ? v->u.o->u.str.s : NULL; }
/* Integer value (bools count), or OL_NULL for anything else. */
int64_t pk_int(const struct pk_val *v);
/* Value for key in a dict object (keys compared as strings), or NULL. */
const struct pk_val *pk_dict_get(const struct pk_obj *d, const char *key);
/* Name of an opcode byte ("GLOBAL"), or NULL if not a pickle opcode. */
const char *pk_opname(unsigned char op);

#endif
