/*
 * startup.c -- misconfiguration: an OOM before the service ever held a
 * steady load. What failed then is the configuration, not the traffic:
 * no request had run (the model was loading, the engine profiling or
 * capturing), or the first requests had run for less than
 * RL_HISTORY_MIN_S. Keyed on what the artifacts show:
 *
 *  - an engine whose log says it failed to start (or to load its model),
 *    or that raised an error only a start-up raises (RL_EE_STARTUP: a
 *    shard that cannot start, a warm-up's prefill), with an out-of-memory error
 *    (STARTUP_ENGINE);
 *  - server.running sampled before the OOM and never above zero
 *    (STARTUP_NO_LOAD), or idle at first and above zero for the first
 *    time less than RL_HISTORY_MIN_S before it (STARTUP_RAMP);
 *  - a memory series that starts from under STARTUP_FROM of its peak (the
 *    process started in the capture) and ends at the OOM less than
 *    RL_HISTORY_MIN_S later (STARTUP_SERIES: likely; the capture may
 *    have started with the process by chance).
 *
 *  - a ggml device buffer that failed with no phase read and no load
 *    recorded (STARTUP_PLAN): llama.cpp sizes every device buffer from its
 *    settings before or at its first batch, none by the requests served
 *    (STARTUP_PLAN's comment), so the plan did not fit the card;
 *  - the OOM's own phase (table oom row 1: load_weights, profile,
 *    kv_alloc, graph_capture, warmup) is before any request was served
 *    (STARTUP_PHASE): the finding then carries the phase and its cause
 *    and knob are the phase's (startup_phase.c).
 *
 * Where a rule before this one named the setting that failed (engine,
 * headroom, limits: a misconfiguration >= 0.5), this finding only
 * contributes (STARTUP_CONTRIB): that one says what, this one when.
 *
 * The value to set is what the start-up needed: on a GPU the
 * gpu_memory_utilization that leaves the failed request room (an engine
 * that sizes its KV cache from it fills the card by design), else the
 * card (or the tensor parallelism) that holds the live tensors and the
 * request at 90%; on a host the memory limit a quarter above the peak.
 */
#include "analyzer/rules/startup_phase.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define STARTUP_ENGINE 0.8     /* the engine's log says it never started */
#define STARTUP_PHASE 0.8      /* the OOM's own phase is before any request */
#define STARTUP_NO_LOAD 0.75   /* no request ran before the OOM */
#define STARTUP_RAMP 0.7       /* within the first ramp of traffic */
#define STARTUP_SERIES 0.6     /* a process start seen in a memory series */
#define STARTUP_PLAN 0.6       /* ggml's device memory, all sized by settings */
#define STARTUP_CONTRIB 0.45   /* another finding names the setting: contributing */
#define STARTUP_ROOM 0.25      /* the failure's figures show room: a reading,
				* no budget misconfiguration, never a verdict */
#define STARTUP_FROM 0.25      /* first sample / peak: a process starting */
#define CARD_FILL 0.9          /* what of a card a workload may plan on */

/* What the artifacts say of the start-up. */
struct startup {
	double score;
	char how[200];              /* the evidence, for the title */
	int64_t engine_id;          /* evidence rows; 0 none */
	int64_t series_id;
	int scope;                  /* of the series; -1 unknown */
	double peak;                /* the series' peak; -1 unknown */
	int plan;                   /* 1: plan_start's (ggml's fixed plan) */
};

/* An engine that failed at start-up with an out-of-memory error, none of
 * whose settings the engine rule named: 1 (s filled), 0 none, -1 failed. */
static int engine_start(struct rule_ctx *c, struct startup *s)
{
	struct rl_engine e[RL_MAX_ENGINES];
	int n = rl_engines_read(c, e, RL_MAX_ENGINES), i;
	char who[100];

	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const struct rl_engine *x = &e[i];
		if (!(x->errors & (RL_EE_OOM | RL_EE_KV_NO_MEMORY)) ||
		    !(x->failed_start || (x->errors & RL_EE_STARTUP)))
			continue;
		s->score = STARTUP_ENGINE;
		s->engine_id = x->id;
		snprintf(s->how, sizeof(s->how), "%s%s ran out of memory and never started", x->engine,
			 rl_engine_label(x, who, sizeof(who)));
		return 1;
	}
	return c->failed ? -1 : 0;
}

/* server.running before the OOM: never above zero, or for the first time
 * less than RL_HISTORY_MIN_S before it. 1 (s filled), 0 not, -1 failed. */
static int load_start(struct rule_ctx *c, struct startup *s)
{
	double first, busy;
	int64_t id = rl_series_id(c, "server.running", 1);

	if (!id || rl_num(c, &first, "SELECT sample_first_ns(%lld, %lld)", (long long)id,
			  (long long)c->oom_ns) < 0)
		return c->failed ? -1 : 0;
	s->series_id = id;
	if (rl_num(c, &busy, "SELECT sample_first_ns(%lld, %lld, 1)", (long long)id,
		   (long long)c->oom_ns) < 0) {
		if (c->failed)
			return -1;
		s->score = STARTUP_NO_LOAD;
		snprintf(s->how, sizeof(s->how), "no request had run in the %.0f s of engine"
			 " statistics before it", ((double)c->oom_ns - first) / 1e9);
		return 1;
	}
	/* a capture that starts busy shows no start: the service may have
	 * run for hours before it */
	if (busy <= first || ((double)c->oom_ns - busy) / 1e9 >= RL_HISTORY_MIN_S)
		return 0;
	s->score = STARTUP_RAMP;
	snprintf(s->how, sizeof(s->how), "the first requests had run for only %.0f s",
		 ((double)c->oom_ns - busy) / 1e9);
	return 1;
}

static int series_claim(struct rule_ctx *c, struct startup *s);

/* A memory series that starts a process in the capture and ends at the
 * OOM within RL_HISTORY_MIN_S: 1 (s filled), 0 none, -1 failed. Not when
 * the leak or spike rule (run before) read a series' shape as theirs (a
 * steady climb over many samples, a flat stretch then a jump): a young
 * process does not make those a start-up. */
static int series_start(struct rule_ctx *c, struct startup *s)
{
	double v;

	if (rl_num(c, &v, "SELECT 1 FROM finding f JOIN evidence e ON e.finding_id = f.id"
		   " WHERE f.class IN ('leak', 'spike') AND f.score >= 0.5 AND"
		   " e.ref_table = 'series' LIMIT 1") == 0)
		return 0;
	if (c->failed)
		return -1;
	return series_claim(c, s);
}

/* series_start's search, once the shape is no leak's or spike's. */
static int series_claim(struct rule_ctx *c, struct startup *s)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT s.id, s.name, s.entity, min(p.time_ns),"
		" max(p.time_ns), max(p.value), (SELECT value FROM sample WHERE series_id = s.id"
		" ORDER BY time_ns LIMIT 1) FROM series s JOIN sample p ON p.series_id = s.id"
		" WHERE p.time_ns <= ?1 GROUP BY s.id HAVING count(*) >= 3 ORDER BY s.id");
	int r = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, c->oom_ns);
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = q_text(st, 1), *ent = (const char *)sqlite3_column_text(st, 2);
		double unit = 1, t0 = sqlite3_column_double(st, 3), t1 = sqlite3_column_double(st, 4);
		double peak = sqlite3_column_double(st, 5), v0 = sqlite3_column_double(st, 6);
		int scope = rl_series_scope(name, ent, &unit);

		if (scope < 0 || peak <= 0 || v0 >= STARTUP_FROM * peak ||
		    ((double)c->oom_ns - t0) / 1e9 >= RL_HISTORY_MIN_S ||
		    ((double)c->oom_ns - t1) / 1e9 > 0.1 * RL_HISTORY_MIN_S)
			continue;
		s->score = STARTUP_SERIES;
		s->series_id = sqlite3_column_int64(st, 0);
		s->scope = scope;
		s->peak = peak * unit;
		snprintf(s->how, sizeof(s->how), "%s rose from %.0f%% of its peak only %.0f s"
			 " before it", name, v0 / peak * 100, ((double)c->oom_ns - t0) / 1e9);
		r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

/* llama.cpp's plan (ggml): the weights' buffers by the layers offloaded
 * (load_tensors), the KV cache by the context (llama_kv_cache, at context
 * creation), the compute buffers by the batch (ggml_backend_sched_reserve),
 * and the Vulkan backend's staging buffers by the largest operation of a
 * batch (ggml_vk_preallocate_buffers, ggml-vulkan.cpp: at the first
 * batches, grown once): every device buffer is sized by the settings and
 * none grows with the requests served. A ggml device allocation that
 * failed (p: not the host's, phase not read) with no load recorded (no
 * server.running series), and whose own figures do not fit the request in
 * the free memory, is the plan not fitting the card: 1 (s filled), 0 not,
 * -1 failed (recorded in c). */
static int plan_start(struct rule_ctx *c, const struct rl_phase *p, struct startup *s)
{
	if (strcmp(p->family, "ggml") || p->host || strcmp(p->phase, "unknown") ||
	    rl_series_id(c, "server.running", 1))
		return 0;
	struct rl_engine e[RL_MAX_ENGINES];
	int n, i;
	double free = p->free;

	/* the failure's own figures, or the engine's (llama.cpp's device
	 * list), fit the request in the free memory: not the plan
	 * (startup_room.c's reading, ROOM_SLACK) */
	if (free < 0 && (n = rl_engines_read(c, e, RL_MAX_ENGINES)) < 0)
		return -1;
	if (free < 0)
		for (i = 0; i < n; i++)
			if (rl_ef_known(&e[i], RL_EF_FREE) && e[i].f[RL_EF_FREE] > free)
				free = e[i].f[RL_EF_FREE];
	if (p->req > 0 && free > 0 && p->req <= 0.9 * free)
		return 0;
	s->score = STARTUP_PLAN;
	s->plan = 1;
	snprintf(s->how, sizeof(s->how), "llama.cpp (ggml) could not place a device buffer, and"
		 " it sizes every one from its settings, none by the requests it serves");
	return 1;
}

/* plan_start's advice: the settings that size the plan, the engine's own
 * flags (the log's engine, else llama.cpp's and Ollama's). */
static void plan_advice(struct rule_ctx *c, struct rl_finding *f)
{
	enum engine_kind k = rl_engine_kind(c);

	f->cause = "engine_budget";
	if (k == ENGINE_OLLAMA)
		rl_advice(f, "Offload fewer layers (%s) or shorten the context (%s) until the"
			  " weights, the KV cache and the compute buffers fit the memory the card"
			  " has free (other programs' included).",
			  engine_knob_flag(k, KR_GPU_LAYERS), engine_knob_flag(k, KR_MAX_LEN));
	else
		rl_advice(f, "Offload fewer layers (%s; Ollama %s) or shorten the context (%s,"
			  " or the batch: %s) until the weights, the KV cache and the compute"
			  " buffers fit the memory the card has free (other programs' included).",
			  engine_knob_flag(ENGINE_LLAMACPP, KR_GPU_LAYERS),
			  engine_knob_flag(ENGINE_OLLAMA, KR_GPU_LAYERS),
			  engine_knob_flag(ENGINE_LLAMACPP, KR_MAX_LEN), "--ubatch-size");
}

/* A misconfiguration the rules before this one named with its setting
 * (engine, headroom, limits, spike's admitted load: >= 0.5): 1, 0 none,
 * -1 failed. The start-up OOM then says when, they say what. */
static int named(struct rule_ctx *c)
{
	double v;

	if (rl_num(c, &v, "SELECT 1 FROM finding WHERE class = 'misconfig' AND score >= 0.5"
		   " LIMIT 1") == 0)
		return 1;
	return c->failed ? -1 : 0;
}

/* The value to set: what the start-up needed against the card or the
 * limit it had. */
static void startup_value(struct rule_ctx *c, const struct startup *s, struct rl_finding *f)
{
	struct rl_card k;
	double req = 0, cap, util, need;
	char b1[32], b2[32], b3[32], osc[16];

	rl_oom_request(c, &req);
	if (s->scope != RL_SCOPE_HOST && rl_flag(c, KR_MEM_FRACTION) &&
	    rl_engine_kind(c) != ENGINE_TRTLLM && rl_engine_kind(c) != ENGINE_TRITON &&
	    rl_meta_num(c, "server.gpu_memory_utilization", &util) == 0 &&
	    util > 0 && util <= 1 && rl_gpu_total(c, &cap) == 0 && req > 0) {
		double nu = floor((util - req / cap - 0.02) * 100) / 100;
		if (nu > 0) {
			rl_fig(f, "gpu_memory_utilization", util);
			rl_fig(f, "suggested_gpu_memory_utilization", nu);
			rl_knob(f, "gpu_memory_utilization", rl_flag(c, KR_MEM_FRACTION), nu,
				"Lower %s from %.2f to %.2f: room for the %s"
				" the start-up asked for last.", rl_flag(c, KR_MEM_FRACTION), util, nu,
				rl_bytes(req, b1, sizeof(b1)));
			return;
		}
	}
	if (rl_card_read(c, &k) == 1 && k.total > 0 && k.alloc >= 0) {
		need = k.alloc + (k.req > 0 ? k.req : 0);
		rl_fig(f, "needed_bytes", need);
		rl_fig(f, "total_bytes", k.total);
		if (need > CARD_FILL * k.total) {
			double tp = ceil(need / (CARD_FILL * k.total));
			rl_fig(f, "suggested_card_bytes", ceil(need / CARD_FILL / GIB) * GIB);
			rl_knob(f, "tensor_parallel_size", "--tensor-parallel-size", tp,
				"The start-up needs %s of a %s card: shard it over %.0f cards"
				" (--tensor-parallel-size %.0f), or use a card of %s, or quantize"
				" the weights.", rl_bytes(need, b1, sizeof(b1)),
				rl_bytes(k.total, b2, sizeof(b2)), tp, tp,
				rl_bytes(ceil(need / CARD_FILL / GIB) * GIB, b3, sizeof(b3)));
			return;
		}
	}
	if (s->scope == RL_SCOPE_HOST && s->peak > 0 && rl_capacity_scope(c, RL_SCOPE_HOST, &cap) == 0) {
		double want = ceil(s->peak * 1.25 / GIB) * GIB;
		rl_fig(f, "limit_bytes", cap);
		rl_fig(f, "startup_peak_bytes", s->peak);
		rl_fig(f, "suggested_limit_bytes", want);
		rl_knob(f, "memory_limit", "the memory limit", want,
			"Raise the memory limit from %s to at least %s, a quarter above the %s the"
			" start-up reached.", rl_bytes(cap, b1, sizeof(b1)),
			rl_bytes(want, b2, sizeof(b2)), rl_bytes(s->peak, b3, sizeof(b3)));
		return;
	}
	/* the memory the failure says ran out: a host buffer's start-up
	 * (ggml's CPU buffers, a WASM heap) has no card to size */
	osc[0] = '\0';
	rl_first_text(c, "SELECT coalesce(scope, '') FROM oom WHERE id = 1", osc, sizeof(osc));
	if (s->scope == RL_SCOPE_HOST || !strcmp(osc, "host"))
		rl_advice(f, "Size the host's RAM or the process's memory limit for the start-up's"
			  " peak (the weights and the buffers allocated before any work) before"
			  " any traffic.");
	else
		rl_advice(f, "Size the card or the limit for the start-up's peak (weights, the"
			  " engine's profiling and graph capture) before any traffic.");
}

/* Whether the server survived the failure (oom.survival of the OOM
 * event's row, analyzer/derive/oom_fate.c: a request served after it in
 * its own log, or the log's serving stage reached by a stage line):
 * the line that shows it into *line and how (by: request_served or
 * serving_stage) into by; 0 none, 1 survived, -1 failed. Read from the
 * log's own lines, never inferred. */
static int went_on(struct rule_ctx *c, const struct rl_phase *ph, int64_t *line,
		   char *by, size_t cap)
{
	sqlite3_stmt *st;
	int r = 0;

	if (ph->event_id <= 0 || !ph->startup)
		return 0;
	st = rl_prepare(c, "SELECT survival_line, survival_by FROM oom WHERE event_id = ?1"
			" AND survival = 'survived' AND survival_line IS NOT NULL ORDER BY id LIMIT 1");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, ph->event_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*line = sqlite3_column_int64(st, 0);
		snprintf(by, cap, "%s", sqlite3_column_text(st, 1) ?
			 (const char *)sqlite3_column_text(st, 1) : "");
		r = 1;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : r;
}

/* Other processes held the card when the start-up failed, and this one
 * would have fitted alone (PyTorch's message lists them: ranks started
 * on one card, a leftover server). The phase's knob would shrink a
 * configuration that fits: the finding only contributes (the capacity
 * rule's other_process names them) and says so first. 1 crowded, 0 not,
 * -1 failed. */
static int crowded(struct rule_ctx *c, struct rl_finding *f)
{
	struct rl_card k;
	char b1[32], b2[32];
	int r = rl_card_read(c, &k);

	/* the processes the message lists must hold the share themselves:
	 * memory merely outside this process's PyTorch proves no neighbour */
	if (r <= 0 || !rl_card_crowded_out(&k) ||
	    !(k.outside_proven || (k.others > 0 && k.others >= RL_OTHER_MIN_SHARE * k.total)))
		return r < 0 ? -1 : 0;
	if (f->score > STARTUP_CONTRIB)
		f->score = STARTUP_CONTRIB;
	rl_advice(f, "First: other processes held %s of the %s card when it failed, and on the"
		  " card alone this one would have fitted: one process per card (or stop what"
		  " else runs there) before changing the configuration.",
		  rl_bytes(k.others > 0 ? k.others : k.outside, b1, sizeof(b1)),
		  rl_bytes(k.total, b2, sizeof(b2)));
	return 1;
}

int rule_startup(struct rule_ctx *c)
{
	struct rl_phase ph;
	struct startup s;
	struct rl_finding f;
	int64_t fid;
	enum rl_room room = RL_ROOM_NONE;
	int64_t served = 0;
	char by[24];
	double v, reload_line;
	int r, compiled, reloaded = 0;

	memset(&s, 0, sizeof(s));
	s.scope = -1;
	s.peak = -1;
	/* a compiler killed for host memory (oom.build_tool: buildkill.c
	 * names the build's parallelism): the phase's GPU knobs would not
	 * change it */
	if (rl_num(c, &v, "SELECT 1 FROM oom WHERE id = 1 AND build_tool IS NOT NULL") == 0)
		return 0;
	if (c->failed)
		return -1;
	if (rl_oom_phase(c, &ph) < 0)
		return -1;
	/* the engine's own word needs no time; the series need the OOM's.
	 * An OOM the parsers placed while serving (a request served, the
	 * request loop) did not stop the engine from starting, whatever its
	 * error key says; the load's history may still show a service that
	 * never held steady load (load_start) */
	r = strcmp(ph.phase, "serving") ? engine_start(c, &s) : 0;
	if (r == 0 && c->oom_ns != OL_NULL &&
	    (r = load_start(c, &s)) == 0)
		r = series_start(c, &s);
	if (r < 0)
		return r;
	if (ph.startup && (r == 0 || s.score < STARTUP_PHASE)) {
		s.score = STARTUP_PHASE;
		snprintf(s.how, sizeof(s.how), "it happened while %s, before %s",
			 rl_phase_doing_of(&ph), rl_phase_deepspeed(&ph) ? "the first training step"
			 : "any request was served");
		r = 1;
	}
	compiled = !ph.startup && rl_phase_compile_time(&ph);
	if (compiled && (r == 0 || s.score < STARTUP_PHASE)) {
		s.score = STARTUP_PHASE;
		snprintf(s.how, sizeof(s.how), "the compiler found the program does not fit the"
			 " device (XLA's compile-time out of memory), before any step of it ran");
		r = 1;
	}
	if (r == 0 && !ph.startup && !compiled && (r = plan_start(c, &ph, &s)) <= 0)
		return r;
	rl_finding_init(&f, "startup", "misconfig", "startup_oom");
	f.score = s.score;
	if ((r = named(c)) < 0)
		return -1;
	if (r)
		f.score = STARTUP_CONTRIB;
	/* a load after the same process served (reload.c): not "before
	 * any request"; the configuration fitted once, this only contributes */
	if (ph.startup && (r = rl_served_before_load(c, &v, &reload_line)) != 0) {
		if (r < 0)
			return -1;
		f.score = STARTUP_CONTRIB;
		snprintf(s.how, sizeof(s.how), "it happened while %s again, after %.0f request%s"
			 " served in the same run", rl_phase_doing_of(&ph), v, v == 1 ? "" : "s");
		reloaded = 1;
	}
	if (s.plan)
		snprintf(f.title, sizeof(f.title), "The configuration does not fit the card: %s",
			 s.how);
	else if (reloaded)
		snprintf(f.title, sizeof(f.title), "If the new load alone does not fit: %s", s.how);
	else
		snprintf(f.title, sizeof(f.title), "The OOM came before the %s held any steady"
			 " load: %s", (ph.startup && rl_phase_deepspeed(&ph)) || compiled ?
			 "program" : "service", s.how);
	if (ph.startup && (room = rl_phase_room(c, &ph, &f)) != RL_ROOM_NONE) {
		/* the failure's own figures show the memory was there: no
		 * budget knob (startup_room.c) */
		f.phase = ph.phase;
		f.cause = rl_phase_room_advise(&ph, room, &f);
		if (room == RL_ROOM_FITS) {
			/* what the figures state, naming no cause: a reading */
			f.class_ = "reading";
			f.score = STARTUP_ROOM;
		}
	} else if (ph.startup) {
		/* the phase names the knob (startup_phase.c) */
		struct rl_engine e[RL_MAX_ENGINES];
		int n = rl_engines_read(c, e, RL_MAX_ENGINES);

		if (n < 0)
			return -1;
		f.phase = ph.phase;
		if (crowded(c, &f) < 0 || rl_cap_advise(c, &f) < 0)
			return -1;
		f.cause = rl_phase_advise(c, &ph, e, n, &f);
		if (!f.knob[0] && strcmp(ph.phase, "warmup") && strcmp(ph.phase, "graph_capture") &&
		    !rl_phase_deepspeed(&ph))
			startup_value(c, &s, &f);
	} else if (compiled) {
		/* the compiler's own figures are in the failure's text */
		f.phase = ph.phase;
		rl_advice(&f, "The compiled program needs more than the device holds (%.120s):"
			  " shard it over more devices, lower the batch or sequence length,"
			  " rematerialise activations (jax.checkpoint / remat), or use a device"
			  " with more HBM.", ph.text);
	} else if (s.plan) {
		plan_advice(c, &f);
	} else {
		startup_value(c, &s, &f);
	}
	if ((r = went_on(c, &ph, &served, by, sizeof(by))) < 0)
		return -1;
	if (r > 0) {
		/* the log's own lines: the server went on past the failure */
		rl_fig(&f, "serving_from_line", (double)served);
		rl_advice(&f, "The server survived this failure: its log %s after it (line %lld),"
			  " so what failed was a part of the start-up, not the server's start,"
			  " and this failure is not the incident's end.",
			  strcmp(by, "request_served") ? "goes on to the serving stage"
			  : "answers a request", (long long)served);
	} else if (reloaded) {
		/* it fitted and served before (reload.c): never "it never fitted" */
		rl_advice(&f, "Only if the new load is a different, larger model than the one"
			  " that served: the same configuration loaded and served before.");
	} else if (room == RL_ROOM_NONE && !s.plan)
		rl_advice(&f, ph.startup && rl_phase_deepspeed(&ph) ? "The configuration failed"
			  " before the first training step: it never fitted." : "The configuration,"
			  " not the traffic, failed: it never fitted.");
	if (s.plan)
		rl_advice(&f, "Likely, not proven: the lines before the failure (load_tensors,"
			  " the KV cache's, graph_reserve's) would say which buffer it was.");
	else if (s.score <= STARTUP_SERIES)
		rl_advice(&f, "Likely, not proven: the engine's log or its statistics from the start"
			  " would show whether any request had run.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (ph.event_id > 0 && ph.startup && rl_evidence(c, fid, "event", ph.event_id,
								      ph.phase) < 0) || (s.engine_id > 0 && rl_evidence(c, fid, "engine", s.engine_id,
						      "failed at start-up") < 0) ||
	    (s.series_id > 0 && rl_evidence(c, fid, "series", s.series_id, "start-up") < 0))
		return -1;
	return 1;
}
