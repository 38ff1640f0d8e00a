/*
 * ps_table.c -- ps(1) and top(1) process tables as samples of each
 * process's resident memory (see ps_table.h).
 *
 * A header line names the columns; PID and RSS (ps) or RES (top) are
 * found by name, so any -o column list works. A row is a line whose PID
 * column is a number and which has at least as many words as the header
 * (the command may have more). A header seen again starts the next
 * table. Lines of any other shape (top's summary, a shell prompt, "...")
 * are skipped, never guessed at.
 */
#include "parsers/host/ps_table.h"
#include "parsers/common/textclean.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_WORDS 24

struct ps_cols {
	int pid, rss, ncol;   /* column indexes, -1 none; the header's words */
};

/* Whether w[0..k) is a header naming PID and RSS or RES (as ps and top
 * print them, upper case); fills c. */
static int header(char **w, int k, struct ps_cols *c)
{
	int i, pid = -1, rss = -1;

	for (i = 0; i < k; i++) {
		if (!strcmp(w[i], "PID") && pid < 0)
			pid = i;
		else if ((!strcmp(w[i], "RSS") || !strcmp(w[i], "RES")) && rss < 0)
			rss = i;
		else if (w[i][0] >= '0' && w[i][0] <= '9')
			return 0;
	}
	if (pid < 0 || rss < 0)
		return 0;
	c->pid = pid;
	c->rss = rss;
	c->ncol = k;
	return 1;
}

/* A resident size in bytes: KiB as ps and top print it, or top's scaled
 * figure with its suffix (k, m, g, t, p; procps top.c scale_mem). -1 when
 * w is not one. */
static double resident(const char *w)
{
	static const char sfx[] = "kmgtp";
	const char *p;
	char *end;
	double v;

	if (*w < '0' || *w > '9')
		return -1;
	v = strtod(w, &end);
	if (!*end)
		return strchr(w, '.') ? -1 : v * 1024.0;
	if (end[1] || !(p = strchr(sfx, end[0])))
		return -1;
	return v * (double)(1ll << (10 * (p - sfx + 1)));
}

/* Whether a line before the header may stand there: top's summary
 * ("top - ", "Tasks:", "%Cpu(s):", "MiB Mem :", "KiB Swap:") or a shell
 * prompt that runs ps or top. */
static int preamble(char **w, int k)
{
	int i;

	if (!k)
		return 1;
	if (!strcmp(w[0], "top") || !strcmp(w[0], "Tasks:") || !strncmp(w[0], "%Cpu", 4) ||
	    (k > 1 && (!strcmp(w[1], "Mem") || !strcmp(w[1], "Mem:") || !strcmp(w[1], "Swap:") ||
		       !strcmp(w[1], "Swap"))))
		return 1;
	for (i = 0; i < k; i++)
		if (!strcmp(w[i], "ps") || !strcmp(w[i], "top")) {
			/* a word may be empty: a NUL byte in the line ends it */
			size_t n0 = strlen(w[0]);
			char last = n0 ? w[0][n0 - 1] : 0;

			return last == '$' || last == '#' || !strcmp(w[0], "ps") ||
			       !strcmp(w[0], "top");
		}
	return 0;
}

int ps_table_sniff(const unsigned char *head, size_t n)
{
	struct ps_cols c;
	size_t i = 0;
	int lines = 0, have = 0;

	while (i < n && lines < 12) {
		const unsigned char *nl = memchr(head + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (head + i)) : n - i;
		char buf[512], *w[PS_WORDS];
		int k = text_words((const char *)head + i, len, buf, sizeof(buf), w, PS_WORDS);

		i += len + 1;
		lines++;
		if (have)
			return k > c.rss && k > c.pid && text_whole(w[c.pid]) >= 0 &&
			       resident(w[c.rss]) >= 0 ? 55 : 0;
		if (header(w, k, &c))
			have = 1;
		else if (!preamble(w, k))
			return 0;
	}
	return 0;
}

int ps_table_parse(struct input *in, struct sink *s)
{
	struct ps_cols c = { -1, -1, 0 };
	struct ol_time none = ol_time_none();
	const char *l;
	size_t len;
	int rc, n = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		char buf[512], *w[PS_WORDS], ent[40];
		int k = text_words(l, len, buf, sizeof(buf), w, PS_WORDS);
		long long pid;
		double rss;

		if (!k || header(w, k, &c) || c.pid < 0)
			continue;
		if (k < c.ncol || (pid = text_whole(w[c.pid])) < 0 || (rss = resident(w[c.rss])) < 0)
			continue;   /* not a row: top's summary, a prompt, "..." */
		snprintf(ent, sizeof(ent), "pid:%lld", pid);
		if (su_put_sample(s, vocab_series_name(VS_PROC_RSS_BYTES), "bytes", ent, &none,
				  rss) < 0)
			return -1;
		n++;
	}
	if (rc < 0 && sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
				 (unsigned long long)in->lineno) < 0)
		return -1;
	return n;
}
