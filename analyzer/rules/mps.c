/*
 * mps.c -- PyTorch on a Mac (the MPS backend): "MPS backend out of memory
 * (MPS allocated: A, other allocations: O, max allowed: M). Tried to
 * allocate R on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to
 * disable upper limit ...". The generic recogniser keeps it as an OOM of
 * family mps (table oom); this rule reads what it states.
 *
 * M is PyTorch's own cap, not the memory of the Mac: the high-watermark
 * ratio (PYTORCH_MPS_HIGH_WATERMARK_RATIO, 1.7 by default) times Metal's
 * device.recommendedMaxWorkingSetSize (PyTorch's "MPS Environment
 * Variables" page; torch.mps.set_per_process_memory_fraction sets the
 * same). A = live tensors, O = what the MPS driver holds besides them
 * (the allocator's cached heaps, other frameworks). A + O + R above M:
 * the step did not fit under the cap (misconfig, cause mps_watermark;
 * one message: the likeliest reading, RL_LONE_MAX_SCORE).
 *
 * The advice is a Mac's: a smaller step, or a higher ratio set before
 * the process starts (0.0 removes the cap and lets macOS swap or fail
 * system-wide), torch.mps.empty_cache() when O is large. Never a CUDA
 * variable: none of them reaches the MPS allocator.
 */
#include "analyzer/rules/rulelib.h"
#include "parsers/common/seriesutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MPS_DEFAULT_RATIO 1.7    /* PYTORCH_MPS_HIGH_WATERMARK_RATIO's default */
#define MPS_OTHER_LARGE 0.25     /* other allocations: a share of the cap worth freeing */
#define MPS_MARGIN 1.1           /* the cap that holds the step, with 10% to spare */

/* The figure after key in text, as printed ("8.89 GB") into raw[n] and
 * as bytes; -1 when absent. */
static double figure(const char *text, const char *key, char *raw, size_t n)
{
	const char *p = strstr(text, key), *e;
	size_t used = 0;
	int64_t v;

	raw[0] = '\0';
	if (!p)
		return -1;
	p += strlen(key);
	v = parse_size(p, strlen(p), &used);
	if (v == OL_NULL || used == 0)
		return -1;
	while (*p == ' ')
		p++, used--;
	e = p + used;
	snprintf(raw, n, "%.*s", (int)(e - p), p);
	return (double)v;
}

int rule_mps(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	char text[1000], ra[24], ro[24], rm[24], rr[24], b1[32], b2[32];
	double a, o, m, r, base, ratio;
	struct rl_finding f;
	int64_t ev, fid;

	if (rl_first_row(c, "SELECT o.event_id, coalesce(CASE WHEN json_valid(e.data)"
		" THEN json_extract(e.data, '$.text') END, e.summary, '') FROM oom o JOIN event e"
		" ON e.id = o.event_id WHERE o.family = 'mps' ORDER BY o.id LIMIT 1", &st) <= 0)
		return c->failed ? -1 : 0;
	ev = sqlite3_column_int64(st, 0);
	snprintf(text, sizeof(text), "%s", q_text(st, 1));
	sqlite3_finalize(st);
	a = figure(text, "MPS allocated:", ra, sizeof(ra));
	o = figure(text, "other allocations:", ro, sizeof(ro));
	m = figure(text, "max allowed:", rm, sizeof(rm));
	r = figure(text, "Tried to allocate", rr, sizeof(rr));
	if (a < 0 || m <= 0 || r < 0)
		return 0;   /* not the message's figures: nothing to weigh */
	if (o < 0)
		o = 0;
	if (a + o + r < 0.99 * m)
		return 0;   /* under the cap: not what failed */
	rl_finding_init(&f, "mps", "misconfig", "mps_watermark");
	f.score = RL_LONE_MAX_SCORE;
	rl_fig(&f, "mps_allocated_bytes", a);
	rl_fig(&f, "mps_other_allocations_bytes", o);
	rl_fig(&f, "mps_max_allowed_bytes", m);
	rl_fig(&f, "requested_bytes", r);
	snprintf(f.title, sizeof(f.title), "PyTorch's MPS allocator reached its cap: MPS allocated"
		 " %s + other allocations %s + %s asked exceed the max allowed %s (the"
		 " high-watermark ratio x the Mac's recommended working set)", ra,
		 ro[0] ? ro : "0", rr, rm);
	if (r > m) {
		rl_advice(&f, "The request alone (%s) is larger than the cap: the step must ask for"
			  " less (a smaller batch, image or sequence; tiled or sliced attention and"
			  " VAE decoding).", rr);
	} else {
		rl_advice(&f, "Make the step smaller: a smaller batch, image resolution or sequence"
			  " length (attention slicing, tiled VAE decoding in diffusion UIs); or free"
			  " what else the process keeps on the GPU.");
		if (o >= MPS_OTHER_LARGE * m)
			rl_advice(&f, "Other allocations (%s) are %.0f%% of the cap: what Metal holds"
				  " for the process besides live tensors (the allocator's cached heaps,"
				  " MPSGraph and other buffers); torch.mps.empty_cache() between steps"
				  " gives the cached part back.", ro, 100 * o / m);
	}
	base = m / MPS_DEFAULT_RATIO;
	ratio = ceil((a + o + r) * MPS_MARGIN / base * 10) / 10;
	rl_fig(&f, "mps_recommended_working_set_bytes", base);
	/* the working set is inferred from the cap on the assumption that
	 * the ratio was left at its default: say so, and keep it apart from
	 * the cap the message states */
	rl_advice(&f, "Or raise the cap with care: PYTORCH_MPS_HIGH_WATERMARK_RATIO (1.7 by"
		  " default) set in the shell before the program starts; the cap is the ratio x"
		  " Metal's recommended working set, which is %s here if the ratio was left at"
		  " 1.7 (the stated cap of %s / 1.7, inferred); about %.1f would have held this"
		  " step (%s). 0.0 removes the cap: macOS then swaps or fails system-wide instead"
		  " of raising this error.", rl_bytes(base, b1, sizeof(b1)),
		  rm, ratio, rl_bytes(ratio * base, b2, sizeof(b2)));
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", ev, "PyTorch's MPS out-of-memory message") < 0)
		return -1;
	return 1;
}
