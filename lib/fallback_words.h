/*
 * fallback_words.h -- the words a program prints when it catches an
 * out-of-memory error on one batch of its input and goes on with a
 * smaller one (each item alone, on the GPU or the CPU). Such an OOM is
 * the load of that batch, not the configuration: the program held its
 * earlier batches and survives this one. analyzer/derive/oom_fate.c
 * reads them in the failure's own message (oom.survival_by
 * batch_fallback); analyzer/rules/fallback.c names the class.
 *
 * Each row is learnt from the source that prints it (file@tag beside
 * it); never from one thread's text alone.
 */
#ifndef OOMLENS_FALLBACK_WORDS_H
#define OOMLENS_FALLBACK_WORDS_H

#include <stddef.h>

struct fallback_word {
	const char *phrase;         /* the program's words that it goes on smaller */
	const char *count_label;    /* the label before the failed batch's item count, or NULL */
	const char *items;          /* what the items are ("sequences") */
	const char *program;        /* who prints it */
	const char *source;         /* file@tag it was learnt from */
};

/* The first row whose phrase text holds, or NULL (NULL text included). */
const struct fallback_word *fallback_word_in(const char *text);

/* The failed batch's item count the row's label gives in text, or -1
 * when the row has no label or text does not give it. */
double fallback_count(const struct fallback_word *w, const char *text);

#endif
