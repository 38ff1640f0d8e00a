/*
 * test_whatif.c -- the allocator model (analyzer/derive/allocator_model.h)
 * against the caching allocator's documented rules, one rule per case and
 * every segment event asserted; the trace replay (whatif_replay.h) on
 * traces whose segment events follow from those rules; the whatif rule
 * and the fragmentation finding on snapshots written by CPython's pickle
 * (tests/data/whatif/gen_whatif.py).
 */
#include "testutil.h"
#include "analyzer/derive/allocator_model.h"
#include "analyzer/rules/rules.h"
#include "analyzer/derive/whatif_replay.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024ULL * 1024)

/* ---- hearing the model's segment events ---- */

/* The events as text: "alloc 20M, free 2M, map 20M" (sizes in MiB when
 * whole, else bytes). */
struct heard {
	char text[2048];
};

static void hear(void *arg, const struct am_seg_event *e)
{
	static const char *const kind[] = { "alloc", "free", "map", "unmap" };
	struct heard *h = arg;
	size_t len = strlen(h->text);

	if (e->size % MiB)
		snprintf(h->text + len, sizeof(h->text) - len, "%s%s %llu", len ? ", " : "",
			 kind[e->kind], (unsigned long long)e->size);
	else
		snprintf(h->text + len, sizeof(h->text) - len, "%s%s %lluM", len ? ", " : "",
			 kind[e->kind], (unsigned long long)(e->size / MiB));
}

/* A model with default settings changed by conf, hearing into h. */
static struct am_model *model(const char *conf, uint64_t capacity, struct heard *h)
{
	struct am_settings s;
	char err[200];

	am_settings_default(&s);
	if (am_settings_parse(&s, conf, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	s.capacity = capacity;
	h->text[0] = 0;
	return am_new(&s, hear, h);
}

/* What was heard since the last call, then forget it. */
static const char *heard(struct heard *h)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf), "%s", h->text);
	h->text[0] = 0;
	return buf;
}

/* ---- rounding and settings ---- */

static void rounding_follows_the_allocator(void **state)
{
	struct am_settings s;
	char err[200];
	(void)state;

	am_settings_default(&s);
	assert_int_equal(am_round_size(&s, 1), 512);
	assert_int_equal(am_round_size(&s, 512), 512);
	assert_int_equal(am_round_size(&s, 513), 1024);
	assert_int_equal(am_round_size(&s, 5 * MiB + 1), 5 * MiB + 512);
	/* segment sizes: small pool 2 MiB, large under 10 MiB 20 MiB, else 2 MiB steps */
	assert_int_equal(am_allocation_size(1 * MiB), 2 * MiB);
	assert_int_equal(am_allocation_size(1 * MiB + 512), 20 * MiB);
	assert_int_equal(am_allocation_size(10 * MiB - 512), 20 * MiB);
	assert_int_equal(am_allocation_size(10 * MiB), 10 * MiB);
	assert_int_equal(am_allocation_size(15 * MiB), 16 * MiB);
	/* roundup_power2_divisions:4: 4 steps between 4 MiB and 8 MiB */
	assert_int_equal(am_settings_parse(&s, "roundup_power2_divisions:4", err, sizeof(err)), 0);
	assert_int_equal(am_round_size(&s, 5 * MiB + 1), 6 * MiB);
	assert_int_equal(am_round_size(&s, 8 * MiB), 8 * MiB);       /* a power of two stays */
	assert_int_equal(am_round_size(&s, 1200), 1536);             /* <= 512 x 4: plain rounding */
	/* per interval: 1 MiB and below 1 (off), 256 MiB 8, above it 2; '>'
	 * also takes the last interval named (512 MiB: 2, not 4), as the
	 * allocator's parser does */
	am_settings_default(&s);
	assert_int_equal(am_settings_parse(&s, "roundup_power2_divisions:[1:1,256:8,512:4,>:2]",
					   err, sizeof(err)), 0);
	assert_int_equal(am_round_size(&s, 300 * MiB), 320 * MiB);   /* 256 MiB on in steps of 32 */
	assert_int_equal(am_round_size(&s, 600 * MiB), 768 * MiB);   /* 512 + 256 steps */
	assert_int_equal(am_round_size(&s, 3 * MiB + 1), 3 * MiB + 512);
}

static void settings_parse_like_pytorch(void **state)
{
	struct am_settings s;
	char err[200];
	(void)state;

	am_settings_default(&s);
	assert_int_equal(am_settings_parse(&s, "expandable_segments:True, max_split_size_mb:128,"
					   "garbage_collection_threshold:0.6,backend:native,"
					   "pinned_num_register_threads:8", err, sizeof(err)), 0);
	assert_int_equal(s.expandable, 1);
	assert_int_equal(s.max_split_size, 128 * MiB);
	assert_true(s.gc_threshold > 0.59 && s.gc_threshold < 0.61);
	assert_int_equal(am_settings_parse(&s, "max_split_size_mb:10", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at least 20"));
	assert_int_equal(am_settings_parse(&s, "expandable_segments:yes", err, sizeof(err)), -1);
	assert_int_equal(am_settings_parse(&s, "no_such_option:1", err, sizeof(err)), -1);
	assert_string_equal(err, "PYTORCH_CUDA_ALLOC_CONF: unknown option 'no_such_option'");
	assert_int_equal(am_settings_parse(&s, "backend:cudaMallocAsync", err, sizeof(err)), -1);
	assert_int_equal(am_settings_parse(&s, "", err, sizeof(err)), 0);
}

/* ---- pools, splitting, best fit ---- */

static void small_requests_share_2mib_segments(void **state)
{
	struct heard h;
	struct am_model *m = model("", AM_UNLIMITED, &h);
	struct am_block *a, *b, *c;
	(void)state;

	a = am_malloc(m, 1000, 0);
	assert_string_equal(heard(&h), "alloc 2M");
	b = am_malloc(m, 1 * MiB, 0);           /* 2 MiB - 1 KiB left: it fits */
	assert_string_equal(heard(&h), "");
	assert_int_equal(am_block_addr(b), am_block_addr(a) + 1024);
	c = am_malloc(m, 1 * MiB, 0);           /* 1 MiB - 1 KiB left: a new segment */
	assert_string_equal(heard(&h), "alloc 2M");
	assert_non_null(c);
	assert_int_equal(am_stats(m)->reserved, 4 * MiB);
	assert_int_equal(am_stats(m)->allocated, 1024 + 2 * MiB);
	am_destroy(m);
}

static void large_requests_split_20mib_segments(void **state)
{
	struct heard h;
	struct am_model *m = model("", AM_UNLIMITED, &h);
	struct am_block *a, *b, *c;
	(void)state;

	a = am_malloc(m, 5 * MiB, 0);           /* under 10 MiB: a 20 MiB segment */
	assert_string_equal(heard(&h), "alloc 20M");
	b = am_malloc(m, 5 * MiB, 0);           /* from the 15 MiB left */
	assert_int_equal(am_block_addr(b), am_block_addr(a) + 5 * MiB);
	c = am_malloc(m, 9 * MiB, 0);           /* 10 MiB left, 1 MiB would remain: not split */
	assert_string_equal(heard(&h), "");
	assert_int_equal(am_block_size(c), 10 * MiB);
	am_malloc(m, 10 * MiB + 1, 0);          /* 10 MiB and up: rounded to 2 MiB */
	am_malloc(m, 15 * MiB, 0);
	assert_string_equal(heard(&h), "alloc 12M, alloc 16M");
	am_destroy(m);
}

static void frees_coalesce_and_empty_cache_frees_whole_segments(void **state)
{
	struct heard h;
	struct am_model *m = model("", AM_UNLIMITED, &h);
	struct am_block *a, *b, *c;
	(void)state;

	a = am_malloc(m, 5 * MiB, 0);
	b = am_malloc(m, 5 * MiB, 0);
	c = am_malloc(m, 5 * MiB, 0);
	assert_string_equal(heard(&h), "alloc 20M");
	am_free(m, a);
	am_free(m, c);                          /* joins the 5 MiB tail: 10 MiB free */
	am_empty_cache(m);                      /* b keeps the segment split */
	assert_string_equal(heard(&h), "");
	a = am_malloc(m, 10 * MiB - 512, 0);    /* the 10 MiB block, the best fit */
	assert_int_equal(am_block_addr(a), am_block_addr(b) + 5 * MiB);
	am_free(m, a);
	am_free(m, b);                          /* all three merge back into one block */
	am_empty_cache(m);
	assert_string_equal(heard(&h), "free 20M");
	assert_int_equal(am_stats(m)->reserved, 0);
	assert_int_equal(am_stats(m)->peak_reserved, 20 * MiB);
	am_destroy(m);
}

static void best_fit_and_streams(void **state)
{
	struct heard h;
	struct am_model *m = model("", AM_UNLIMITED, &h);
	struct am_block *a, *b, *c;
	(void)state;

	a = am_malloc(m, 14 * MiB, 0);
	b = am_malloc(m, 12 * MiB, 0);
	assert_string_equal(heard(&h), "alloc 14M, alloc 12M");
	am_free(m, a);
	am_free(m, b);
	c = am_malloc(m, 11 * MiB, 0);          /* the smallest that holds it: 12 MiB */
	assert_int_equal(am_block_addr(c), am_block_addr(b));
	assert_int_equal(am_block_size(c), 12 * MiB);   /* 1 MiB would remain: not split */
	am_malloc(m, 11 * MiB, 1);              /* another stream never takes stream 0's */
	assert_string_equal(heard(&h), "alloc 12M");
	assert_int_equal(am_would_reuse(m, 13 * MiB, 0), 1);
	assert_int_equal(am_would_reuse(m, 13 * MiB, 1), 0);
	am_destroy(m);
}

static void oversize_blocks_with_max_split_size(void **state)
{
	struct heard h;
	struct am_model *m = model("max_split_size_mb:64", AM_UNLIMITED, &h);
	struct am_block *a, *b;
	(void)state;

	a = am_malloc(m, 100 * MiB, 0);
	am_free(m, a);
	b = am_malloc(m, 30 * MiB, 0);          /* under 64 MiB: an oversize block is not for it */
	assert_string_equal(heard(&h), "alloc 100M, alloc 30M");
	am_free(m, b);
	b = am_malloc(m, 90 * MiB, 0);          /* oversize, and less than 20 MiB larger: served */
	assert_string_equal(heard(&h), "");
	assert_int_equal(am_block_addr(b), am_block_addr(a));
	assert_int_equal(am_block_size(b), 100 * MiB);  /* never split */
	am_free(m, b);
	am_malloc(m, 70 * MiB, 0);              /* 30 MiB larger: a segment of its own */
	assert_string_equal(heard(&h), "alloc 70M");
	am_destroy(m);
}

/* ---- the way to an OOM ---- */

static void cache_released_and_retried_before_failing(void **state)
{
	struct heard h;
	struct am_model *m = model("", 100 * MiB, &h);
	struct am_block *a;
	(void)state;

	a = am_malloc(m, 60 * MiB, 0);
	am_free(m, a);
	assert_non_null(am_malloc(m, 80 * MiB, 0));   /* 60 + 80 > 100: free the cache, retry */
	assert_string_equal(heard(&h), "alloc 60M, free 60M, alloc 80M");
	assert_null(am_malloc(m, 30 * MiB, 0));       /* nothing cached to free: it fails */
	assert_string_equal(heard(&h), "");
	assert_int_equal(am_stats(m)->ooms, 1);
	assert_int_equal(am_stats(m)->first_failed_bytes, 30 * MiB);
	assert_int_equal(am_can_reserve(m, 20 * MiB), 1);
	assert_int_equal(am_can_reserve(m, 21 * MiB), 0);
	am_destroy(m);
}

static void max_split_size_releases_only_enough_oversize_blocks(void **state)
{
	struct heard h;
	struct am_model *m = model("max_split_size_mb:64", 300 * MiB, &h);
	struct am_block *a, *b, *c;
	(void)state;

	a = am_malloc(m, 100 * MiB, 0);
	b = am_malloc(m, 110 * MiB, 0);
	c = am_malloc(m, 30 * MiB, 0);
	am_free(m, a);
	am_free(m, b);
	am_free(m, c);
	assert_string_equal(heard(&h), "alloc 100M, alloc 110M, alloc 30M");
	/* 240 + 130 > 300: the smallest oversize block that covers 130 MiB would
	 * do; none does, so the largest ones go until 130 MiB are back */
	assert_non_null(am_malloc(m, 130 * MiB, 0));
	assert_string_equal(heard(&h), "free 110M, free 100M, alloc 130M");
	am_destroy(m);
}

static void garbage_collection_frees_old_cached_blocks(void **state)
{
	struct heard h;
	struct am_model *m;
	struct am_settings s;
	struct am_block *a, *b;
	char err[100];
	(void)state;

	am_settings_default(&s);
	assert_int_equal(am_settings_parse(&s, "garbage_collection_threshold:0.5", err,
					   sizeof(err)), 0);
	s.allowed = 100 * MiB;                  /* set_per_process_memory_fraction */
	h.text[0] = 0;
	m = am_new(&s, hear, &h);
	a = am_malloc(m, 30 * MiB, 0);
	b = am_malloc(m, 30 * MiB, 0);
	am_free(m, a);
	am_free(m, b);
	/* 60 MiB reserved is past half the allowed 100: collect before the new segment */
	assert_non_null(am_malloc(m, 40 * MiB, 0));
	assert_string_equal(heard(&h), "alloc 30M, alloc 30M, free 30M, free 30M, alloc 40M");
	am_destroy(m);
}

/* ---- expandable segments ---- */

static void expandable_segments_grow_in_pages(void **state)
{
	struct heard h;
	struct am_model *m = model("expandable_segments:True", AM_UNLIMITED, &h);
	struct am_block *a, *b, *c;
	(void)state;

	a = am_malloc(m, 5 * MiB, 0);           /* one 20 MiB page */
	b = am_malloc(m, 30 * MiB, 0);          /* the 15 MiB left and one more page */
	assert_string_equal(heard(&h), "map 20M, map 20M");
	assert_int_equal(am_block_addr(b), am_block_addr(a) + 5 * MiB);   /* no sliver left behind */
	c = am_malloc(m, 6 * MiB, 0);           /* 5 MiB free at the end: grow it by a page */
	assert_string_equal(heard(&h), "map 20M");
	assert_int_equal(am_block_addr(c), am_block_addr(b) + 30 * MiB);
	am_free(m, a);
	am_free(m, b);                          /* 35 MiB free from the start: one whole page */
	am_empty_cache(m);
	assert_string_equal(heard(&h), "unmap 20M");
	assert_int_equal(am_stats(m)->reserved, 40 * MiB);
	am_free(m, c);
	am_empty_cache(m);
	assert_string_equal(heard(&h), "unmap 40M");
	assert_int_equal(am_stats(m)->reserved, 0);
	/* a small request maps a 2 MiB page of the small pool's own segment */
	am_malloc(m, 4096, 0);
	assert_string_equal(heard(&h), "map 2M");
	am_destroy(m);
}

static void expandable_segments_under_capacity(void **state)
{
	struct heard h;
	struct am_model *m = model("expandable_segments:True", 60 * MiB, &h);
	struct am_block *a;
	(void)state;

	a = am_malloc(m, 45 * MiB, 0);          /* three pages */
	am_free(m, a);
	/* another stream grows its own segment: 60 mapped + 60 > 60, so the
	 * free pages of stream 0 are unmapped first */
	assert_non_null(am_malloc(m, 50 * MiB, 1));
	assert_string_equal(heard(&h), "map 60M, unmap 60M, map 60M");
	assert_null(am_malloc(m, 20 * MiB, 1)); /* 10 MiB free at the end, no page to map */
	assert_string_equal(heard(&h), "");
	assert_int_equal(am_stats(m)->ooms, 1);
	am_destroy(m);
}

/* ---- seeding and the bound ---- */

static void seeded_segments_keep_their_blocks(void **state)
{
	struct heard h;
	struct am_model *m = model("", AM_UNLIMITED, &h);
	struct am_range live[] = { { 0x10000000 + 5 * MiB, 5 * MiB, 5 * MiB } };
	struct am_block *out[1], *b;
	(void)state;

	assert_int_equal(am_seed_segment(m, 0x10000000, 20 * MiB, 0, 0, 0, live, 1, out), 0);
	assert_int_equal(am_block_addr(out[0]), 0x10000000 + 5 * MiB);
	b = am_malloc(m, 4 * MiB, 0);           /* the 5 MiB before it fits best */
	assert_int_equal(am_block_addr(b), 0x10000000);
	assert_string_equal(heard(&h), "");
	am_free(m, out[0]);
	am_free(m, b);
	am_empty_cache(m);
	assert_string_equal(heard(&h), "free 20M");
	/* a block outside its segment is refused */
	live[0].addr = 0x20000000 + 19 * MiB;
	assert_int_equal(am_seed_segment(m, 0x20000000, 20 * MiB, 0, 0, 0, live, 1, out), -1);
	am_destroy(m);
}

static void seeded_expandable_ranges_join_one_segment(void **state)
{
	struct heard h;
	struct am_model *m = model("expandable_segments:True", AM_UNLIMITED, &h);
	struct am_range live = { 0x40000000, 20 * MiB, 20 * MiB };
	struct am_block *out;
	(void)state;

	assert_int_equal(am_seed_segment(m, 0x40000000, 20 * MiB, 0, 0, 1, &live, 1, &out), 0);
	assert_int_equal(am_seed_segment(m, 0x40000000 + 60 * MiB, 40 * MiB, 0, 0, 1, NULL, 0, NULL), 0);
	assert_int_equal(am_stats(m)->reserved, 60 * MiB);
	/* the hole between them is unmapped: it is mapped first, at the lowest address */
	assert_int_equal(am_block_addr(am_malloc(m, 50 * MiB, 0)), 0x40000000 + 20 * MiB);
	assert_string_equal(heard(&h), "map 40M");
	am_destroy(m);
}

static void nothing_cached_bound(void **state)
{
	struct am_settings s;
	struct am_model *m;
	struct am_block *a;
	(void)state;

	am_settings_default(&s);
	s.no_cache = 1;
	s.capacity = 100 * MiB;
	m = am_new(&s, NULL, NULL);
	a = am_malloc(m, 60 * MiB, 0);
	am_free(m, a);
	assert_non_null(am_malloc(m, 90 * MiB, 0));
	assert_null(am_malloc(m, 20 * MiB, 0));
	assert_int_equal(am_stats(m)->peak_reserved, 90 * MiB);
	assert_int_equal(am_stats(m)->segment_allocs, 0);
	am_destroy(m);
}

/* ---- replaying traces ---- */

struct tr {
	struct wr_trace *t;
	int64_t seq;
};

static void ent(struct tr *tr, enum wr_action a, uint64_t addr, uint64_t size)
{
	struct wr_entry e = { a, addr, size, 0, 0, tr->seq++ };

	assert_int_equal(wr_add(tr->t, &e), 0);
}

static void oom_ent(struct tr *tr, uint64_t size, uint64_t device_free)
{
	struct wr_entry e = { WR_OOM, 0, size, device_free, 0, tr->seq++ };

	assert_int_equal(wr_add(tr->t, &e), 0);
}

static void run(struct tr *tr, struct wr_report *rep)
{
	struct wr_options o;
	char err[100];

	memset(&o, 0, sizeof(o));
	assert_int_equal(wr_run(tr->t, &o, rep, err, sizeof(err)), 0);
}

static const struct wr_result *scenario(const struct wr_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_res; i++)
		if (!strcmp(r->res[i].scenario, name))
			return &r->res[i];
	fail_msg("no scenario %s", name);
	return NULL;
}

/* The trace of frag_oom.p4.pickle: four 20 MiB segments each left with a
 * 5 MiB free tail by a 15 MiB tensor; a 20 MiB request fails with 15 MiB
 * free on the device. */
static void frag_trace(struct tr *tr)
{
	uint64_t a[4] = { 0x7f5000000000, 0x7f5010000000, 0x7f5020000000, 0x7f5030000000 };
	int i;

	for (i = 0; i < 4; i++) {
		ent(tr, WR_SEG_ALLOC, a[i], 20 * MiB);
		ent(tr, WR_ALLOC, a[i], 20 * MiB);
	}
	for (i = 0; i < 4; i++) {
		ent(tr, WR_FREE_REQUESTED, a[i], 20 * MiB);
		ent(tr, WR_FREE_COMPLETED, a[i], 20 * MiB);
	}
	for (i = 0; i < 4; i++)
		ent(tr, WR_ALLOC, a[i], 15 * MiB);
	oom_ent(tr, 20 * MiB, 15 * MiB);
}

static void replay_proves_the_model_then_answers(void **state)
{
	struct am_settings s;
	struct tr tr = { NULL, 0 };
	struct wr_report rep;
	const struct wr_result *r;
	(void)state;

	am_settings_default(&s);
	tr.t = wr_new(&s, 0);
	frag_trace(&tr);
	run(&tr, &rep);
	assert_int_equal(rep.capacity, 95 * MiB);   /* 80 MiB reserved at the oom + 15 free */
	assert_string_equal(rep.capacity_source, "oom");
	assert_int_equal(rep.agree.recorded_events, 4);
	assert_int_equal(rep.agree.matched_events, 4);
	assert_int_equal(rep.agree.model_events, 4);
	assert_int_equal(rep.agree.matched_bytes, 80 * MiB);
	assert_int_equal(rep.agree.matched_ooms, 1);
	r = scenario(&rep, "recorded");
	assert_int_equal(r->fits, 0);
	assert_int_equal(r->failed_bytes, 20 * MiB);
	assert_int_equal(r->failed_seq, 20);
	assert_int_equal(r->peak_reserved, 80 * MiB);
	/* grown in place, the freed 20 MiB at the end takes the request */
	r = scenario(&rep, "expandable_segments");
	assert_string_equal(r->setting, "expandable_segments:True");
	assert_int_equal(r->fits, 1);
	assert_int_equal(r->peak_reserved, 80 * MiB);
	/* 20 MiB segments are oversize: each 15 MiB gets a 16 MiB segment,
	 * freeing a cached 20 MiB one when the device is full; one is left
	 * for the last request */
	r = scenario(&rep, "max_split_size_mb");
	assert_string_equal(r->setting, "max_split_size_mb:20");
	assert_int_equal(r->fits, 1);
	assert_int_equal(r->peak_reserved, 92 * MiB);
	r = scenario(&rep, "empty_cache");
	assert_int_equal(r->fits, 1);
	assert_int_equal(r->peak_reserved, 80 * MiB);
	assert_int_equal(r->segments, -1);
	assert_int_equal(scenario(&rep, "baseline")->fits, 0);
	wr_free(tr.t);
}

static void replay_reads_release_runs(void **state)
{
	struct am_settings s;
	struct tr tr = { NULL, 0 };
	struct wr_report rep;
	const uint64_t A = 0x10000000, B = 0x20000000, C = 0x30000000, D = 0x40000000;
	(void)state;

	am_settings_default(&s);
	tr.t = wr_new(&s, 0);
	/* empty_cache(): both cached segments go, large pool first */
	ent(&tr, WR_SEG_ALLOC, A, 2 * MiB);
	ent(&tr, WR_ALLOC, A, 1000);
	ent(&tr, WR_SEG_ALLOC, B, 20 * MiB);
	ent(&tr, WR_ALLOC, B, 5 * MiB);
	ent(&tr, WR_FREE_COMPLETED, A, 1000);
	ent(&tr, WR_FREE_COMPLETED, B, 5 * MiB);
	ent(&tr, WR_SEG_FREE, B, 20 * MiB);
	ent(&tr, WR_SEG_FREE, A, 2 * MiB);
	ent(&tr, WR_SEG_ALLOC, C, 20 * MiB);
	ent(&tr, WR_ALLOC, C, 5 * MiB);
	/* pressure: a 60 MiB request needs the cached 20 MiB... the device
	 * gives 100 MiB (the oom at the end says so) */
	ent(&tr, WR_SEG_ALLOC, D, 60 * MiB);
	ent(&tr, WR_ALLOC, D, 60 * MiB);
	ent(&tr, WR_FREE_COMPLETED, C, 5 * MiB);
	ent(&tr, WR_SEG_FREE, C, 20 * MiB);
	ent(&tr, WR_SEG_ALLOC, C, 30 * MiB);
	ent(&tr, WR_ALLOC, C, 30 * MiB);
	oom_ent(&tr, 20 * MiB, 10 * MiB);
	run(&tr, &rep);
	assert_int_equal(rep.capacity, 100 * MiB);
	assert_int_equal(rep.agree.empty_cache_calls, 1);
	assert_int_equal(rep.agree.pressure_releases, 1);
	assert_int_equal(rep.agree.recorded_events, 8);
	assert_int_equal(rep.agree.matched_events, 8);
	assert_int_equal(rep.agree.model_events, 8);
	assert_int_equal(rep.agree.matched_ooms, 1);
	wr_free(tr.t);
}

static void replay_rebuilds_the_state_before_the_trace(void **state)
{
	struct am_settings s;
	struct tr tr = { NULL, 0 };
	struct wr_report rep;
	const uint64_t X = 0x10000000, Y = 0x20000000, Z = 0x30000000;
	struct wr_segment sx = { X, 20 * MiB, 0, 0, 0 }, sy = { Y, 18 * MiB, 0, 0, 0 };
	struct wr_block bx[] = { { X, 5 * MiB, 5 * MiB, 1 }, { X + 5 * MiB, 12 * MiB, 12 * MiB, 1 },
				 { X + 17 * MiB, 3 * MiB, 0, 0 } };
	struct wr_block by[] = { { Y, 18 * MiB, 18 * MiB, 1 } };
	(void)state;

	am_settings_default(&s);
	tr.t = wr_new(&s, 0);
	/* X existed before the trace with 5 MiB alive at X and 15 MiB at X + 5
	 * MiB (freed first thing); Z, 20 MiB, held 19.5 MiB (the block took
	 * the whole segment: 0.5 MiB left is never split off a large block) */
	ent(&tr, WR_FREE_COMPLETED, X + 5 * MiB, 15 * MiB);
	ent(&tr, WR_ALLOC, X + 5 * MiB, 12 * MiB);
	ent(&tr, WR_FREE_COMPLETED, Z, 19 * MiB + MiB / 2);
	ent(&tr, WR_SEG_FREE, Z, 20 * MiB);     /* empty_cache(): Z is whole again */
	ent(&tr, WR_SEG_ALLOC, Y, 18 * MiB);
	ent(&tr, WR_ALLOC, Y, 18 * MiB);
	assert_int_equal(wr_add_segment(tr.t, &sx, bx, 3), 0);
	assert_int_equal(wr_add_segment(tr.t, &sy, by, 1), 0);
	run(&tr, &rep);
	assert_int_equal(rep.agree.pre_segments, 2);     /* X and Z */
	assert_int_equal(rep.agree.pre_blocks, 3);
	assert_int_equal(rep.agree.uncovered_blocks, 0);
	assert_int_equal(rep.agree.recorded_events, 2);
	assert_int_equal(rep.agree.matched_events, 2);
	assert_int_equal(rep.agree.recorded_peak_reserved, 40 * MiB);   /* X and Z */
	assert_int_equal(scenario(&rep, "recorded")->peak_reserved, 40 * MiB);
	assert_int_equal(scenario(&rep, "recorded")->fits, -1);    /* no capacity known */
	wr_free(tr.t);
}

static void replay_takes_the_failed_request_of_a_log(void **state)
{
	struct am_settings s;
	struct tr tr = { NULL, 0 };
	struct wr_report rep;
	struct wr_options o;
	char err[100];
	(void)state;

	am_settings_default(&s);
	tr.t = wr_new(&s, 0);
	/* 60 MiB in use; a log says a 50 MiB request failed with 100 MiB
	 * reserved + free: it fails, and with nothing cached too */
	ent(&tr, WR_SEG_ALLOC, 0x10000000, 60 * MiB);
	ent(&tr, WR_ALLOC, 0x10000000, 60 * MiB);
	memset(&o, 0, sizeof(o));
	o.oom_size = 50 * MiB;
	o.oom_capacity = 100 * MiB;
	assert_int_equal(wr_run(tr.t, &o, &rep, err, sizeof(err)), 0);
	assert_string_equal(rep.capacity_source, "torch_oom");
	assert_int_equal(rep.capacity, 100 * MiB);
	assert_int_equal(scenario(&rep, "recorded")->fits, 0);
	assert_int_equal(scenario(&rep, "recorded")->failed_seq, 2);
	assert_int_equal(scenario(&rep, "empty_cache")->fits, 0);
	assert_int_equal(rep.agree.recorded_ooms, 0);   /* not the trace's */
	assert_int_equal(rep.agree.matched_ooms, 0);
	assert_int_equal(rep.agree.matched_events, 1);
	/* a trace is replayed once */
	assert_int_equal(wr_run(tr.t, &o, &rep, err, sizeof(err)), -1);
	assert_string_equal(err, "what-if replay: already run");
	wr_free(tr.t);
}

/* ---- the rule on snapshots ---- */

static void whatif_rule_on_a_fragmented_oom(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/whatif/frag_oom.p4.pickle"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM whatif"), 5);
	assert_int_equal(t_int(tl, "SELECT matched_segment_events FROM whatif WHERE scenario ="
			       " 'recorded'"), 4);
	assert_int_equal(t_int(tl, "SELECT recorded_segment_events FROM whatif WHERE scenario ="
			       " 'recorded'"), 4);
	assert_int_equal(t_int(tl, "SELECT capacity_bytes FROM whatif WHERE scenario = 'recorded'"),
			 95 * MiB);
	assert_string_equal(t_text(tl, "SELECT capacity_source FROM whatif LIMIT 1"), "oom");
	assert_int_equal(t_int(tl, "SELECT fits FROM whatif WHERE scenario = 'recorded'"), 0);
	assert_int_equal(t_int(tl, "SELECT failed_bytes FROM whatif WHERE scenario = 'recorded'"),
			 20 * MiB);
	assert_int_equal(t_int(tl, "SELECT fits FROM whatif WHERE scenario = 'expandable_segments'"), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(details, '$.ooms_reproduced') FROM whatif"
			       " WHERE scenario = 'recorded'"), 1);
	/* the fragmentation finding quotes it */
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.whatif_expandable_fits') FROM"
			       " finding WHERE cause = 'fragmentation'"), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.whatif_max_split_size_mb') FROM"
			       " finding WHERE cause = 'fragmentation'"), 20);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.whatif_matched_segment_events')"
			       " FROM finding WHERE cause = 'fragmentation'"), 4);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'fragmentation'"),
			       "with expandable_segments:True it fits, peak reserved 80.0 MiB (as"
			       " recorded)"));
	/* analysing again replaces the rows */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM whatif"), 5);
	t_close(tl);
}

static void whatif_rule_reads_empty_cache(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/whatif/empty_cache.p4.pickle"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT matched_segment_events FROM whatif WHERE scenario ="
			       " 'recorded'"), 5);
	assert_int_equal(t_int(tl, "SELECT model_segment_events FROM whatif WHERE scenario ="
			       " 'recorded'"), 5);
	assert_int_equal(t_int(tl, "SELECT json_extract(details, '$.empty_cache_calls') FROM whatif"
			       " WHERE scenario = 'recorded'"), 1);
	/* no capacity is known: fits unknown, nothing estimated */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM whatif WHERE fits IS NOT NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM whatif WHERE capacity_bytes IS NOT NULL"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rounding_follows_the_allocator),
		cmocka_unit_test(settings_parse_like_pytorch),
		cmocka_unit_test(small_requests_share_2mib_segments),
		cmocka_unit_test(large_requests_split_20mib_segments),
		cmocka_unit_test(frees_coalesce_and_empty_cache_frees_whole_segments),
		cmocka_unit_test(best_fit_and_streams),
		cmocka_unit_test(oversize_blocks_with_max_split_size),
		cmocka_unit_test(cache_released_and_retried_before_failing),
		cmocka_unit_test(max_split_size_releases_only_enough_oversize_blocks),
		cmocka_unit_test(garbage_collection_frees_old_cached_blocks),
		cmocka_unit_test(expandable_segments_grow_in_pages),
		cmocka_unit_test(expandable_segments_under_capacity),
		cmocka_unit_test(seeded_segments_keep_their_blocks),
		cmocka_unit_test(seeded_expandable_ranges_join_one_segment),
		cmocka_unit_test(nothing_cached_bound),
		cmocka_unit_test(replay_proves_the_model_then_answers),
		cmocka_unit_test(replay_reads_release_runs),
		cmocka_unit_test(replay_rebuilds_the_state_before_the_trace),
		cmocka_unit_test(replay_takes_the_failed_request_of_a_log),
		cmocka_unit_test(whatif_rule_on_a_fragmented_oom),
		cmocka_unit_test(whatif_rule_reads_empty_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
