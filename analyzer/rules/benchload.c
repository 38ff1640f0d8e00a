/*
 * benchload.c -- the load a pasted benchmark put on the server at a
 * serving OOM (meta bench.run.<i>, parsers/tools/bench_out.c).
 *
 * A benchmark run that did not complete -- its command alone, the
 * failure having cut it short, or a result block with failed requests
 * or fewer successful than it sent -- ran at the OOM; one that completed
 * with no failure is load the service carried. An OOM in serving (or of
 * no known phase) under concurrency N where the same folder shows a run
 * at a lower concurrency that completed is load beyond what the service
 * carried: a spike, with both figures. The failing run's concurrency
 * alone, with no lower run that completed, is shown as evidence (a
 * finding below the verdict's bar), never a spike by itself: one run
 * says the load, not that it was more than the service holds.
 *
 * A run that names no concurrency but an unbounded request rate sends
 * all its prompts at once (vllm/benchmarks/serve.py@009e6d4: without
 * --max-concurrency no semaphore bounds the requests; with rate inf
 * none waits): its concurrency is its prompt count, marked inferred.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BL_MAX_RUNS 64
#define BL_EVIDENCE_SCORE 0.2   /* below VERDICT_MIN_SCORE: shown, not a verdict */
#define BL_SPIKE_SCORE 0.55

/* One run as bench_out.c stored it; NAN where unstated. */
struct bl_run {
	char tool[24];
	double conc, rate, prompts, ok, failed;
	int done;
	int conc_inferred;   /* conc is the prompt count of an unbounded run */
	char file[128];
};

/* A field of a bar-separated value: "-" and "" are NAN, "inf" INFINITY. */
static double field_num(const char *s)
{
	char *end;
	double v;

	if (!strncmp(s, "inf", 3))
		return INFINITY;
	v = strtod(s, &end);
	return end == s ? NAN : v;
}

/* Parse val ("tool|conc|rate|prompts|ok|failed|state") into r: 0, or -1
 * when it has too few fields. */
static int parse_run(const char *val, struct bl_run *r)
{
	const char *p = val, *bar;
	double v[5];
	int i;
	size_t n;

	if (!(bar = strchr(p, '|')))
		return -1;
	n = (size_t)(bar - p) < sizeof(r->tool) - 1 ? (size_t)(bar - p) : sizeof(r->tool) - 1;
	memcpy(r->tool, p, n);
	r->tool[n] = 0;
	for (i = 0, p = bar + 1; i < 5; i++) {
		v[i] = field_num(p);
		if (!(bar = strchr(p, '|')))
			return -1;
		p = bar + 1;
	}
	r->conc = v[0], r->rate = v[1], r->prompts = v[2], r->ok = v[3], r->failed = v[4];
	r->done = !strncmp(p, "done", 4);
	r->conc_inferred = 0;
	if (isnan(r->conc) && isinf(r->rate) && !isnan(r->prompts)) {
		r->conc = r->prompts;
		r->conc_inferred = 1;
	}
	return 0;
}

/* 1 when the run completed with no failure: its result printed, no
 * failed request, and no fewer successful than it sent (when it says). */
static int completed(const struct bl_run *r)
{
	return r->done && !(r->failed > 0) && r->ok > 0 &&
		!(!isnan(r->prompts) && r->ok < r->prompts);
}

/* The runs of the incident, in artifact and file order: the count, or
 * -1 failed. */
static int load_runs(struct rule_ctx *c, struct bl_run *runs, int max)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT m.value, coalesce(a.path, '') FROM meta m"
				      " LEFT JOIN artifact a ON a.id = m.artifact_id"
				      " WHERE m.key LIKE 'bench.run.%' ORDER BY m.rowid");
	int n = 0;

	if (!st)
		return -1;
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		const char *path = q_text(st, 1), *slash = strrchr(path, '/');

		if (parse_run(q_text(st, 0), &runs[n]) < 0)
			continue;
		snprintf(runs[n].file, sizeof(runs[n].file), "%s", slash ? slash + 1 : path);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

int rule_bench_load(struct rule_ctx *c)
{
	struct bl_run runs[BL_MAX_RUNS];
	const struct bl_run *fail = NULL, *held = NULL;
	struct rl_finding f;
	char phase[32] = "", how[72] = "", okt[48] = "no failure";
	int n, i;

	if (!c->has_oom)
		return 0;
	if (!rl_first_text(c, "SELECT phase FROM oom WHERE id = 1", phase, sizeof(phase)) &&
	    c->failed)
		return -1;
	if (phase[0] && strcmp(phase, "serving") && strcmp(phase, "unknown"))
		return 0;   /* a start-up OOM's class is its phase's */
	if ((n = load_runs(c, runs, BL_MAX_RUNS)) <= 0)
		return n;
	/* the run at the failure: the highest concurrency of those that did
	 * not complete */
	for (i = 0; i < n; i++)
		if (!completed(&runs[i]) && !isnan(runs[i].conc) &&
		    (!fail || runs[i].conc > fail->conc))
			fail = &runs[i];
	if (!fail)
		return 0;
	for (i = 0; i < n; i++)
		if (completed(&runs[i]) && !isnan(runs[i].conc) && runs[i].conc < fail->conc &&
		    (!held || runs[i].conc > held->conc))
			held = &runs[i];
	if (fail->conc_inferred)
		snprintf(how, sizeof(how), " (inferred: an unbounded rate sends all %.0f prompts"
			 " at once)", fail->prompts);
	if (!held) {
		rl_finding_init(&f, "benchload", "spike", "concurrency");
		f.phase = "serving";
		f.score = BL_EVIDENCE_SCORE;
		rl_fig(&f, "bench_concurrency", fail->conc);
		snprintf(f.title, sizeof(f.title), "The benchmark in %.60s ran %.0f concurrent"
			 " requests%s at the OOM; no lower load that completed is pasted to say"
			 " it was more than the service holds", fail->file, fail->conc, how);
		rl_advice(&f, "Run the same benchmark at a lower --max-concurrency (half of %.0f)"
			  " and paste both: a lower load that completes makes this a spike, with"
			  " the concurrency the service holds.", fail->conc);
		return rl_finding_write(c, &f) < 0 ? -1 : 1;
	}
	rl_finding_init(&f, "benchload", "spike", "concurrency");
	f.phase = "serving";
	f.score = BL_SPIKE_SCORE;
	rl_fig(&f, "bench_concurrency", fail->conc);
	rl_fig(&f, "bench_concurrency_completed", held->conc);
	rl_fig(&f, "load_ratio", round(fail->conc / (held->conc > 1 ? held->conc : 1) * 100) / 100);
	if (!isnan(held->ok))
		rl_fig(&f, "bench_completed_requests", held->ok);
	if (!isnan(fail->failed))
		rl_fig(&f, "bench_failed_requests", fail->failed);
	if (!isnan(held->ok))
		snprintf(okt, sizeof(okt), "%.0f successful, no failure", held->ok);
	snprintf(f.title, sizeof(f.title), "The OOM came under %.0f concurrent benchmark requests"
		 "%s (%.60s); a run at %.0f completed (%s): a load beyond what the service"
		 " carried", fail->conc, how, fail->file, held->conc, okt);
	if (rl_engine_kind(c) == ENGINE_NONE)
		rl_advice(&f, "Cap concurrency (vLLM --max-num-seqs, SGLang --max-running-requests,"
			  " TGI --max-concurrent-requests) near the %.0f requests the service"
			  " carried, and let bursts queue.", held->conc);
	else
		rl_advice(&f, "Cap concurrency (%s %s) near the %.0f requests the service carried,"
			  " and let bursts queue.", rl_engine_title(c), rl_flag(c, KR_MAX_SEQS),
			  held->conc);
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}
