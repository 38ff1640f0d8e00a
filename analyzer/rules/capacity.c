/*
 * capacity.c -- who held the card when PyTorch ran out of memory, from
 * its message (struct rl_card, card.c) and the memory history before it
 * (history.c). One finding per cause, so the verdict (and later rules)
 * can weigh them against each other:
 *
 *  - request_exceeds_card: the allocation alone is larger than the card
 *    (or the allowed memory fraction): nothing but a smaller step helps;
 *  - other_process: other processes held a quarter of the card or more
 *    and without them this process would have fitted;
 *  - non_pytorch: this process held a fifth of the card or more outside
 *    PyTorch's allocator (beyond what a CUDA context takes);
 *  - capacity: the live tensors and the request took 90% or more of what
 *    the allocator could reach: the workload does not fit. From one
 *    message this is the likeliest reading, not a proof (a leak or a
 *    spike fills a card too): scores stay at or below RL_LONE_MAX_SCORE
 *    unless a memory series shows the level held steady; at most
 *    CAP_ENGINE_SCORE when the serving engine's accounting is in the
 *    timeline (the headroom and limits rules say which part of the
 *    configuration does not fit). A serving OOM from one message with no
 *    load figure is a reading only (serving_lone()).
 *
 * When none applies, a reading of the card (class "reading", below the
 * verdict's threshold) says what the message shows and what would settle
 * it. The fragmentation cause is fragmentation.c's.
 */
#include "analyzer/rules/engine_facts.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/loadrow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CAP_MIN_FILL 0.90           /* (allocated + request) / reachable */
#define CAP_FULL_FILL 0.95
#define CAP_ENGINE_SCORE 0.6        /* at most, next to the engine's own accounting */
#define CAP_SERVING_LONE 0.25       /* a reading: below VERDICT_MIN_SCORE */
#define NONPT_MIN_SHARE 0.20
#define NONPT_MIN_BYTES (2 * GIB)
#define SETTLE "A memory series before the OOM (nvidia-smi --query-gpu=memory.used" \
	" --format=csv -l 1, DCGM, or a snapshot with history) would tell a workload" \
	" that never fitted from a leak or a spike."
/* the same on another accelerator, whose monitors are its own */
#define SETTLE_ACCEL "A memory series before the OOM (the device's own monitor sampled" \
	" every second: xpu-smi on Intel, npu-smi on Ascend, hl-smi on Gaudi; or a snapshot" \
	" with history) would tell a workload that never fitted from a leak or a spike."

/* The card's figures, shared by every finding of this rule. */
static void card_figures(struct rl_finding *f, const struct rl_card *k)
{
	rl_fig(f, "total_bytes", k->total);
	if (k->limit < k->total)
		rl_fig(f, "allowed_bytes", k->limit);
	if (k->req >= 0)
		rl_fig(f, "requested_bytes", k->req);
	if (k->alloc >= 0)
		rl_fig(f, "allocated_bytes", k->alloc);
	if (k->reserved >= 0)
		rl_fig(f, "reserved_bytes", k->reserved);
	if (k->unalloc >= 0)
		rl_fig(f, "reserved_unallocated_bytes", k->unalloc);
	if (k->free >= 0)
		rl_fig(f, "free_bytes", k->free);
	if (k->non_pytorch >= 0)
		rl_fig(f, "non_pytorch_bytes", k->non_pytorch);
	if (k->listed)
		rl_fig(f, "other_processes_bytes", k->others);
	if (k->outside >= 0)
		rl_fig(f, "outside_bytes", k->outside);
	if (k->oversubscribed)
		rl_fig(f, "oversubscribed", 1);
	if (k->self_unseen)
		rl_fig(f, "process_unseen", 1);
	/* no reserve stated (cudaMallocAsync's message, a cut one): outside
	 * then holds PyTorch's own cache too */
	if (k->reserved < 0 && k->outside >= 0)
		rl_fig(f, "reserve_unstated", 1);
}

/* Write f with the torch_oom event as evidence (and the history series
 * when one was read); 1, or -1. */
static int write(struct rule_ctx *c, struct rl_finding *f, const struct rl_card *k,
		 const struct rl_history *h)
{
	int64_t fid;

	if (k->self_unseen)
		rl_advice(f, "The message says this process has 0 bytes in use although PyTorch"
			  " holds memory: the driver (NVML) does not see the process, as inside a"
			  " container, so what it used outside PyTorch cannot be attributed: not 0,"
			  " and not another tenant's on that word alone.");
	fid = rl_finding_write(c, f);
	if (fid < 0 || rl_evidence(c, fid, "event", k->ev, "PyTorch's out-of-memory message") < 0)
		return -1;
	if (h && h->have && rl_evidence(c, fid, "series", h->series_id, "memory before the OOM") < 0)
		return -1;
	return 1;
}

/* The request alone is larger than what the card gives this process. */
static int request_exceeds_card(struct rule_ctx *c, const struct rl_card *k)
{
	struct rl_finding f;
	char b1[32], b2[32];

	rl_finding_init(&f, "capacity", "misconfig", "request_exceeds_card");
	/* the message proves it, unless its figures are not one card's */
	f.score = k->oversubscribed ? 0.5 : 0.85;
	card_figures(&f, k);
	rl_fig(&f, "request_over_card_ratio", k->req / k->limit);
	snprintf(f.title, sizeof(f.title), "One allocation of %s is larger than %s (%s)",
		 rl_bytes(k->req, b1, sizeof(b1)), k->limit < k->total ?
		 "what this process may use" : "the whole card", rl_bytes(k->limit, b2, sizeof(b2)));
	rl_advice(&f, "No allocator setting and no other tenant leaving makes room for it: the"
		  " step must ask for less (a batch, image or sequence at most %.0f%% of this one"
		  " if the tensor scales with it; chunked attention, tiled VAE decoding), run on"
		  " a card of at least %s, or run that step on the CPU.",
		  floor(100 * 0.9 * k->limit / k->req), rl_bytes(ceil(k->req / 0.9 / GIB) * GIB,
								 b1, sizeof(b1)));
	rl_advice(&f, "A request this large is often a mistake upstream: check the shape that"
		  " reached the failing line (batch x sequence x hidden size).");
	if (k->oversubscribed)
		rl_advice(&f, "PyTorch counted %s allocated on this %s card: the driver lends it"
			  " system memory (Windows WDDM), so these figures are not the card's alone.",
			  rl_bytes(k->alloc, b1, sizeof(b1)), rl_bytes(k->total, b2, sizeof(b2)));
	return write(c, &f, k, NULL);
}

/* The process's need, its own overhead included, fits the card alone. */

/* Other processes (or, when the message cannot tell, memory outside this
 * process's PyTorch) held a quarter of the card. 1, 0 none, -1. */
static int other_process(struct rule_ctx *c, const struct rl_card *k)
{
	double share = k->outside / k->total, s;
	struct rl_finding f;
	char b1[32], b2[32], b3[32], b4[32];

	if (!rl_card_crowded_out(k))
		return 0;
	s = rl_clamp01((share - RL_OTHER_MIN_SHARE) / 0.35);
	rl_finding_init(&f, "capacity", "misconfig", "other_process");
	f.score = k->outside_proven ? 0.55 + 0.35 * s : 0.5 + 0.15 * s;
	card_figures(&f, k);
	rl_fig(&f, "outside_share", share);
	if (k->top_pid != OL_NULL) {
		rl_fig(&f, "largest_other_pid", (double)k->top_pid);
		rl_fig(&f, "largest_other_bytes", k->top_bytes);
	}
	if (k->outside_proven)
		snprintf(f.title, sizeof(f.title), "Other processes held %s (%.0f%%) of the %s card"
			 " (pid %lld: %s); this process had %s", rl_bytes(k->outside, b1, sizeof(b1)),
			 100 * share, rl_bytes(k->total, b2, sizeof(b2)), (long long)k->top_pid,
			 rl_bytes(k->top_bytes, b3, sizeof(b3)), rl_bytes(k->self, b4, sizeof(b4)));
	else
		snprintf(f.title, sizeof(f.title), "%s (%.0f%%) of the %s card was held outside this"
			 " process's PyTorch allocator: most likely another process",
			 rl_bytes(k->outside, b1, sizeof(b1)), 100 * share,
			 rl_bytes(k->total, b2, sizeof(b2)));
	rl_advice(&f, "On the card alone this process needed %s (live tensors and the request)"
		  " and would have fitted: give it a card of its own (CUDA_VISIBLE_DEVICES, a"
		  " scheduler's exclusive GPU), or stop what else runs there.",
		  rl_bytes(k->need, b1, sizeof(b1)));
	if (!k->outside_proven)
		rl_advice(&f, "The message does not say whose memory it was%s: memory this process"
			  " allocated outside PyTorch (NCCL, another framework) would look the same."
			  " nvidia-smi --query-compute-apps=pid,used_memory at the time would settle it.",
			  k->reserved < 0 ? ", and not how much PyTorch kept cached" : "");
	return write(c, &f, k, NULL);
}

/* This process held a fifth of the card outside PyTorch. 1, 0, -1. */
static int non_pytorch(struct rule_ctx *c, const struct rl_card *k)
{
	double share = k->non_pytorch / k->total;
	struct rl_finding f;
	char b1[32], b2[32], b3[32];

	if (k->non_pytorch < NONPT_MIN_BYTES || share < NONPT_MIN_SHARE ||
	    k->need < 0 || k->need + RL_CTX_GUESS + k->others > k->limit)
		return 0;
	rl_finding_init(&f, "capacity", "misconfig", "non_pytorch");
	f.score = 0.55 + 0.35 * rl_clamp01((share - NONPT_MIN_SHARE) / 0.3);
	card_figures(&f, k);
	rl_fig(&f, "non_pytorch_share", share);
	snprintf(f.title, sizeof(f.title), "This process held %s (%.0f%% of the %s card) outside"
		 " PyTorch's allocator, next to %s reserved by PyTorch",
		 rl_bytes(k->non_pytorch, b1, sizeof(b1)), 100 * share,
		 rl_bytes(k->total, b2, sizeof(b2)), rl_bytes(k->reserved, b3, sizeof(b3)));
	rl_advice(&f, "A CUDA context and the cuBLAS/cuDNN workspaces take well under 1 GiB;"
		  " the rest was allocated by something else in the process: NCCL buffers"
		  " (NCCL_BUFFSIZE, NCCL_NVLS_ENABLE=0), another framework (TensorFlow, JAX:"
		  " XLA_PYTHON_CLIENT_PREALLOCATE=false), CUDA graphs or extensions calling"
		  " cudaMalloc directly. Without it the %s this step needed would have fitted.",
		  rl_bytes(k->need, b1, sizeof(b1)));
	return write(c, &f, k, NULL);
}

/* The serving engine's own memory accounting is in the timeline: the
 * rules that read it (headroom, limits) name which part of the
 * configuration does not fit, more precisely than a full card does. */
static int engine_accounting(struct rule_ctx *c)
{
	double v;

	return rl_run_meta_num(c, "server.gpu_memory_utilization", &v) == 0 ||
	       rl_run_meta_num(c, "server.kv_cache_bytes", &v) == 0;
}

/* How far the capacity finding goes: the fill alone, then the other
 * causes and the history. */
static double capacity_score(struct rule_ctx *c, const struct rl_card *k,
			     const struct rl_history *h, int holder, double fill)
{
	double s = fill > 1 ? RL_LONE_MAX_SCORE : fill >= CAP_FULL_FILL ? 0.6 : 0.5;

	if ((holder && rl_card_fits_alone(k)) || (rl_card_frag_real(k) == 1 && rl_card_frag_holds(k)))
		s = 0.4;   /* another cause explains it; the card was full even so */
	if (k->oversubscribed && s > 0.5)
		s = 0.5;
	if (h->have && (h->grew || h->surged) && s > 0.4)
		s = 0.4;   /* the leak and spike rules name what filled it */
	else if (h->have && h->steady && s >= 0.6 && !k->oversubscribed)
		s = 0.8;   /* steady, then full: it never fitted */
	if (s > CAP_ENGINE_SCORE && engine_accounting(c))
		s = CAP_ENGINE_SCORE;
	return s;
}

/* 1 when the derived load at the failure (oom_load: the engine's running
 * requests, TGI's batch{batch_size=N}) is one request or none: advice
 * must not ask for fewer concurrent requests then. */
static int one_running(struct rule_ctx *c)
{
	struct load_row r;

	return load_row_read(c, &r) == 1 && !strcmp(r.doing, "serving") && r.running <= 1;
}

/* The advice of the capacity finding: what to change, with numbers. */
static void capacity_advice(struct rule_ctx *c, struct rl_finding *f, const struct rl_card *k,
			    const struct rl_history *h)
{
	double own = k->non_pytorch >= 0 ? k->non_pytorch : RL_CTX_GUESS, cut = k->need - 0.9 * k->room;
	double card = ceil((k->need + own) / 0.9 / GIB) * GIB;   /* alone, 10% to spare */
	double v;
	char b1[32], b2[32], b3[32], how[400];
	int accel = rl_oom_platform(c) == RL_PLAT_ACCEL;

	rl_fig(f, "suggested_card_bytes", card);
	if (cut > 0)
		rl_fig(f, "cut_bytes", ceil(cut));
	/* a serving engine is told its own flags and no training remedy; a
	 * training or evaluation step no serving flag; a lone OOM that
	 * names neither both, each said for whom it is */
	int training = rl_num(c, &v, "SELECT 1 FROM oom WHERE id = 1 AND phase IN"
			      " ('training_step', 'eval') LIMIT 1") == 0;
	if (rl_engine_kind(c) == ENGINE_NONE && !training)
		snprintf(how, sizeof(how), "a smaller batch or shorter sequences (served by %s: %s,"
			 " %s); quantised weights (8-bit halves 16-bit weights, 4-bit quarters them);"
			 " in training, CPU offload of weights or optimizer state and activation"
			 " checkpointing", rl_engine_title(c), rl_flag(c, KR_MAX_SEQS),
			 rl_flag(c, KR_MAX_LEN));
	else if (rl_engine_kind(c) != ENGINE_NONE && one_running(c))
		snprintf(how, sizeof(how), "shorter sequences (one request was running when it"
			 " failed, so a lower concurrency would not help: %s %s);"
			 " quantised weights (8-bit halves 16-bit weights, 4-bit quarters them)",
			 rl_engine_title(c), rl_flag(c, KR_MAX_LEN));
	else if (rl_engine_kind(c) != ENGINE_NONE)
		snprintf(how, sizeof(how), "fewer concurrent requests or shorter sequences (%s %s,"
			 " %s); quantised weights (8-bit halves 16-bit weights, 4-bit quarters them)",
			 rl_engine_title(c), rl_flag(c, KR_MAX_SEQS), rl_flag(c, KR_MAX_LEN));
	else
		snprintf(how, sizeof(how), "a smaller batch or shorter sequences; quantised weights"
			 " (8-bit halves 16-bit weights, 4-bit quarters them); CPU offload of weights"
			 " or optimizer state; activation checkpointing");
	rl_advice(f, "Shrink what one step holds by at least %s (to %s, leaving 10%% of the reach"
		  " free): %s. Or a card of at least %s.", rl_bytes(cut > 0 ? cut : 0, b1, sizeof(b1)),
		  rl_bytes(0.9 * k->room, b2, sizeof(b2)), how, rl_bytes(card, b3, sizeof(b3)));
	/* the CUDA caching allocator's setting and NVIDIA's monitor are not
	 * another accelerator's (an Intel XPU's, round 7: torch-xpu-ops
	 * #5046), as fragmentation.c's expandable_advice() says */
	if (k->unalloc >= 0 && !accel)
		rl_advice(f, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True would give back at"
			  " most the %s reserved but unallocated (%.1f%% of the card): %s.",
			  rl_bytes(k->unalloc, b1, sizeof(b1)), 100 * k->unalloc / k->total,
			  rl_card_frag_real(k) == 1 ? "worth having, not enough" : "not a fix");
	if (!h->have)
		rl_advice(f, accel ? SETTLE_ACCEL : SETTLE);
}

/* 1 when the OOM came while serving requests (the oom row's phase) and
 * the files hold neither a memory series nor the engine's load at the
 * failure: the service was past its start-up, and a leak, a spike of
 * load and a workload that never fitted leave the same full card in one
 * message. The capacity finding is then a reading, not a verdict: of
 * the tuning set's serving OOMs it named misconfig, the threads
 * establish no cause in 8, a leak in 1, a spike in 1, never a
 * misconfiguration (tests/data/real/any_stack, w-spent6c). */
static int serving_lone(struct rule_ctx *c, const struct rl_history *h)
{
	struct load_row r;
	double v;

	if (h->have)
		return 0;
	if (rl_num(c, &v, "SELECT 1 FROM oom WHERE id = 1 AND phase = 'serving' LIMIT 1") != 0)
		return 0;
	/* a load figure at the failure: the load rules weigh it */
	return !(load_row_read(c, &r) == 1 && !strcmp(r.doing, "serving"));
}

/* The card full of live tensors. 1, 0, -1. */
static int capacity(struct rule_ctx *c, const struct rl_card *k, const struct rl_history *h,
		    int holder)
{
	double fill;
	struct rl_finding f;
	char b1[32], b2[32], b3[32], b4[32], b5[32], hist[160];

	if (k->room <= 0 || k->need < 0)
		return 0;
	fill = k->need / k->room;
	if (fill < CAP_MIN_FILL)
		return 0;
	rl_finding_init(&f, "capacity", "misconfig", "capacity");
	f.score = capacity_score(c, k, h, holder, fill);
	card_figures(&f, k);
	rl_fig(&f, "needed_bytes", k->need);
	rl_fig(&f, "reachable_bytes", k->room);
	rl_fig(&f, "fill_ratio", fill);
	if (k->need > k->room)
		rl_fig(&f, "shortfall_bytes", k->need - k->room);
	snprintf(f.title, sizeof(f.title), "The card was full of live tensors: %s allocated + %s"
		 " asked = %s, against %s within reach (%s) of a %s card",
		 rl_bytes(k->alloc, b1, sizeof(b1)), rl_bytes(k->req, b2, sizeof(b2)),
		 rl_bytes(k->need, b3, sizeof(b3)), rl_bytes(k->room, b4, sizeof(b4)),
		 k->room_bound ? "at most, no reserve stated"
		 : "reserved + free", rl_bytes(k->total, b5, sizeof(b5)));
	if (k->room_bound)
		rl_fig(&f, "reach_upper_bound", 1);
	capacity_advice(c, &f, k, h);
	if (serving_lone(c, h)) {
		/* the likeliest reading, with what settles it (capacity_advice's
		 * SETTLE line), below the verdict's threshold */
		f.class_ = "reading";
		f.score = CAP_SERVING_LONE;
		rl_advice(&f, "The OOM came while serving requests, past the start-up: from this"
			  " one message a leak, a spike of load and a workload that never fitted"
			  " read alike, so no cause is named.");
	}
	if (h->have)
		rl_advice(&f, "History: %s.", rl_history_text(h, hist, sizeof(hist)));
	return write(c, &f, k, h);
}

/* A per-process cap below the card ran out: reserved + request passed
 * it while the card had memory free (capped.c). The message proves it;
 * below the start-up rule's phase finding, which names the phase and
 * gives the same cap advice. 1, -1. */
#define CAP_REACHED_SCORE 0.75
static int cap_reached(struct rule_ctx *c, const struct rl_card *k)
{
	struct rl_finding f;
	char b1[32], b2[32], b3[32], b4[32], b5[32];

	rl_finding_init(&f, "capacity", "misconfig", "memory_fraction_cap");
	f.score = k->oversubscribed ? 0.5 : CAP_REACHED_SCORE;
	card_figures(&f, k);
	snprintf(f.title, sizeof(f.title), "The per-process cap of %s was reached: PyTorch had"
		 " reserved %s and asked %s more, though the %s card had %s free",
		 rl_bytes(k->limit, b1, sizeof(b1)), rl_bytes(k->reserved, b2, sizeof(b2)),
		 rl_bytes(k->req, b3, sizeof(b3)), rl_bytes(k->total, b4, sizeof(b4)),
		 rl_bytes(k->free, b5, sizeof(b5)));
	rl_cap_explain(&f, k);
	return write(c, &f, k, NULL);
}

/* No cause stands out: what the card showed, below the verdict's
 * threshold. */
static int reading(struct rule_ctx *c, const struct rl_card *k)
{
	struct rl_finding f;
	char b1[32], b2[32];

	rl_finding_init(&f, "capacity", "reading", "card_at_oom");
	f.score = 0.2;
	card_figures(&f, k);
	if (k->free_held)
		snprintf(f.title, sizeof(f.title), "PyTorch's message does not explain this OOM: %s"
			 " was free on the card, more than the %s it asked for",
			 rl_bytes(k->free, b1, sizeof(b1)), rl_bytes(k->req, b2, sizeof(b2)));
	else if (k->alloc < 0 && k->total > 0)   /* no allocated figure stated */
		snprintf(f.title, sizeof(f.title), "The card at the OOM: %s in all; the message"
			 " states no allocated figure, and no cause stands out in it",
			 rl_bytes(k->total, b2, sizeof(b2)));
	else if (k->alloc < 0 || k->total <= 0)
		snprintf(f.title, sizeof(f.title), "The OOM's message states %s; no cause stands"
			 " out in it", k->alloc < 0 && k->total <= 0 ? "neither the card's size nor"
			 " what was allocated" : "no card size");
	else
		snprintf(f.title, sizeof(f.title), "The card at the OOM: %s allocated of %s; no cause"
			 " stands out in the message", rl_bytes(k->alloc, b1, sizeof(b1)),
			 rl_bytes(k->total, b2, sizeof(b2)));
	if (rl_oom_platform(c) == RL_PLAT_ACCEL)
		rl_advice(&f, "Memory may have been taken between PyTorch's attempt and its report"
			  " (another process), or a limit outside PyTorch applied. Per-process"
			  " device memory over time from the device's own monitor (xpu-smi on"
			  " Intel, npu-smi on Ascend, hl-smi on Gaudi) would settle it.");
	else
		rl_advice(&f, "Memory may have been taken between PyTorch's attempt and its report"
			  " (another process), or a limit outside PyTorch applied (a MIG slice, MPS,"
			  " a container's GPU memory limit). Per-process GPU memory over time"
			  " (nvidia-smi --query-compute-apps, DCGM) would settle it.");
	return write(c, &f, k, NULL);
}

int rule_capacity(struct rule_ctx *c)
{
	struct rl_card k;
	struct rl_history h;
	int r = rl_card_read(c, &k), n = 0, holder = 0;

	if (r <= 0)
		return r;
	if (k.req > k.limit)
		return request_exceeds_card(c, &k);
	if (k.capped)
		return cap_reached(c, &k);
	if (k.free_held)
		return reading(c, &k);
	if (rl_history(c, RL_SCOPE_GPU, k.total, &h) < 0)
		return -1;
	if ((r = other_process(c, &k)) < 0)
		return -1;
	holder |= r, n += r;
	if ((r = non_pytorch(c, &k)) < 0)
		return -1;
	holder |= r, n += r;
	if ((r = capacity(c, &k, &h, holder)) < 0)
		return -1;
	n += r;
	if (n || (rl_card_frag_real(&k) == 1 && rl_card_frag_holds(&k)))
		return n;   /* fragmentation.c names the cache that held it */
	return reading(c, &k);
}
