/*
 * card.c -- the card at a PyTorch OOM as its message tells it (see struct
 * rl_card in rulelib.h): the figures of the first torch_oom event that
 * states a capacity, which of the "Process N has X memory in use" lines is
 * this process, and what follows (what the allocator could reach, what
 * it needed, who held the rest). The rules in capacity.c and
 * fragmentation.c weigh it; nothing here writes a finding.
 */
#include "analyzer/derive/dctx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* cudaMalloc can fail with a little more free than the request: the
 * driver rounds to its pages and keeps some for itself, and another
 * process may allocate at the same moment. Free memory within 64 MiB + 2%
 * of the request, or within 2% of the card, does not hold it. */
#define FREE_SLACK_BYTES (64 * MIB)
#define FREE_SLACK_FRAC 0.02
#define FREE_SLACK_CARD 0.02
/* A "Process N" line is this process (a container hides its pid from the
 * driver) when it is at least PyTorch's reserve, within this above it. */
#define SELF_ABOVE_RESERVED (2 * GIB)
/* What the driver's count of used memory may exceed the processes it
 * lists by (its own reserve, rounding of the printed figures): a share
 * of the card. */
#define SELF_SUM_SLACK 0.02

/* Column i as a size: -1 when NULL, negative or not finite. */
static double size_col(sqlite3_stmt *st, int i)
{
	double v;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return -1;
	v = sqlite3_column_double(st, i);
	return isfinite(v) && v >= 0 && v < 1e19 ? v : -1;
}

/* The message's figures into k; 1 read, 0 none, -1 failed. */
static int read_event(struct rule_ctx *c, struct rl_card *k)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT id, pid, coalesce(json_extract(data, '$.requested_bytes'), bytes),"
		" json_extract(data, '$.total_bytes'), json_extract(data, '$.free_bytes'),"
		" json_extract(data, '$.allowed_bytes'), json_extract(data, '$.process_in_use_bytes'),"
		" json_extract(data, '$.allocated_bytes'), json_extract(data, '$.reserved_bytes'),"
		" json_extract(data, '$.reserved_unallocated_bytes'),"
		" json_extract(data, '$.private_pools_bytes'), json_extract(data, '$.wording')"
		" FROM event WHERE kind = 'torch_oom' AND json_valid(data)"
		" AND json_extract(data, '$.total_bytes') > 0 ORDER BY time_ns, id LIMIT 1");
	int r = 0;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		k->ev = sqlite3_column_int64(st, 0);
		k->pid = sqlite3_column_type(st, 1) == SQLITE_NULL ? OL_NULL : sqlite3_column_int64(st, 1);
		k->req = size_col(st, 2);
		k->total = size_col(st, 3);
		k->free = size_col(st, 4);
		k->limit = size_col(st, 5);    /* allowed, for now */
		k->self = size_col(st, 6);
		k->alloc = size_col(st, 7);
		k->reserved = size_col(st, 8);
		k->unalloc = size_col(st, 9);
		k->pools = size_col(st, 10);
		snprintf(k->wording, sizeof(k->wording), "%s",
			 sqlite3_column_type(st, 11) == SQLITE_TEXT ? q_text(st, 11) : "");
		r = k->total > 0;
	}
	sqlite3_finalize(st);
	return r;
}

/* PyTorch 1.0-1.3 printed "X cached" as the cache held but not used
 * (amount cached minus allocated); the event keeps it as reserved_bytes
 * (docs/json.md). Make reserved the whole reserve again. */
static void old_cached(struct rl_card *k)
{
	if (strcmp(k->wording, "old_cached") || k->reserved < 0 || k->alloc < 0)
		return;
	k->unalloc = k->reserved;
	k->reserved = k->alloc + k->unalloc;
}

/* Whether the message's own arithmetic puts this process in its list:
 * were it not listed, the card's used memory (total - free) would hold
 * the listed processes and PyTorch's reserve besides; when they add up
 * to more than that (beyond the driver's slack), one line is this
 * process. 1, 0. */
static int self_listed_by_sum(const struct rl_card *k, double listed)
{
	return k->free >= 0 && k->reserved > 0 &&
	       listed + k->reserved > k->total - k->free + SELF_SUM_SLACK * k->total;
}

/* The "Process N has X" lines: which is this process, and the others.
 * With "this process has X in use" printed, every line is another
 * process; without it (a container, whose pids the driver does not
 * share), this process is the line of its pid, else the one just above
 * PyTorch's reserve (within SELF_ABOVE_RESERVED), else, when the
 * message's arithmetic says it is listed (self_listed_by_sum), the
 * smallest line that holds the reserve: its memory outside PyTorch (CUDA
 * graphs' pools, NCCL) may be large. 0 or -1. */
static int processes(struct rule_ctx *c, struct rl_card *k)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT json_extract(j.value, '$.pid'), json_extract(j.value, '$.bytes')"
		" FROM event e, json_each(e.data, '$.processes') j WHERE e.id = ?1"
		" AND json_type(e.data, '$.processes') = 'array'");
	int64_t self_pid = OL_NULL, far_pid = OL_NULL;
	double best = -1, far = -1, listed = 0, lo = k->reserved - 0.01 * k->total;
	int by_pid = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, k->ev);
	while (k->self < 0 && k->reserved >= 0 && !by_pid && sqlite3_step(st) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 0);
		double b = size_col(st, 1);
		if (b < 0)
			continue;
		listed += b;
		if (k->pid != OL_NULL && pid == k->pid) {
			self_pid = pid, best = b, by_pid = 1;
			break;
		}
		if (b >= lo && b <= k->reserved + SELF_ABOVE_RESERVED &&
		    (best < 0 || fabs(b - k->reserved) < fabs(best - k->reserved)))
			self_pid = pid, best = b;
		else if (b > k->reserved + SELF_ABOVE_RESERVED && (far < 0 || b < far))
			far_pid = pid, far = b;
	}
	if (best < 0 && far >= 0 && self_listed_by_sum(k, listed))
		self_pid = far_pid, best = far;
	if (best >= 0)
		k->self = best;
	sqlite3_reset(st);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 0);
		double b = size_col(st, 1);
		k->listed = 1;
		if (b < 0 || (self_pid != OL_NULL && pid == self_pid))
			continue;
		k->others += b;
		k->n_others++;
		if (b > k->top_bytes)
			k->top_bytes = b, k->top_pid = pid;
	}
	sqlite3_finalize(st);
	return 0;
}

/* What follows from the figures. */
static void derive(struct rl_card *k)
{
	double t = k->total;

	k->limit = k->limit > 0 && k->limit < t ? k->limit : t;
	k->oversubscribed = k->alloc > t;
	if (k->unalloc < 0 && k->reserved >= 0 && k->alloc >= 0 && k->reserved >= k->alloc)
		k->unalloc = k->reserved - k->alloc;
	if (k->self >= 0 && k->reserved >= 0 && k->self >= k->reserved)
		k->non_pytorch = k->self - k->reserved;
	if (k->free >= 0) {
		double mine = k->self >= 0 ? k->self : k->reserved >= 0 ? k->reserved : k->alloc;
		if (mine >= 0)
			k->outside = fmax(t - mine - k->free, 0);
	}
	k->outside_proven = k->self >= 0 && k->outside > 0 && k->others >= 0.8 * k->outside;
	if (k->reserved >= 0 && k->free >= 0)
		k->room = fmin(k->reserved + k->free, k->limit);
	/* a message cut before its reserved clause (a paste re-wrapped one
	 * clause a line that kept "Of the allocated memory A is allocated by
	 * PyTorch" and lost ", and R is reserved by PyTorch but unallocated",
	 * the order of c10/cuda/CUDACachingAllocator.cpp@v2.1.0's message):
	 * the allocator could reach no more than this process's use (its
	 * reserve and the CUDA context beside it) + free, nor more than the
	 * card, so either bounds the reach from above and the fill from below */
	else if (k->alloc >= 0 && k->free >= 0 && k->reserved < 0) {
		k->room = k->self >= k->alloc ? fmin(k->self + k->free, k->limit) : k->limit;
		k->room_bound = 1;
	}
	if (k->alloc >= 0 && k->req >= 0)
		k->need = k->alloc + k->req;
	k->free_held = k->free >= 0 && k->req >= 0 &&
		       k->free >= k->req + fmax(FREE_SLACK_BYTES + FREE_SLACK_FRAC * k->req,
						FREE_SLACK_CARD * t);
	/* set_per_process_memory_fraction's cap: PyTorch 2.1+ prints it as
	 * "C allowed;" (allowed_info, c10/cuda/CUDACachingAllocator.cpp@v2.1.0
	 * .. @v2.6.0) and refuses a block once reserved + request would pass
	 * it (allowed_memory_maximum in alloc_block), whatever the card has
	 * free: free beyond the cap is out of reach and explains nothing */
	k->free_reach = k->free;
	if (k->limit < t && k->reserved >= 0 && k->free >= 0)
		k->free_reach = fmin(k->free, fmax(k->limit - k->reserved, 0));
	k->capped = k->limit < t && k->reserved >= 0 && k->req > 0 &&
		    k->reserved + k->req > k->limit;
	if (k->capped)
		k->free_held = 0;
}

int rl_card_read(struct rule_ctx *c, struct rl_card *k)
{
	int r;

	memset(k, 0, sizeof(*k));
	k->pid = k->top_pid = OL_NULL;
	k->self = k->non_pytorch = k->outside = k->room = k->need = k->free_reach = -1;
	r = read_event(c, k);
	if (r <= 0) {
		k->ev = 0;
		return r;
	}
	old_cached(k);
	if (k->reserved < 0 && k->alloc >= 0 && k->unalloc >= 0)   /* 2.1+: both parts */
		k->reserved = k->alloc + k->unalloc;
	/* "this process has 0 bytes memory in use" with memory allocated: the
	 * driver does not see the process (NVML inside a container), it is
	 * no figure */
	if (k->self == 0 && (k->reserved > 0 || k->alloc > 0)) {
		k->self = -1;
		k->self_unseen = 1;
	}
	if (processes(c, k) < 0)
		return -1;
	derive(k);
	return 1;
}

int rl_card_frag_real(const struct rl_card *k)
{
	if (k->total <= 0 || k->unalloc < 0)
		return -1;
	return k->unalloc >= RL_FRAG_MIN_SHARE * k->total;
}

#define OTHER_MIN_BYTES (1 * GIB)

int rl_card_fits_alone(const struct rl_card *k)
{
	return k->need >= 0 &&
	       k->need + (k->non_pytorch >= 0 ? k->non_pytorch : RL_CTX_GUESS) <= k->limit;
}

/* The cudaMallocAsync backend's message ("would exceed allowed memory",
 * c10/cuda/CUDAMallocAsyncAllocator.cpp, PyTorch 2.0-2.5) states only
 * the live bytes (pytorch_used_bytes) and the driver's free: its pool is
 * set to keep every freed byte (cudaMemPoolAttrReleaseThreshold =
 * UINT64_MAX in lazy_init_device), and that cache is nowhere in the
 * message. Without the driver's process list, total - alloc - free is
 * as likely this process's own pool as another tenant: no crowding can
 * be read from it. 1 it cannot, 0 it can. */
static int outside_is_own_pool(const struct rl_card *k)
{
	return !strcmp(k->wording, "would_exceed_allowed") && k->self < 0 && k->others <= 0;
}

int rl_card_crowded_out(const struct rl_card *k)
{
	if (outside_is_own_pool(k))
		return 0;
	return k->total > 0 && k->outside >= OTHER_MIN_BYTES &&
	       k->outside / k->total >= RL_OTHER_MIN_SHARE && rl_card_fits_alone(k);
}

int rl_card_frag_holds(const struct rl_card *k)
{
	return k->unalloc >= 0 && k->req > 0 &&
	       k->unalloc + (k->free_reach > 0 ? k->free_reach : 0) >= k->req;
}
