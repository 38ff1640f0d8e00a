/*
 * fragmentation.c -- misconfiguration: the allocator had the memory but
 * not in one piece.
 *
 * From the torch_oom message (struct rl_card): the cache reserved but not
 * allocated, with the free memory, would have held the request, and that
 * cache is a real share of the card (RL_FRAG_MIN_SHARE, 5%): PyTorch
 * releases every whole cached segment before it reports an OOM, so what
 * it still holds unallocated is split by live blocks. Below 5% of the
 * card it may have held this request but frees nothing worth having: a
 * finding below the verdict's threshold. A real share that would not
 * have held it is a contributing cause. From an allocator snapshot
 * (segment, block tables): the free space in the reserved segments would
 * hold the request but the largest free block would not.
 * Advice: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True unless the
 * allocator settings (meta torch.allocator.expandable_segments) have it,
 * with what it would give back.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FRAG_SMALL_SCORE 0.25     /* would hold it, but < 5% of the card: shown only */
#define FRAG_SHORT_SCORE 0.35     /* a real share that would not have held it */

/* What the allocator had when the request failed; -1: unknown. */
struct frag {
	double req, unalloc, free_blocks, largest, reserved, alloc;
	double total, free;         /* the card and its free memory (the message) */
	int64_t ev, snap;           /* the torch_oom event, the snapshot; 0: none */
};

/* The figures of the message (rl_card_read), else those the first
 * torch_oom event carries. 0, or -1 failed. */
static int from_event(struct rule_ctx *c, struct frag *fr)
{
	struct rl_card k;
	double v;
	int r = rl_card_read(c, &k);

	if (r < 0)
		return -1;
	if (r > 0) {
		fr->ev = k.ev;
		fr->req = k.req > 0 ? k.req : 0;
		fr->unalloc = k.unalloc;
		fr->alloc = k.alloc;
		fr->total = k.total;
		fr->free = k.free;
		return 0;
	}
	if (rl_num(c, &v, "SELECT id FROM event WHERE kind = 'torch_oom' ORDER BY time_ns, id"
		   " LIMIT 1") < 0)
		return 0;
	fr->ev = (int64_t)v;
	rl_num(c, &fr->req, "SELECT coalesce(json_extract(data, '$.requested_bytes'), bytes)"
	       " FROM event WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1");
	rl_num(c, &fr->unalloc, "SELECT json_extract(data, '$.reserved_unallocated_bytes') FROM event"
	       " WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1");
	rl_num(c, &fr->alloc, "SELECT json_extract(data, '$.allocated_bytes') FROM event"
	       " WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1");
	return 0;
}

/* The figures of the last allocator snapshot's segments and blocks, for
 * what the event did not say. */
static void from_segments(struct rule_ctx *c, struct frag *fr)
{
	double v;
	long long snap;

	if (!q_has_table(c->db, "segment") || !q_has_table(c->db, "block") ||
	    rl_num(c, &v, "SELECT max(id) FROM snapshot") < 0)
		return;
	if (fr->total <= 0)
		rl_gpu_total(c, &fr->total);
	fr->snap = (int64_t)v;
	snap = (long long)fr->snap;
	rl_num(c, &fr->reserved, "SELECT sum(total_size) FROM segment WHERE snapshot_id = %lld", snap);
	if (fr->alloc < 0)
		rl_num(c, &fr->alloc, "SELECT sum(allocated_size) FROM segment WHERE snapshot_id = %lld",
		       snap);
	rl_num(c, &fr->free_blocks, "SELECT sum(b.size), max(b.size) FROM block b JOIN segment s"
	       " ON s.id = b.segment_id WHERE s.snapshot_id = %lld AND b.state = 'inactive'", snap);
	rl_num(c, &fr->largest, "SELECT max(b.size) FROM block b JOIN segment s"
	       " ON s.id = b.segment_id WHERE s.snapshot_id = %lld AND b.state = 'inactive'", snap);
	if (fr->req <= 0)   /* the snapshot's own oom trace event */
		rl_num(c, &fr->req, "SELECT size FROM trace WHERE action = 'oom' ORDER BY seq DESC"
		       " LIMIT 1");
	if (fr->unalloc < 0 && fr->reserved >= 0 && fr->alloc >= 0)
		fr->unalloc = fr->reserved - fr->alloc;
}

/* How far the finding goes: held and a real share of the card (score
 * up with the share, more with a snapshot's blocks), held but small
 * (shown only), or a real share that would not have held it
 * (contributing). 0: no finding. */
static double frag_score(const struct frag *fr, int held, double share)
{
	int real = share < 0 ? -1 : share >= RL_FRAG_MIN_SHARE;

	if (!held)
		return real == 1 ? FRAG_SHORT_SCORE : 0;
	if (real == 0)
		return FRAG_SMALL_SCORE;
	if (real < 0)   /* no capacity known: the snapshot's blocks prove it, a message alone not */
		return fr->largest >= 0 ? 0.75 : 0.5;
	return 0.6 + 0.2 * rl_clamp01((share - RL_FRAG_MIN_SHARE) / 0.2) +
	       (fr->largest >= 0 ? 0.05 : 0);
}

/* The advice: the setting, and what it would give back. */
static void frag_advice(struct rl_finding *f, const struct frag *fr, int held, int expandable,
			double share)
{
	char b1[32], b2[32];

	if (!expandable)
		rl_advice(f, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed cached"
			  " memory can grow one segment instead of staying split.");
	else
		rl_advice(f, "expandable_segments is already on: lower max_split_size_mb / call"
			  " torch.cuda.empty_cache() between phases with different tensor sizes.");
	if (share >= 0)
		rl_advice(f, "It would give back at most %s (%.1f%% of the card)%s.",
			  rl_bytes(fr->unalloc, b1, sizeof(b1)), 100 * share,
			  !held ? "" : share < RL_FRAG_MIN_SHARE ? ": enough for this request,"
			  " too little to matter for the next" : "");
	if (!held)
		rl_advice(f, "The request would still have been %s short: the workload does not"
			  " fit as it is (see the capacity finding).",
			  rl_bytes(fr->req - fr->unalloc - (fr->free > 0 ? fr->free : 0), b2, sizeof(b2)));
}

int rule_fragmentation(struct rule_ctx *c)
{
	struct frag fr = { 0, -1, -1, -1, -1, -1, -1, -1, 0, 0 };
	double req, unalloc, largest, reserved, alloc, share = -1;
	int64_t fid;
	char buf[32], b1[32], b2[32], b3[32];
	struct rl_finding f;
	int expandable = 0, held;

	if (from_event(c, &fr) < 0)
		return -1;
	from_segments(c, &fr);
	req = fr.req, unalloc = fr.unalloc, largest = fr.largest;
	reserved = fr.reserved, alloc = fr.alloc;
	if (req <= 0 || unalloc < 0)
		return 0;
	held = unalloc + (fr.free > 0 ? fr.free : 0) >= req ||
	       (fr.free_blocks >= req && largest >= 0 && largest < req);
	if (fr.total > 0)
		share = unalloc / fr.total;
	rl_finding_init(&f, "fragmentation", "misconfig", "fragmentation");
	f.score = frag_score(&fr, held, share);
	if (f.score <= 0) {
		rl_finding_drop(&f);
		return 0;
	}
	if (rl_meta_text(c, "torch.allocator.expandable_segments", buf, sizeof(buf)) == 0 &&
	    (!strcasecmp(buf, "true") || !strcmp(buf, "1")))
		expandable = 1;
	rl_fig(&f, "requested_bytes", req);
	rl_fig(&f, "reserved_unallocated_bytes", unalloc);
	if (alloc >= 0)
		rl_fig(&f, "allocated_bytes", alloc);
	if (largest >= 0)
		rl_fig(&f, "largest_free_block_bytes", largest);
	if (reserved > 0)
		rl_fig(&f, "fragmentation_ratio", unalloc / reserved);
	if (share >= 0)
		rl_fig(&f, "reserved_unallocated_share", share);
	rl_fig(&f, "would_hold_request", held);
	rl_fig(&f, "expandable_segments", expandable);
	snprintf(f.title, sizeof(f.title), "A %s allocation failed with %s reserved but unallocated"
		 "%s%s%s", rl_bytes(req, b1, sizeof(b1)), rl_bytes(unalloc, b2, sizeof(b2)),
		 largest >= 0 ? " (largest free block " : "",
		 largest >= 0 ? rl_bytes(largest, b3, sizeof(b3)) : "", largest >= 0 ? ")" : "");
	frag_advice(&f, &fr, held, expandable, share);
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (fr.ev && rl_evidence(c, fid, "event", fr.ev, "torch_oom") < 0) ||
	    (fr.snap && rl_evidence(c, fid, "snapshot", fr.snap, "segments at the OOM") < 0))
		return -1;
	return 1;
}
