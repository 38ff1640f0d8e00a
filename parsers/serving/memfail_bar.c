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
 *
 * Round 17 (w-phase18): a PM_TQDM row's phrase also counts where it
 * opens an epoch's header line alone, "Epoch N/M" and nothing after it.
 * Keras's fit prints that line as each epoch begins, before the epoch's
 * first step, then draws its own progress bar (not tqdm's) under it:
 * ProgbarLogger.on_epoch_begin, io_utils.print_msg(f"Epoch {epoch +
 * 1}/{self.epochs}") (keras-team/keras keras/callbacks.py@v2.11.0,
 * keras/src/callbacks/progbar_logger.py@v3.3.3). A failure in the
 * epoch's first step (the jitted train step's compile and first run,
 * Keras 3 on JAX: "jit(compiled_train_step)") stands under that line
 * with no bar drawn yet. evaluate() and predict() print no such line
 * (on_test_begin/on_predict_begin only reset the bar), and fit's own
 * validation at an epoch's end draws its bar after the epoch's steps.
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

int memfail_epoch_header(const char *l, size_t n, const char *p)
{
	const char *e = l + n, *q = l;
	size_t w = strlen(p);
	int a = 0, b = 0;

	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	if ((size_t)(e - q) < w + 3 || memcmp(q, p, w))
		return 0;
	for (q += w; q < e && digit(*q) && a < 9; q++)
		a++;
	if (!a || q >= e || *q != '/')
		return 0;
	for (q++; q < e && digit(*q) && b < 9; q++)
		b++;
	while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
		q++;
	return b && q == e;
}
