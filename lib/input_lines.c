/*
 * input_lines.c -- an input read as lines (input.h): the newline found
 * with the marks the parser asked for in the same pass (input_mark_bytes:
 * SSE2 sixteen bytes a step, AVX2 thirty-two with the marks told by a
 * table), a line too long cut and its rest skipped, lines a parser took
 * itself from the buffer accounted. The buffer is input.c's.
 */
#include "lib/input.h"
#include "lib/input_internal.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define INPUT_AVX2 1
#endif

#ifdef INPUT_AVX2
static int getline_wide(struct input *in, const char **line, size_t *len);
#endif

/* Drop bytes up to and including the next newline (the tail of a cut line). */
static void skip_rest_of_line(struct input *in)
{
	for (;;) {
		unsigned char *p = memchr(in->buf + in->pos, '\n', in->end - in->pos);
		if (p) {
			size_t k = (size_t)(p - (in->buf + in->pos)) + 1;
			in->pos += k;
			in->offset += k;
			return;
		}
		in->offset += in->end - in->pos;
		in->pos = in->end;
		if (input_fill(in) <= 0)
			return;
	}
}

#ifdef INPUT_AVX2
/* The marks' look-up tables: in->mark_table for all of them, and
 * in->first_table for those of input_mark_bytes()'s bytes alone. 1 when
 * no two marks share their low four bits (then a byte b is a mark just
 * when mark_table[b & 15] == b), else 0. */
static int mark_tables(struct input *in)
{
	int k, i;

	for (i = 0; i < 16; i++)   /* low four bits other than i: never matched */
		in->mark_table[i] = in->first_table[i] = i ? 0 : 1;
	for (k = 0; k < 8; k++) {
		if (k >= in->n_first && (k < 4 || k >= 4 + in->n_also))
			continue;
		i = in->marks[k] & 15;
		if (in->mark_table[i] != (i ? 0 : 1) && in->mark_table[i] != in->marks[k])
			return 0;
		in->mark_table[i] = in->marks[k];
		if (k < 4)
			in->first_table[i] = in->marks[k];
	}
	return 1;
}
#endif

/* Up to four bytes of s into in->marks[at..at + 4), the slots left over
 * filled with the first (the SSE2 loop compares with four); the count. */
static int take_marks(struct input *in, int at, const char *s)
{
	int k, n;

	for (n = 0; n < 4 && s[n]; n++)
		in->marks[at + n] = (unsigned char)s[n];
	for (k = n; k < 4; k++)
		in->marks[at + k] = in->marks[at];
	return n;
}

void input_mark_bytes(struct input *in, const char *bytes, const char *also)
{
	in->n_first = take_marks(in, 0, bytes);
	in->n_also = take_marks(in, 4, also ? also : "");
	in->n_marks = in->n_first + in->n_also;
	in->mark_wide = 0;
#ifdef INPUT_AVX2
	in->mark_wide = in->n_marks && mark_tables(in) && __builtin_cpu_supports("avx2");
	if (in->mark_wide)
		in->next_line = getline_wide;
#endif
}

/* The first newline in p[0..n), or NULL; *marked gets 1 when one of
 * input_mark_bytes()'s bytes comes before it (anywhere in p[0..n) when
 * there is none), 2 when one of its also bytes does. Without marks it is
 * memchr; with them, one pass finds both, sixteen bytes a step where
 * SSE2 is there. */
static unsigned char *find_newline(const struct input *in, unsigned char *p, size_t n,
				   int *marked)
{
	size_t i = 0;
	int k;

	if (!in->n_marks)
		return memchr(p, '\n', n);
#ifdef __SSE2__
	{
		const __m128i nl = _mm_set1_epi8('\n');
		const __m128i m0 = _mm_set1_epi8((char)in->marks[0]);
		const __m128i m1 = _mm_set1_epi8((char)in->marks[1]);
		const __m128i m2 = _mm_set1_epi8((char)in->marks[2]);
		const __m128i m3 = _mm_set1_epi8((char)in->marks[3]);
		const __m128i m4 = _mm_set1_epi8((char)in->marks[4]);
		const __m128i m5 = _mm_set1_epi8((char)in->marks[5]);
		const __m128i m6 = _mm_set1_epi8((char)in->marks[6]);
		const __m128i m7 = _mm_set1_epi8((char)in->marks[7]);
		const int one = in->n_first > 0, two = in->n_also > 0;

		for (; i + 16 <= n; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			unsigned at = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl));
			unsigned first = 0, more = 0, before = ~0u;

			if (one)
				first = (unsigned)_mm_movemask_epi8(_mm_or_si128(
					_mm_or_si128(_mm_cmpeq_epi8(v, m0), _mm_cmpeq_epi8(v, m1)),
					_mm_or_si128(_mm_cmpeq_epi8(v, m2), _mm_cmpeq_epi8(v, m3))));
			if (two)
				more = (unsigned)_mm_movemask_epi8(_mm_or_si128(
					_mm_or_si128(_mm_cmpeq_epi8(v, m4), _mm_cmpeq_epi8(v, m5)),
					_mm_or_si128(_mm_cmpeq_epi8(v, m6), _mm_cmpeq_epi8(v, m7))));
			if (at)   /* (at & -at) - 1: the bits before the first newline */
				before = (at & (0u - at)) - 1;
			*marked |= (first & before ? 1 : 0) | (more & before ? 2 : 0);
			if (at)
				return p + i + __builtin_ctz(at);
		}
	}
#endif
	for (; i < n; i++) {
		if (p[i] == '\n')
			return p + i;
		for (k = 0; k < in->n_first; k++)
			if (p[i] == in->marks[k])
				*marked |= 1;
		for (k = 0; k < in->n_also; k++)
			if (p[i] == in->marks[4 + k])
				*marked |= 2;
	}
	return NULL;
}

int input_getline_any(struct input *in, const char **line, size_t *len)
{
	unsigned char *nl;
	size_t scanned = 0;
	int marked = 0;

	if (in->line_cut)
		skip_rest_of_line(in);
	in->line_cut = 0;
	in->line_marked = in->line_also = 1;   /* a cut line, the last one */
	for (;;) {
		nl = find_newline(in, in->buf + in->pos + scanned, in->end - in->pos - scanned,
				  &marked);
		if (nl)
			break;
		scanned = in->end - in->pos;
		if (scanned >= INPUT_MAX_LINE) {
			/* Too long: return the head now, skip the rest next call. */
			*line = (const char *)in->buf + in->pos;
			*len = INPUT_MAX_LINE;
			in->line_offset = in->offset;
			in->lineno++;
			in->line_cut = 1;
			in->pos += INPUT_MAX_LINE;
			in->offset += INPUT_MAX_LINE;
			return 1;
		}
		if (input_fill(in) <= 0) {
			/* input_fill() may have moved the data to the buffer's start. */
			if (in->end == in->pos)
				return in->error ? -1 : 0;
			/* Last line without a newline. */
			*line = (const char *)in->buf + in->pos;
			*len = in->end - in->pos;
			in->line_offset = in->offset;
			in->offset += *len;
			in->pos = in->end;
			in->lineno++;
			goto strip;
		}
	}
	*line = (const char *)in->buf + in->pos;
	*len = (size_t)(nl - (in->buf + in->pos));
	in->line_marked = marked & 1;
	in->line_also = marked >> 1;
	in->line_offset = in->offset;
	in->offset += *len + 1;
	in->pos += *len + 1;
	in->lineno++;
strip:
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	return 1;
}

#ifdef INPUT_AVX2
/* The bytes of v that are marks of table (lo: v's low four bits), a bit
 * each; getline_wide() looks up the first kind only where there are
 * marks. */
__attribute__((target("avx2")))
static inline unsigned marks_in(__m256i table, __m256i lo, __m256i v)
{
	return (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, lo), v));
}

/* input_getline() for the common case, with marks told by their table
 * (in->mark_wide): the next line lies whole in the buffer, its newline
 * found 32 bytes a step with AVX2 (the line's marks in the same pass).
 * Other cases (a cut line's rest to skip, no newline in the buffer's
 * whole 32-byte steps) go to input_getline_any(). */
__attribute__((target("avx2")))
static int getline_wide(struct input *in, const char **line, size_t *len)
{
	const __m256i nl = _mm256_set1_epi8('\n'), low = _mm256_set1_epi8(15);
	const __m256i table = _mm256_broadcastsi128_si256(
		_mm_loadu_si128((const __m128i *)(const void *)in->mark_table));
	const __m256i first_table = _mm256_broadcastsi128_si256(
		_mm_loadu_si128((const __m128i *)(const void *)in->first_table));
	const unsigned char *p = in->buf + in->pos;
	size_t n = in->end - in->pos, i, k;
	unsigned seen_first = 0, seen_also = 0, at, mk, first, before;

	if (in->line_cut)
		return input_getline_any(in, line, len);
	for (i = 0; i + 32 <= n; i += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
		__m256i lo = _mm256_and_si256(v, low);
		at = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl));
		mk = marks_in(table, lo, v);
		if (at) {
			/* (at & -at) - 1: the bits before the first newline */
			before = (at & (0u - at)) - 1;
			first = mk & before ? marks_in(first_table, lo, v) : 0;
			k = i + (size_t)__builtin_ctz(at);
			in->line_marked = ((first & before) | seen_first) != 0;
			in->line_also = ((mk & ~first & before) | seen_also) != 0;
			in->line_offset = in->offset;
			in->offset += k + 1;
			in->pos += k + 1;
			in->lineno++;
			*line = (const char *)p;
			*len = k && p[k - 1] == '\r' ? k - 1 : k;
			return 1;
		}
		if (mk) {
			first = marks_in(first_table, lo, v);
			seen_first |= first;
			seen_also |= mk & ~first;
		}
	}
	return input_getline_any(in, line, len);
}
#endif

int input_getline(struct input *in, const char **line, size_t *len)
{
	return in->next_line(in, line, len);
}

void input_consume_lines(struct input *in, size_t n, uint64_t lines, size_t last_start)
{
	if (!lines)
		return;
	in->line_offset = in->offset + last_start;
	in->line_marked = in->line_also = 0;
	in->pos += n;
	in->offset += n;
	in->lineno += lines;
}
