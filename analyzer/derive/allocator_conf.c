/*
 * allocator_conf.c -- the allocator model's settings: defaults, the
 * request rounding (round_size, roundup_power2_divisions) and segment
 * sizes (get_allocation_size), and reading PYTORCH_CUDA_ALLOC_CONF as the
 * allocator parses it. See allocator_model.h.
 */
#include "analyzer/derive/allocator_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- settings and rounding ---- */

void am_settings_default(struct am_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->max_split_size = AM_UNLIMITED;
	s->max_non_split_rounding = AM_LARGE_BUFFER;
	s->capacity = AM_UNLIMITED;
}

static unsigned floor_log2(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

/* The interval of roundup_power2_divisions a size falls in: 1 MiB and
 * below is the first, 32 GiB and up the last. */
static unsigned division_interval(uint64_t size)
{
	int i = (int)floor_log2(size) - 20;

	return i < 0 ? 0 : i >= AM_INTERVALS ? AM_INTERVALS - 1 : (unsigned)i;
}

/* size rounded up to the next of div equal steps between the powers of
 * two around it (roundup_power2_next_division). */
static uint64_t next_division(uint64_t size, unsigned div)
{
	uint64_t floor2, step, r;

	if (!(size & (size - 1)))
		return size;
	floor2 = 1ULL << floor_log2(size);
	step = floor2 >> floor_log2(div);
	if (!step)
		return floor2 << 1;
	r = size & ~(step - 1);
	return r == size ? size : r + step;
}

uint64_t am_round_size(const struct am_settings *s, uint64_t size)
{
	unsigned div;

	if (size < AM_MIN_BLOCK)
		return AM_MIN_BLOCK;
	if (size > (UINT64_MAX >> 2))
		return size;            /* cannot be had anyway; avoid overflow */
	div = s->divisions[division_interval(size)];
	if (div > 1 && size > AM_MIN_BLOCK * div)
		return next_division(size, div);
	return (size + AM_MIN_BLOCK - 1) / AM_MIN_BLOCK * AM_MIN_BLOCK;
}

uint64_t am_allocation_size(uint64_t size)
{
	if (size <= AM_SMALL_SIZE)
		return AM_SMALL_BUFFER;
	if (size < AM_MIN_LARGE)
		return AM_LARGE_BUFFER;
	if (size > (UINT64_MAX >> 2))
		return size;
	return (size + AM_ROUND_LARGE - 1) / AM_ROUND_LARGE * AM_ROUND_LARGE;
}

/* ---- PYTORCH_CUDA_ALLOC_CONF ---- */

/* The next token of a config string: a run of characters other than
 * , : [ ] (spaces dropped), or one of those. 0 at the end. */
static size_t conf_token(const char **p, char *tok, size_t n)
{
	size_t len = 0;

	while (**p == ' ')
		(*p)++;
	if (!**p)
		return 0;
	if (strchr(",:[]", **p)) {
		tok[0] = *(*p)++;
		tok[1] = 0;
		return 1;
	}
	while (**p && !strchr(",:[]", **p)) {
		if (**p != ' ' && len + 1 < n)
			tok[len++] = **p;
		(*p)++;
	}
	tok[len] = 0;
	return len ? len : 1;
}

static int conf_fail(char *err, size_t n, const char *what, const char *tok)
{
	if (err && n)
		snprintf(err, n, "PYTORCH_CUDA_ALLOC_CONF: %s%s%s%s", what, tok ? " '" : "",
			 tok ? tok : "", tok ? "'" : "");
	return -1;
}

static int conf_uint(const char *tok, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!*tok || *tok == '-')
		return -1;
	x = strtoull(tok, &end, 10);
	if (*end)
		return -1;
	*v = x;
	return 0;
}

/* roundup_power2_divisions's value: N, or [MB:N,...,>:N]. */
static int conf_divisions(struct am_settings *s, const char **p, char *err, size_t n)
{
	char tok[64], key[64];
	uint64_t v, mb;
	size_t last = 0, i, idx;
	int first = 1;

	if (!conf_token(p, tok, sizeof(tok)))
		return conf_fail(err, n, "roundup_power2_divisions needs a value", NULL);
	if (strcmp(tok, "[")) {
		if (conf_uint(tok, &v) < 0 || v > 1u << 16 || (v & (v - 1)))
			return conf_fail(err, n, "roundup_power2_divisions must be a power of 2:", tok);
		for (i = 0; i < AM_INTERVALS; i++)
			s->divisions[i] = (unsigned)v;
		return 0;
	}
	while (conf_token(p, key, sizeof(key)) && strcmp(key, "]")) {
		if (!strcmp(key, ","))
			continue;
		if (!conf_token(p, tok, sizeof(tok)) || strcmp(tok, ":") || !conf_token(p, tok, sizeof(tok)) ||
		    conf_uint(tok, &v) < 0 || v > 1u << 16 || (v & (v - 1) && v))
			return conf_fail(err, n, "roundup_power2_divisions: bad entry at", key);
		if (!strcmp(key, ">")) {
			/* as the allocator does: from the last interval named on */
			for (i = last; i < AM_INTERVALS; i++)
				s->divisions[i] = (unsigned)v;
			continue;
		}
		if (conf_uint(key, &mb) < 0 || !mb || (mb & (mb - 1)))
			return conf_fail(err, n, "roundup_power2_divisions: interval not a power of 2:", key);
		idx = floor_log2(mb);
		if (idx >= AM_INTERVALS)
			idx = AM_INTERVALS - 1;
		if (first)
			for (i = 0; i < idx; i++)
				s->divisions[i] = (unsigned)v;
		first = 0;
		s->divisions[idx] = (unsigned)v;
		last = idx;
	}
	return 0;
}

int am_settings_parse(struct am_settings *s, const char *conf, char *err, size_t n)
{
	static const char *const ignored[] = { "release_lock_on_cudamalloc",
		"release_lock_on_hipmalloc", "pinned_use_cuda_host_register",
		"pinned_use_hip_host_register", "pinned_num_register_threads",
		"pinned_use_background_threads", "pinned_reserve_segment_size_mb",
		"graph_capture_record_stream_reuse", NULL };
	const char *p = conf ? conf : "";
	char key[64], tok[64];
	uint64_t v;
	size_t i;

	while (conf_token(&p, key, sizeof(key))) {
		if (!strcmp(key, ","))
			continue;
		if (!conf_token(&p, tok, sizeof(tok)) || strcmp(tok, ":"))
			return conf_fail(err, n, "expected ':' after", key);
		if (!strcmp(key, "roundup_power2_divisions")) {
			if (conf_divisions(s, &p, err, n) < 0)
				return -1;
			continue;
		}
		if (!conf_token(&p, tok, sizeof(tok)))
			return conf_fail(err, n, "no value for", key);
		if (!strcmp(key, "max_split_size_mb") || !strcmp(key, "max_non_split_rounding_mb")) {
			if (conf_uint(tok, &v) < 0 || v < AM_LARGE_BUFFER >> 20)
				return conf_fail(err, n, "a size in MiB of at least 20 is needed for", key);
			v = v > (UINT64_MAX >> 20) ? UINT64_MAX : v << 20;
			if (key[4] == 's')
				s->max_split_size = v;
			else
				s->max_non_split_rounding = v;
		} else if (!strcmp(key, "garbage_collection_threshold")) {
			char *end;
			double g = strtod(tok, &end);

			if (*end || !(g > 0 && g < 1))
				return conf_fail(err, n, "garbage_collection_threshold must be in (0, 1):", tok);
			s->gc_threshold = g;
		} else if (!strcmp(key, "expandable_segments")) {
			if (strcmp(tok, "True") && strcmp(tok, "False"))
				return conf_fail(err, n, "expandable_segments takes True or False:", tok);
			s->expandable = tok[0] == 'T';
		} else if (!strcmp(key, "backend")) {
			if (strcmp(tok, "native"))
				return conf_fail(err, n, "only the native allocator is modelled, not", tok);
		} else {
			for (i = 0; ignored[i] && strcmp(key, ignored[i]); i++)
				;
			if (!ignored[i])
				return conf_fail(err, n, "unknown option", key);
		}
	}
	return 0;
}
