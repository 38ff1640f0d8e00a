/*
 * bench_whatif.c -- speed of the what-if replay (analyzer/rules/
 * whatif_replay.h) on a generated allocator trace of N entries, without
 * SQL: the trace is made on the fly (deterministic), fed entry by entry
 * with wr_add(), then wr_run() replays it under every scenario.
 *
 * The trace is a serving loop: 160 weight tensors of 8-64 MiB alive from
 * the start (a snapshot block each, before the trace), then iterations of
 * 40 requests whose sizes follow a batch size that changes every 200
 * iterations (1 KiB .. 192 MiB: both pools, oversize-prone sizes), freed in
 * reverse order except a tenth kept one iteration longer; each free is a
 * free_requested and a free_completed entry, as PyTorch records them.
 *
 * usage: bench_whatif [N [FLAT]]   (default 10,000,000 entries); prints
 * the entries, requests replayed, feed and replay seconds, requests per
 * second per replay and entries per second overall. With FLAT, the same
 * snapshot is also written there in oomlens's flat form
 * (docs/flat-format.md), for `oomlens ingest` and the whole rule.
 */
#include "analyzer/derive/whatif_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MiB (1024ULL * 1024)
#define WEIGHTS 160
#define PER_ITER 40

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct gen {
	struct wr_trace *t;
	int64_t seq;
	uint64_t n;
	FILE *flat;                   /* NULL: no flat copy */
};

static const char *const action_name[] = { [WR_ALLOC] = "alloc",
	[WR_FREE_REQUESTED] = "free_requested", [WR_FREE_COMPLETED] = "free_completed" };

static int put(struct gen *g, enum wr_action a, uint64_t addr, uint64_t size)
{
	struct wr_entry e = { a, addr, size, 0, 0, g->seq++ };

	if (g->flat)
		fprintf(g->flat, "{\"type\":\"trace\",\"device\":0,\"seq\":%lld,\"action\":\"%s\","
			"\"addr\":%llu,\"size\":%llu,\"stream\":0}\n", (long long)e.seq,
			action_name[a], (unsigned long long)addr, (unsigned long long)size);
	g->n++;
	return wr_add(g->t, &e);
}

static int free_block(struct gen *g, uint64_t addr, uint64_t size)
{
	return put(g, WR_FREE_REQUESTED, addr, size) | put(g, WR_FREE_COMPLETED, addr, size);
}

/* The request sizes of one iteration at batch size b. */
static uint64_t request_size(unsigned i, unsigned b)
{
	static const uint64_t base[] = { 1024, 16384, 65536, 262144, 1 * MiB, 4 * MiB };

	return base[i % 6] * b + (i % 5) * 512;
}

/* The serving loop until about n entries, then the weights' segments. */
static int generate(struct gen *g, uint64_t n)
{
	uint64_t live_addr[PER_ITER], live_size[PER_ITER], kept_addr[PER_ITER], kept_size[PER_ITER];
	unsigned nk = 0, iter = 0, b = 8, i, nk2;
	struct wr_segment seg;
	struct wr_block w;
	size_t k;

	while (g->n + 6 * PER_ITER <= n) {
		if (iter++ % 200 == 0)
			b = 1 + (unsigned)(next() % 48);
		for (i = 0; i < PER_ITER; i++) {
			/* the same slot, the same address: the allocator reuses them */
			live_addr[i] = 0x7f0000000000ULL + (uint64_t)(iter & 1) * 0x1000000000ULL +
				(uint64_t)i * 0x20000000ULL;
			live_size[i] = request_size(i + (unsigned)(next() % 3), b);
			if (put(g, WR_ALLOC, live_addr[i], live_size[i]) < 0)
				return -1;
		}
		for (i = 0; i < nk; i++)
			if (free_block(g, kept_addr[i], kept_size[i]) < 0)
				return -1;
		for (i = PER_ITER, nk2 = 0; i-- > 0;) {
			if (next() % 10 == 0) {
				kept_addr[nk2] = live_addr[i];
				kept_size[nk2++] = live_size[i];
			} else if (free_block(g, live_addr[i], live_size[i]) < 0) {
				return -1;
			}
		}
		nk = nk2;
	}
	/* the weights, alive before the trace: a segment and a block each */
	for (k = 0; k < WEIGHTS; k++) {
		seg.addr = 0x7e0000000000ULL + k * 0x10000000ULL;
		seg.size = (8 + next() % 57) * MiB;
		seg.stream = 0;
		seg.small = 0;
		seg.expandable = 0;
		w.addr = seg.addr;
		w.size = w.requested = seg.size;
		w.active = 1;
		if (wr_add_segment(g->t, &seg, &w, 1) < 0)
			return -1;
		if (g->flat)
			fprintf(g->flat, "{\"type\":\"segment\",\"device\":0,\"address\":%llu,"
				"\"total_size\":%llu,\"allocated_size\":%llu,\"active_size\":%llu,"
				"\"requested_size\":%llu,\"stream\":0,\"segment_type\":\"large\","
				"\"is_expandable\":false}\n{\"type\":\"block\",\"address\":%llu,"
				"\"size\":%llu,\"requested_size\":%llu,\"state\":\"active_allocated\"}\n",
				(unsigned long long)seg.addr, (unsigned long long)seg.size,
				(unsigned long long)seg.size, (unsigned long long)seg.size,
				(unsigned long long)seg.size, (unsigned long long)seg.addr,
				(unsigned long long)seg.size, (unsigned long long)seg.size);
	}
	if (g->flat && fprintf(g->flat, "{\"type\":\"end\",\"devices\":1}\n") < 0)
		return -1;
	return 0;
}

static void report(const struct gen *g, const struct wr_report *rep, double feed, double run)
{
	uint64_t replays = rep->n_res - 1 + rep->candidates_tried;   /* every scenario run */
	size_t k;

	printf("%llu trace entries, %llu requests replayed, %llu replays (%llu max_split_size_mb"
	       " values)\n", (unsigned long long)g->n, (unsigned long long)rep->events,
	       (unsigned long long)replays, (unsigned long long)rep->candidates_tried);
	printf("  feed (wr_add)   : %6.2f s  %5.1f M entries/s\n", feed, g->n / feed / 1e6);
	printf("  replay (wr_run) : %6.2f s  %5.1f M requests/s per replay\n", run,
	       (double)rep->events * replays / run / 1e6);
	printf("  total           : %6.2f s  %5.1f M entries/s\n", feed + run,
	       g->n / (feed + run) / 1e6);
	for (k = 0; k < rep->n_res; k++)
		printf("  %-20s %-36s fits %2d  peak reserved %6.2f GiB  segments %lld\n",
		       rep->res[k].scenario, rep->res[k].setting, rep->res[k].fits,
		       rep->res[k].peak_reserved / 1073741824.0, (long long)rep->res[k].segments);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	struct am_settings s;
	struct gen g = { NULL, 0, 0, NULL };
	struct wr_report rep;
	struct wr_options o;
	double t0, t1, t2;
	char err[100];

	am_settings_default(&s);
	g.t = wr_new(&s, 0);
	if (!g.t)
		return 1;
	if (argc > 2) {
		g.flat = fopen(argv[2], "w");
		if (!g.flat) {
			perror(argv[2]);
			return 1;
		}
		fprintf(g.flat, "{\"format\":\"oomlens-torch-snapshot\",\"version\":1,"
			"\"form\":\"dict\",\"protocol\":4}\n");
	}
	t0 = now();
	if (generate(&g, n) < 0 || (g.flat && fclose(g.flat))) {
		fprintf(stderr, "bench_whatif: out of memory or %s failed\n", argc > 2 ? argv[2] : "");
		return 1;
	}
	t1 = now();
	memset(&o, 0, sizeof(o));
	o.gpu_total = 80ULL << 30;
	if (wr_run(g.t, &o, &rep, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t2 = now();
	report(&g, &rep, t1 - t0, t2 - t1);
	wr_free(g.t);
	return 0;
}
