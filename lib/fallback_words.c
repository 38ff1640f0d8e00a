/*
 * fallback_words.c -- the programs that catch an OOM on one batch and
 * retry it smaller, by their own words; see fallback_words.h. One row a
 * wording, the source it was learnt from beside it.
 */
#include "lib/fallback_words.h"

#include <stdlib.h>
#include <string.h>

static const struct fallback_word rows[] = {
	/* bio_embeddings' EmbedderWithFallback.embed_batch
	 * (bio_embeddings/embed/embedder_interfaces.py@v0.2.2): a
	 * RuntimeError (CUDA's OOM) on a batch of several sequences is logged
	 * "Error processing batch of {len(batch)} sequences: {e}. You might
	 * want to consider adjusting the `batch_size` parameter. Will try to
	 * embed each sequence in the set individually on the GPU." and each
	 * sequence is embedded alone; embed_many fills every batch up to
	 * batch_size residues, so a batch that fails holds long sequences
	 * (its docstring: "a) very long sequence or b) too large batch
	 * size") */
	{ "Will try to embed each sequence in the set individually", "Error processing batch of ",
	  "sequences", "bio_embeddings", "bio_embeddings/embed/embedder_interfaces.py@v0.2.2" },
	/* the same method, one sequence that failed alone: "RuntimeError for
	 * sequence with {len} residues: {e}. This most likely means that you
	 * don't have enough GPU RAM to embed a protein this long. Embedding
	 * on the CPU instead, which is very slow" (the count is residues) */
	{ "Embedding on the CPU instead", "RuntimeError for sequence with ", "residues",
	  "bio_embeddings", "bio_embeddings/embed/embedder_interfaces.py@v0.2.2" },
};

const struct fallback_word *fallback_word_in(const char *text)
{
	size_t i;

	if (!text)
		return NULL;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strstr(text, rows[i].phrase))
			return &rows[i];
	return NULL;
}

double fallback_count(const struct fallback_word *w, const char *text)
{
	const char *p;
	char *end;
	double v;

	if (!w || !w->count_label || !text || !(p = strstr(text, w->count_label)))
		return -1;
	p += strlen(w->count_label);
	v = strtod(p, &end);
	return end > p && v >= 0 ? v : -1;
}
