/*
 * memfail_words.h -- the wordings the generic memory-failure recogniser
 * (parsers/serving/memfail.c) starts from: the phrases that are never a
 * failure, the wording families in the order they win, the error and
 * advice markers that decide a generic wording, and the stacks that
 * print a library's wording with the family they make of it, the
 * backends and the families' printed names (all in memfail_names.c).
 * Tables and lookups only; memfail.c puts every phrase into its
 * one-pass phrase set and reads them in this order.
 *
 * Each wording is learnt from the source that prints it (the file and
 * the tag are named beside it in memfail_words.c) and, where a public
 * thread shows it, from a real excerpt under tests/data/real/any_stack.
 */
#ifndef OOMLENS_MEMFAIL_WORDS_H
#define OOMLENS_MEMFAIL_WORDS_H

#include <stddef.h>

#include "parsers/serving/memfail.h"

#define MFW_NEED_ERR 1u   /* an error marker on the line, no advice words */
#define MFW_WORD 2u       /* the phrase stands as a word of its own */
#define MFW_START 4u      /* ... and opens the line (after blanks) */
#define MFW_END 8u        /* ... and closes the line (before blanks) */
#define MFW_HOST 16u      /* the wording itself names the host's memory */
#define MFW_ENOMEM 32u    /* ... only where the line states errno 12 ("error 12", ENOMEM) */

struct memfail_word {
	const char *phrase;
	enum memfail_family family;
	unsigned flags;           /* MFW_* */
};

/* Never a failure, whatever else the line says (memfail_not.c). */
extern const char *const memfail_not_failures[];
extern const size_t memfail_not_failures_n;

/* The wording families: the first that matches names the family. */
extern const struct memfail_word memfail_words[];
extern const size_t memfail_words_n;

/* What makes a generic wording an error, and what makes it advice. */
extern const char *const memfail_error_markers[];
extern const size_t memfail_error_markers_n;
extern const char *const memfail_advice_words[];
extern const size_t memfail_advice_words_n;

/* The stacks that print a library's wording, ggml's exact-bytes label
 * (memfail_continues()) and ggml's host buffers, indexed by enum
 * memfail_stack. */
enum memfail_stack {
	MFS_GGML, MFS_TM, MFS_TRT, MFS_NCCL, MFS_BUFFER_OF_SIZE, MFS_LLAMA, MFS_TRT_TAG,
	MFS_ORT, MFS_HOST_CPU, MFS_HOST_ALIGNED, MFS_HOST_GALLOC, MFS_GGML_SRC, MFS_DML,
	MFS__COUNT
};
extern const char *const memfail_stacks[MFS__COUNT];

/* The backends whose name, as a word, gives a generic wording its family
 * when no stack named a more specific one (memfail_line()). */
struct memfail_backend {
	const char *word;
	enum memfail_family family;
};
extern const struct memfail_backend memfail_backends[];
extern const size_t memfail_backends_n;

/* The family a stack's own name makes of a wording matched as family f
 * on a line holding the stacks in has[] (1 each): ggml's "CUDA error:
 * out of memory" is ggml's, TurboMind's "[TM]" TurboMind's, an unknown
 * wording under "[TRT]" TensorRT's. */
enum memfail_family memfail_stack_family(enum memfail_family f, const int has[MFS__COUNT]);

#endif
