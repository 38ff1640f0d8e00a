/*
 * offload.c -- the derive pass `offload_fit` (offload.h): the room a
 * llama.cpp/Ollama instance's GPU plan left, and the layers that fit.
 *
 * Ollama's scheduler estimates before it loads (llm/memory.go
 * EstimateGPULayers, v0.1.45 to v0.12.x; logged as the "offload to cuda"
 * line up to v0.5.x, "msg=offload library=cuda" from v0.5.13): it puts
 * one layer's worth as a buffer, then each layer (its weights and its
 * share of the KV cache) on a GPU while the GPU's free memory exceeds
 * what it holds so far plus max(graph.partial, graph.full) plus the
 * layer, then the graph. memory.required.partial is the sum of those
 * per-GPU allocations (memory.required.allocations), memory.required.full
 * that sum plus every layer left on the host (the overflow), so
 *
 *   a layer  = (required.full - required.partial) / (layers.model - layers.offload)
 *
 * when not every layer was offloaded (every version: memory.weights.total
 * counts the KV cache in v0.1.45..v0.6.0 and not from v0.6.1, so the
 * weights are the fallback only, over layers.model, the smaller reading).
 * By construction the plan leaves less than a layer free (the next one
 * did not fit), and its graph term is a formula (GraphSize), not the
 * buffer ggml will reserve: the plan fits only if what it leaves holds
 * the graph once more. The reserve is max(graph.partial, graph.full, the
 * compute buffer the runner printed), or the allocation that failed (oom
 * row 1, a GPU's) when that is larger and the card could hold it; each
 * GPU that holds layers gives up ceil((reserve - headroom) / a layer)
 * layers when its headroom is short of the reserve:
 *
 *   layers_fit = layers.offload - sum over GPUs of those layers
 *
 * llama.cpp's own log (basis ggml_buffers) states what it allocated, not
 * an estimate: its GPU buffers (model, KV, compute) against the free
 * memory it saw ("using device CUDA0 (...) - N MiB free"), a layer being
 * (model + KV buffers) / the layers offloaded, the reserve its compute
 * buffer; one row only when its buffers were on one GPU.
 *
 * Every figure is an inference from the engine's printed numbers (Ollama
 * rounds them to 0.1 GiB): the row is one, and says which basis gave it.
 */
#include "analyzer/derive/offload.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OFFLOAD_DEVICES 16   /* the GPUs of one instance read */
#define OLLAMA_ROUNDING (0.1 * 1073741824.0) /* Ollama prints GiB to one decimal */

static const char offload_schema[] =
	"DROP TABLE IF EXISTS offload_fit;"
	"CREATE TABLE offload_fit(engine_id INTEGER PRIMARY KEY, engine TEXT NOT NULL,"
	" instance TEXT, basis TEXT NOT NULL, devices INTEGER, device INTEGER,"
	" available_bytes INTEGER, planned_bytes INTEGER, headroom_bytes INTEGER,"
	" reserve_bytes INTEGER, reserve_from TEXT, bytes_per_layer INTEGER,"
	" per_layer_from TEXT, gpu_layers INTEGER, model_layers INTEGER,"
	" layers_short INTEGER, layers_fit INTEGER);";

/* One instance's figures (NAN: not stated). */
struct plan {
	int64_t id, artifact;
	char engine[16], instance[80];
	double free, weights, kv, compute, gpu_layers, model_layers, full, partial, graph_partial;
	int ndev;
	double dev_free[OFFLOAD_DEVICES], dev_planned[OFFLOAD_DEVICES];
	int dev_index[OFFLOAD_DEVICES];
};

/* why into err (may be NULL); returns -1. */
static int failed(struct strbuf *err, const char *why, sqlite3 *db)
{
	if (err)
		strbuf_addf(err, "%s: %s", why, sqlite3_errmsg(db));
	return -1;
}

static double col(sqlite3_stmt *st, int i)
{
	double v = sqlite3_column_double(st, i);

	return sqlite3_column_type(st, i) == SQLITE_NULL || !isfinite(v) || fabs(v) > 1e19 ? NAN : v;
}

static int known(double v)
{
	return isfinite(v);
}

/* Ollama's per-GPU rows of p ('<instance> device N': memory.available and
 * memory.required.allocations of that GPU, server_engine.c) into p's
 * device arrays. 0, or -1 with why in err. */
static int read_devices(sqlite3 *db, struct plan *p, struct strbuf *err)
{
	sqlite3_stmt *st;
	char prefix[100];

	snprintf(prefix, sizeof(prefix), "%s%sdevice ", p->instance, p->instance[0] ? " " : "");
	if (sqlite3_prepare_v2(db, "SELECT CAST(substr(instance, length(?3) + 1) AS INTEGER),"
			       " free_bytes, requested_bytes FROM engine WHERE artifact_id IS ?1"
			       " AND engine = ?2 AND substr(instance, 1, length(?3)) = ?3"
			       " ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return failed(err, "offload_fit devices", db);
	sqlite3_bind_int64(st, 1, p->artifact);
	sqlite3_bind_text(st, 2, p->engine, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, prefix, -1, SQLITE_STATIC);
	p->ndev = 0;
	while (sqlite3_step(st) == SQLITE_ROW && p->ndev < OFFLOAD_DEVICES) {
		p->dev_index[p->ndev] = sqlite3_column_int(st, 0);
		p->dev_free[p->ndev] = col(st, 1);
		p->dev_planned[p->ndev] = col(st, 2);
		p->ndev++;
	}
	sqlite3_finalize(st);
	return 0;
}

/* A layer's bytes from p's figures, its basis in *from; NAN when none. */
static double per_layer(const struct plan *p, int ollama, const char **from)
{
	if (ollama && known(p->full) && known(p->partial) && p->model_layers > p->gpu_layers &&
	    p->full > p->partial) {
		*from = "full_minus_partial";
		return (p->full - p->partial) / (p->model_layers - p->gpu_layers);
	}
	if (ollama && known(p->weights) && p->weights > 0 && p->model_layers >= 1) {
		*from = "weights";
		return p->weights / p->model_layers;
	}
	if (!ollama && known(p->weights) && p->weights > 0 && p->gpu_layers >= 1) {
		*from = "gpu_buffers";
		return (p->weights + (known(p->kv) && p->kv > 0 ? p->kv : 0)) / p->gpu_layers;
	}
	return NAN;
}

/* The row of p into offload_fit, when its figures give one (oom_req:
 * the size the OOM's GPU allocation asked for, NAN none). 0, or -1. */
static int judge(sqlite3 *db, const struct plan *p, double oom_req, struct strbuf *err)
{
	int ollama = !strcmp(p->engine, "ollama"), i, n = 0, tight = -1;
	const char *from = NULL, *basis, *reserve_from = "graph";
	double per, reserve = 0, avail[OFFLOAD_DEVICES], planned[OFFLOAD_DEVICES], most = 0;
	int index[OFFLOAD_DEVICES];
	double drop = 0;
	sqlite3_stmt *st;
	int rc;

	if (!(p->gpu_layers >= 1) || !(p->model_layers >= p->gpu_layers))
		return 0;
	per = per_layer(p, ollama, &from);
	if (!(per > 0))
		return 0;
	if (ollama && p->ndev > 1) {   /* each GPU's own figures */
		for (i = 0; i < p->ndev; i++)
			if (known(p->dev_free[i]) && known(p->dev_planned[i]) && p->dev_planned[i] > 0) {
				avail[n] = p->dev_free[i], planned[n] = p->dev_planned[i];
				index[n++] = p->dev_index[i];
			}
		basis = "ollama_estimate";
	} else if (ollama && known(p->free) && known(p->partial) && p->partial > 0 &&
		   p->partial <= p->free + OLLAMA_ROUNDING) {
		/* Ollama never plans past what it saw free (each layer is
		 * placed only while it fits): a plan above it is two offload
		 * lines mixed (free_bytes keeps the first said, the plan the
		 * last), no one estimate */
		avail[0] = p->free, planned[0] = p->partial, index[0] = -1, n = 1;
		basis = "ollama_estimate";
	} else if (!ollama && p->ndev <= 1 && known(p->free) && known(p->weights)) {
		avail[0] = p->free, index[0] = -1, n = 1;
		planned[0] = p->weights + (known(p->kv) ? p->kv : 0) +
			     (known(p->compute) ? p->compute : 0);
		basis = "ggml_buffers";
	} else {
		return 0;
	}
	if (!n)
		return 0;
	if (known(p->compute) && p->compute > reserve)
		reserve = p->compute;
	if (ollama && known(p->graph_partial) && p->graph_partial > reserve)
		reserve = p->graph_partial;
	for (i = 0; i < n; i++)
		if (avail[i] > most)
			most = avail[i];
	if (known(oom_req) && oom_req > reserve && oom_req <= most) {
		reserve = oom_req;
		reserve_from = "failed_request";
	}
	for (i = 0; i < n; i++) {
		double room = avail[i] - planned[i];
		if (tight < 0 || room < avail[tight] - planned[tight])
			tight = i;
		if (room < reserve)
			drop += ceil((reserve - room) / per);
	}
	if (drop > p->gpu_layers)
		drop = p->gpu_layers;
	if (sqlite3_prepare_v2(db, "INSERT INTO offload_fit(engine_id, engine, instance, basis,"
			       " devices, device, available_bytes, planned_bytes, headroom_bytes,"
			       " reserve_bytes, reserve_from, bytes_per_layer, per_layer_from,"
			       " gpu_layers, model_layers, layers_short, layers_fit) VALUES(?1, ?2,"
			       " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
			       -1, &st, NULL) != SQLITE_OK)
		return failed(err, "offload_fit insert", db);
	sqlite3_bind_int64(st, 1, p->id);
	sqlite3_bind_text(st, 2, p->engine, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, p->instance, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, basis, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, n);
	if (index[tight] >= 0)
		sqlite3_bind_int(st, 6, index[tight]);
	sqlite3_bind_int64(st, 7, llround(avail[tight]));
	sqlite3_bind_int64(st, 8, llround(planned[tight]));
	sqlite3_bind_int64(st, 9, llround(avail[tight] - planned[tight]));
	sqlite3_bind_int64(st, 10, llround(reserve));
	sqlite3_bind_text(st, 11, reserve > 0 ? reserve_from : "none", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 12, llround(per));
	sqlite3_bind_text(st, 13, from, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 14, llround(p->gpu_layers));
	sqlite3_bind_int64(st, 15, llround(p->model_layers));
	sqlite3_bind_int64(st, 16, llround(drop));
	sqlite3_bind_int64(st, 17, llround(p->gpu_layers - drop));
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : failed(err, "offload_fit insert", db);
}

/* The size OOM row 1 asked for when it is a GPU's (NAN otherwise). */
static double oom_request(sqlite3 *db)
{
	sqlite3_stmt *st;
	double v = NAN;

	if (sqlite3_prepare_v2(db, "SELECT requested_bytes FROM oom WHERE id = 1 AND scope = 'gpu'",
			       -1, &st, NULL) != SQLITE_OK)
		return NAN;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = col(st, 0);
	sqlite3_finalize(st);
	return v > 0 ? v : NAN;
}

int derive_offload(sqlite3 *db, struct strbuf *err)
{
	sqlite3_stmt *st;
	double req;
	int rc = 0;

	if (sqlite3_exec(db, offload_schema, NULL, NULL, NULL) != SQLITE_OK)
		return failed(err, "offload_fit schema", db);
	req = oom_request(db);
	/* the instances' own rows: a '<instance> device N' row is one GPU's */
	if (sqlite3_prepare_v2(db, "SELECT id, artifact_id, engine, coalesce(instance, ''),"
			       " free_bytes, weights_bytes, kv_cache_bytes, compute_buffer_bytes,"
			       " gpu_layers, model_layers, required_full_bytes,"
			       " required_partial_bytes, graph_partial_bytes FROM engine"
			       " WHERE engine IN ('ollama', 'llama.cpp') AND gpu_layers >= 1"
			       " AND coalesce(instance, '') NOT LIKE 'device %'"
			       " AND coalesce(instance, '') NOT LIKE '% device %' ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return failed(err, "offload_fit engines", db);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		struct plan p;

		memset(&p, 0, sizeof(p));
		p.id = sqlite3_column_int64(st, 0);
		p.artifact = sqlite3_column_int64(st, 1);
		snprintf(p.engine, sizeof(p.engine), "%s", (const char *)sqlite3_column_text(st, 2));
		snprintf(p.instance, sizeof(p.instance), "%s",
			 (const char *)sqlite3_column_text(st, 3));
		p.free = col(st, 4), p.weights = col(st, 5), p.kv = col(st, 6);
		p.compute = col(st, 7), p.gpu_layers = col(st, 8), p.model_layers = col(st, 9);
		p.full = col(st, 10), p.partial = col(st, 11), p.graph_partial = col(st, 12);
		rc = read_devices(db, &p, err);
		if (rc == 0)
			rc = judge(db, &p, req, err);
	}
	sqlite3_finalize(st);
	return rc;
}
