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

int rule_fragmentation(struct rule_ctx *c)
{
	double req = 0, unalloc = -1, free_blocks = -1, largest = -1, reserved = -1, alloc = -1;
	double v;
	int64_t ev = 0, snap = 0, fid;
	char buf[32], b1[32], b2[32], b3[32];
	struct rl_finding f;
	int expandable = 0;

	if (rl_query_num(c, "SELECT id FROM event WHERE kind = 'torch_oom' ORDER BY time_ns, id"
			 " LIMIT 1", &v) == 0) {
		ev = (int64_t)v;
		rl_query_num(c, "SELECT coalesce(json_extract(data, '$.requested_bytes'), bytes)"
			     " FROM event WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1", &req);
		rl_query_num(c, "SELECT json_extract(data, '$.reserved_unallocated_bytes') FROM event"
			     " WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1", &unalloc);
		rl_query_num(c, "SELECT json_extract(data, '$.allocated_bytes') FROM event"
			     " WHERE kind = 'torch_oom' ORDER BY time_ns, id LIMIT 1", &alloc);
	}
	if (rl_table_exists(c, "segment") && rl_table_exists(c, "block") &&
	    rl_query_num(c, "SELECT max(id) FROM snapshot", &v) == 0) {
		char sql[300];
		snap = (int64_t)v;
		snprintf(sql, sizeof(sql), "SELECT sum(total_size) FROM segment WHERE snapshot_id = %lld",
			 (long long)snap);
		rl_query_num(c, sql, &reserved);
		snprintf(sql, sizeof(sql), "SELECT sum(allocated_size) FROM segment WHERE snapshot_id = %lld",
			 (long long)snap);
		if (alloc < 0)
			rl_query_num(c, sql, &alloc);
		snprintf(sql, sizeof(sql), "SELECT sum(b.size), max(b.size) FROM block b JOIN segment s"
			 " ON s.id = b.segment_id WHERE s.snapshot_id = %lld AND b.state = 'inactive'",
			 (long long)snap);
		rl_query_num(c, sql, &free_blocks);
		snprintf(sql, sizeof(sql), "SELECT max(b.size) FROM block b JOIN segment s"
			 " ON s.id = b.segment_id WHERE s.snapshot_id = %lld AND b.state = 'inactive'",
			 (long long)snap);
		rl_query_num(c, sql, &largest);
		if (req <= 0)   /* the snapshot's own oom trace event */
			rl_query_num(c, "SELECT size FROM trace WHERE action = 'oom' ORDER BY seq DESC"
				     " LIMIT 1", &req);
		if (unalloc < 0 && reserved >= 0 && alloc >= 0)
			unalloc = reserved - alloc;
	}
	if (req <= 0 || unalloc < 0)
		return 0;
	if (unalloc < FRAG_MIN_RATIO * req && !(free_blocks >= req && largest >= 0 && largest < req))
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
	if (fid < 0 || (ev && rl_evidence(c, fid, "event", ev, "torch_oom") < 0) ||
	    (snap && rl_evidence(c, fid, "snapshot", snap, "segments at the OOM") < 0))
		return -1;
	return 1;
}
