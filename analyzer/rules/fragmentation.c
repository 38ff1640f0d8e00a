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
 * with what it would give back. When the what-if rule (whatif.c) replayed
 * the snapshot's trace, the finding quotes it (whatif_* figures) and the
 * advice says whether the failed request would have fitted under each
 * setting and how much reserved memory that gives back.
 *
 * From the allocator's own counters over time (torch.* series: several
 * memory_stats dumps or memory_summary tables, in their order): cudaMalloc
 * retries that keep rising (each one is the allocator freeing its whole
 * cache to place a request it could not fit) and memory in inactive split
 * blocks that keeps rising (free, but cut by live blocks) are the
 * signature of fragmentation without any OOM message. They are evidence
 * on the message's finding when there is one, else a finding of their
 * own: both rising, with the split memory a real share of what is
 * reserved, count; one alone is shown or contributing.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/store/samples.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAG_SMALL_SCORE 0.25     /* would hold it, but < 5% of the card: shown only */
#define FRAG_SHORT_SCORE 0.35     /* a real share that would not have held it */
/* the allocator's counters between its first and last dump */
#define FRAG_RETRY_MIN_RISE 1              /* more cudaMalloc retries */
#define FRAG_SPLIT_MIN_RISE (64 * MIB)     /* more memory in inactive split blocks */
#define FRAG_SPLIT_MIN_SHARE 0.05          /* split memory / reserved, at the last dump */
#define FRAG_STATS_SCORE 0.55              /* both rising: counts (up to 0.8) */
#define FRAG_RETRY_SCORE 0.35              /* retries alone: contributing */
#define FRAG_SPLIT_SCORE 0.25              /* split memory alone: shown only */

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
		fr->free = k.free_reach;   /* free within a per-process cap */
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

/* The setting that keeps freed cache from staying split. The variable
 * is the CUDA caching allocator's (ROCm's PyTorch reads it too); on
 * another device (an Intel XPU, an Ascend NPU, a Gaudi) it is not the
 * backend's, and the advice says so instead of naming it. */
static void expandable_advice(struct rule_ctx *c, struct rl_finding *f, int expandable)
{
	enum rl_platform p = rl_oom_platform(c);

	if (p != RL_PLAT_CUDA && p != RL_PLAT_HIP)
		rl_advice(f, "Freed cached memory stayed split in the backend's caching allocator:"
			  " releasing the cache between phases with different tensor sizes (the"
			  " backend's empty_cache()) gives it back. PYTORCH_CUDA_ALLOC_CONF is the"
			  " CUDA and ROCm allocator's setting, not this device's.");
	else if (!expandable)
		rl_advice(f, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed cached"
			  " memory can grow one segment instead of staying split.");
	else
		rl_advice(f, "expandable_segments is already on: lower max_split_size_mb / call"
			  " torch.cuda.empty_cache() between phases with different tensor sizes.");
}

/* The advice: the setting, and what it would give back. */
static void frag_advice(struct rule_ctx *c, struct rl_finding *f, const struct frag *fr,
			int held, int expandable, double share)
{
	char b1[32], b2[32];

	expandable_advice(c, f, expandable);
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

/* One what-if row of the quoted snapshot and device. */
struct wi_row {
	int have, fits;             /* fits: -1 unknown */
	double peak, failed;        /* failed: -1 none */
	char setting[100];
};

/* The what-if rows of the snapshot and device the finding quotes: the
 * device whose recorded replay failed (else the one with most events)
 * of the last snapshot replayed. rows: recorded, baseline,
 * expandable_segments, max_split_size_mb, empty_cache. 0, or -1 none. */
static int whatif_rows(struct rule_ctx *c, struct wi_row *rows, double *agree, double *rec_events,
		       double *events)
{
	static const char *const names[] = { "recorded", "baseline", "expandable_segments",
		"max_split_size_mb", "empty_cache" };
	sqlite3_stmt *st;
	double snap, dev;
	int i;

	if (!q_has_table(c->db, "whatif") ||
	    rl_num(c, &snap, "SELECT max(snapshot_id) FROM whatif") < 0 ||
	    rl_num(c, &dev, "SELECT device FROM whatif WHERE snapshot_id = %lld AND scenario ="
		   " 'recorded' ORDER BY failed_bytes IS NULL, events DESC, device LIMIT 1",
		   (long long)snap) < 0)
		return -1;
	st = rl_prepare(c, "SELECT scenario, fits, peak_reserved_bytes, failed_bytes, setting,"
			" recorded_segment_events, matched_segment_events, events FROM whatif"
			" WHERE snapshot_id = ?1 AND device = ?2");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)snap);
	sqlite3_bind_int64(st, 2, (int64_t)dev);
	memset(rows, 0, 5 * sizeof(*rows));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *sc = q_text(st, 0);

		for (i = 0; i < 5 && strcmp(sc, names[i]); i++)
			;
		if (i == 5)
			continue;
		rows[i].have = 1;
		rows[i].fits = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
		rows[i].peak = sqlite3_column_double(st, 2);
		rows[i].failed = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1
			: sqlite3_column_double(st, 3);
		snprintf(rows[i].setting, sizeof(rows[i].setting), "%s", q_text(st, 4));
		if (!i) {
			*rec_events = sqlite3_column_double(st, 5);
			*agree = sqlite3_column_double(st, 6);
			*events = sqlite3_column_double(st, 7);
		}
	}
	sqlite3_finalize(st);
	return rows[0].have ? 0 : -1;
}

/* "it fits, peak reserved 61.3 GiB (15.5 GiB less than the recorded 76.9
 * GiB)" for row w against the recorded peak. */
static void fit_phrase(const struct wi_row *w, double rec_peak, char *buf, size_t n)
{
	char b1[32], b2[32], b3[32];
	double diff = rec_peak - w->peak;

	const char *fit = w->fits == 1 ? "it fits, " : w->fits == 0 ? "it still fails, " : "";

	if (fabs(diff) < MIB)
		snprintf(buf, n, "%speak reserved %s (as recorded)", fit,
			 rl_bytes(w->peak, b1, sizeof(b1)));
	else
		snprintf(buf, n, "%speak reserved %s (%s %s than the recorded %s)", fit,
			 rl_bytes(w->peak, b1, sizeof(b1)), rl_bytes(fabs(diff), b2, sizeof(b2)),
			 diff < 0 ? "more" : "less", rl_bytes(rec_peak, b3, sizeof(b3)));
}

/* The what-if figures and the advice they give; expandable: recorded
 * setting. */
static void quote_whatif(struct rule_ctx *c, struct rl_finding *f, int expandable)
{
	struct wi_row w[5];
	double agree = 0, rec_events = 0, events = 0;
	char p[200];

	if (whatif_rows(c, w, &agree, &rec_events, &events) < 0)
		return;
	rl_fig(f, "whatif_events", events);
	rl_fig(f, "whatif_recorded_segment_events", rec_events);
	rl_fig(f, "whatif_matched_segment_events", agree);
	rl_fig(f, "whatif_recorded_peak_reserved_bytes", w[0].peak);
	if (w[0].fits >= 0)
		rl_fig(f, "whatif_recorded_fits", w[0].fits);
	if (w[1].have && w[1].fits >= 0)
		rl_fig(f, "whatif_baseline_fits", w[1].fits);
	if (w[2].have) {
		if (w[2].fits >= 0)
			rl_fig(f, "whatif_expandable_fits", w[2].fits);
		rl_fig(f, "whatif_expandable_peak_reserved_bytes", w[2].peak);
	}
	if (w[3].have) {
		const char *mb = strstr(w[3].setting, "max_split_size_mb:");

		if (mb)
			rl_fig(f, "whatif_max_split_size_mb", atof(mb + 18));
		if (w[3].fits >= 0)
			rl_fig(f, "whatif_max_split_fits", w[3].fits);
		rl_fig(f, "whatif_max_split_peak_reserved_bytes", w[3].peak);
	}
	if (w[4].have) {
		if (w[4].fits >= 0)
			rl_fig(f, "whatif_empty_cache_fits", w[4].fits);
		rl_fig(f, "whatif_empty_cache_peak_reserved_bytes", w[4].peak);
	}
	if (rec_events > 0)
		rl_advice(f, "Replaying the snapshot's trace (%.0f requests) through a model of the"
			  " allocator, which reproduces %.0f of its %.0f recorded segment events:",
			  events, agree, rec_events);
	else
		rl_advice(f, "Replaying the snapshot's trace (%.0f requests) through a model of the"
			  " allocator (the trace records no segment event to check the model on):",
			  events);
	if (w[2].have && !expandable) {
		fit_phrase(&w[2], w[0].peak, p, sizeof(p));
		rl_advice(f, "with expandable_segments:True %s;", p);
	}
	if (w[3].have) {
		fit_phrase(&w[3], w[0].peak, p, sizeof(p));
		rl_advice(f, "with %s %s;", w[3].setting, p);
	}
	if (w[4].have)
		rl_advice(f, "with nothing cached (reserved = allocated, the best any setting can"
			  " do) %s.", w[4].fits == 0 ? "it fails too: the memory was in use, not lost"
			  " to fragmentation" : w[4].fits == 1 ? "it fits" : "the peak is that low");
	if (w[0].fits == 0 && w[1].fits == 1)
		rl_advice(f, "With the recorded settings and the same live memory laid out afresh it"
			  " fits as well: the split-up cache that failed it was built before the trace"
			  " began, by allocations the trace does not show.");
}

/* ---- the allocator's counters over time ---- */

/* What the torch.* counters of one entity say from its first dump to its
 * last (file order for dumps without a time); -1: not printed. */
struct frag_stats {
	char entity[64];
	char source[48];            /* "memory_stats dumps", "memory_summary tables" */
	int dumps;                  /* samples of the longer of the two counters */
	double retries0, retries1, split0, split1, reserved1, ooms1;
	int64_t retries_id, split_id;
	double share;               /* split1 / reserved1; -1 unknown */
	int retries_up, split_up;   /* climbed past FRAG_RETRY_MIN_RISE, FRAG_SPLIT_MIN_* */
	double score;
};

/* The first and last values of series (name, entity) in the order they
 * were taken (time, then the order read), into *first, *last, its id
 * into *id. Returns the number of values (0: none). */
static int first_last(struct rule_ctx *c, const char *name, const char *entity, double *first,
		      double *last, int64_t *id)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT id FROM series WHERE name = ?1 AND entity = ?2");
	struct sample_rec lo, hi;
	int n = 0;

	*first = *last = -1;
	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, entity, -1, SQLITE_TRANSIENT);
	/* each series in its order (untimed first, then time, then rowid);
	 * the first and last over them all by the same key */
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(st, 0);
		struct samples_iter it;
		const struct sample_rec *r;
		if (samples_iter_open(&it, c->db, sid, SI_VALUED, 0, 0) < 0) {
			rl_fail(c, it.err);
			break;
		}
		while ((r = samples_iter_next(&it))) {
			if (!n || samples_rec_before(r, &lo))
				lo = *r;
			if (!n++ || !samples_rec_before(r, &hi)) {
				hi = *r;
				*id = sid;
			}
		}
		samples_iter_close(&it);
	}
	sqlite3_finalize(st);
	if (n) {
		*first = lo.value;
		*last = hi.value;
	}
	return n;
}

/* How far the counters go (see the file's comment); sets the flags. */
static double stats_score(struct frag_stats *fs)
{
	fs->share = fs->reserved1 > 0 && fs->split1 >= 0 ? fs->split1 / fs->reserved1 : -1;
	fs->retries_up = fs->retries0 >= 0 && fs->retries1 - fs->retries0 >= FRAG_RETRY_MIN_RISE;
	fs->split_up = fs->split0 >= 0 && fs->split1 - fs->split0 >= FRAG_SPLIT_MIN_RISE &&
		       (fs->share < 0 || fs->share >= FRAG_SPLIT_MIN_SHARE);
	if (fs->retries_up && fs->split_up)
		return FRAG_STATS_SCORE +
		       0.2 * (fs->share < 0 ? 0 : rl_clamp01((fs->share - FRAG_SPLIT_MIN_SHARE) / 0.2)) +
		       0.05 * rl_clamp01((fs->retries1 - fs->retries0) / 10);
	return fs->retries_up ? FRAG_RETRY_SCORE : fs->split_up ? FRAG_SPLIT_SCORE : 0;
}

/* The counters of one entity into fs (its score set); 0 when fewer than
 * two dumps. */
static int stats_of(struct rule_ctx *c, const char *entity, struct frag_stats *fs)
{
	double v;
	int64_t id = 0;
	int a, b;

	memset(fs, 0, sizeof(*fs));
	snprintf(fs->entity, sizeof(fs->entity), "%s", entity);
	a = first_last(c, "torch.num_alloc_retries", entity, &fs->retries0, &fs->retries1,
		       &fs->retries_id);
	b = first_last(c, "torch.inactive_split_bytes", entity, &fs->split0, &fs->split1,
		       &fs->split_id);
	first_last(c, "torch.reserved_bytes", entity, &v, &fs->reserved1, &id);
	first_last(c, "torch.num_ooms", entity, &v, &fs->ooms1, &id);
	fs->dumps = a > b ? a : b;
	if (fs->dumps < 2)
		return 0;
	id = fs->retries_id ? fs->retries_id : fs->split_id;
	snprintf(fs->source, sizeof(fs->source), "allocator statistics");
	if (rl_num(c, &v, "SELECT a.kind = 'torch_memory_summary' FROM series s JOIN artifact a"
		   " ON a.id = s.artifact_id WHERE s.id = %lld", (long long)id) == 0)
		snprintf(fs->source, sizeof(fs->source), "%s", v > 0 ? "memory_summary tables"
			 : "memory_stats dumps");
	fs->score = stats_score(fs);
	return 1;
}

/* The entity whose counters say most into fs: 1 found (score may be 0),
 * 0 none with two dumps. */
static int read_stats(struct rule_ctx *c, struct frag_stats *fs)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT DISTINCT entity FROM series WHERE name IN"
				      " ('torch.num_alloc_retries', 'torch.inactive_split_bytes')"
				      " AND entity IS NOT NULL ORDER BY entity");
	struct frag_stats one;
	int found = 0;

	if (!st)
		return 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (stats_of(c, q_text(st, 0), &one) && (!found || one.score > fs->score)) {
			*fs = one;
			found = 1;
		}
	sqlite3_finalize(st);
	return found;
}

/* The counters as figures of f. */
static void stats_figs(struct rl_finding *f, const struct frag_stats *fs)
{
	rl_fig(f, "stats_dumps", fs->dumps);
	if (fs->retries0 >= 0) {
		rl_fig(f, "alloc_retries_first", fs->retries0);
		rl_fig(f, "alloc_retries_last", fs->retries1);
	}
	if (fs->split0 >= 0) {
		rl_fig(f, "inactive_split_first_bytes", fs->split0);
		rl_fig(f, "inactive_split_last_bytes", fs->split1);
	}
	if (fs->share >= 0)
		rl_fig(f, "inactive_split_share", fs->share);
	if (fs->reserved1 >= 0)
		rl_fig(f, "stats_reserved_bytes", fs->reserved1);
	if (fs->ooms1 >= 0)
		rl_fig(f, "num_ooms", fs->ooms1);
}

/* What the counters mean, as advice. */
static void stats_advice(struct rl_finding *f, const struct frag_stats *fs)
{
	char b1[32], b2[32];

	if (fs->retries_up)
		rl_advice(f, "cudaMalloc retries rose from %.0f to %.0f across %d %s: each retry"
			  " is the allocator freeing its whole cache to place a request no cached"
			  " block could hold.", fs->retries0, fs->retries1, fs->dumps, fs->source);
	if (fs->split_up)
		rl_advice(f, "Memory in inactive split blocks (free, but cut by live blocks) grew"
			  " from %s to %s.", rl_bytes(fs->split0, b1, sizeof(b1)),
			  rl_bytes(fs->split1, b2, sizeof(b2)));
	if (fs->split_up && fs->share >= 0)
		rl_advice(f, "That is %.0f%% of what PyTorch reserved.", 100 * fs->share);
	if (fs->ooms1 > 0)
		rl_advice(f, "The allocator counted %.0f out-of-memory error%s by the last one.",
			  fs->ooms1, fs->ooms1 == 1 ? "" : "s");
}

/* The counters' evidence rows on finding fid. 0 or -1. */
static int stats_evidence(struct rule_ctx *c, int64_t fid, const struct frag_stats *fs)
{
	if (fs->retries_id && rl_evidence(c, fid, "series", fs->retries_id,
					  "cudaMalloc retries, first and last dump") < 0)
		return -1;
	if (fs->split_id && rl_evidence(c, fid, "series", fs->split_id,
					"inactive split bytes, first and last dump") < 0)
		return -1;
	return 0;
}

/* The finding of the counters alone (no OOM message to weigh). 1 written,
 * 0 none, -1 failed. */
static int stats_finding(struct rule_ctx *c, const struct frag_stats *fs, int expandable)
{
	struct rl_finding f;
	char b1[32], b2[32];
	int64_t fid;

	if (fs->score <= 0)
		return 0;
	rl_finding_init(&f, "fragmentation", "misconfig", "fragmentation");
	f.score = fs->score;
	stats_figs(&f, fs);
	rl_fig(&f, "expandable_segments", expandable);
	if (fs->retries_up && fs->split_up)
		snprintf(f.title, sizeof(f.title), "cudaMalloc retries rose from %.0f to %.0f and"
			 " inactive split memory from %s to %s across %d %s", fs->retries0,
			 fs->retries1, rl_bytes(fs->split0, b1, sizeof(b1)),
			 rl_bytes(fs->split1, b2, sizeof(b2)), fs->dumps, fs->source);
	else if (fs->retries_up)
		snprintf(f.title, sizeof(f.title), "cudaMalloc retries rose from %.0f to %.0f across"
			 " %d %s", fs->retries0, fs->retries1, fs->dumps, fs->source);
	else
		snprintf(f.title, sizeof(f.title), "Inactive split memory grew from %s to %s across"
			 " %d %s", rl_bytes(fs->split0, b1, sizeof(b1)),
			 rl_bytes(fs->split1, b2, sizeof(b2)), fs->dumps, fs->source);
	stats_advice(&f, fs);
	expandable_advice(c, &f, expandable);
	fid = rl_finding_write(c, &f);
	if (fid < 0 || stats_evidence(c, fid, fs) < 0)
		return -1;
	return 1;
}

/* The finding of the OOM message or snapshot, with the counters (fs, may
 * be NULL) as more evidence. 1 written, 0 none, -1 failed. */
static int frag_at_oom(struct rule_ctx *c, const struct frag_stats *fs, int expandable)
{
	struct frag fr = { 0, -1, -1, -1, -1, -1, -1, -1, 0, 0 };
	double req, unalloc, largest, reserved, alloc, share = -1;
	int64_t fid;
	char b1[32], b2[32], b3[32];
	struct rl_finding f;
	int held;

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
	if (fs && fs->retries_up && fs->split_up && held)
		f.score = rl_clamp01(f.score + 0.05);
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
	frag_advice(c, &f, &fr, held, expandable, share);
	quote_whatif(c, &f, expandable);
	if (fs) {
		stats_figs(&f, fs);
		stats_advice(&f, fs);
	}
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (fr.ev && rl_evidence(c, fid, "event", fr.ev, "torch_oom") < 0) ||
	    (fr.snap && rl_evidence(c, fid, "snapshot", fr.snap, "segments at the OOM") < 0) ||
	    (fs && stats_evidence(c, fid, fs) < 0))
		return -1;
	return 1;
}

int rule_fragmentation(struct rule_ctx *c)
{
	struct frag_stats fs;
	char buf[32];
	int expandable = 0, have = read_stats(c, &fs), r;

	if (rl_meta_text(c, "torch.allocator.expandable_segments", buf, sizeof(buf)) == 0 &&
	    (!strcasecmp(buf, "true") || !strcmp(buf, "1")))
		expandable = 1;
	r = frag_at_oom(c, have ? &fs : NULL, expandable);
	if (r != 0 || !have)
		return r;
	return stats_finding(c, &fs, expandable);
}
