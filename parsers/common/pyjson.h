/*
 * pyjson.h -- a streaming reader of JSON and of Python literal reprs:
 * what print(), pprint and json.dump write for dicts, lists, tuples and
 * OrderedDict([...]) (torch.cuda.memory_stats(), memray stats --json, a
 * Prometheus API answer printed by a Python client, Chrome traces).
 *
 * A push reader: the caller feeds text as it reads it and gets a callback
 * for every completed container and for every dict entry whose value is
 * complete, innermost first. The callback may keep the value for itself
 * ("consume" it): then it is not attached to its parent, so a caller that
 * consumes the records it wants reads a file of any length in the memory
 * of one record. What is not consumed is attached to its parent and freed
 * with it; values at the top level are freed after their callback.
 *
 * It tolerates what pastes do to these texts: a fragment that starts or
 * ends inside a container (closers with no opener are reported, openers
 * never closed are dropped at the end), a first token cut in the middle of
 * a string (skipped when pj_init is asked to), text around the literal
 * (log lines: their words are ignored), "[...]" elisions (Ellipsis reads as
 * null), and lines broken into fixed-width pieces (pj_init's glue_width:
 * a line break right after exactly that many bytes is not one).
 */
#ifndef OOMLENS_PYJSON_H
#define OOMLENS_PYJSON_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "lib/strbuf.h"

#define PJ_MAX_DEPTH 64
#define PJ_MAX_STRING (1u << 20)     /* longer strings are cut there */
#define PJ_MAX_ITEMS 100000          /* items kept in one container */

enum pj_kind {
	PJ_VALUE,        /* a container closed, or a dict entry's value is complete */
	PJ_STRAY_CLOSE,  /* a closer with no opener at the top level (a fragment) */
};

struct pj_event {
	enum pj_kind kind;
	int depth;              /* containers open around the value (0: top level) */
	const char *key;        /* its key in the enclosing dict, or NULL */
	const char *parent_key; /* the key the enclosing container sits under, or NULL */
	char container;         /* '{', '[', '(' for a container; 0 for a scalar */
	json_t *value;          /* borrowed; NULL for PJ_STRAY_CLOSE */
	unsigned consumed;      /* a container: how many of its items were consumed */
	int cut;                /* the input ended inside this container (pj_end) */
	uint64_t line;          /* line the value started on */
};

/* Return 1: the value is consumed (taken with json_incref if kept),
 * 0: attach it to its parent, -1: stop reading (pj_feed returns -1). */
typedef int (*pj_fn)(void *arg, const struct pj_event *ev);

struct pj_frame {
	json_t *c;              /* object or array being filled */
	char type;              /* '{', '[', '(' */
	int state;              /* dicts: expecting a key, a ':', a value */
	char *key;              /* dicts: the key of the value being read */
	char *under;            /* the key this container sits under, or NULL */
	unsigned consumed;
	size_t items;
	uint64_t line;
};

struct pyjson {
	pj_fn fn;
	void *arg;
	struct pj_frame frames[PJ_MAX_DEPTH];
	int n;                  /* frames open */
	int skip;               /* containers open beyond PJ_MAX_DEPTH */
	int tok;                /* 0 none, 'w' bare word, '\'' or '"' string */
	int esc;                /* inside a string: 0, or the escape being read */
	unsigned esc_val, esc_left;
	struct strbuf buf;      /* the token being read */
	char *top_pending;      /* a top-level string that may turn out to be a key */
	char *top_key;          /* a top-level "key:" whose value is being read */
	int skip_first;         /* skip a first token cut inside a string */
	int started;            /* a token was seen */
	uint64_t line, tok_line;
	size_t col, glue_width;  /* bytes since the last line break; see pj_init */
	/* what the caller may report as diagnostics */
	unsigned too_deep, cut_strings, dropped_items, broken_strings;
	int stopped;            /* the callback returned -1 */
};

/* The width at which pastes from stored copies of web pages break long
 * lines (tests/data/real/tools/README.md): such a piece is glued to the
 * next line. */
#define PJ_PASTE_PIECE 1000

/* skip_cut_start: the input may begin inside a string ("ol.allocated', 51),
 * ..."): a first bare word ending at a quote is dropped with that quote.
 * glue_width: a line break after exactly that many bytes is no break (0:
 * every line break is one). */
void pj_init(struct pyjson *p, pj_fn fn, void *arg, int skip_cut_start, size_t glue_width);
/* Feed n bytes. A line break ends a bare word; a string still open at one
 * is dropped (Python and JSON strings never span lines). Returns 0, or -1
 * when the callback stopped the reading or memory ran out. */
int pj_feed(struct pyjson *p, const char *s, size_t n);
/* End of input: completes a pending word, then closes the containers
 * still open, innermost first, as if their closers had come (their events
 * have cut = 1). Returns how many were open, or -1 as pj_feed. */
int pj_end(struct pyjson *p);
void pj_release(struct pyjson *p);

/* Helpers for callbacks: a json number as double (integers too); 0 if it
 * is one. A json string holding a number ("346920", "1.5e3") counts. */
int pj_number(const json_t *v, double *out);
/* An integer value (json integer, or a real with no fraction); 0 if one. */
int pj_int(const json_t *v, int64_t *out);

#endif
