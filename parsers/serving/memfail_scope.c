/*
 * memfail_scope.c -- which memory a recognised failure ran out of
 * (memfail.h memfail_scope): the host's, a GPU's, a TPU's HBM, an Apple
 * machine's one unified pool, or another accelerator's. The wording
 * family decides where it can; XLA's and ggml's families serve several
 * devices, so for them the line's own words (HBM, TPU, Metal, CUDA)
 * decide, and a line that names none keeps what the caller had. The
 * other families' scopes are lib/mem_family.h's rows.
 */
#include "parsers/serving/memfail.h"
#include "parsers/common/seriesutil.h"
#include "lib/mem_family.h"

#include <string.h>

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* The words of a line that name the device an XLA failure was on: a
 * TPU's (its HBM, the TPU runtime's reservation at the bottom of memory,
 * torch_xla's tpu_worker job) or a GPU's. */
static const char *const tpu_words[] = { "hbm", "HBM", "TPU", "tpu_", "bottom of memory" };
static const char *const gpu_words[] = { "GPU", "gpu", "CUDA", "cuda" };

static int any_word(const char *l, size_t n, const char *const *w, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (mem_find(l, n, w[i]))
			return 1;
	return 0;
}

/* The scope a family fixes (lib/mem_family.h's scope column, by its
 * vocabulary name), else cur. */
static enum vocab_scope family_scope(enum memfail_family f, enum vocab_scope cur)
{
	const struct mem_family *mf = mem_family_find(memfail_family_name(f));
	unsigned i;

	for (i = 0; mf && mf->scope && i < VSC__COUNT; i++)
		if (!strcmp(mf->scope, vocab_scope((enum vocab_scope)i)))
			return (enum vocab_scope)i;
	return cur;
}

enum vocab_scope memfail_scope(enum memfail_family f, int host, const char *l, size_t n,
			       enum vocab_scope cur)
{
	if (host)
		return VSC_HOST;
	switch (f) {
	case MF_XLA:
		if (any_word(l, n, tpu_words, ARRAY_N(tpu_words)))
			return VSC_TPU;
		if (any_word(l, n, gpu_words, ARRAY_N(gpu_words)))
			return VSC_GPU;
		return cur;
	case MF_GGML:   /* ggml's Metal buffers live in the Mac's one pool */
		return mem_find(l, n, "Metal") || mem_find(l, n, "metal") ? VSC_UNIFIED : cur;
	default:        /* host, unified, accelerator: the family's row */
		return family_scope(f, cur);
	}
}
