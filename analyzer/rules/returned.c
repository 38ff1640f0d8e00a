/*
 * returned.c -- leak: memory not returned between two failures. When a
 * process fails more than once (a user retries, a server takes the next
 * request, a thread pastes the first OOM and the one after it), PyTorch's
 * message states each time what the process held (reserved, or in use,
 * or allocated); another stack's failure (the generic recogniser's
 * mem_failure) what the card had free of its total. A later failure of
 * the same card that asked no more than an earlier one
 * (RETURNED_ASK_SLACK) yet found more held (RETURNED_MIN_BYTES and
 * RETURNED_MIN_FRAC of the card) shows memory taken and never given back
 * between them: a leak, whatever the request.
 *
 * Order is the oom table's (OOM_ORDER, analyzer/derive/oom.c) within a
 * run of the service, runs from the earliest (oom.run): by time, else in
 * the order the artifacts were read. Two failures of one log in
 * its line order are an order the evidence states; two of different
 * artifacts without times are ordered only by the artifacts' names (an
 * incident folder's 01-, 02- pastes): the finding says that order is
 * inferred (figure order_inferred, and its title), scores lower, and
 * gives no rate. A rate (MiB an hour) needs both failures on one clock.
 *
 * Not a pair: two failures of one log within RETURNED_NEAR_LINES lines
 * or of one second (ranks of one job failing together print their own
 * figures side by side); a later failure in a start-up phase (a restart
 * loads from nothing); cards of different totals; two processes (both
 * failures name their pid, and they differ).
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETURNED_MIN_BYTES (256.0 * MIB)
#define RETURNED_MIN_FRAC 0.05      /* of the card's total */
#define RETURNED_ASK_SLACK 1.25     /* the later ask, at most this times the earlier */
#define RETURNED_NEAR_LINES 40
#define RETURNED_TIMED 0.75
#define RETURNED_INFERRED 0.65
#define RETURNED_MAX 64             /* failures compared (the SQL's LIMIT too) */

struct fail {
	int64_t oom_id, event_id, artifact, line, time_ns;
	int64_t pid;                /* the failing process's, when stated; 0 not */
	int timed;                  /* time_ns on the UTC or local clock */
	double device, req, total, held;
	int measure;                /* 0 reserved, 1 in use, 2 allocated, 3 total - free; -1 none */
	double by[4];
	int startup;
	char phase[16];             /* oom.phase */
};

static const char *const measure_words[] = {
	"reserved by PyTorch", "in use by the process", "allocated by PyTorch",
	"in use on the card (total less free)"
};

static double col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* The failures of table oom that state what the process held, in the
 * table's order, into f (at most RETURNED_MAX); their count, or -1. */
static int read_fails(struct rule_ctx *c, struct fail *f)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT o.id, o.event_id, o.artifact_id, e.line,"
		" o.time_ns, o.clock IN ('utc', 'local'), o.device, o.requested_bytes, o.total_bytes,"
		" json_extract(e.data, '$.reserved_bytes'), json_extract(e.data, '$.process_in_use_bytes'),"
		" json_extract(e.data, '$.allocated_bytes'), o.total_bytes - o.free_bytes,"
		" o.phase IN ('load_weights', 'profile', 'kv_alloc', 'graph_capture', 'warmup'), o.phase,"
		" coalesce(o.victim_pid, 0)"
		" FROM oom o JOIN event e ON e.id = o.event_id WHERE o.kind IN ('torch_oom', 'mem_failure')"
		" AND json_valid(e.data) ORDER BY coalesce(o.run, 0), o.id LIMIT 64");
	int n = 0, k;

	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct fail *x = &f[n++];
		x->oom_id = sqlite3_column_int64(st, 0);
		x->event_id = sqlite3_column_int64(st, 1);
		x->artifact = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
		x->line = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
		x->time_ns = sqlite3_column_type(st, 4) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 4);
		x->timed = sqlite3_column_type(st, 4) != SQLITE_NULL && sqlite3_column_int(st, 5);
		x->device = col(st, 6);
		x->req = col(st, 7);
		x->total = col(st, 8);
		for (k = 0; k < 4; k++) {
			x->by[k] = col(st, 9 + k);
			if (!(x->by[k] > 0))
				x->by[k] = NAN;
		}
		x->startup = sqlite3_column_int(st, 13);
		snprintf(x->phase, sizeof(x->phase), "%s", q_text(st, 14));
		x->pid = sqlite3_column_int64(st, 15);
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : n;
}

/* 1 when a and b are failures of one card that can be compared: one
 * device, one total, and one process when both name theirs (another pid
 * is a restart, which starts from nothing). */
static int same_card(const struct fail *a, const struct fail *b)
{
	if (a->pid > 0 && b->pid > 0 && a->pid != b->pid)
		return 0;
	if (!isnan(a->device) && !isnan(b->device) && a->device != b->device)
		return 0;
	if (a->total > 0 && b->total > 0 && fabs(a->total - b->total) > 0.01 * a->total)
		return 0;
	return 1;
}

/* 1 when a and b are one moment's failures (ranks side by side), not
 * one after the other. */
static int together(const struct fail *a, const struct fail *b)
{
	if (a->timed && b->timed && llabs(b->time_ns - a->time_ns) < 1000000000LL)
		return 1;
	return a->artifact == b->artifact && a->line >= 0 && b->line >= 0 &&
	       llabs(b->line - a->line) < RETURNED_NEAR_LINES &&
	       !(a->timed && b->timed);
}

/* The measure both state (the first of reserved, in use, allocated,
 * total - free); -1 none. */
static int common_measure(const struct fail *a, const struct fail *b)
{
	int k;

	for (k = 0; k < 4; k++)
		if (!isnan(a->by[k]) && !isnan(b->by[k]))
			return k;
	return -1;
}

int rule_returned(struct rule_ctx *c)
{
	struct fail f[RETURNED_MAX];
	struct rl_finding fd;
	int n = read_fails(c, f), i, j, m, best_m = -1, bi = -1, bj = -1, inferred;
	double best = 0, growth, total, rate = NAN;
	int64_t fid;

	if (n < 2)
		return n < 0 ? -1 : 0;
	for (j = 1; j < n; j++) {
		if (f[j].startup || isnan(f[j].req))
			continue;
		/* the nearest earlier failure of the same card */
		for (i = j - 1; i >= 0 && !same_card(&f[i], &f[j]); i--)
			;
		if (i < 0 || isnan(f[i].req) || together(&f[i], &f[j]) ||
		    f[j].req > f[i].req * RETURNED_ASK_SLACK || (m = common_measure(&f[i], &f[j])) < 0)
			continue;
		growth = f[j].by[m] - f[i].by[m];
		total = f[j].total > 0 ? f[j].total : f[i].total;
		if (growth < RETURNED_MIN_BYTES || (total > 0 && growth < RETURNED_MIN_FRAC * total))
			continue;
		if (growth > best)
			best = growth, bi = i, bj = j, best_m = m;
	}
	if (bi < 0)
		return 0;
	inferred = f[bi].artifact != f[bj].artifact && !(f[bi].timed && f[bj].timed);
	if (f[bi].timed && f[bj].timed && f[bj].time_ns > f[bi].time_ns)
		rate = best / ((double)(f[bj].time_ns - f[bi].time_ns) / 3.6e12);
	rl_finding_init(&fd, "returned", "leak", "not_returned");
	fd.score = inferred ? RETURNED_INFERRED : RETURNED_TIMED;
	/* the phase it judges: the later failure's, the one that held more */
	if (f[bj].phase[0] && strcmp(f[bj].phase, "unknown"))
		fd.phase = f[bj].phase;
	rl_fig(&fd, "held_before_bytes", f[bi].by[best_m]);
	rl_fig(&fd, "held_after_bytes", f[bj].by[best_m]);
	rl_fig(&fd, "not_returned_bytes", best);
	rl_fig(&fd, "requested_before_bytes", f[bi].req);
	rl_fig(&fd, "requested_after_bytes", f[bj].req);
	rl_fig(&fd, "failures", n);
	rl_fig(&fd, "order_inferred", inferred);
	if (!isnan(rate))
		rl_fig(&fd, "leak_rate_mib_per_hour", rate / MIB);
	snprintf(fd.title, sizeof(fd.title), "Memory not returned between failures: a later OOM"
		 " asked %.0f MiB (the earlier %.0f MiB) with %.2f GiB %s, %.0f MiB more than at the"
		 " earlier one%s", f[bj].req / MIB, f[bi].req / MIB, f[bj].by[best_m] / GIB,
		 measure_words[best_m], best / MIB,
		 inferred ? " (order inferred from the file names: neither failure has a time)" :
		 !isnan(rate) ? "" : " (in the log's order)");
	if (!isnan(rate))
		rl_advice(&fd, "Held memory grew by about %.0f MiB an hour between the two failures.",
			  rate / MIB);
	rl_advice(&fd, "A failure that does not give back what it took leaves the next request"
		  " less room at the same size: the process keeps references to the failed work's"
		  " tensors (an exception or its traceback holding frames, a cache, a list of"
		  " outputs), or the library leaks. Restarting returns the memory; compare with"
		  " the previous release and report it with the requests that preceded the first"
		  " failure.");
	fid = rl_finding_write(c, &fd);
	if (fid < 0 || rl_evidence(c, fid, "event", f[bi].event_id, "the earlier failure") < 0 ||
	    rl_evidence(c, fid, "event", f[bj].event_id, "the later failure, holding more") < 0)
		return -1;
	return 1;
}
