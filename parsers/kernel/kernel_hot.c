/*
 * kernel_hot.c -- the kernel parser's per-line filter (kernel_hot.h): the
 * patterns, their confirmation byte by byte, and the SSE2 and AVX2 scans
 * that find where to confirm.
 *
 * The AVX2 scan tells the patterns' first three bytes exactly: for each of
 * the three bytes of a position, two 16-entry tables indexed by the byte's
 * low and high four bits give the set (one bit per pattern) of patterns
 * whose byte there has those bits; a position is a candidate when the six
 * sets share a bit. The tables are built once from the pattern list below,
 * so a new pattern is one row (at most 8, one bit each).
 */
#include "parsers/kernel/kernel_hot.h"

#include <pthread.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KHOT_HAVE_AVX2 1
#endif

const unsigned char khot_bare_first[256] = {
	['m'] = 1, ['s'] = 1, ['k'] = 1, ['e'] = 1, ['p'] = 1,
};

/* Is there a hot pattern at p (the line ends at e)? */
static int hot_at(const unsigned char *p, const unsigned char *e)
{
	if (e - p < 3)
		return 0;
	switch (p[0]) {
	case 'o': return p[1] == 'o' && p[2] == 'm';
	case 'O': return p[1] == 'O' && p[2] == 'M';
	case 'K': return p[1] == 'i' && p[2] == 'l';
	case 'l': return p[1] == 'u' && p[2] == 'r' && e - p >= 4 && p[3] == 'e';
	case 'N': return p[1] == 'V' && p[2] == 'R' && e - p >= 4 && p[3] == 'M';
	case 'c': return p[1] == 'n' && p[2] == 't';
	case 'm': return p[1] == '-' && (p[2] == 'I' || p[2] == 'i') && e - p >= 6 &&
			 !memcmp(p + 3, "nfo", 3);
	case 'n': return p[1] == '_' && p[2] == 'a' && e - p >= 7 && !memcmp(p + 3, "lloc", 4);
	default: return 0;
	}
}

static int hot_scalar(const unsigned char *p, const unsigned char *e, size_t i)
{
	size_t n = (size_t)(e - p);

	for (; i + 2 < n; i++)
		if (hot_at(p + i, e))
			return 1;
	return 0;
}

#ifdef __SSE2__
/* SSE2: the patterns' first two bytes, 16 positions a step; a hit is
 * confirmed by hot_at(), the rest of the line byte by byte. */
static int hot_sse2(const unsigned char *p, const unsigned char *e)
{
	const __m128i co = _mm_set1_epi8('o'), cO = _mm_set1_epi8('O'), cK = _mm_set1_epi8('K'),
		      ci = _mm_set1_epi8('i'), cl = _mm_set1_epi8('l'), cu = _mm_set1_epi8('u'),
		      cN = _mm_set1_epi8('N'), cV = _mm_set1_epi8('V'), cc = _mm_set1_epi8('c'),
		      cn = _mm_set1_epi8('n'), cm = _mm_set1_epi8('m'), cd = _mm_set1_epi8('-'),
		      cu_ = _mm_set1_epi8('_');
	size_t i = 0, n = (size_t)(e - p);

	for (; i + 17 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
		__m128i m = _mm_or_si128(
			_mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, co), _mm_cmpeq_epi8(b, co)),
				     _mm_and_si128(_mm_cmpeq_epi8(a, cO), _mm_cmpeq_epi8(b, cO))),
			_mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, cK), _mm_cmpeq_epi8(b, ci)),
				     _mm_and_si128(_mm_cmpeq_epi8(a, cl), _mm_cmpeq_epi8(b, cu))));
		m = _mm_or_si128(m, _mm_or_si128(
			_mm_and_si128(_mm_cmpeq_epi8(a, cN), _mm_cmpeq_epi8(b, cV)),
			_mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, cc), _mm_cmpeq_epi8(b, cn)),
				     _mm_and_si128(_mm_cmpeq_epi8(a, cm), _mm_cmpeq_epi8(b, cd)))));
		m = _mm_or_si128(m, _mm_and_si128(_mm_cmpeq_epi8(a, cn), _mm_cmpeq_epi8(b, cu_)));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		/* almost every block has no candidate: say so, so that the
		 * compiler lays the next block's load right after this test */
		if (__builtin_expect(bits == 0, 1))
			continue;
		while (bits) {
			unsigned k = (unsigned)__builtin_ctz(bits);
			if (hot_at(p + i + k, e))
				return 1;
			bits &= bits - 1;
		}
	}
	return hot_scalar(p, e, i);
}
#endif

#ifdef KHOT_HAVE_AVX2
/* The patterns' first three bytes, one bit each (the third byte of
 * "m-Info" either case); hot_at() confirms the rest. */
static const struct { unsigned char b[3], alt3; } pats[] = {
	{ "oom", 'm' }, { "OOM", 'M' }, { "Kil", 'l' }, { "lur", 'r' },
	{ "NVR", 'R' }, { "cnt", 't' }, { "m-I", 'i' }, { "n_a", 'a' },
};

/* tab[j][0]: byte j's low four bits -> patterns; tab[j][1]: high bits. */
static unsigned char tab[3][2][16];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_build(void)
{
	size_t k;
	int j;

	for (k = 0; k < sizeof(pats) / sizeof(pats[0]); k++)
		for (j = 0; j < 3; j++) {
			unsigned char c = pats[k].b[j];
			tab[j][0][c & 15] |= (unsigned char)(1u << k);
			tab[j][1][c >> 4] |= (unsigned char)(1u << k);
			if (j == 2) {
				c = pats[k].alt3;
				tab[j][0][c & 15] |= (unsigned char)(1u << k);
				tab[j][1][c >> 4] |= (unsigned char)(1u << k);
			}
		}
}

/* The set of patterns whose byte j may be each byte of v. */
__attribute__((target("avx2")))
static inline __m256i pat_set(__m256i v, __m256i lo_tab, __m256i hi_tab, __m256i low)
{
	__m256i lo = _mm256_and_si256(v, low);
	__m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
	return _mm256_and_si256(_mm256_shuffle_epi8(lo_tab, lo), _mm256_shuffle_epi8(hi_tab, hi));
}

#define BCAST(t) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(t)))

/* AVX2: 32 positions a step, the last step moved back to end at the
 * line's end (positions seen twice are harmless); lines shorter than one
 * step go to SSE2. */
__attribute__((target("avx2")))
static int hot_avx2(const unsigned char *p, const unsigned char *e)
{
	size_t i = 0, n = (size_t)(e - p);

	if (n < 34)
		return hot_sse2(p, e);
	const __m256i low = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
	const __m256i l0 = BCAST(tab[0][0]), h0 = BCAST(tab[0][1]);
	const __m256i l1 = BCAST(tab[1][0]), h1 = BCAST(tab[1][1]);
	const __m256i l2 = BCAST(tab[2][0]), h2 = BCAST(tab[2][1]);

	for (;;) {
		if (i + 34 > n)
			i = n - 34;
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 1));
		__m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 2));
		__m256i m = _mm256_and_si256(_mm256_and_si256(pat_set(a, l0, h0, low),
							      pat_set(b, l1, h1, low)),
					     pat_set(c, l2, h2, low));
		unsigned bits = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero));

		if (__builtin_expect(bits != 0, 0))
			do {
				if (hot_at(p + i + (unsigned)__builtin_ctz(bits), e))
					return 1;
				bits &= bits - 1;
			} while (bits);
		if (i + 34 >= n)
			return 0;
		i += 32;
	}
}
#endif

#ifdef KHOT_HAVE_AVX2
/* khot_skip() for the AVX2 way: per 32-byte step the positions where a
 * pattern's first three bytes lie and the newlines, one bit each. */
__attribute__((target("avx2")))
static size_t skip_avx2(const unsigned char *p, size_t n, uint64_t *lines, size_t *last)
{
	const unsigned char *e = p + n;
	const __m256i low = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
	const __m256i nl = _mm256_set1_epi8('\n');
	const __m256i l0 = BCAST(tab[0][0]), h0 = BCAST(tab[0][1]);
	const __m256i l1 = BCAST(tab[1][0]), h1 = BCAST(tab[1][1]);
	const __m256i l2 = BCAST(tab[2][0]), h2 = BCAST(tab[2][1]);
	size_t i, done = 0, start = 0;
	uint64_t count = 0;

	for (i = 0; i + 34 <= n; i += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 1));
		__m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 2));
		__m256i m = _mm256_and_si256(_mm256_and_si256(pat_set(a, l0, h0, low),
							      pat_set(b, l1, h1, low)),
					     pat_set(c, l2, h2, low));
		unsigned hits = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero));
		unsigned nls = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, nl));
		unsigned h = hits, k;

		/* keep the confirmed hits only (a pattern holds no newline, so
		 * the one at a position is in that position's line) */
		hits = 0;
		for (; h; h &= h - 1) {
			k = (unsigned)__builtin_ctz(h);
			if (hot_at(p + i + k, e))
				hits |= 1u << k;
		}
		for (; nls; nls &= nls - 1) {
			k = (unsigned)__builtin_ctz(nls);
			if (hits & ((2u << k) - 1))
				goto out;         /* a hot line: stop at its start */
			start = done;
			done = i + k + 1;
			count++;
			if (done < n && (khot_bare_first[p[done]] || p[done] == '{'))
				goto out;         /* the next line may matter */
		}
		if (hits)
			goto out;
	}
out:
	*lines = count;
	*last = start;
	return done;
}
#endif

size_t khot_skip(const char *buf, size_t n, enum khot_way way, uint64_t *lines, size_t *last)
{
	const unsigned char *p = (const unsigned char *)buf;

	*lines = 0;
	*last = 0;
	if (!n || khot_bare_first[p[0]] || p[0] == '{')
		return 0;
#ifdef KHOT_HAVE_AVX2
	if (way == KHOT_AVX2)
		return skip_avx2(p, n, lines, last);
#endif
	(void)way;
	return 0;
}

enum khot_way khot_best_way(void)
{
#ifdef KHOT_HAVE_AVX2
	if (__builtin_cpu_supports("avx2")) {
		pthread_once(&tab_once, tab_build);
		return KHOT_AVX2;
	}
#endif
#ifdef __SSE2__
	return KHOT_SSE2;
#else
	return KHOT_SCALAR;
#endif
}

int khot_line(const char *l, size_t n, enum khot_way way)
{
	const unsigned char *p = (const unsigned char *)l, *e = p + n;

	switch (way) {
#ifdef KHOT_HAVE_AVX2
	case KHOT_AVX2:
		return hot_avx2(p, e);
#endif
#ifdef __SSE2__
	case KHOT_SSE2:
		return hot_sse2(p, e);
#endif
	default:
		return hot_scalar(p, e, 0);
	}
}
