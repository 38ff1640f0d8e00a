/*
 * ledger_torch.c -- the memory ledger's notes from PyTorch's allocator
 * statistics (memory_summary tables, memory_stats dumps): its peaks
 * since start or the last reset, with the OOMs and cudaMalloc retries it
 * counted. Notes, not slices: a peak is not what filled the card at the
 * OOM. See ledger.c.
 */
#include "analyzer/derive/ledger_impl.h"

#include <stdio.h>
#include <string.h>

/* The allocator's own peaks (memory_summary, memory_stats: since start
 * or its last reset) as notes; the reserved one counts its OOMs and
 * cudaMalloc retries. */
void ledger_peak_notes(struct rule_ctx *c, struct account *a, const char *cuda, int first)
{
	const char *ent[2] = { cuda, first ? "cuda" : NULL };
	struct fig f, n;
	struct lline *l;
	int i;

	for (i = 0; i < 2 && ent[i]; i++)
		if (ledger_series_fig(c, "torch.allocated_peak_bytes", ent[i], 0, "PyTorch's", &f) == 0) {
			ledger_add_fig(a, "allocated_peak", 0, &f);
			break;
		}
	for (i = 0; i < 2 && ent[i]; i++)
		if (ledger_series_fig(c, "torch.reserved_peak_bytes", ent[i], 0, "PyTorch's", &f) == 0)
			break;
	if (i == 2 || !ent[i] || !(l = ledger_add_fig(a, "reserved_peak", 0, &f)))
		return;
	if (ledger_series_fig(c, "torch.num_ooms", ent[i], 0, "PyTorch's", &n) == 0 && n.v > 0)
		snprintf(l->label + strlen(l->label), sizeof(l->label) - strlen(l->label),
			 "; %.0f OOM%s counted", n.v, n.v == 1 ? "" : "s");
	if (ledger_series_fig(c, "torch.num_alloc_retries", ent[i], 0, "PyTorch's", &n) == 0 && n.v > 0)
		snprintf(l->label + strlen(l->label), sizeof(l->label) - strlen(l->label),
			 "; %.0f cudaMalloc retr%s", n.v, n.v == 1 ? "y" : "ies");
}
