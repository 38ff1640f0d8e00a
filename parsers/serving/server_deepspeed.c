/*
 * server_deepspeed.c -- DeepSpeed's see_memory_usage lines as samples;
 * see server_deepspeed.h.
 */
#include "parsers/serving/server_deepspeed.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <string.h>

#define GIB 1073741824.0

/* The number after label within msg[0..n) (label followed by spaces),
 * in GB; 0 with *v set, -1 when absent or unreadable. */
static int figure(const char *msg, size_t n, const char *label, double *v)
{
	const char *p = msg, *end = msg + n;
	size_t ll = strlen(label);

	/* the label stands as a word: "MA " is not the tail of "Max_MA " */
	while ((p = mem_find(p, (size_t)(end - p), label)) != NULL) {
		if (p == msg || p[-1] == ' ' || p[-1] == ']')
			break;
		p += ll;
	}
	if (!p)
		return -1;
	p += ll;
	return parse_num_gb(p, (size_t)(end - p), v);
}

int ds_memory_line(struct sink *s, const char *msg, size_t n, const struct ol_time *t)
{
	static const struct { const char *label; enum vocab_series series; } figs[] = {
		{ "MA ", VS_TORCH_ALLOCATED_BYTES },
		{ "Max_MA ", VS_TORCH_ALLOCATED_PEAK_BYTES },
		{ "CA ", VS_TORCH_RESERVED_BYTES },
		{ "Max_CA ", VS_TORCH_RESERVED_PEAK_BYTES },
	};
	double v[4];
	size_t i;

	if (n < 30 || !mem_find(msg, n, "Max_MA ") || !mem_find(msg, n, "Max_CA "))
		return 0;
	for (i = 0; i < 4; i++)
		if (figure(msg, n, figs[i].label, &v[i]) < 0)
			return 0;
	for (i = 0; i < 4; i++)
		if (su_put_sample(s, vocab_series_name(figs[i].series), "bytes", NULL, t,
				  v[i] * GIB) < 0)
			return -1;
	return 1;
}
