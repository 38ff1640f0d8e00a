/*
 * fragmentation.c -- misconfiguration: the allocator had the memory but
 * not in one piece.
 *
 * From the torch_oom event (data: requested_bytes or bytes,
 * reserved_unallocated_bytes, free_bytes): cached-but-unallocated memory
 * at least FRAG_MIN_RATIO of the request that failed. From an allocator
 * snapshot (segment, block tables): the free space in the reserved
 * segments would hold the request but the largest free block would not.
 * Advice: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True unless the
 * allocator settings (meta torch.allocator.expandable_segments) have it.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FRAG_MIN_RATIO 1.0

/* What the allocator had when the request failed; -1: unknown. */
struct frag {
	double req, unalloc, free_blocks, largest, reserved, alloc;
	int64_t ev, snap;           /* the torch_oom event, the snapshot; 0: none */
};

/* The figures the first torch_oom event carries. */
static void from_event(struct rule_ctx *c, struct frag *fr)
{
	double v;

	if (rl_num(c, &v, "SELECT id FROM event WHERE kind = 'torch_oom' ORDER BY time_ns, id"
		   " LIMIT 1") < 0)
		return;
	fr->ev = (int64_t)v;
	rl_num(c, &fr->req, "SELECT coalesce(json_extract(data, '$.requested_bytes'), bytes)"
	       " FROM event WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1");
	rl_num(c, &fr->unalloc, "SELECT json_extract(data, '$.reserved_unallocated_bytes') FROM event"
	       " WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1");
	rl_num(c, &fr->alloc, "SELECT json_extract(data, '$.allocated_bytes') FROM event"
	       " WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1");
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

int rule_fragmentation(struct rule_ctx *c)
{
	struct frag fr = { 0, -1, -1, -1, -1, -1, 0, 0 };
	double req, unalloc, largest, reserved, alloc;
	int64_t fid;
	char buf[32], b1[32], b2[32], b3[32];
	struct rl_finding f;
	int expandable = 0;

	from_event(c, &fr);
	from_segments(c, &fr);
	req = fr.req, unalloc = fr.unalloc, largest = fr.largest;
	reserved = fr.reserved, alloc = fr.alloc;
	if (req <= 0 || unalloc < 0)
		return 0;
	if (unalloc < FRAG_MIN_RATIO * req && !(fr.free_blocks >= req && largest >= 0 && largest < req))
		return 0;
	if (rl_meta_text(c, "torch.allocator.expandable_segments", buf, sizeof(buf)) == 0 &&
	    (!strcasecmp(buf, "true") || !strcmp(buf, "1")))
		expandable = 1;
	rl_finding_init(&f, "fragmentation", "misconfig", "fragmentation");
	f.score = 0.7 + 0.2 * rl_clamp01(unalloc / req / 4) + (largest >= 0 ? 0.05 : 0);
	rl_fig(&f, "requested_bytes", req);
	rl_fig(&f, "reserved_unallocated_bytes", unalloc);
	if (alloc >= 0)
		rl_fig(&f, "allocated_bytes", alloc);
	if (largest >= 0)
		rl_fig(&f, "largest_free_block_bytes", largest);
	if (reserved > 0)
		rl_fig(&f, "fragmentation_ratio", unalloc / reserved);
	rl_fig(&f, "expandable_segments", expandable);
	snprintf(f.title, sizeof(f.title), "A %s allocation failed with %s reserved but unallocated"
		 "%s%s%s", rl_bytes(req, b1, sizeof(b1)), rl_bytes(unalloc, b2, sizeof(b2)),
		 largest >= 0 ? " (largest free block " : "",
		 largest >= 0 ? rl_bytes(largest, b3, sizeof(b3)) : "", largest >= 0 ? ")" : "");
	if (!expandable)
		rl_advice(&f, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed cached"
			  " memory can grow one segment instead of staying split.");
	else
		rl_advice(&f, "expandable_segments is already on: lower max_split_size_mb / call"
			  " torch.cuda.empty_cache() between phases with different tensor sizes.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (fr.ev && rl_evidence(c, fid, "event", fr.ev, "torch_oom") < 0) ||
	    (fr.snap && rl_evidence(c, fid, "snapshot", fr.snap, "segments at the OOM") < 0))
		return -1;
	return 1;
}
