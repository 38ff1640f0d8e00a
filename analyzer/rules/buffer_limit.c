/*
 * buffer_limit.c -- misconfiguration of a step's shape: the memory
 * failure of row 1 of table oom asked for one buffer larger than the
 * device allows any single buffer to be, as the failure's own text
 * states (event figure buffer_limit_bytes, parsers/serving/
 * memfail_limit.c: MLX's "[metal::malloc] Attempting to allocate N bytes
 * which is greater than the maximum allowed buffer size of M bytes",
 * mlx/backend/metal/allocator.cpp, the device's maxBufferLength).
 *
 * The allocator refused before looking at free memory, so no history, no
 * load and no other tenant explains it, and none would change it: the
 * step (a batch, a sequence, an image) must ask for a smaller tensor, or
 * the work must be split. The share of the request that would fit is
 * computed by oomlens (limit / request) and said as such: it is the
 * batch's share only if the tensor grows linearly with the batch.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BUFLIM_SCORE 0.85   /* the allocator's own message states both figures */

/* Row 1 of oom with the limit its event states: phase, request, limit,
 * event id. 1 when the request is above the limit, 0 not, -1 failed. */
static int read_oom(struct rule_ctx *c, char *phase, size_t n, double *req, double *lim,
		    int64_t *event_id)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT coalesce(o.phase, 'unknown'), coalesce(o.requested_bytes,"
		" json_extract(e.data, '$.requested_bytes')),"
		" json_extract(e.data, '$.buffer_limit_bytes'), o.event_id"
		" FROM oom o JOIN event e ON e.id = o.event_id"
		" WHERE o.id = 1 AND json_valid(e.data)"
		" AND json_extract(e.data, '$.buffer_limit_bytes') > 0");
	int r = 0;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL) {
		snprintf(phase, n, "%s", (const char *)sqlite3_column_text(st, 0));
		*req = sqlite3_column_double(st, 1);
		*lim = sqlite3_column_double(st, 2);
		*event_id = sqlite3_column_int64(st, 3);
		r = *req > *lim;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : r;
}

/* Writes one misconfig finding (cause request_exceeds_buffer_limit) when
 * the failure's request is above the per-buffer ceiling it states. 1
 * written, 0 none, -1 failed. */
int rule_buffer_limit(struct rule_ctx *c)
{
	struct rl_finding f;
	char phase[24], b1[32], b2[32];
	double req = 0, lim = 0, share;
	int64_t event_id = 0, fid;
	int r;

	if ((r = read_oom(c, phase, sizeof(phase), &req, &lim, &event_id)) <= 0)
		return r;
	rl_finding_init(&f, "buffer_limit", "misconfig", "request_exceeds_buffer_limit");
	f.score = BUFLIM_SCORE;
	if (strcmp(phase, "unknown"))
		f.phase = phase;
	share = floor(100 * lim / req);
	rl_fig(&f, "requested_bytes", req);
	rl_fig(&f, "buffer_limit_bytes", lim);
	rl_fig(&f, "request_over_limit_ratio", req / lim);
	snprintf(f.title, sizeof(f.title), "One buffer of %s is larger than the %s the device"
		 " allows any single buffer", rl_bytes(req, b1, sizeof(b1)),
		 rl_bytes(lim, b2, sizeof(b2)));
	rl_advice(&f, "The allocator refused it before looking at free memory: no setting of"
		  " the allocator, no other process leaving and no wait makes room. The step"
		  " must ask for a smaller tensor (a smaller batch, sequence or image; the work"
		  " split in chunks).");
	if (share >= 1)
		rl_advice(&f, "Computed by oomlens, not stated: the limit is %.0f%% of the"
			  " request, so a batch of at most that share of this one fits if the"
			  " tensor grows linearly with it.", share);
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", event_id, "the allocator's message, with"
				   " the request and the per-buffer limit") < 0)
		return -1;
	return 1;
}
