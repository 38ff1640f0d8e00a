/*
 * servwhatif.c -- the derive pass `serving_whatif`: which serving setting
 * would have avoided the OOM under the incident's recorded load, and at
 * what cost in concurrency (servwhatif.h, docs/schema.md "serving_whatif").
 *
 * The load model, the same one the headroom rule states:
 *   peak(setting) = baseline + per_request x running(setting)
 * where the baseline is what the card held before any request (the
 * engine's weights + KV cache, or gpu.used after start-up, whichever is
 * larger: rl_baseline), per_request the slope of memory against running
 * requests (else the allocation that failed, whichever is larger:
 * rl_per_request, rl_oom_request), and running the most requests running
 * before the OOM (server.running), capped by max_num_seqs and by what
 * the KV pool holds. The table is written only when this model reaches
 * the card's total at the recorded settings: it explains the OOM, and
 * only when that load was carried RL_HISTORY_MIN_S before the OOM (else
 * it is the start-up's ramp, startup.c's to judge).
 *
 * Candidates: max_num_seqs (the recorded one, the largest that fits, the
 * seed's safe concurrency pl_safe_seqs: chosen); gpu_memory_utilization
 * (a smaller KV pool, computed by plan's pl_estimate from the engine's
 * own KV bytes per token: the largest value that fits the recorded load
 * with the 0.7 margin is chosen; the requests the smaller pool could not
 * hold queue); max_model_len (the pool is sized by the memory fraction,
 * not by it: no change to the peak, said so); tensor parallelism (the
 * per-request memory split over the cards; the pool grows by the weights
 * freed). Nothing here formats text for people beyond the row's note.
 */
#include "analyzer/derive/servwhatif.h"
#include "analyzer/derive/derive.h"
#include "analyzer/plan/plan.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char sql_table[] =
	"DROP TABLE IF EXISTS serving_whatif;\n"
	"CREATE TABLE serving_whatif(\n"
	"  id INTEGER PRIMARY KEY, knob TEXT, value REAL, recorded INTEGER,\n"
	"  peak_bytes INTEGER, total_bytes INTEGER, avoided INTEGER, running INTEGER,\n"
	"  queued INTEGER, kv_cache_tokens INTEGER, max_concurrency REAL, chosen INTEGER,\n"
	"  note TEXT);";

/* What the incident recorded: the card, the load and the engine's
 * settings and accounting (NAN where unknown). */
struct sw_facts {
	double total, base, per_req, running;   /* running: the most before the OOM */
	double seqs;                            /* max_num_seqs (NAN: unknown) */
	double util, weights, kv, kv_tokens, blocks, max_len, tp;
	double kv_peak_share;                   /* KV usage at its highest, 0..1 */
	int inferred;                           /* running inferred from the card filling */
};

/* The first non-NULL value of column col of the engine table, else the
 * meta key; NAN when neither. */
static double engine_fact(struct rule_ctx *c, const char *col, const char *meta)
{
	double v;

	if (q_has_table(c->db, "engine") &&
	    rl_num(c, &v, "SELECT %s FROM engine WHERE %s IS NOT NULL ORDER BY id LIMIT 1",
		   col, col) == 0)
		return v;
	if (meta && rl_meta_num(c, meta, &v) == 0)
		return v;
	return NAN;
}

/* The incident's facts; 0, or -1 when the model cannot be made (no card
 * total, no load, no per-request figure, no OOM time). */
static int read_facts(struct rule_ctx *c, struct sw_facts *f)
{
	double w, kv, used, failed, first, busy;
	int64_t run;

	memset(f, 0, sizeof(*f));
	if (c->oom_ns == OL_NULL || !c->has_oom || rl_gpu_total(c, &f->total) < 0)
		return -1;
	run = rl_series_id(c, "server.running", 1);
	if (!run || rl_num(c, &f->running, "SELECT sample_max(%lld, NULL, %lld)", (long long)run,
			   (long long)c->oom_ns) < 0 ||
	    f->running < 1)
		return -1;
	/* a load first carried less than RL_HISTORY_MIN_S before the OOM is
	 * the start-up's ramp, not the service's load: the phase decides
	 * there (startup.c), with the start-up's knob and value */
	if (rl_num(c, &first, "SELECT sample_first_ns(%lld)", (long long)run) < 0 ||
	    rl_num(c, &busy, "SELECT sample_first_ns(%lld, %lld, 1)", (long long)run,
		   (long long)c->oom_ns) < 0)
		return -1;
	if (busy > first && ((double)c->oom_ns - busy) / 1e9 < RL_HISTORY_MIN_S)
		return -1;
	if (rl_per_request(c, c->oom_ns, &f->per_req, &(const char *){ NULL }) < 0)
		return -1;
	if (rl_oom_request(c, &failed) == 0 && failed > f->per_req)
		f->per_req = failed;
	if (!(f->per_req > 0))
		return -1;
	/* the baseline as the headroom rule takes it */
	f->base = NAN;
	if (rl_meta_num(c, "server.weights_bytes", &w) == 0 &&
	    rl_meta_num(c, "server.kv_cache_bytes", &kv) == 0)
		f->base = w + kv;
	if (rl_baseline(c, "gpu.used_bytes", c->oom_ns, &used, NULL) == 0 &&
	    (isnan(f->base) || used > f->base))
		f->base = used;
	if (!(f->base > 0))
		return -1;
	f->seqs = engine_fact(c, "max_num_seqs", "server.max_num_seqs");
	f->util = engine_fact(c, "gpu_memory_utilization", "server.gpu_memory_utilization");
	f->weights = engine_fact(c, "weights_bytes", "server.weights_bytes");
	f->kv = engine_fact(c, "kv_cache_bytes", "server.kv_cache_bytes");
	f->kv_tokens = engine_fact(c, "kv_cache_tokens", "server.kv_cache_tokens");
	f->blocks = engine_fact(c, "gpu_blocks", "server.kv_cache_blocks");
	f->max_len = engine_fact(c, "max_model_len", "server.max_model_len");
	if (rl_meta_num(c, "server.tensor_parallel_size", &f->tp) < 0 || f->tp < 1)
		f->tp = 1;
	run = rl_series_id(c, "server.gpu_kv_usage", 1);
	f->kv_peak_share = NAN;
	if (run && rl_num(c, &f->kv_peak_share, "SELECT sample_max(%lld, NULL, %lld)",
			  (long long)run, (long long)c->oom_ns) == 0)
		/* percent 0..100; a scrape's 0..1 gauge stays a ratio */
		f->kv_peak_share = f->kv_peak_share > 1 ? f->kv_peak_share / 100 : f->kv_peak_share;
	return 0;
}

/* One row of the table. */
struct sw_row {
	const char *knob;
	double value;
	int recorded;
	double peak, running, queued;   /* queued NAN: unknown */
	double kv_tokens, max_conc;     /* NAN: unknown */
	int chosen;
	const char *note;
};

static void bind_num(sqlite3_stmt *st, int i, double v, int integer)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else if (integer)
		sqlite3_bind_int64(st, i, (sqlite3_int64)llround(v));
	else
		sqlite3_bind_double(st, i, v);
}

static int write_row(struct rule_ctx *c, const struct sw_facts *f, const struct sw_row *r)
{
	sqlite3_stmt *st = rl_prepare(c, "INSERT INTO serving_whatif(knob, value, recorded,"
		" peak_bytes, total_bytes, avoided, running, queued, kv_cache_tokens,"
		" max_concurrency, chosen, note) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, r->knob, -1, SQLITE_STATIC);
	bind_num(st, 2, r->value, 0);
	sqlite3_bind_int(st, 3, r->recorded);
	bind_num(st, 4, r->peak, 1);
	bind_num(st, 5, f->total, 1);
	sqlite3_bind_int(st, 6, r->peak <= f->total);
	bind_num(st, 7, r->running, 1);
	bind_num(st, 8, r->queued, 1);
	bind_num(st, 9, r->kv_tokens, 1);
	bind_num(st, 10, isnan(r->max_conc) ? NAN : floor(r->max_conc * 100) / 100, 0);
	sqlite3_bind_int(st, 11, r->chosen);
	if (r->note)
		sqlite3_bind_text(st, 12, r->note, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rl_sql_failed(c);
}

/* The requests admitted at the recorded settings. */
static double admitted(const struct sw_facts *f)
{
	return isnan(f->seqs) || f->seqs < 1 ? f->running : fmin(f->running, f->seqs);
}

/* max_num_seqs: the recorded cap, the largest that fits, the safe one. */
static int rows_seqs(struct rule_ctx *c, const struct sw_facts *f)
{
	double room = f->total - f->base, cap = isnan(f->seqs) ? f->running : f->seqs;
	double fit = floor(room / f->per_req), safe = (double)pl_safe_seqs(room, f->per_req);
	struct sw_row r = { "max_num_seqs", cap, 1, f->base + f->per_req * admitted(f),
			    admitted(f), 0, NAN, NAN, 0,
			    isnan(f->seqs) ? "max_num_seqs unknown: the running requests" : NULL };

	if (f->inferred)
		r.note = "running inferred: the card filled between the server's samples,"
			 " so at least this many ran";

	if (write_row(c, f, &r) < 0)
		return -1;
	if (room <= 0 || safe < 1)
		return 0;   /* the baseline alone fills the card: no cap helps */
	if (fit >= 1 && fit < cap && fit > safe) {
		r = (struct sw_row){ "max_num_seqs", fit, 0, f->base + f->per_req * fmin(fit, f->running),
				     fmin(fit, f->running), fmax(0, f->running - fit), NAN, NAN, 0,
				     "the largest cap that fits, no margin" };
		if (write_row(c, f, &r) < 0)
			return -1;
	}
	if (safe >= cap)
		return 0;
	r = (struct sw_row){ "max_num_seqs", safe, 0, f->base + f->per_req * fmin(safe, f->running),
			     fmin(safe, f->running), fmax(0, f->running - safe), NAN, NAN, 1,
			     "(total - baseline) / per request x 0.7" };
	r.chosen = r.peak <= f->total;
	return write_row(c, f, &r);
}

/* The KV pool's figures at memory fraction u through plan's model, the
 * engine's own KV bytes per token and block size; -1 when it cannot. */
static int pool_at(const struct sw_facts *f, double u, double tp, struct pl_result *pr)
{
	struct pl_settings s;
	struct pl_arch a;
	char err[160];
	double fixed = f->total * f->util - f->kv;   /* weights + non-KV, as recorded */

	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	s.engine = PL_VLLM;
	s.tp = s.pp = 1;
	s.gpu_bytes = (int64_t)f->total;
	s.util = u;
	s.max_model_len = isnan(f->max_len) ? -1 : (int64_t)f->max_len;
	s.max_num_seqs = isnan(f->seqs) ? -1 : (int64_t)f->seqs;
	s.block_size = f->blocks > 0 ? (int64_t)llround(f->kv_tokens / f->blocks) : 16;
	s.max_batched_tokens = -1;
	s.kv_per_token_given = (int64_t)llround(f->kv / f->kv_tokens / (tp / f->tp));
	/* more cards: each holds a share of the weights, the rest of the
	 * recorded fixed memory stays */
	s.weights_given = (int64_t)fmax(0, fixed - (isnan(f->weights) ? 0
		: f->weights * (1 - f->tp / tp)));
	s.non_kv_given = 0;
	s.kv_given = -1;
	pl_settings_defaults(&s, &a);
	if (s.block_size < 1)
		s.block_size = 16;
	return pl_estimate(&a, &s, pr, err, sizeof(err));
}

/* Of the running requests, those a pool of tokens would hold: the
 * tokens in use at the KV usage's highest over the running then. */
static double held_by(const struct sw_facts *f, double tokens)
{
	double used, per;

	if (isnan(f->kv_peak_share) || f->kv_peak_share <= 0)
		return NAN;
	used = f->kv_peak_share * f->kv_tokens;
	per = used / f->running;
	return per > 0 ? floor(tokens / per) : NAN;
}

/* gpu_memory_utilization: lower, a smaller pool and room for activations. */
static int rows_util(struct rule_ctx *c, const struct sw_facts *f)
{
	struct pl_result pr;
	struct sw_row r;
	double u, run, held, peak;
	int chosen = 0, fit_written = 0;

	if (!(f->util > 0 && f->util <= 1 && f->kv > 0 && f->kv_tokens > 0))
		return 0;
	if (pool_at(f, f->util, f->tp, &pr) < 0)
		return 0;
	r = (struct sw_row){ "gpu_memory_utilization", f->util, 1, f->base + f->per_req * admitted(f),
			     admitted(f), 0, (double)pr.kv_cache_tokens, pr.max_concurrency, 0, NULL };
	if (write_row(c, f, &r) < 0)
		return -1;
	for (u = floor(f->util * 100 + 0.5) / 100 - 0.01; u >= 0.1 - 1e-9 && !chosen; u -= 0.01) {
		u = floor(u * 100 + 0.5) / 100;
		if (pool_at(f, u, f->tp, &pr) < 0 || pr.kv_cache_tokens <= 0 ||
		    (f->max_len > 0 && pr.kv_cache_tokens < f->max_len))
			break;   /* the engine would not start */
		held = held_by(f, (double)pr.kv_cache_tokens);
		run = isnan(held) ? admitted(f) : fmin(admitted(f), held);
		peak = f->base - (f->kv - (double)pr.kv_cache_bytes) + f->per_req * run;
		if (peak > f->total)
			continue;
		chosen = (f->total - peak + f->per_req * run) * PL_SAFETY >= f->per_req * run;
		if (!chosen && fit_written)
			continue;
		fit_written = 1;
		r = (struct sw_row){ "gpu_memory_utilization", u, 0, peak, run,
				     isnan(held) ? NAN : f->running - run, (double)pr.kv_cache_tokens,
				     pr.max_concurrency, chosen,
				     chosen ? "the largest that fits the load with the 0.7 margin"
					    : "the largest that fits, no margin" };
		if (isnan(held))
			r.note = chosen ? "fits with the 0.7 margin; queued unknown (no KV usage)"
					: "fits, no margin; queued unknown (no KV usage)";
		if (write_row(c, f, &r) < 0)
			return -1;
	}
	return 0;
}

/* max_model_len: half the recorded length, the peak unchanged. */
static int rows_len(struct rule_ctx *c, const struct sw_facts *f)
{
	struct pl_result pr;
	struct sw_row r;
	double len = floor(f->max_len / 2 / 256) * 256;

	if (!(f->max_len >= 512))
		return 0;
	r = (struct sw_row){ "max_model_len", len, 0, f->base + f->per_req * admitted(f),
			     admitted(f), NAN, NAN, NAN, 0, "the pool is sized by the memory"
			     " fraction, not the length: no change to the peak under this load" };
	if (f->util > 0 && f->kv > 0 && f->kv_tokens > 0) {
		struct sw_facts g = *f;
		g.max_len = len;
		if (pool_at(&g, f->util, f->tp, &pr) == 0)
			r.kv_tokens = (double)pr.kv_cache_tokens, r.max_conc = pr.max_concurrency;
	}
	return write_row(c, f, &r);
}

/* Tensor parallelism: 2, 4, 8 x the recorded cards, up to the first
 * that fits with the margin (chosen). */
static int rows_tp(struct rule_ctx *c, const struct sw_facts *f)
{
	struct pl_result pr;
	struct sw_row r;
	double tp, per, room = f->total - f->base;

	for (tp = f->tp * 2; tp <= 8 && room > 0; tp *= 2) {
		per = f->per_req * f->tp / tp;
		r = (struct sw_row){ "tensor_parallel_size", tp, 0, f->base + per * admitted(f),
				     admitted(f), 0, NAN, NAN, 0,
				     "per card; the pool grows by the weights each card no longer holds" };
		r.chosen = room * PL_SAFETY >= per * admitted(f);
		if (f->util > 0 && f->kv > 0 && f->kv_tokens > 0 && pool_at(f, f->util, tp, &pr) == 0)
			r.kv_tokens = (double)pr.kv_cache_tokens, r.max_conc = pr.max_concurrency;
		if (write_row(c, f, &r) < 0)
			return -1;
		if (r.chosen)
			break;
	}
	return 0;
}

static int servwhatif_run(struct rule_ctx *c)
{
	struct sw_facts f;

	if (rl_exec(c, sql_table) < 0)
		return -1;
	if (read_facts(c, &f) < 0)
		return c->failed ? -1 : 0;
	/* the model must explain the OOM at the recorded settings; the
	 * server's counters are sampled (every 10 s in vLLM's log): a burst
	 * between two samples is seen by the card filling, so at least the
	 * requests that fill the room ran, when the cap admits them */
	if (f.base + f.per_req * admitted(&f) <= f.total) {
		double need = floor((f.total - f.base) / f.per_req) + 1;
		if (f.total <= f.base || (!isnan(f.seqs) && f.seqs < need))
			return 0;
		f.running = need;
		f.inferred = 1;
	}
	if (rows_seqs(c, &f) < 0 || rows_util(c, &f) < 0 || rows_len(c, &f) < 0 ||
	    rows_tp(c, &f) < 0)
		return -1;
	return 0;
}

int derive_servwhatif(sqlite3 *db, struct strbuf *err)
{
	return dctx_pass(db, err, servwhatif_run);
}

int rl_serving_choice(struct rule_ctx *c, const char *knob, double *value)
{
	sqlite3_stmt *st;
	int r = -1;

	if (!q_has_table(c->db, "serving_whatif"))
		return -1;
	st = rl_prepare(c, "SELECT value FROM serving_whatif WHERE knob = ? AND chosen = 1"
			" ORDER BY id LIMIT 1");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, knob, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*value = sqlite3_column_double(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}
