/*
 * stage_epoch.c -- the epoch counter of a training loop's stage line.
 *
 * The wordings are the loops' own prints: pytorch/examples'
 * imagenet/main.py ProgressMeter prefix "Epoch: [{}]" (0-based, from
 * range(start_epoch, epochs)), Keras's "Epoch %d/%d" (1-based,
 * keras/callbacks.py@2.15 ProgbarLogger.on_epoch_begin), Lightning's
 * TQDMProgressBar "Epoch {current_epoch}" (0-based), and the many
 * scripts that print "epoch N". Whether a counter is 0- or 1-based is
 * the loop's, so a reader of it may only trust N >= 2 to mean "at least
 * one whole epoch done" (lean_when.c).
 */
#include "parsers/serving/stage_epoch.h"

#define EPOCH_MAX 1000000L

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

long stage_epoch(const char *l, size_t n)
{
	size_t i, k;

	for (i = 0; i + 5 <= n; i++) {
		long v = 0;

		if (lower((unsigned char)l[i]) != 'e' || lower((unsigned char)l[i + 1]) != 'p' ||
		    lower((unsigned char)l[i + 2]) != 'o' || lower((unsigned char)l[i + 3]) != 'c' ||
		    lower((unsigned char)l[i + 4]) != 'h')
			continue;
		if (i > 0 && (lower((unsigned char)l[i - 1]) >= 'a' &&
			      lower((unsigned char)l[i - 1]) <= 'z'))
			continue;   /* "nepoch", a word that only ends so */
		for (k = i + 5; k < n && (l[k] == ' ' || l[k] == ':' || l[k] == '[' ||
					  l[k] == '#'); k++)
			;
		if (k == i + 5 || k >= n || l[k] < '0' || l[k] > '9')
			return -1;   /* the first "epoch" decides: "epochs", "Epoch:" alone */
		for (; k < n && l[k] >= '0' && l[k] <= '9'; k++) {
			v = v * 10 + (l[k] - '0');
			if (v > EPOCH_MAX)
				return -1;
		}
		return v;
	}
	return -1;
}
