/*
 * test_rules_card.c -- who held the card at a PyTorch OOM (capacity.c,
 * card.c, fragmentation.c, history.c): timelines made of one torch_oom
 * event with the fields PyTorch's message gives (docs/json.md), written
 * through the sink as the server-log parser writes them, and memory
 * series for the history. Each threshold has a case just inside and one
 * just outside; every case keys on figures, never on names.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define T0 1795953600LL   /* 2026-11-29T12:00:00Z */
#define NS 1000000000LL
#define U -1.0            /* a field the message does not state */

/* The figures of one message; U where it does not say. */
struct msg {
	double req, total, free, alloc, reserved, unalloc, in_use, allowed;
	const char *wording;
	int64_t pid;
	int nproc;
	int64_t proc_pid[3];
	double proc_bytes[3];
};

static void begin(struct timeline *tl)
{
	assert_true(timeline_artifact_begin(tl, "synthetic", "synthetic", 0, 0) > 0);
}

static void end(struct timeline *tl)
{
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
}

static void put(json_t *d, const char *k, double v)
{
	if (v >= 0)
		json_object_set_new(d, k, json_integer((json_int_t)v));
}

/* The torch_oom event of m at T0 + at seconds. */
static void oom_msg(struct timeline *tl, double at, const struct msg *m)
{
	struct ol_event e = { "torch_oom", { OL_CLOCK_UTC, (T0 + (int64_t)at) * NS, OL_NULL, NULL },
			      m->pid ? m->pid : OL_NULL, NULL, (int64_t)m->req, 1,
			      "CUDA out of memory", NULL };
	json_t *procs = json_array();
	int i;

	e.data = json_object();
	put(e.data, "requested_bytes", m->req);
	put(e.data, "total_bytes", m->total);
	put(e.data, "free_bytes", m->free);
	put(e.data, "allocated_bytes", m->alloc);
	put(e.data, "reserved_bytes", m->reserved);
	put(e.data, "reserved_unallocated_bytes", m->unalloc);
	put(e.data, "process_in_use_bytes", m->in_use);
	put(e.data, "allowed_bytes", m->allowed);
	for (i = 0; i < m->nproc; i++)
		json_array_append_new(procs, json_pack("{s:I, s:I}", "pid", (json_int_t)m->proc_pid[i],
						       "bytes", (json_int_t)m->proc_bytes[i]));
	json_object_set_new(e.data, "processes", procs);
	json_object_set_new(e.data, "wording", json_string(m->wording ? m->wording :
							     "total_capacity_of_which"));
	begin(tl);
	assert_true(sink_event(&tl->sink, &e) > 0);
	end(tl);
	json_decref(e.data);
}

/* A 2.1+ message on a card of total GiB: alloc live, unalloc cached, free
 * free, this process in_use (PyTorch's reserve + ctx). Sizes in GiB. */
static struct msg card(double total, double req, double alloc, double unalloc, double free,
		       double ctx)
{
	struct msg m = { req * GIB, total * GIB, free * GIB, alloc * GIB, (alloc + unalloc) * GIB,
			 unalloc * GIB, (alloc + unalloc + ctx) * GIB, U, NULL, 0, 0, { 0 }, { 0 } };
	return m;
}

static struct timeline *analyzed(const struct msg *m)
{
	struct timeline *tl = t_open();

	oom_msg(tl, 100, m);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static double score(struct timeline *tl, const char *cause)
{
	return t_real(tl, "SELECT coalesce(max(score), 0) FROM finding WHERE cause = '%s'", cause);
}

static double figure(struct timeline *tl, const char *cause, const char *key)
{
	return t_real(tl, "SELECT json_extract(figures, '$.%s') FROM finding WHERE cause = '%s'"
		      " ORDER BY score DESC LIMIT 1", key, cause);
}

static const char *verdict_cause(struct timeline *tl)
{
	return t_text(tl, "SELECT coalesce(cause, class) FROM verdict");
}

static double confidence(struct timeline *tl)
{
	return t_real(tl, "SELECT confidence FROM verdict");
}

/* ---- capacity: (allocated + request) / (reserved + free) >= 0.9 ---- */

static void capacity_fill_threshold(void **state)
{
	struct timeline *tl;
	struct msg m;
	(void)state;

	/* 80 GiB card, 0.5 GiB context: reach = 79.5 - 0 outside; fill 0.91 */
	m = card(80, 1.0, 71.3, 1.0, 7.2, 0.5);   /* need 72.3 / reach 79.5 = 0.909 */
	m.free = 7.2 * GIB;
	tl = analyzed(&m);
	/* 7.2 GiB free is more than the 1 GiB asked: not explained */
	assert_float_equal(score(tl, "capacity"), 0, 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'card_at_oom'"), 1);
	t_close(tl);

	/* a request larger than the free memory: fill 0.91 inside, 0.89 outside */
	m = card(80, 8.0, 64.0, 1.0, 6.3, 0.5);   /* (64 + 8) / (65 + 6.3) = 1.01 */
	tl = analyzed(&m);
	assert_float_equal(score(tl, "capacity"), RL_LONE_MAX_SCORE, 1e-9);
	assert_string_equal(verdict_cause(tl), "capacity");
	assert_true(confidence(tl) < 0.7);   /* one message: likely, not proven */
	assert_true(figure(tl, "capacity", "shortfall_bytes") > 0);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'capacity'"),
			       "would tell a workload that never fitted from a leak or a spike"));
	t_close(tl);

	m = card(80, 8.0, 57.0, 1.0, 7.9, 0.5);   /* 65 / (58 + 7.9) = 0.986 */
	tl = analyzed(&m);
	assert_float_equal(score(tl, "capacity"), 0.6, 1e-9);
	t_close(tl);

	/* between 0.90 and 0.95 with the request above the free memory takes a
	 * small card with a big share outside PyTorch (a 1 GiB card:
	 * context and display): (390 + 24) / (430 + 20) = 0.92 */
	m = card(1, 24 / 1024., 390 / 1024., 40 / 1024., 20 / 1024., 0);
	m.in_use = U;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "capacity"), 0.5, 1e-9);
	t_close(tl);

	m = card(1, 24 / 1024., 267 / 1024., 40 / 1024., 20 / 1024., 0);   /* 291 / 327 = 0.89 */
	m.in_use = U;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "capacity"), 0, 0);
	/* no figure decides: the message alone, the class inferred from the
	 * phase at a low confidence (phase_inferred.c, round 14) */
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "phase_inferred");
	assert_string_equal(t_text(tl, "SELECT basis FROM verdict"), "phase");
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'card_at_oom'"), 1);
	t_close(tl);
}

/* ---- a message cut before its allocated figure ---- */

/* PyTorch 2.1+'s message cut after "of which F is free." (a pasted first
 * line): the card's size and free memory, nothing allocated. The reading
 * says what the message lacks instead of printing the unset figure. */
static void unstated_allocated_is_said(void **state)
{
	struct msg m = { 2.0 * GIB, 79.15 * GIB, 1.5 * GIB, U, U, U, U, U, NULL, 0, 0, { 0 }, { 0 } };
	struct timeline *tl;
	const char *title;
	(void)state;

	tl = analyzed(&m);
	title = t_text(tl, "SELECT title FROM finding WHERE cause = 'card_at_oom'");
	assert_non_null(strstr(title, "states no allocated figure"));
	assert_null(strstr(title, "-1 B"));
	t_close(tl);
}

/* ---- free memory within the driver's slack does not hold the request ---- */

static void free_slack_threshold(void **state)
{
	struct timeline *tl;
	struct msg m;
	(void)state;

	/* 24 GiB card, 1 GiB asked: slack max(64 MiB + 2%, 2% of the card) = 491.5 MiB */
	m = card(24, 1.0, 21.0, 0.2, 1.0 + 480.0 / 1024, 0.5);
	tl = analyzed(&m);
	assert_true(score(tl, "capacity") > 0);
	t_close(tl);
	m = card(24, 1.0, 21.0, 0.2, 1.0 + 500.0 / 1024, 0.5);
	tl = analyzed(&m);
	assert_float_equal(score(tl, "capacity"), 0, 0);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'card_at_oom'"),
			       "does not explain"));
	t_close(tl);
}

/* ---- a request larger than the card (or the allowed fraction) ---- */

static void request_exceeds_card_threshold(void **state)
{
	struct timeline *tl;
	struct msg m;
	(void)state;

	m = card(24, 24.3, 1.0, 0.1, 22.0, 0.5);
	tl = analyzed(&m);
	assert_float_equal(score(tl, "request_exceeds_card"), 0.85, 1e-9);
	assert_string_equal(verdict_cause(tl), "request_exceeds_card");
	assert_true(confidence(tl) >= 0.7);   /* the message proves it */
	t_close(tl);

	m = card(24, 23.7, 1.0, 0.1, 22.0, 0.5);   /* fits the card: not this cause */
	tl = analyzed(&m);
	assert_float_equal(score(tl, "request_exceeds_card"), 0, 0);
	assert_true(score(tl, "capacity") > 0);
	t_close(tl);

	/* the allowed memory fraction is the limit when it is below the card */
	m = card(24, 13.0, 1.0, 0.1, 22.0, 0.5);
	m.allowed = 12 * GIB;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "request_exceeds_card"), 0.85, 1e-9);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause ="
				     " 'request_exceeds_card'"), "what this process may use"));
	t_close(tl);

	/* allocated beyond the card (WDDM shared memory): figures not one card's */
	m = card(8, 10.7, 17.2, 1.9, 0, 0);
	m.in_use = U;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "request_exceeds_card"), 0.5, 1e-9);
	assert_true(confidence(tl) < 0.7);
	t_close(tl);
}

/* ---- other processes: a quarter of the card and at least 1 GiB ---- */

static void other_process_threshold(void **state)
{
	struct timeline *tl;
	struct msg m;
	(void)state;

	/* 40 GiB card: another process with 10.4 GiB (26%) */
	m = card(40, 1.5, 28.0, 0.2, 0.5, 0.5);
	m.nproc = 1, m.proc_pid[0] = 777, m.proc_bytes[0] = 10.4 * GIB;
	m.free = (40 - 28.7 - 10.4) * GIB;
	tl = analyzed(&m);
	assert_true(score(tl, "other_process") >= 0.55);
	assert_string_equal(verdict_cause(tl), "other_process");
	assert_float_equal(figure(tl, "other_process", "largest_other_pid"), 777, 0);
	assert_true(score(tl, "capacity") <= 0.4);   /* it would fit alone */
	t_close(tl);

	m.proc_bytes[0] = 9.6 * GIB;   /* 24%: not the cause */
	m.free = (40 - 28.7 - 9.6) * GIB;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "other_process"), 0, 0);
	assert_string_equal(verdict_cause(tl), "capacity");
	t_close(tl);

	/* most of the card held by another process: proven, >= 0.7 */
	m = card(93, 0.3, 19.85, 0.7, 0.13, 0.7);
	m.nproc = 1, m.proc_pid[0] = 118636, m.proc_bytes[0] = 71.6 * GIB;
	tl = analyzed(&m);
	assert_true(confidence(tl) >= 0.7);
	t_close(tl);

	/* small card: 30% but under 1 GiB is a context and a display, not a tenant */
	m = card(3, 0.1, 1.9, 0.01, 0.05, 0.1);
	m.nproc = 1, m.proc_pid[0] = 5, m.proc_bytes[0] = 0.9 * GIB;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "other_process"), 0, 0);
	t_close(tl);
	m = card(4, 0.1, 2.6, 0.01, 0.05, 0.1);
	m.nproc = 1, m.proc_pid[0] = 5, m.proc_bytes[0] = 1.1 * GIB;
	tl = analyzed(&m);
	assert_true(score(tl, "other_process") > 0);
	t_close(tl);
}

/* Without "this process has" or a process list (the old wordings), memory
 * outside PyTorch is most likely another process, never proven. */
static void other_process_unproven(void **state)
{
	struct msg m = { 1.63 * GIB, 44.56 * GIB, 0.55 * GIB, 27.91 * GIB, 27.93 * GIB,
			 0.02 * GIB, U, U, "reserved_in_total", 0, 0, { 0 }, { 0 } };
	struct timeline *tl = analyzed(&m);
	(void)state;

	assert_string_equal(verdict_cause(tl), "other_process");
	assert_true(score(tl, "other_process") <= 0.65);
	assert_true(confidence(tl) < 0.7);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				     " 'other_process'"), "does not say whose memory"));
	t_close(tl);
}

/* In a container the driver sees this process under another pid: its own
 * "Process N" line (at least PyTorch's reserve, within 2 GiB above it) is
 * not another tenant. */
static void container_self_line(void **state)
{
	struct msg m = card(14.75, 0.48, 14.06, 0.32, 0.23, 0);
	struct timeline *tl;
	(void)state;

	m.in_use = U;
	m.nproc = 1, m.proc_pid[0] = 20398, m.proc_bytes[0] = 14.52 * GIB;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "other_process"), 0, 0);
	assert_string_equal(verdict_cause(tl), "capacity");
	assert_float_equal(figure(tl, "capacity", "non_pytorch_bytes"), (14.52 - 14.38) * GIB, 2);
	t_close(tl);

	/* a line 2.5 GiB above the reserve is another process: this one's own
	 * use is then unknown */
	m.proc_bytes[0] = (14.38 + 2.5) * GIB;
	m.total = 40 * GIB;
	m.free = 0.3 * GIB;
	tl = analyzed(&m);
	assert_true(score(tl, "other_process") > 0);
	assert_float_equal(figure(tl, "other_process", "other_processes_bytes"), 16.88 * GIB, 2);
	assert_true(t_int(tl, "SELECT json_extract(figures, '$.non_pytorch_bytes') IS NULL FROM"
			  " finding WHERE cause = 'other_process'"));
	t_close(tl);
}

/* ---- memory outside PyTorch in this process: a fifth, and 2 GiB ---- */

static void non_pytorch_threshold(void **state)
{
	struct timeline *tl;
	struct msg m;
	(void)state;

	m = card(24, 1.0, 17.5, 0.1, 0.3, 5.1);   /* 5.1 GiB = 21% */
	tl = analyzed(&m);
	assert_true(score(tl, "non_pytorch") >= 0.55);
	assert_string_equal(verdict_cause(tl), "non_pytorch");
	t_close(tl);
	m = card(24, 1.0, 18.7, 0.1, 0.3, 4.5);   /* 19%: outside */
	tl = analyzed(&m);
	assert_float_equal(score(tl, "non_pytorch"), 0, 0);
	assert_string_equal(verdict_cause(tl), "capacity");
	t_close(tl);
	m = card(8, 0.2, 5.8, 0.05, 0.1, 1.9);    /* 24% but 1.9 GiB: a context can be that */
	tl = analyzed(&m);
	assert_float_equal(score(tl, "non_pytorch"), 0, 0);
	t_close(tl);
}

/* ---- fragmentation: a real share (5% of the card) that holds it ---- */

static void fragmentation_share_threshold(void **state)
{
	struct timeline *tl;
	struct msg m;
	(void)state;

	/* 40 GiB card, 2 GiB asked, 2.05 GiB cached (5.1%), no free */
	m = card(40, 2.0, 36.0, 2.05, 0.1, 0.5);
	tl = analyzed(&m);
	assert_true(score(tl, "fragmentation") >= 0.6);
	assert_string_equal(verdict_cause(tl), "fragmentation");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				     " 'fragmentation'"), "give back at most 2.05 GiB"));
	t_close(tl);

	/* 1.95 GiB cached (4.9%) would hold it too, but is no cause */
	m = card(40, 2.0, 36.0, 1.95, 0.1, 0.5);
	tl = analyzed(&m);
	assert_true(score(tl, "fragmentation") > 0 && score(tl, "fragmentation") < VERDICT_MIN_SCORE);
	assert_string_equal(verdict_cause(tl), "capacity");
	t_close(tl);

	/* a real share that would not have held it: contributing */
	m = card(40, 8.0, 30.0, 4.0, 0.5, 0.5);
	tl = analyzed(&m);
	assert_float_equal(score(tl, "fragmentation"), 0.35, 1e-9);
	assert_string_equal(verdict_cause(tl), "capacity");
	assert_non_null(strstr(t_text(tl, "SELECT summary FROM verdict"), "fragmentation"));
	t_close(tl);
}

/* PyTorch 1.0-1.3's "X cached" is the cache not in use: the unallocated
 * part, not the reserve. */
static void old_cached_is_unallocated(void **state)
{
	struct msg m = { 26 * MIB, 1024 * MIB, 24.17 * MIB, 435.61 * MIB, 26.39 * MIB, U, U, U,
			 "old_cached", 0, 0, { 0 }, { 0 } };
	struct timeline *tl = analyzed(&m);
	(void)state;

	assert_float_equal(figure(tl, "capacity", "reserved_unallocated_bytes"), 26.39 * MIB, 1);
	assert_float_equal(figure(tl, "capacity", "reserved_bytes"), (435.61 + 26.39) * MIB, 16);
	t_close(tl);
}

/* ---- history: a steady level settles capacity; growth hands it over ---- */

static void gpu_series(struct timeline *tl, int n, double level, double slope)
{
	int64_t id;
	int i;

	begin(tl);
	id = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu0");
	for (i = 0; i < n; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + i * 30LL) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, level + slope * i +
					(i % 3) * 8.0 * MIB) > 0);
	}
	end(tl);
}

static void history_settles_capacity(void **state)
{
	struct msg m = card(80, 2.0, 76.0, 0.3, 0.8, 0.5);
	struct timeline *tl;
	(void)state;

	/* 21 minutes steady at 77 GiB, then the OOM */
	tl = t_open();
	gpu_series(tl, 43, 77 * GIB, 0);
	oom_msg(tl, 43 * 30, &m);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "capacity"), 0.8, 1e-9);
	assert_true(confidence(tl) >= 0.65);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'capacity'"),
			       "held steady"));
	t_close(tl);

	/* 9 minutes is too short to say */
	tl = t_open();
	gpu_series(tl, 19, 77 * GIB, 0);
	oom_msg(tl, 19 * 30, &m);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "capacity"), RL_LONE_MAX_SCORE, 1e-9);
	t_close(tl);

	/* 4 h of growth from 20 GiB: a leak, capacity only contributes */
	tl = t_open();
	gpu_series(tl, 480, 20 * GIB, 120 * MIB);
	oom_msg(tl, 480 * 30, &m);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "capacity"), 0.4, 1e-9);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* ---- a per-process cap below the card (capped.c) ---- */

/* The figures of the Kaggle T4 paste (tests/data/real/any_stack/
 * c-pytorch-kaggle-t4-quantized-load-oom-7.37gib-allowed-caught): 7.43 GiB
 * free of 14.74, but 7.37 GiB allowed, and 7.01 + 0.14 GiB reserved + 1008
 * MiB asked passes it. The cap explains it, not "room"; just below the
 * cap's edge the reading of free memory stands. */
static void cap_reached_threshold(void **state)
{
	struct timeline *tl;
	struct msg m;
	(void)state;

	m = card(14.74, 1008.0 / 1024, 7.01, 0.143, 7.43, 0.157);
	m.allowed = 7.37 * GIB;
	tl = analyzed(&m);
	assert_float_equal(score(tl, "memory_fraction_cap"), 0.75, 1e-9);
	assert_float_equal(score(tl, "card_at_oom"), 0, 0);   /* no "does not explain" */
	assert_string_equal(verdict_cause(tl), "memory_fraction_cap");
	assert_float_equal(figure(tl, "memory_fraction_cap", "fraction_to_fit"), 0.56, 1e-9);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				     " 'memory_fraction_cap'"), "set_per_process_memory_fraction"));
	/* the 147 MiB cache and the free within the cap cannot hold 1008 MiB */
	assert_true(score(tl, "fragmentation") < 0.3);
	assert_true(figure(tl, "fragmentation", "would_hold_request") != 1);
	t_close(tl);

	m.allowed = 8.2 * GIB;   /* reserve + request = 8.14 GiB: within the cap */
	tl = analyzed(&m);
	assert_float_equal(score(tl, "memory_fraction_cap"), 0, 0);
	assert_true(score(tl, "card_at_oom") > 0);
	t_close(tl);

	m.allowed = 7.37 * GIB;   /* the card itself had less free than asked */
	m.free = 0.5 * GIB;
	tl = analyzed(&m);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				     " 'memory_fraction_cap'"), "would not be enough"));
	t_close(tl);
}

/* With the serving engine's accounting known, the rules that read it
 * name the part that does not fit: capacity contributes at most 0.6. */
static void capacity_defers_to_the_engine(void **state)
{
	struct msg m = card(80, 8.0, 64.0, 1.0, 6.3, 0.5);
	struct timeline *tl = t_open();
	(void)state;

	oom_msg(tl, 100, &m);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "capacity"), RL_LONE_MAX_SCORE, 1e-9);
	begin(tl);
	assert_true(sink_meta(&tl->sink, "server.gpu_memory_utilization", "0.95") > 0);
	end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "capacity"), 0.6, 1e-9);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capacity_fill_threshold),
		cmocka_unit_test(unstated_allocated_is_said),
		cmocka_unit_test(free_slack_threshold),
		cmocka_unit_test(request_exceeds_card_threshold),
		cmocka_unit_test(cap_reached_threshold),
		cmocka_unit_test(other_process_threshold),
		cmocka_unit_test(other_process_unproven),
		cmocka_unit_test(container_self_line),
		cmocka_unit_test(non_pytorch_threshold),
		cmocka_unit_test(fragmentation_share_threshold),
		cmocka_unit_test(old_cached_is_unallocated),
		cmocka_unit_test(history_settles_capacity),
		cmocka_unit_test(capacity_defers_to_the_engine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
