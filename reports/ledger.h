/*
 * ledger.h -- the memory ledger's drawing, shared by its section
 * (ledger.c) and the header's card strip (summary_html.c): a stacked bar
 * of what filled a card or the host, against its capacity, in the
 * ledger's colours.
 */
#ifndef OOMLENS_REPORTS_LEDGER_H
#define OOMLENS_REPORTS_LEDGER_H

#include "lib/strbuf.h"

/* One slice of a bar: a ledger line key (docs/schema.md `ledger.line`),
 * its name on the bar, its size and what its tooltip says (raw text, may
 * be NULL). */
struct bar_seg {
	const char *line;
	const char *name;
	double bytes;
	const char *title;
};

/* The colour of ledger line `line` (a neutral grey when unknown). */
const char *ledger_color(const char *line);
/* A short name for the bar ("weights", "KV cache"; the key itself when
 * unknown). */
const char *ledger_short(const char *line);
/* The bar as inline SVG: the slices in order, scaled to the capacity (or
 * to their sum when that is larger or the capacity is unknown: cap <= 0),
 * names inside the slices wide enough, the capacity marked when the
 * slices exceed it. */
void ledger_bar(struct strbuf *sb, const struct bar_seg *s, int n, double cap);

#endif
