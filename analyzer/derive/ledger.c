/*
 * ledger.c -- the memory ledger of each card and of the host: what filled
 * it, line by line (weights, KV cache, CUDA graphs, activations and other
 * PyTorch tensors, PyTorch's cache, memory outside PyTorch, other
 * processes, free, and the rest nothing explains), each line with the
 * artifact that gave it and how sure it is. A derive pass (derive.h),
 * like whatif.c: it writes no finding, only the `ledger` table
 * (docs/schema.md), which it makes anew, and which every report leads with.
 *
 * Sources, the first that has the figure winning:
 *  - a card's capacity: nvidia-smi/DCGM gpu.total_bytes, meta
 *    gpu.total_bytes.gpuN, PyTorch's out-of-memory message, the engine's
 *    start-up accounting, another stack's failure on that device
 *    (oom.total_bytes: torch_npu, HIP, ggml...);
 *  - weights, KV cache, CUDA graphs: the engine's accounting (start-up);
 *    CUDA graphs else the message's private pools, else the snapshot's
 *    private pools;
 *  - PyTorch's allocated and reserved memory: the message (rl_card, the
 *    reading capacity.c weighs, so both say the same), else the latest
 *    snapshot's segments, else torch.* series (memory_stats, a trace) at
 *    the OOM; activations and other tensors are what is allocated beyond
 *    the engine's weights, KV cache and graphs;
 *  - outside PyTorch: the message (this process's use less PyTorch's
 *    reserve), else the engine's non_torch figure, else nvidia-smi's
 *    count for the process less the reserve;
 *  - other processes: the message's list, else nvidia-smi's per-process
 *    counts near the OOM, all but the message's process (else the
 *    engine's pid, else the largest); a list by uuid alone is the only
 *    card's when there is one;
 *  - free: the message (PyTorch's, else the failure's oom.free_bytes),
 *    else the capacity less nvidia-smi's used;
 *  - the host: the kernel's OOM report (memcg usage and limit, or RAM and
 *    free), its task dump (the victim's RSS, the other tasks'), else the
 *    cgroup files (memory.current, memory.max, memory.stat).
 * What the lines do not cover of the capacity is "unexplained"; lines
 * from different moments (start-up figures against an OOM) may add up to
 * more than the card, and then the excess is a row of its own, not a
 * negative slice.
 */
#include "analyzer/derive/ledger_impl.h"
#include "analyzer/derive/derive.h"
#include "analyzer/derive/oom.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEDGER_CARDS 16
#define PROC_WINDOW_NS (120 * 1000000000LL)  /* nvidia-smi processes seen with the last sample */

/* Derived, replaced at each analysis: dropped first, so a table of an
 * older shape never refuses the rows. */
static const char sql_table[] =
	"DROP TABLE IF EXISTS ledger;\n"
	"CREATE TABLE ledger(\n"
	"  id INTEGER PRIMARY KEY, scope TEXT, entity TEXT, device INTEGER, line TEXT,\n"
	"  label TEXT, bytes INTEGER, part INTEGER, certainty TEXT, moment TEXT,\n"
	"  how TEXT, source TEXT, ref_table TEXT, ref_id INTEGER);";



/* ---- the cards ---------------------------------------------------------- */

/* The device a serving engine's instance runs on: "rank N", "TPn",
 * "device N" (a llama.cpp/Ollama GPU's buffers), else -1 (the first
 * card). */
static int64_t engine_device(const char *instance)
{
	const char *p;

	if (!instance)
		return -1;
	if ((p = strstr(instance, "rank ")))
		return strtoll(p + 5, NULL, 10);
	if ((p = strstr(instance, "TP")) && p[2] >= '0' && p[2] <= '9')
		return strtoll(p + 2, NULL, 10);
	if ((p = strstr(instance, "device ")) && p[7] >= '0' && p[7] <= '9')
		return strtoll(p + 7, NULL, 10);
	return -1;
}

/* 1 when an engine states its buffers GPU by GPU ("device N" rows): its
 * main row's sums then belong to no one card. */
static int device_rows(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	int r = 0;

	if (q_has_table(c->db, "engine") && (st = rl_prepare(c, "SELECT 1 FROM engine WHERE"
	    " instance GLOB 'device [0-9]*' OR instance GLOB '* device [0-9]*' LIMIT 1"))) {
		r = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return r;
}

static void add_device(int64_t *dev, int *n, int64_t d)
{
	int i;

	if (d < 0 || d > 4096)
		return;
	for (i = 0; i < *n; i++)
		if (dev[i] == d)
			return;
	if (*n < LEDGER_CARDS)
		dev[(*n)++] = d;
}

static int cmp_dev(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The cards the artifacts speak of, in order: GPU series and meta, PyTorch
 * OOM messages, snapshot segments, torch.* series, engines. */
static int cards(struct rule_ctx *c, int64_t *dev, int *n)
{
	static const char *const sql[] = {
		"SELECT DISTINCT CAST(substr(entity, 4) AS INTEGER) FROM series WHERE name GLOB 'gpu.*'"
		" AND entity GLOB 'gpu[0-9]*'",
		"SELECT CAST(substr(key, 20) AS INTEGER) FROM meta WHERE key GLOB 'gpu.total_bytes.gpu[0-9]*'",
		"SELECT DISTINCT coalesce(json_extract(data, '$.device'), 0) FROM event"
		" WHERE kind = 'torch_oom' AND json_valid(data) AND (json_extract(data, '$.total_bytes') > 0"
		" OR json_extract(data, '$.allocated_bytes') > 0)",
		/* memory_stats does not print its device: "cuda" is the first card */
		"SELECT DISTINCT CASE entity WHEN 'cuda' THEN 0 ELSE CAST(substr(entity, 6) AS INTEGER)"
		" END FROM series WHERE name GLOB 'torch.*' AND (entity GLOB 'cuda:[0-9]*' OR"
		" entity = 'cuda')",
	};
	sqlite3_stmt *st;
	size_t i;

	*n = 0;
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		if (!(st = rl_prepare(c, sql[i])))
			return -1;
		while (sqlite3_step(st) == SQLITE_ROW)
			add_device(dev, n, sqlite3_column_int64(st, 0));
		sqlite3_finalize(st);
	}
	if (q_has_table(c->db, "segment") && (st = rl_prepare(c, "SELECT DISTINCT device FROM"
	    " segment WHERE device IS NOT NULL AND snapshot_id = (SELECT max(snapshot_id) FROM segment)"))) {
		while (sqlite3_step(st) == SQLITE_ROW)
			add_device(dev, n, sqlite3_column_int64(st, 0));
		sqlite3_finalize(st);
	}
	if (q_has_table(c->db, "engine") && (st = rl_prepare(c, "SELECT instance FROM engine WHERE"
	    " coalesce(weights_bytes, kv_cache_bytes, total_bytes, cuda_graph_bytes) IS NOT NULL"))) {
		int per_gpu = device_rows(c);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t d = engine_device((const char *)sqlite3_column_text(st, 0));
			if (d >= 0 || !per_gpu)
				add_device(dev, n, d < 0 ? (*n ? dev[0] : 0) : d);
		}
		sqlite3_finalize(st);
	}
	qsort(dev, (size_t)*n, sizeof(*dev), cmp_dev);
	return 0;
}

/* The engine accounting of card d (the first card takes the instances
 * that name no rank, unless an engine's rows are per GPU): its row id,
 * or 0. */
static int64_t engine_of(struct rule_ctx *c, int64_t d, int first)
{
	sqlite3_stmt *st;
	int64_t id = 0, fallback = 0;

	if (device_rows(c))
		first = 0;

	/* in a log of several runs, the rows of the run its failure
	 * happened in come first (OOM_OTHER_LOG_RUN: a later runner's
	 * figures are not the failed one's) */
#define ENGINE_ROWS "SELECT id, instance FROM engine WHERE" \
	" coalesce(weights_bytes, kv_cache_bytes, total_bytes, cuda_graph_bytes) IS NOT NULL ORDER BY "
	if (!q_has_table(c->db, "engine") ||
	    !(st = rl_prepare(c, q_has_table(c->db, "oom") ? ENGINE_ROWS OOM_OTHER_LOG_RUN ", id"
							    : ENGINE_ROWS "id")))
		return 0;
#undef ENGINE_ROWS
	while (!id && sqlite3_step(st) == SQLITE_ROW) {
		int64_t e = engine_device((const char *)sqlite3_column_text(st, 1));
		if (e == d)
			id = sqlite3_column_int64(st, 0);
		else if (e < 0 && first && !fallback)
			fallback = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return id ? id : fallback;
}

/* The engine's figures of row id (bytes; -1 not said). */
struct eng {
	int64_t id;
	int64_t pid;               /* the instance's ("pid 5120"); -1 none */
	char what[160];            /* "vllm start-up log (vllm.log)" */
	double total, weights, kv, graphs, act, non_torch;
	int act_compute;           /* act is ggml's compute buffer (llama.cpp, Ollama) */
	int share;                 /* weights and kv are the offloaded layers' share of
				    * Ollama's whole-model plan: inferred, not stated */
};

/* Ollama's offload line plans for the whole model: memory.weights.total
 * and memory.required.kv are every layer's, yet only layers.offload of
 * layers.model go to the GPU, each with its KV cache. When fewer than all
 * were offloaded (st's columns 0 engine, 10 gpu_layers, 11 model_layers,
 * 12 required_full_bytes), the card holds their share: e's weights and
 * KV cache are scaled to it and marked inferred. */
static void ollama_share(sqlite3_stmt *st, struct eng *e)
{
	double on, of;

	if (strcmp(q_text(st, 0), "ollama") || sqlite3_column_type(st, 12) == SQLITE_NULL ||
	    sqlite3_column_type(st, 10) == SQLITE_NULL || sqlite3_column_type(st, 11) == SQLITE_NULL)
		return;
	on = sqlite3_column_double(st, 10);
	of = sqlite3_column_double(st, 11);
	if (on < 0 || of < 1 || on >= of)
		return;
	if (e->weights >= 0)
		e->weights = floor(e->weights * on / of);
	if (e->kv > 0)
		e->kv = floor(e->kv * on / of);
	e->share = 1;
	snprintf(e->what + strlen(e->what), sizeof(e->what) - strlen(e->what),
		 ": %.0f of %.0f layers' share", on, of);
}

static void engine_read(struct rule_ctx *c, int64_t id, struct eng *e)
{
	sqlite3_stmt *st;
	char name[160];

	memset(e, 0, sizeof(*e));
	e->pid = -1;
	e->total = e->weights = e->kv = e->graphs = e->act = e->non_torch = -1;
	if (!id || !(st = rl_prepare(c, "SELECT engine, instance, artifact_id, total_bytes,"
	    " weights_bytes, kv_cache_bytes, cuda_graph_bytes, activation_peak_bytes,"
	    " non_torch_bytes, compute_buffer_bytes, gpu_layers, model_layers,"
	    " required_full_bytes FROM engine WHERE id = ?")))
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *inst = (const char *)sqlite3_column_text(st, 1);
		e->id = id;
		if (inst && strstr(inst, "pid "))
			e->pid = strtoll(strstr(inst, "pid ") + 4, NULL, 10);
		snprintf(e->what, sizeof(e->what), "%s%s%s start-up log (%s)", q_text(st, 0),
			 inst && *inst ? " " : "", inst ? inst : "",
			 ledger_art_name(c, sqlite3_column_int64(st, 2), name, sizeof(name)));
		e->total = ledger_col_size(st, 3);
		e->weights = ledger_col_size(st, 4);
		e->kv = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 5);
		e->graphs = ledger_col_size(st, 6);
		e->act = ledger_col_size(st, 7);
		e->non_torch = ledger_col_size(st, 8);
		if (e->act < 0 && (e->act = ledger_col_size(st, 9)) >= 0)
			e->act_compute = 1;
		ollama_share(st, e);
	}
	sqlite3_finalize(st);
}

/* The device of the message rl_card read. */
static int64_t card_device(struct rule_ctx *c, const struct rl_card *k, char *where, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT coalesce(json_extract(data, '$.device'), 0),"
				      " artifact_id, line FROM event WHERE id = ?");
	int64_t d = -1;
	char name[160];

	where[0] = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, k->ev);
	if (sqlite3_step(st) == SQLITE_ROW) {
		d = sqlite3_column_int64(st, 0);
		ledger_art_name(c, sqlite3_column_int64(st, 1), name, sizeof(name));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			snprintf(where, n, "PyTorch's out-of-memory message (%s line %lld)", name,
				 (long long)sqlite3_column_int64(st, 2));
		else
			snprintf(where, n, "PyTorch's out-of-memory message (%s)", name);
	}
	sqlite3_finalize(st);
	return d;
}


/* What one card's artifacts say, gathered before the lines are made. */
struct card_in {
	int64_t d;
	char gpu[24], cuda[24];    /* "gpu0", "cuda:0" */
	struct eng e;
	const struct rl_card *k;   /* the message, when it is this card's; else NULL */
	char kwhere[240];
	struct fig cap, used, reserved, alloc, unalloc, pools;
	struct fig self, others;   /* nvidia-smi's per-process counts */
	struct fig oom_free;       /* the free memory a failure of another wording states */
	int64_t self_pid;
	int n_others;
};

/* Whether nvidia-smi's process list names its card by a uuid the
 * timeline cannot tie to an index (a --query-compute-apps log beside a
 * --query-gpu one without a uuid column) while gpu is the only card and
 * the list one uuid: then the list is that card's. 1, 0, -1 failed. */
static int one_card_by_uuid(struct rule_ctx *c, const char *gpu)
{
	double by_index, cards, uuids;
	char glob[40];

	snprintf(glob, sizeof(glob), "%s/pid:*", gpu);
	if (rl_num(c, &by_index, "SELECT count(*) FROM series WHERE name = 'gpu.proc_used_bytes' AND"
		   " entity GLOB '%s'", glob) < 0 || by_index > 0 ||
	    rl_num(c, &cards, "SELECT count(DISTINCT entity) FROM series WHERE name IN"
		   " ('gpu.total_bytes', 'gpu.used_bytes') AND entity GLOB 'gpu[0-9]*'") < 0 ||
	    rl_num(c, &uuids, "SELECT count(DISTINCT substr(entity, 1, instr(entity, '/pid:')))"
		   " FROM series WHERE name = 'gpu.proc_used_bytes' AND entity GLOB 'GPU-*/pid:*'") < 0)
		return c->failed ? -1 : 0;
	return cards == 1 && uuids == 1;
}

/* nvidia-smi's per-process counts of card in->d nearest before the OOM:
 * the process of the message (else the largest) and the others seen
 * within PROC_WINDOW_NS of the last sample. */
static int smi_processes(struct rule_ctx *c, struct card_in *in)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT s.id, s.entity, s.artifact_id, p.value, p.time_ns, p.rowid FROM series s"
		" JOIN sample p ON p.series_id = s.id WHERE s.name = 'gpu.proc_used_bytes'"
		" AND s.entity GLOB ?1 AND p.time_ns = (SELECT max(q.time_ns) FROM sample q"
		" WHERE q.series_id = s.id AND q.time_ns <= ?2 AND q.value IS NOT NULL)"
		" ORDER BY p.value DESC LIMIT 256");
	struct { int64_t pid, t, sid, art, rowid; double v; } p[256];
	int n = 0, i, self = -1, uuid_only;
	int64_t tmax = INT64_MIN, art = 0, want;
	char glob[40], name[160], src[240];
	double sum = 0;

	if (!st)
		return -1;
	snprintf(glob, sizeof(glob), "%s/pid:*", in->gpu);
	if ((uuid_only = one_card_by_uuid(c, in->gpu)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	if (uuid_only)
		snprintf(glob, sizeof(glob), "*/pid:*");
	sqlite3_bind_text(st, 1, glob, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, c->oom_ns == OL_NULL ? INT64_MAX : c->oom_ns);
	while (n < 256 && sqlite3_step(st) == SQLITE_ROW) {
		const char *ent = (const char *)sqlite3_column_text(st, 1);
		p[n].sid = sqlite3_column_int64(st, 0);
		p[n].pid = ent && strstr(ent, "pid:") ? strtoll(strstr(ent, "pid:") + 4, NULL, 10) : -1;
		p[n].v = ledger_col_size(st, 3);
		p[n].t = sqlite3_column_int64(st, 4);
		p[n].art = sqlite3_column_int64(st, 2);
		p[n].rowid = sqlite3_column_int64(st, 5);
		if (p[n].t > tmax)
			tmax = p[n].t;
		n++;
	}
	sqlite3_finalize(st);
	/* no message names the process: the engine's own pid, when it has
	 * one (an engine whose pid is not listed holds nothing there: every
	 * listed process is another's), else the largest */
	want = in->self_pid != OL_NULL ? in->self_pid : in->e.pid > 0 ? in->e.pid : OL_NULL;
	for (i = 0; i < n; i++)
		if (p[i].t >= tmax - PROC_WINDOW_NS && p[i].v >= 0 &&
		    (self < 0 ? want == OL_NULL || p[i].pid == want : 0))
			self = i;
	/* the file of the sample named (the engine's, else the last read):
	 * its block's paste, not the series' first */
	if (n) {
		i = self >= 0 ? self : n - 1;
		art = ledger_sample_art(c, p[i].sid, p[i].rowid, p[i].art);
	}
	ledger_art_name(c, art, name, sizeof(name));
	if (uuid_only) {      /* say how the list was tied to the card */
		size_t l = strlen(name);
		snprintf(name + l, sizeof(name) - l, "; listed by GPU uuid, taken as %s, the only card",
			 in->gpu);
	}
	for (i = 0; i < n; i++) {
		if (i == self || p[i].t < tmax - PROC_WINDOW_NS || p[i].v < 0)
			continue;
		sum += p[i].v;
		in->n_others++;
	}
	if (self >= 0) {
		snprintf(src, sizeof(src), "nvidia-smi gpu.proc_used_bytes %s/pid:%lld (%s)", in->gpu,
			 (long long)p[self].pid, name);
		ledger_fig_set(&in->self, p[self].v, "measured", ledger_at_oom(c), "series", p[self].sid, src);
		in->self_pid = p[self].pid;
	}
	if (in->n_others) {
		snprintf(src, sizeof(src), "nvidia-smi gpu.proc_used_bytes: %d other process%s on %s"
			 " (%s)", in->n_others, in->n_others > 1 ? "es" : "", in->gpu, name);
		ledger_fig_set(&in->others, sum, "measured", ledger_at_oom(c), NULL, 0, src);
	}
	return 0;
}

/* The snapshot's figures of card d: reserved and allocated (segments),
 * private pools (the pool table). */
static void snapshot_figs(struct rule_ctx *c, struct card_in *in)
{
	sqlite3_stmt *st;
	char name[160], src[240];
	int64_t snap, art;

	if (!q_has_table(c->db, "segment") || !q_has_table(c->db, "snapshot") ||
	    !(st = rl_prepare(c, "SELECT g.snapshot_id, s.artifact_id, sum(g.total_size),"
	      " sum(g.allocated_size) FROM segment g JOIN snapshot s ON s.id = g.snapshot_id"
	      " WHERE g.snapshot_id = (SELECT max(snapshot_id) FROM segment) AND g.device = ?")))
		return;
	sqlite3_bind_int64(st, 1, in->d);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 2) != SQLITE_NULL) {
		snap = sqlite3_column_int64(st, 0);
		art = sqlite3_column_int64(st, 1);
		snprintf(src, sizeof(src), "PyTorch snapshot's segments (%s)",
			 ledger_art_name(c, art, name, sizeof(name)));
		if (in->reserved.v < 0)
			ledger_fig_set(&in->reserved, ledger_col_size(st, 2), "measured", "snapshot", "snapshot", snap, src);
		if (in->alloc.v < 0)
			ledger_fig_set(&in->alloc, ledger_col_size(st, 3), "measured", "snapshot", "snapshot", snap, src);
		sqlite3_finalize(st);
		st = NULL;   /* finalized: the last finalize below is the pools' */
		if (in->pools.v < 0 && q_has_table(c->db, "pool") &&
		    (st = rl_prepare(c, "SELECT sum(reserved_bytes) FROM pool WHERE snapshot_id = ?"
				     " AND device = ? AND private_pool = 1"))) {
			sqlite3_bind_int64(st, 1, snap);
			sqlite3_bind_int64(st, 2, in->d);
			snprintf(src, sizeof(src), "PyTorch snapshot's private pools (%s)", name);
			if (sqlite3_step(st) == SQLITE_ROW && ledger_col_size(st, 0) > 0)
				ledger_fig_set(&in->pools, ledger_col_size(st, 0), "measured", "snapshot", "snapshot",
					snap, src);
		}
	}
	sqlite3_finalize(st);
}

#define FAILURE_SOURCE "the failure's message"

/* What the OOM (row 1) states of this card when it is not PyTorch's
 * message (rl_card): another stack's failure on this device that gives
 * the device's total and free memory (HIP, ggml, torch_npu, XLA...;
 * oom.total_bytes/free_bytes), so that the ledger and the answer show
 * the one capacity the failure stated. The capacity only where no
 * monitor, meta or message gave one. */
static void failure_figs(struct rule_ctx *c, struct card_in *in)
{
	sqlite3_stmt *st;
	char where[64];

	in->oom_free.v = -1;
	if (in->k)
		return;
	st = rl_prepare(c, "SELECT total_bytes, free_bytes, event_id, family FROM oom WHERE id = 1"
			" AND device = ?1 AND scope <> 'host' AND event_id IS NOT NULL");
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, in->d);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t ev = sqlite3_column_int64(st, 2);
		snprintf(where, sizeof(where), "%s (%s)", FAILURE_SOURCE, sqlite3_column_text(st, 3) ?
			 (const char *)sqlite3_column_text(st, 3) : "memory failure");
		if (in->cap.v < 0 && sqlite3_column_type(st, 0) != SQLITE_NULL &&
		    sqlite3_column_double(st, 0) > 0)
			ledger_fig_set(&in->cap, sqlite3_column_double(st, 0), "stated", "OOM", "event", ev,
				       where);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL && sqlite3_column_double(st, 1) >= 0)
			ledger_fig_set(&in->oom_free, sqlite3_column_double(st, 1), "stated", "OOM", "event",
				       ev, where);
	}
	sqlite3_finalize(st);
}

/* Every figure of card in->d, each from the first source that has it. */
static int gather(struct rule_ctx *c, struct card_in *in, const struct rl_card *k, int first)
{
	struct fig *f[] = { &in->cap, &in->used, &in->reserved, &in->alloc, &in->unalloc,
			    &in->pools, &in->self, &in->others };
	char key[64];
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		f[i]->v = -1;
	snprintf(in->gpu, sizeof(in->gpu), "gpu%lld", (long long)in->d);
	snprintf(in->cuda, sizeof(in->cuda), "cuda:%lld", (long long)in->d);
	engine_read(c, engine_of(c, in->d, first), &in->e);
	in->k = k->ev && card_device(c, k, in->kwhere, sizeof(in->kwhere)) == in->d ? k : NULL;
	in->self_pid = in->k ? in->k->pid : OL_NULL;
	/* capacity */
	snprintf(key, sizeof(key), "gpu.total_bytes.%s", in->gpu);
	if (ledger_series_fig(c, "gpu.total_bytes", in->gpu, 0, "nvidia-smi/DCGM", &in->cap) < 0 &&
	    ledger_meta_fig(c, key, "measured", &in->cap) < 0) {
		if (in->k && in->k->total > 0)
			ledger_fig_set(&in->cap, in->k->total, "stated", "OOM", "event", in->k->ev, in->kwhere);
		else if (in->e.total > 0)
			ledger_fig_set(&in->cap, in->e.total, "stated", "start-up", "engine", in->e.id, in->e.what);
	}
	failure_figs(c, in);
	ledger_series_fig(c, "gpu.used_bytes", in->gpu, 1, "nvidia-smi/DCGM", &in->used);
	/* PyTorch's own figures: the message, the snapshot, memory_stats */
	if (in->k) {
		const struct rl_card *m = in->k;
		ledger_fig_set(&in->reserved, m->reserved, "stated", "OOM", "event", m->ev, in->kwhere);
		ledger_fig_set(&in->alloc, m->alloc, "stated", "OOM", "event", m->ev, in->kwhere);
		ledger_fig_set(&in->unalloc, m->unalloc, "stated", "OOM", "event", m->ev, in->kwhere);
		if (m->pools > 0)
			ledger_fig_set(&in->pools, m->pools, "stated", "OOM", "event", m->ev, in->kwhere);
	}
	snapshot_figs(c, in);
	if (in->reserved.v < 0 &&
	    ledger_series_fig(c, "torch.reserved_bytes", in->cuda, 1, "PyTorch's", &in->reserved) < 0 && first)
		ledger_series_fig(c, "torch.reserved_bytes", "cuda", 1, "PyTorch's", &in->reserved);
	if (in->alloc.v < 0 &&
	    ledger_series_fig(c, "torch.allocated_bytes", in->cuda, 1, "PyTorch's", &in->alloc) < 0 && first)
		ledger_series_fig(c, "torch.allocated_bytes", "cuda", 1, "PyTorch's", &in->alloc);
	if (in->unalloc.v < 0 && in->reserved.v >= 0 && in->alloc.v >= 0 &&
	    in->reserved.v >= in->alloc.v && !strcmp(in->reserved.moment, in->alloc.moment))
		ledger_fig_set(&in->unalloc, in->reserved.v - in->alloc.v, in->reserved.certainty,
			in->reserved.moment, in->reserved.ref_table, in->reserved.ref_id,
			in->reserved.source);
	return smi_processes(c, in);
}

/* The PyTorch lines: the engine's weights, KV cache and graphs, the rest
 * of what was allocated, and PyTorch's cache. */
static void pytorch_lines(struct account *a, const struct card_in *in)
{
	const struct eng *e = &in->e;
	double known = 0;
	int split = 0;
	struct lline *l;

	const char *how = e->share ? "inferred" : "stated";

	if (e->weights >= 0 && ledger_add(a, "weights", e->weights, 1, how, "start-up", "engine", e->id,
				   "%s", e->what))
		known += e->weights, split = 1;
	if (e->kv > 0 && ledger_add(a, "kv_cache", e->kv, 1, how, "start-up", "engine", e->id, "%s",
			     e->what))
		known += e->kv, split = 1;
	else if (e->kv <= 0 && e->id && e->kv != -1)
		ledger_add(a, "kv_cache", 0, 0, "stated", "start-up", "engine", e->id, "%s: %s (no room"
		    " was left for a KV cache)", e->what, e->kv < 0 ? "negative" : "zero");
	if (e->graphs >= 0 && ledger_add(a, "cuda_graphs", e->graphs, 1, "stated", "start-up", "engine",
				  e->id, "%s", e->what))
		known += e->graphs, split = 1;
	else if (in->pools.v > 0 && ledger_add_fig(a, "cuda_graphs", 1, &in->pools)) {
		known += in->pools.v, split = 1;
		snprintf(a->l[a->n - 1].label, sizeof(a->l[0].label), "private pools (CUDA graphs,"
			 " MemPool)");
	}
	if (in->alloc.v >= 0 && !split) {
		if ((l = ledger_add_fig(a, "activations", 1, &in->alloc)))
			snprintf(l->label, sizeof(l->label), "PyTorch tensors (weights, KV cache and"
				 " activations not told apart)");
	} else if (in->alloc.v >= 0 && in->alloc.v >= known) {
		ledger_add(a, "activations", in->alloc.v - known, 1, "inferred", in->alloc.moment,
		    in->alloc.ref_table, in->alloc.ref_id, "%s: allocated, less the engine's"
		    " weights, KV cache and CUDA graphs", in->alloc.source);
	} else if (e->act >= 0 && (l = ledger_add(a, "activations", e->act, 1, "stated", "start-up",
					   "engine", e->id, "%s", e->what))) {
		snprintf(l->label, sizeof(l->label), e->act_compute ? "activations (ggml's compute"
			 " buffer)" : "activations (the engine's profiling peak)");
	}
	ledger_add_fig(a, "pytorch_cache", 1, &in->unalloc);
}

/* Memory outside PyTorch, the other processes, what is in use and free. */
static void outside_lines(struct rule_ctx *c, struct account *a, const struct card_in *in)
{
	const struct rl_card *k = in->k;
	char src[300];

	if (k && k->non_pytorch >= 0)
		ledger_add(a, "non_pytorch", k->non_pytorch, 1, "inferred", "OOM", "event", k->ev,
		    "%s: this process's use less PyTorch's reserve", in->kwhere);
	else if (in->e.non_torch >= 0)
		ledger_add(a, "non_pytorch", in->e.non_torch, 1, "stated", "start-up", "engine", in->e.id,
		    "%s", in->e.what);
	else if (in->self.v >= 0 && in->reserved.v >= 0 && in->self.v >= in->reserved.v)
		ledger_add(a, "non_pytorch", in->self.v - in->reserved.v, 1, "inferred", in->self.moment,
		    in->self.ref_table, in->self.ref_id, "%s less PyTorch's reserve (%s)",
		    in->self.source, in->reserved.source);
	if (in->self.v >= 0 && in->reserved.v < 0 && in->alloc.v < 0 && !in->e.id) {
		struct lline *l = ledger_add_fig(a, "process", 1, &in->self);
		if (l)
			snprintf(l->label, sizeof(l->label), "pid %lld (nvidia-smi's count, not split)",
				 (long long)in->self_pid);
	}
	if (k && k->listed && k->others > 0)
		ledger_add(a, "other_processes", k->others, 1, "stated", "OOM", "event", k->ev,
		    "%s: %d other process%s listed", in->kwhere, k->n_others, k->n_others > 1 ? "es" : "");
	else
		ledger_add_fig(a, "other_processes", 1, &in->others);
	ledger_add_fig(a, "in_use", 0, &in->used);
	if (k && k->free >= 0)
		ledger_add(a, "free", k->free, 1, "stated", "OOM", "event", k->ev, "%s", in->kwhere);
	else if (in->oom_free.v >= 0)
		ledger_add_fig(a, "free", 1, &in->oom_free);
	else if (in->cap.v > 0 && in->used.v >= 0 && in->used.v <= in->cap.v) {
		snprintf(src, sizeof(src), "capacity less %s", in->used.source);
		ledger_add(a, "free", in->cap.v - in->used.v, 1, in->used.certainty, in->used.moment,
		    in->used.ref_table, in->used.ref_id, "%s", src);
	}
	(void)c;
}

/* One card's ledger into a. 1 when it has a line, 0, -1 failed. */
static int card_account(struct rule_ctx *c, int64_t d, int first, const struct rl_card *k,
			struct account *a)
{
	struct card_in *in = calloc(1, sizeof(*in));

	if (!in)
		return rl_fail(c, "out of memory");
	memset(a, 0, sizeof(*a));
	a->scope = "gpu";
	a->device = in->d = d;
	if (gather(c, in, k, first) < 0) {
		free(in);
		return -1;
	}
	snprintf(a->entity, sizeof(a->entity), "%s", in->gpu);
	ledger_add_fig(a, "capacity", 0, &in->cap);
	pytorch_lines(a, in);
	outside_lines(c, a, in);
	ledger_peak_notes(c, a, in->cuda, first);
	ledger_balance(a, NULL, NULL);
	free(in);
	return a->n > 0;
}

/* ---- writing -------------------------------------------------------------- */

/* The order lines are written (and shown) in. */
static const char *const order[] = {
	"capacity", "in_use", "weights", "kv_cache", "cuda_graphs", "activations",
	"pytorch_cache", "non_pytorch", "process", "other_processes", "victim", "other_tasks", "anon",
	"page_cache", "shmem", "unexplained", "free", "over_counted", "swap", "allocated_peak",
	"reserved_peak", NULL
};

/* How sure a line is, for people: its certainty and who gave it. */
static const char *how_of(const struct account *a, const struct lline *l)
{
	const char *t = l->ref_table ? l->ref_table : "";

	if (!strcmp(l->certainty, "inferred"))
		return "inferred by oomlens";
	if (!strcmp(t, "engine"))
		return "stated by the engine";
	if (!strcmp(t, "event") && !strncmp(l->source, FAILURE_SOURCE, strlen(FAILURE_SOURCE)))
		return "stated by the failure";
	if (!strcmp(t, "event"))
		return strcmp(a->scope, "host") ? "stated by PyTorch" : "stated by the kernel";
	if (!strcmp(t, "snapshot"))
		return "measured: PyTorch snapshot";
	if (!strncmp(l->source, "nvidia-smi", 10) || !strncmp(l->source, "gpu.", 4))
		return "measured by nvidia-smi/DCGM";
	if (!strncmp(l->source, "cgroup", 6))
		return "measured: cgroup files";
	if (!strncmp(l->source, "PyTorch's", 9))
		return "measured by PyTorch's allocator";
	return !strcmp(l->certainty, "stated") ? "stated" : "measured";
}

static int write_account(struct rule_ctx *c, sqlite3_stmt *st, const struct account *a)
{
	int i, j;

	for (j = 0; order[j]; j++)
		for (i = 0; i < a->n; i++) {
			const struct lline *l = &a->l[i];
			if (strcmp(l->line, order[j]))
				continue;
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			sqlite3_bind_text(st, 1, a->scope, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, a->entity, -1, SQLITE_STATIC);
			if (a->device != OL_NULL)
				sqlite3_bind_int64(st, 3, a->device);
			sqlite3_bind_text(st, 4, l->line, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5, l->label, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 6, (int64_t)llround(l->bytes));
			sqlite3_bind_int(st, 7, l->part);
			sqlite3_bind_text(st, 8, l->certainty, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 9, l->moment, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 10, how_of(a, l), -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 11, l->source, -1, SQLITE_STATIC);
			if (l->ref_table) {
				sqlite3_bind_text(st, 12, l->ref_table, -1, SQLITE_STATIC);
				sqlite3_bind_int64(st, 13, l->ref_id);
			}
			if (sqlite3_step(st) != SQLITE_DONE)
				return rl_sql_failed(c);
		}
	return 0;
}

/* The ledger of every card and of the host, into table ledger (made
 * anew). 0 or -1 (the failure in c). */
static int ledger_write(struct rule_ctx *c)
{
	struct account *a = malloc(sizeof(*a));
	sqlite3_stmt *st = NULL;
	int64_t dev[LEDGER_CARDS];
	struct rl_card k;
	int n = 0, i, rc = -1, r;

	if (!a)
		return rl_fail(c, "out of memory");
	if (rl_exec(c, sql_table) < 0 || rl_card_read(c, &k) < 0 || cards(c, dev, &n) < 0 ||
	    !(st = rl_prepare(c, "INSERT INTO ledger(scope, entity, device, line, label, bytes,"
			      " part, certainty, moment, how, source, ref_table, ref_id)"
			      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")))
		goto done;
	for (i = 0; i < n; i++) {
		if ((r = card_account(c, dev[i], i == 0, &k, a)) < 0 ||
		    (r > 0 && write_account(c, st, a) < 0))
			goto done;
	}
	if ((r = ledger_host_account(c, a)) < 0 || (r > 0 && write_account(c, st, a) < 0))
		goto done;
	rc = 0;
done:
	sqlite3_finalize(st);
	free(a);
	return rc;
}

int derive_ledger(sqlite3 *db, struct strbuf *err)
{
	return dctx_pass(db, err, ledger_write);
}
