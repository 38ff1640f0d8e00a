/*
 * testutil_rules.c -- timelines for the rule tests, built through the sink
 * API as a parser would build them: series of a given shape, meta keys, a
 * PyTorch OOM event; and the finding counts and figures they assert on.
 * See testutil_rules.h.
 */
#include "testutil_rules.h"

#include <jansson.h>
#include <stdint.h>

#define T0 T_RULES_T0
#define NS 1000000000LL


void t_begin(struct timeline *tl)
{
	assert_true(timeline_artifact_begin(tl, "synthetic", "synthetic", 0, 0) > 0);
}

void t_end(struct timeline *tl)
{
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
}

/* n samples every dt seconds from T0 of shape(i, n, p). */
void t_series(struct timeline *tl, const char *name, const char *entity, int n, double dt,
		   shape_fn shape, const double *p)
{
	int64_t id;
	int i;

	t_begin(tl);
	id = sink_series(&tl->sink, name, "bytes", entity);
	assert_true(id > 0);
	for (i = 0; i < n; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + (int64_t)(i * dt)) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, shape(i, n, p)) > 0);
	}
	t_end(tl);
}

void t_meta(struct timeline *tl, const char *k, const char *v)
{
	t_begin(tl);
	assert_true(sink_meta(&tl->sink, k, v) > 0);
	t_end(tl);
}

/* torch_oom at T0 + at seconds, requesting req bytes (data as the vLLM log
 * parser writes it, docs/json.md). */
void t_torch_oom(struct timeline *tl, double at, double req, double total, double unalloc)
{
	struct ol_event e = { "torch_oom", { OL_CLOCK_UTC, (T0 + (int64_t)at) * NS, OL_NULL, NULL },
			      4312, NULL, (int64_t)req, 1, "CUDA out of memory", NULL };

	e.data = json_pack("{s:I, s:I, s:I}", "requested_bytes", (json_int_t)req,
			   "total_bytes", (json_int_t)total,
			   "reserved_unallocated_bytes", (json_int_t)unalloc);
	t_begin(tl);
	assert_true(sink_event(&tl->sink, &e) > 0);
	t_end(tl);
	json_decref(e.data);
}

void t_oom_kill(struct timeline *tl, double at, int64_t pid)
{
	struct ol_event e = { "oom_kill", { OL_CLOCK_UTC, (T0 + (int64_t)at) * NS, OL_NULL, NULL },
			      pid, "python3", 8LL << 30, 1, "Killed process", NULL };

	t_begin(tl);
	assert_true(sink_event(&tl->sink, &e) > 0);
	t_end(tl);
}

/* deterministic noise in [-1, 1] */
double t_noise(int i)
{
	uint32_t x = (uint32_t)i * 2654435761u;
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return (double)(x % 20001) / 10000.0 - 1.0;
}

/* p: start, slope per sample, noise amplitude */
double t_line(int i, int n, const double *p)
{
	(void)n;
	return p[0] + p[1] * i + p[2] * t_noise(i);
}

/* p: level, noise, rise, rise starts at sample p[3] (ramp over p[4] samples) */
double t_step(int i, int n, const double *p)
{
	double r = i < p[3] ? 0 : i >= p[3] + p[4] ? p[2] : p[2] * (i - p[3]) / p[4];
	(void)n;
	return p[0] + p[1] * t_noise(i) + r;
}

int64_t t_findings(struct timeline *tl, const char *cause)
{
	return t_int(tl, "SELECT count(*) FROM finding WHERE cause = '%s'", cause);
}

double t_figure(struct timeline *tl, const char *cause, const char *key)
{
	return t_real(tl, "SELECT json_extract(figures, '$.%s') FROM finding WHERE cause = '%s'"
		      " ORDER BY score DESC LIMIT 1", key, cause);
}

/* a snapshot and two stacks in the snapshot store's tables */
void t_alloc_tables(struct timeline *tl)
{
	assert_int_equal(timeline_exec(tl,
		"INSERT INTO snapshot(id, form) VALUES(1, 'pickle');"
		"INSERT INTO stack(id, hash, depth) VALUES(1, 11, 2), (2, 22, 1);"
		"INSERT INTO frame(stack_id, idx, name, file, line) VALUES"
		" (1, 0, 'record_hidden_states', 'metrics_hook.py', 41),"
		" (1, 1, 'forward', 'llama.py', 316), (2, 0, 'forward_cuda', 'activation.py', 84);"), 0);
}
