/*
 * engine_facts.c -- the serving engines' instances and their memory
 * accounting, read once per rule that weighs them (see engine_facts.h).
 */
#include "analyzer/rules/engine_facts.h"
#include "analyzer/derive/oom.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct { const char *kind; unsigned bit; } kinds[] = {
	{ "kv_no_memory", RL_EE_KV_NO_MEMORY }, { "max_len_exceeds_kv", RL_EE_MAX_LEN },
	{ "free_below_utilization", RL_EE_FREE_BELOW }, { "cuda_oom", RL_EE_CUDA_OOM },
	{ "graph_capture_oom", RL_EE_GRAPH_OOM }, { "engine_dead", RL_EE_DEAD },
	{ "prefill_oom", RL_EE_PREFILL_OOM }, { "shard_cannot_start", RL_EE_SHARD },
	{ "decode_oom", RL_EE_DECODE_OOM }, { "retract", RL_EE_RETRACT },
	{ "nccl_oom", RL_EE_NCCL_OOM }, { "cublas_alloc_failed", RL_EE_CUBLAS },
	{ "trt_oom", RL_EE_TRT_OOM },
};

/* The bits of a comma-separated list of kinds. */
static unsigned kind_bits(const char *list)
{
	unsigned bits = 0;
	size_t i, n;

	while (list && *list) {
		n = strcspn(list, ",");
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strlen(kinds[i].kind) == n && !strncmp(list, kinds[i].kind, n))
				bits |= kinds[i].bit;
		list += n + (list[n] == ',');
	}
	return bits;
}

int rl_ef_known(const struct rl_engine *e, enum rl_ef k)
{
	return isfinite(e->f[k]);
}

const struct rl_engine *rl_engine_pick(const struct rl_engine *e, int n,
				       int (*test)(const struct rl_engine *), int least)
{
	const struct rl_engine *best = NULL;
	int i, k, most = least - 1;

	for (i = 0; i < n; i++) {
		int known = 0;
		if (!test(&e[i]))
			continue;
		for (k = 0; k < RL_EF__COUNT; k++)
			known += rl_ef_known(&e[i], (enum rl_ef)k);
		if (known > most)
			most = known, best = &e[i];
	}
	return best;
}

const char *rl_engine_label(const struct rl_engine *e, char *buf, size_t n)
{
	if (e->instance[0])
		snprintf(buf, n, " (%s %s)", e->engine, e->instance);
	else
		buf[0] = 0;
	return buf;
}

/* One row of read_rows' query into e. */
static void read_row(sqlite3_stmt *st, struct rl_engine *e)
{
	int k;

	memset(e, 0, sizeof(*e));
	e->id = sqlite3_column_int64(st, 0);
	e->artifact = sqlite3_column_int64(st, 1);
	snprintf(e->engine, sizeof(e->engine), "%s", q_text(st, 2));
	snprintf(e->instance, sizeof(e->instance), "%s", q_text(st, 3));
	for (k = 0; k < RL_EF__COUNT; k++) {
		double v = sqlite3_column_double(st, 4 + k);
		e->f[k] = sqlite3_column_type(st, 4 + k) == SQLITE_NULL || !isfinite(v) ||
			  fabs(v) > 1e19 ? NAN : v;
	}
	e->errors = kind_bits(q_text(st, 4 + RL_EF__COUNT));
	e->failed_start = sqlite3_column_int(st, 5 + RL_EF__COUNT) > 0;
	e->error_ns = sqlite3_column_type(st, 6 + RL_EF__COUNT) == SQLITE_NULL ? OL_NULL :
		      sqlite3_column_int64(st, 6 + RL_EF__COUNT);
	e->kv_asked = sqlite3_column_type(st, 7 + RL_EF__COUNT) == SQLITE_NULL ? NAN :
		      sqlite3_column_double(st, 7 + RL_EF__COUNT);
	e->kv_available = sqlite3_column_type(st, 8 + RL_EF__COUNT) == SQLITE_NULL ? NAN :
			  sqlite3_column_double(st, 8 + RL_EF__COUNT);
}

/* The errors column, or an empty list where it is not JSON. */
#define ERR "CASE WHEN json_valid(errors) THEN errors ELSE '[]' END"

/* The count key of the last error entry that holds it (SGLang's decode
 * or prefill OOM, server_engine.c srv_engine_counts). */
#define LAST_COUNT(key) "(SELECT json_extract(j.value, '$." key "') FROM json_each(" ERR ") j" \
	" WHERE json_extract(j.value, '$." key "') IS NOT NULL ORDER BY CAST(j.key AS INTEGER) DESC" \
	" LIMIT 1)"

/* The filter that keeps the latest run's facts (RL_EARLIER_RUN of the
 * row's artifact) and, inside a log of several runs, the facts of the
 * run its failure happened in (OOM_OTHER_LOG_RUN), or a false one where
 * there is no oom table (a timeline made by hand). */
static const char *latest_only(struct rule_ctx *c)
{
	return q_has_table(c->db, "oom") ? "(" RL_EARLIER_RUN("engine.artifact_id") " OR "
					   OOM_OTHER_LOG_RUN ")" : "0";
}

/* rl_prepare of head, filter and tail joined; NULL when failed. */
static sqlite3_stmt *prepare3(struct rule_ctx *c, const char *head, const char *filter,
			      const char *tail)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;

	strbuf_addstr(&sql, head);
	strbuf_addstr(&sql, filter);
	strbuf_addstr(&sql, tail);
	st = rl_prepare(c, sql.buf);
	strbuf_release(&sql);
	return st;
}

/* The engine table's rows of the latest run (an earlier run's figures
 * would judge a configuration the user already changed: the gemma3
 * folder's max_model_len 4096, then 128); their number, or -1. */
static int read_rows(struct rule_ctx *c, struct rl_engine *e, int max)
{
	sqlite3_stmt *st = prepare3(c,
		"SELECT id, artifact_id, engine, coalesce(instance, ''), total_bytes, free_bytes,"
		" gpu_memory_utilization, requested_bytes, weights_bytes, activation_peak_bytes,"
		" torch_peak_bytes, non_torch_bytes, cuda_graph_bytes, kv_cache_bytes,"
		" kv_cache_tokens, gpu_blocks, cpu_blocks, max_concurrency, max_num_seqs,"
		" max_model_len, max_batch_prefill_tokens, gpu_layers, model_layers,"
		" compute_buffer_bytes, required_full_bytes, planned_total_bytes, kv_cache_fraction,"
		" (SELECT group_concat(json_extract(j.value, '$.kind'), ',') FROM json_each(" ERR ") j),"
		" (SELECT count(*) FROM json_each(" ERR ") j WHERE "
		DERIVE_FAILED_START("json_extract(j.value, '$.text')") "),"
		" (SELECT min(json_extract(j.value, '$.time_ns')) FROM json_each(" ERR ") j),"
		" " LAST_COUNT("asked_tokens") ", " LAST_COUNT("available_tokens")
		" FROM engine WHERE NOT ", latest_only(c), " ORDER BY id");
	int n = 0;

	if (!st)
		return -1;
	while (n < max && sqlite3_step(st) == SQLITE_ROW)
		read_row(st, &e[n++]);
	sqlite3_finalize(st);
	return n;
}

/* A worker's facts its log line did not state, from its engine's main
 * process in the same log (the configuration is printed there once). */
static void inherit(struct rl_engine *e, int n)
{
	int i, j, k;

	for (i = 0; i < n; i++) {
		if (!e[i].instance[0])
			continue;
		for (j = 0; j < n; j++)
			if (!e[j].instance[0] && e[j].artifact == e[i].artifact &&
			    !strcmp(e[j].engine, e[i].engine))
				break;
		if (j == n)
			continue;
		for (k = 0; k < RL_EF__COUNT; k++)
			if (!rl_ef_known(&e[i], (enum rl_ef)k))
				e[i].f[k] = e[j].f[k];
	}
}

/* No engine rows: one instance from the server.* meta keys, when there
 * is any. 1 or 0. */
static int from_meta(struct rule_ctx *c, struct rl_engine *e)
{
	static const struct { enum rl_ef k; const char *key; } keys[] = {
		{ RL_EF_UTIL, "server.gpu_memory_utilization" }, { RL_EF_MAX_SEQS, "server.max_num_seqs" },
		{ RL_EF_MAX_LEN, "server.max_model_len" }, { RL_EF_WEIGHTS, "server.weights_bytes" },
		{ RL_EF_KV, "server.kv_cache_bytes" }, { RL_EF_KV_TOKENS, "server.kv_cache_tokens" },
		{ RL_EF_BLOCKS, "server.kv_cache_blocks" }, { RL_EF_MAX_CONC, "server.max_concurrency" },
	};
	size_t i;
	int any = 0, k;

	memset(e, 0, sizeof(*e));
	for (k = 0; k < RL_EF__COUNT; k++)
		e->f[k] = NAN;
	e->error_ns = OL_NULL;
	snprintf(e->engine, sizeof(e->engine), "server");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (rl_run_meta_num(c, keys[i].key, &e->f[keys[i].k]) == 0)
			any = 1;
		else
			e->f[keys[i].k] = NAN;
	return any;
}

int rl_run_meta_num(struct rule_ctx *c, const char *key, double *v)
{
	double runs;

	if (!q_has_table(c->db, "oom") ||
	    rl_num(c, &runs, "SELECT 1 FROM oom WHERE run IS NOT NULL LIMIT 1") < 0)
		return rl_meta_num(c, key, v);   /* one run: as ever */
	return rl_num(c, v, "SELECT CAST(m.value AS REAL) FROM meta m WHERE m.key = '%s'"
		      " AND m.value GLOB '[-.0-9]*' AND NOT " RL_EARLIER_RUN("m.artifact_id")
		      " ORDER BY m.rowid LIMIT 1", key);
}

/* The knobs a launch command or configuration pasted beside the failure
 * states (launch.* meta, parsers/serving/launch_conf.h), for the facts an
 * instance's own log did not state: the engine's log is the better
 * witness of what it ran with, the paste the only one where the log is
 * silent. Each fact so taken is marked in e->from_launch. */
static void from_launch(struct rule_ctx *c, struct rl_engine *e, int n)
{
	static const struct { enum rl_ef k; const char *key; } keys[] = {
		{ RL_EF_UTIL, "launch.gpu_memory_utilization" },
		{ RL_EF_MAX_SEQS, "launch.max_num_seqs" },
		{ RL_EF_MAX_LEN, "launch.max_model_len" },
		{ RL_EF_MAX_PREFILL, "launch.max_num_batched_tokens" },
		{ RL_EF_GPU_LAYERS, "launch.gpu_layers" },
		{ RL_EF_KV_FRACTION, "launch.kv_cache_fraction" },
	};
	size_t i;
	double v;
	int j;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (rl_run_meta_num(c, keys[i].key, &v) < 0)
			continue;
		for (j = 0; j < n; j++)
			if (!rl_ef_known(&e[j], keys[i].k)) {
				e[j].f[keys[i].k] = v;
				e[j].from_launch |= 1u << keys[i].k;
			}
	}
}

/* An instance for the launch paste alone (no engine log, no server.*
 * meta): its engine, its knobs. 1, or 0 when no paste states a knob. */
static int launch_only(struct rule_ctx *c, struct rl_engine *e)
{
	char eng[16];
	int k;

	memset(e, 0, sizeof(*e));
	for (k = 0; k < RL_EF__COUNT; k++)
		e->f[k] = NAN;
	e->error_ns = OL_NULL;
	e->kv_asked = e->kv_available = NAN;
	snprintf(e->engine, sizeof(e->engine), "%s",
		 rl_meta_text(c, "launch.engine", eng, sizeof(eng)) == 0 ? eng : "server");
	from_launch(c, e, 1);
	return e->from_launch != 0;
}

int rl_engines_read(struct rule_ctx *c, struct rl_engine *e, int max)
{
	int n = 0;

	if (q_has_table(c->db, "engine") && (n = read_rows(c, e, max)) < 0)
		return -1;
	if (n == 0 && max > 0) {
		n = from_meta(c, e);
		if (n == 0)
			return launch_only(c, e);
		from_launch(c, e, n);
		return n;
	}
	inherit(e, n);
	from_launch(c, e, n);
	return n;
}
