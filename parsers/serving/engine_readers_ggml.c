/*
 * engine_readers_ggml.c -- the readers of engine_lines.c for llama.cpp's
 * memory tables: the per-device "memory breakdown [MiB]" table that
 * llama.cpp prints when a context is freed (llama_memory_breakdown_print,
 * src/llama-context.cpp, added by ggml-org/llama.cpp PR 15860 in
 * 2025-09; llama-server prints it on exit from PR 16740, 2025-10) and
 * that its parameter fitting prints of what it projects
 * (common_memory_breakdown_print, common/, 2026: the same templates).
 * The real pastes (llama.cpp #19881, intel/compute-runtime #984) show
 * the rows below. Same contract as engine_readers.c (engine_readers.h).
 *
 * The rows, from that function's templates (one line each,
 * prefixed by the function's name):
 *   "%s: | %s | %s = %s + (%s = %s + %s + %s) + %s |"   a GPU
 *        name  total free   self  model context compute unaccounted
 *   "%s: | %s | %s   %s    %s = %s + %s + %s    %s |"   the host, or a
 *                                                      buffer type
 * The name column is "  - " + the device's name + " (" + its description
 * + ")" ("  - CUDA0 (RTX 5090)", "  - SYCL0 (Intel Arc Pro B65
 * Graphics)"); every figure is MiB, truncated. "unaccounted" is total -
 * free - self: other processes, the driver, or (when free was measured
 * before loading) a negative figure.
 */
#include "parsers/serving/engine_readers.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MIB 1048576.0

/* The next figure of a GPU row after p, past blanks and one separator
 * sep ('=', '+', '('; 0: none): 0 and *v, or -1. *pp moves past it. */
static int next_figure(const char **pp, const char *end, char sep, double *v)
{
	const char *p = *pp;
	size_t used;

	while (p < end && *p == ' ')
		p++;
	if (sep) {
		if (p >= end || *p != sep)
			return -1;
		p++;
	}
	if (er_read_num(p, end, v, &used) < 0)
		return -1;
	*pp = p + used;
	return 0;
}

/* A row of the table: "|   - CUDA0 (RTX 5090)   | 32606 = 1057 + (29365 =
 * 28609 + 397 + 358) + 2183 |" after the anchor's "| ". A GPU's row
 * gives its model (the weights), context (the KV cache and recurrent
 * state) and compute buffers, summed over the GPUs as their buffer
 * lines are (o->ggml_dev); the first GPU's row gives the card's total
 * and free memory. The header row, the host's and a buffer type's rows
 * (no "(" after the self figure) give nothing. */
void er_ggml_breakdown(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	const char *name, *ne, *bar;
	double total, fre, self, model, context, compute;
	int dev = 0;

	(void)a, (void)line;
	while (p < end && (*p == ' ' || *p == '-'))
		p++;
	name = p;
	while (p < end && *p != ' ' && *p != '|')
		p++;
	ne = p;
	bar = memchr(p, '|', (size_t)(end - p));
	if (ne == name || !bar || !er_ggml_gpu(name, (size_t)(ne - name)))
		return;
	p = bar + 1;
	if (next_figure(&p, end, 0, &total) < 0 || next_figure(&p, end, '=', &fre) < 0)
		return;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '+')
		return;
	p++;
	while (p < end && *p == ' ')
		p++;
	/* "(self = model + context + compute)": the GPU template's group */
	if (p >= end || *p != '(')
		return;
	p++;
	if (next_figure(&p, end, 0, &self) < 0 || next_figure(&p, end, '=', &model) < 0 ||
	    next_figure(&p, end, '+', &context) < 0 || next_figure(&p, end, '+', &compute) < 0)
		return;
	if (total < 0 || fre < 0 || model < 0 || context < 0 || compute < 0 || fre > total)
		return;
	while (ne > name && isdigit((unsigned char)ne[-1]))
		ne--;
	if (isdigit((unsigned char)*ne))
		dev = atoi(ne);
	er_fact(o, EF_WEIGHTS, model * MIB);
	er_fact(o, EF_KV_CACHE, context * MIB);
	er_fact(o, EF_COMPUTE_BUFFER, compute * MIB);
	if (dev == 0) {
		er_fact(o, EF_TOTAL, total * MIB);
		er_fact(o, EF_FREE, fre * MIB);
	}
	o->ggml_dev = dev;
}

/* The table's header, "| memory breakdown [MiB] | total free self model
 * context compute unaccounted |": its rows follow, one a line. */
void er_ggml_table(struct engine_line *o, const struct anchor *a, const char *line,
		   const char *p, const char *end)
{
	(void)a, (void)line;
	if (er_find(p, end, "total") && er_find(p, end, "compute"))
		o->ggml_table = 1;
}
