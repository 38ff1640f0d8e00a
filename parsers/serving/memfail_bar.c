/*
 * memfail_bar.c -- whether a phrase opens a tqdm progress bar on a line
 * (memfail.h memfail_opens_bar).
 *
 * tqdm draws a bar as "{desc}: {percentage:3.0f}%|{bar}| n/total [...]"
 * (tqdm/std.py format_meter, its l_bar). A phase row that is a bar's
 * description (phase_table.h PM_TQDM: "Epoch ") counts only where the
 * description it opens runs into the bar: the phrase, a number, then
 * whatever the program adds to the description (Lightning's "Epoch 0";
 * a training script's "Epoch 4/10 | training error: 43.58% | test
 * error: 48.08%", as cuTAGI's examples print it), up to the first "%|",
 * which must follow ": ", blanks and the percentage's digits. Any other
 * line holding the phrase ("Epoch 3 finished") names nothing.
 */
#include "parsers/serving/memfail.h"
#include "parsers/common/seriesutil.h"

#include <string.h>

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

int memfail_opens_bar(const char *l, size_t n, const char *p)
{
	const char *at = mem_find(l, n, p), *e = l + n, *q, *bar;

	if (!at)
		return 0;
	q = at + strlen(p);
	if (q >= e || !digit(*q))
		return 0;
	while (q < e && digit(*q))
		q++;
	if (!(bar = mem_find(q, (size_t)(e - q), "%|")))
		return 0;
	/* back from "%|": the percentage, at least one blank, the colon */
	while (bar > q && digit(bar[-1]))
		bar--;
	if (bar == q || !digit(*bar) || bar[-1] != ' ')
		return 0;
	while (bar > q && bar[-1] == ' ')
		bar--;
	return bar > q && bar[-1] == ':';
}
