/*
 * strci.h -- finding a phrase in text whatever its letters' case.
 *
 * Logs write the same words in any case ("Out of memory", "OUT OF
 * MEMORY", "Eval", "EVAL"), so readers and rules test phrases without
 * case. These are the one way to do it: ASCII letters compare without
 * case, every other byte (UTF-8 included) as it is, whatever the locale.
 * Haystacks are either a length-bounded span (a log line, not
 * NUL-terminated) or a NUL-terminated string; needles are NUL-terminated
 * and may be in any case. An empty needle is found nowhere.
 */
#ifndef OOMLENS_STRCI_H
#define OOMLENS_STRCI_H

#include <stddef.h>

/* c with an ASCII capital lowered; any other byte unchanged. */
static inline char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The first place needle occurs in hay[0..n), ignoring case; NULL when
 * it does not (or needle is empty). */
const char *mem_find_ci(const char *hay, size_t n, const char *needle);

/* 1 when any needle of the NULL-ended list occurs in hay[0..n), ignoring
 * case; 0 otherwise. */
int mem_has_any_ci(const char *hay, size_t n, const char *const *list);

/* 1 when needle occurs in the NUL-terminated hay, ignoring case. */
int str_has_ci(const char *hay, const char *needle);

/* 1 when a[0..n) and b[0..n) are the same bytes but for case. */
int mem_eq_ci(const char *a, const char *b, size_t n);

/* 1 when s[0..n) is word, all of it, ignoring case (n == strlen(word)). */
int mem_is_ci(const char *s, size_t n, const char *word);

#endif
