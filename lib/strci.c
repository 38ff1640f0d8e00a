/*
 * strci.c -- phrases found whatever their letters' case (strci.h): the
 * one loop that readers and rules used to write each for itself.
 */
#include "lib/strci.h"

#include <string.h>

int mem_eq_ci(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ascii_lower(a[i]) != ascii_lower(b[i]))
			return 0;
	return 1;
}

const char *mem_find_ci(const char *hay, size_t n, const char *needle)
{
	size_t m = strlen(needle), i;
	char first;

	if (!m || m > n)
		return NULL;
	first = ascii_lower(needle[0]);
	for (i = 0; i + m <= n; i++)
		if (ascii_lower(hay[i]) == first && mem_eq_ci(hay + i + 1, needle + 1, m - 1))
			return hay + i;
	return NULL;
}

int mem_has_any_ci(const char *hay, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (mem_find_ci(hay, n, *list))
			return 1;
	return 0;
}

int str_has_ci(const char *hay, const char *needle)
{
	return mem_find_ci(hay, strlen(hay), needle) != NULL;
}

int mem_is_ci(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && mem_eq_ci(s, word, n);
}
