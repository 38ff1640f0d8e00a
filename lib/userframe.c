/*
 * userframe.c -- which frame of an allocation stack is the user's; see
 * userframe.h. Plain scans over the path, '\' read as '/', in place of the
 * oracle's regular expressions (tests/data/real/snapshots/oracle.py:
 * _TORCH, _RUNTIME), which they follow case by case.
 */
#include "lib/userframe.h"
#include "lib/common.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* s[i] with '\' as '/'. */
static char at(const char *s, size_t i)
{
	return s[i] == '\\' ? '/' : s[i];
}

/* 1 when s from i on starts with lit (lit has '/' for either slash);
 * icase: letters in any case. */
static int starts(const char *s, size_t n, size_t i, const char *lit, int icase)
{
	size_t k;

	for (k = 0; lit[k]; k++) {
		char c;
		if (i + k >= n)
			return 0;
		c = at(s, i + k);
		if (icase ? tolower((unsigned char)c) != lit[k] : c != lit[k])
			return 0;
	}
	return 1;
}

/* 1 when s from i on is site-packages/ or dist-packages/. */
static int packages(const char *s, size_t n, size_t i, int icase)
{
	return starts(s, n, i, "site-packages/", icase) ||
	       starts(s, n, i, "dist-packages/", icase);
}

int frame_is_python(const char *file)
{
	size_t n;

	if (!file)
		return 0;
	n = strlen(file);
	if (n >= 3 && file[n - 3] == '.' && tolower((unsigned char)file[n - 2]) == 'p' &&
	    tolower((unsigned char)file[n - 1]) == 'y')
		return 1;
	return n >= 2 && file[0] == '<' && file[n - 1] == '>';
}

int frame_is_torch(const char *file)
{
	size_t i, n;

	if (!file)
		return 0;
	n = strlen(file);
	for (i = 0; i < n; i++)
		if ((i == 0 || at(file, i - 1) == '/') && starts(file, n, i, "torch/", 0))
			return 1;
	return 0;
}

/* "/lib/python" digits ["." digits] ["t"] "/" at i, not followed by
 * site-packages/ or dist-packages/: the standard library of Linux. */
static int lib_python(const char *s, size_t n, size_t i)
{
	size_t j = i + 11, d;

	if (!starts(s, n, i, "/lib/python", 0))
		return 0;
	for (d = j; j < n && isdigit((unsigned char)s[j]); j++)
		;
	if (j == d)
		return 0;
	if (j < n && s[j] == '.' && j + 1 < n && isdigit((unsigned char)s[j + 1]))
		for (j++; j < n && isdigit((unsigned char)s[j]); j++)
			;
	if (j < n && s[j] == 't')
		j++;
	return j < n && at(s, j) == '/' && !packages(s, n, j + 1, 0);
}

/* "/python..."/"/cpython..." then "/lib/" at the next slash, not followed
 * by the packages folders, in any case: Windows' ...\Python310\Lib\. */
static int python_lib(const char *s, size_t n, size_t i)
{
	size_t j;

	if (!starts(s, n, i, "/python", 1) && !starts(s, n, i, "/cpython", 1))
		return 0;
	for (j = i + 1; j < n && at(s, j) != '/'; j++)
		;
	return starts(s, n, j, "/lib/", 1) && !packages(s, n, j + 5, 1);
}

/* "/envs/NAME/lib/", "/miniconda3/lib/", "/anaconda3/lib/",
 * "/miniforge3/lib/", in any case, not followed by the packages folders
 * or "python": a conda environment's standard library (Windows). */
static int conda_lib(const char *s, size_t n, size_t i)
{
	static const char *const roots[] = { "/miniconda3", "/anaconda3", "/miniforge3" };
	size_t j = n, k;

	if (starts(s, n, i, "/envs/", 1)) {
		for (j = i + 6; j < n && at(s, j) != '/'; j++)
			;
		if (j == i + 6)
			return 0;
	} else {
		for (k = 0; k < sizeof(roots) / sizeof(roots[0]); k++)
			if (starts(s, n, i, roots[k], 1))
				j = i + strlen(roots[k]);
		if (j == n)
			return 0;
	}
	return starts(s, n, j, "/lib/", 1) && !packages(s, n, j + 5, 1) &&
	       !starts(s, n, j + 5, "python", 1);
}

int frame_is_runtime(const char *file)
{
	size_t i, n;

	if (!file)
		return 0;
	if (!strncmp(file, "<frozen", 7))
		return 1;
	n = strlen(file);
	for (i = 0; i < n; i++)
		if (at(file, i) == '/' && (lib_python(file, n, i) || python_lib(file, n, i) ||
					   conda_lib(file, n, i)))
			return 1;
	return 0;
}

enum frame_kind frame_kind(const char *file)
{
	if (!frame_is_python(file))
		return FRAME_CPP;
	if (frame_is_torch(file))
		return FRAME_TORCH;
	if (frame_is_runtime(file))
		return FRAME_RUNTIME;
	return FRAME_USER;
}

int user_frame(const char *const *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (frame_kind(files[i]) == FRAME_USER)
			return (int)i;
	return -1;
}

/* ---- one stack's name ---- */

void userframe_stack_init(struct userframe_stack *s)
{
	memset(s, 0, sizeof(*s));
	s->user = -1;
	s->line = OL_NULL;
}

/* The part of a C++ frame's name between prefix and the first "::end("
 * ("torch::autograd::generated::" DivBackward0 "::apply("), as a copy;
 * NULL when it is not such a name (or no memory). keep: the prefix is
 * kept. */
static char *name_part(const char *name, const char *prefix, const char *end, int keep)
{
	size_t k = strlen(prefix);
	const char *e;

	if (!name || strncmp(name, prefix, k) || !(e = strstr(name + k, end)) ||
	    memchr(name + k, '(', (size_t)(e - name - (ptrdiff_t)k)))
		return NULL;
	return keep ? strndup(name, (size_t)(e - name)) : strndup(name + k, (size_t)(e - name) - k);
}

int userframe_stack_add(struct userframe_stack *s, const char *file, const char *name,
			int64_t line)
{
	enum frame_kind k = frame_kind(file);

	s->python += k != FRAME_CPP;
	if (k == FRAME_CPP) {
		if (!s->node)
			s->node = name_part(name, "torch::autograd::generated::", "::apply(", 0);
		if (!s->op)
			s->op = name_part(name, "at::_ops::", "::call(", 1);
	}
	if (k == FRAME_USER && s->user < 0) {
		s->file = strdup(file);
		s->name = name ? strdup(name) : NULL;
		if (!s->file || (name && !s->name)) {
			free(s->file);
			free(s->name);
			s->file = s->name = NULL;
			return -1;
		}
		s->user = s->depth;
		s->line = line;
	}
	s->depth++;
	return 0;
}

void userframe_stack_label(const struct userframe_stack *s, struct strbuf *out)
{
	if (s->user >= 0)
		strbuf_addf(out, "%s:%lld %s", s->file ? s->file : "?",
			    (long long)(s->line == OL_NULL ? 0 : s->line),
			    s->name ? s->name : "?");
	else if (!s->python && s->node && s->op)
		strbuf_addf(out, "C++ only: %s (%s)", s->node, s->op);
	else if (!s->python && (s->node || s->op))
		strbuf_addf(out, "C++ only: %s", s->node ? s->node : s->op);
	else if (!s->python)
		strbuf_addstr(out, "C++ only");
	else
		strbuf_addstr(out, "no user frame");
}

void userframe_stack_release(struct userframe_stack *s)
{
	free(s->file);
	free(s->name);
	free(s->node);
	free(s->op);
	userframe_stack_init(s);
}
