/*
 * verdict.c -- run the rules and combine their findings into one verdict:
 * the class with the strongest evidence, its contributing causes, and a
 * confidence; "inconclusive" with the missing evidence named otherwise;
 * "no_oom" when no artifact records an OOM, a kill or a memory failure
 * (the derived table oom is empty), whatever the findings say.
 *
 * Combination: each class scores its best finding (>= VERDICT_MIN_SCORE).
 * The primary class is the best-scoring one, except that a leak and a
 * spike found together make a leak (the leak ate the headroom, the spike
 * only tipped it over; the spike is named as contributing). Confidence =
 * the primary's score, raised a little by each further finding of the
 * same class and lowered by the strength of the strongest other class.
 */
#include "analyzer/derive/derive.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/engine_facts.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct rule rule_table[] = {
	{ "leak", "memory in use that keeps growing; allocation stacks that never free",
	  rule_leak },
	{ "spike", "a sharp rise over a stable baseline at the end: just before the OOM, when"
	  " there is one", rule_spike },
	{ "benchload", "the load a pasted benchmark put on the server at a serving OOM, against"
	  " a lower one that completed", rule_bench_load },
	{ "engine", "the serving engine's own accounting: no KV cache, max_model_len beyond it,"
	  " CUDA graphs beyond the budget, a prefill batch or a KV pool too large", rule_engine },
	{ "headroom", "baseline leaving less room than one request needs; admitting more"
	  " concurrent requests than the room holds", rule_headroom },
	{ "limits", "configured limits larger than the device; less free at start-up than"
	  " gpu_memory_utilization asks for", rule_limits },
	/* after engine and limits, whose named settings it defers to */
	{ "static_fraction", "an engine's static share of the card (SGLang"
	  " --mem-fraction-static) leaving less than the request that failed",
	  rule_static_fraction },
	/* before startup, whose plan finding then only contributes */
	{ "offload", "a llama.cpp/Ollama GPU plan that left no room for its compute graph,"
	  " beside an OOM whose phase is not shown", rule_offload_fit },
	/* before startup, whose phase advice (a GPU's knobs) it replaces */
	{ "buildkill", "a compiler or linker of a build step (a JIT's, an install's) killed"
	  " for host memory: the build's parallel jobs", rule_buildkill },
	{ "cumem_pool", "vLLM's sleep-mode allocator (cumem) could not map its pool of weights"
	  " and KV cache", rule_cumem_pool },
	{ "startup", "an OOM before the service held any steady load", rule_startup },
	{ "launch", "a serving engine's pool share too high for its batches, from the knobs"
	  " the launch command or the engine's log states", rule_launch },
	{ "kvleak", "a serving engine's own check says its KV-cache pool leaked", rule_kvleak },
	{ "returned", "memory not returned between failures: a later OOM of the same card, asking"
	  " no more, found more held", rule_returned },
	{ "reload", "a model load that failed after the same process had served: the earlier"
	  " load's memory not returned", rule_reload },
	{ "input_op", "an OOM inside an operation one input sizes and no budget covers (vLLM's"
	  " prompt logprobs, MMDetection's IoU assignment): that input's spike", rule_input_op },
	{ "kv_slots", "Ollama's KV cache found full while serving (\"could not find a kv cache"
	  " slot\"): the requests decoding at once held it", rule_kv_slots },
	{ "queued", "requests queued beside those running at a serving OOM: the engine at its"
	  " admission cap, with more demand than it runs at once", rule_queued },
	{ "retract", "a serving engine preempted requests (SGLang's retraction): pressure before"
	  " an OOM, else a warning", rule_retract },
	{ "fallback", "an OOM the program caught on one batch and went on from with a smaller"
	  " one, by its own words: that batch's load", rule_fallback },
	{ "fragmentation", "memory reserved but not in one piece", rule_fragmentation },
	{ "mps", "PyTorch's MPS allocator (a Mac) at its high-watermark cap", rule_mps },
	{ "xla", "an XLA program (JAX, torch_xla) that does not fit the memory given to XLA,"
	  " with no progress before its OOM", rule_xla },
	/* after fragmentation, whose finding it reads */
	{ "settings", "an allocator setting asked for but not in effect", rule_settings },
	{ "contexts", "more CUDA contexts per device than processes", rule_contexts },
	{ "victim", "OOM killer victim chosen by oom_score_adj", rule_victim },
	{ "buffer_limit", "one buffer asked for above the per-buffer ceiling the allocator's"
	  " message states (MLX's maximum allowed buffer size)", rule_buffer_limit },
	{ "projected", "the engine's own start-up projection of the model's memory at or above"
	  " the machine's RAM (Rapid-MLX's memory pressure warning), beside a later OOM of"
	  " that memory", rule_projected },
	{ "shm_limit", "a data loader's workers out of shared memory (/dev/shm), by"
	  " PyTorch's own words", rule_shm_limit },
	{ "pool_limit", "a pool the program sized once by a setting is full (DyNet's"
	  " --dynet-mem, vLLM's CPU swap space, ggml's context arena), by the program's own"
	  " words", rule_pool_limit },
	{ "capacity", "who held the card at a PyTorch OOM: the workload, other processes,"
	  " memory outside PyTorch, a request larger than the card", rule_capacity },
	{ "kernel", "what a kernel OOM report says; a cgroup or host too small", rule_kernel },
	{ "killers", "what Kubernetes, Slurm, earlyoom, systemd-oomd say of a kill: a limit"
	  " or a host too small", rule_killers },
	{ "progress", "what the program was doing at the OOM: a training loop's first steps or"
	  " its memory over many steps, a serving engine's KV pool full at steady load",
	  rule_progress },
	{ "samples", "memory samples pasted in file order (untimed) that keep rising: a leak,"
	  " per sample or per request", rule_samples },
	{ "leak_stated", "the program's own leak check or its own words state that memory"
	  " leaked, with its figures", rule_leak_stated },
	{ "startup_killed", "a SIGKILL of unknown sender while the program's lines show it"
	  " starting (loading weights, sizing caches), no OOM recorded: a start-up that did not"
	  " fit the host, likely", rule_startup_killed },
	{ "training", "the knobs a training or evaluation step (or the MPS/XLA allocator)"
	  " answers to, to try first", rule_training },
	{ "lean_when", "leak leaned from when it failed: the loop's own epoch counter says whole"
	  " epochs of the same data had fit", rule_lean_when },
	/* last: only when no other rule gave a class */
	{ "phase_inferred", "misconfig inferred from the phase: an OOM at the first unit of work"
	  " (or the failure alone) with nothing showing growth or load", rule_phase_inferred },
	{ NULL, NULL, NULL }
};

static const char *const classes[] = { "misconfig", "leak", "spike", NULL };

struct class_score {
	double best;
	int n;
	char cause[64];
	char title[300];
};

/* Score each class (cs[i] for classes[i]) by the findings that count,
 * best first; the causes beyond each class's best are listed in contrib
 * (n bytes). 0 or -1. */
static int score_classes(struct rule_ctx *c, struct class_score *cs, char *contrib, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT class, cause, score, title FROM finding"
				      " WHERE score >= ? ORDER BY score DESC, id");
	int i;

	memset(cs, 0, 3 * sizeof(*cs));
	if (!st)
		return -1;
	sqlite3_bind_double(st, 1, VERDICT_MIN_SCORE);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *cls = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; classes[i]; i++)
			if (cls && !strcmp(cls, classes[i]))
				break;
		if (!classes[i])
			continue;
		if (!cs[i].n++) {
			cs[i].best = sqlite3_column_double(st, 2);
			snprintf(cs[i].cause, sizeof(cs[i].cause), "%s",
				 sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "");
			snprintf(cs[i].title, sizeof(cs[i].title), "%s",
				 sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
		} else {
			char one[100];
			snprintf(one, sizeof(one), "%s%s (%s)", contrib[0] ? ", " : "",
				 q_text(st, 1), cls);
			if (strlen(contrib) + strlen(one) + 1 < n)
				strcat(contrib, one);
		}
	}
	sqlite3_finalize(st);
	return 0;
}

/* The primary class (an index into classes), or -1 when none scored. */
static int primary_class(const struct class_score *cs)
{
	int i, p = -1;

	/* classes in tie-break order: misconfig, leak, spike */
	for (i = 0; classes[i]; i++)
		if (cs[i].n && (p < 0 || cs[i].best > cs[p].best))
			p = i;
	if (p == 2 && cs[1].n && cs[1].best >= 0.5)
		p = 1;   /* a leak tipped over by a spike */
	return p;
}

/* Insert the verdict row (cls NULL: inconclusive) with its phase; 0 or -1. */
static int insert_verdict(struct rule_ctx *c, const char *cls, const char *cause, double conf,
			  const char *summary, const char *missing)
{
	/* the phase: the primary finding's, else the OOM's (row 1 of oom);
	 * without an OOM, that of memory pressure the engine survived (a
	 * kv_retract finding: SGLang's retractions while serving), else none */
	sqlite3_stmt *st = rl_prepare(c, "INSERT INTO verdict(class, cause, confidence, summary,"
				      " missing, basis, phase) VALUES(coalesce(?1, 'inconclusive'), ?2, ?3, ?4, ?5,"
				      " CASE WHEN ?1 IN ('leak', 'spike', 'misconfig') THEN CASE WHEN ?2 IS"
				      " 'phase_inferred' THEN 'phase' ELSE 'evidence' END END,"
				      " CASE WHEN ?1 IS 'no_oom' THEN (SELECT phase FROM finding WHERE cause ="
				      " 'kv_retract' ORDER BY score DESC, id LIMIT 1) ELSE coalesce((SELECT phase FROM"
				      " finding WHERE class IS ?1 AND phase IS NOT NULL ORDER BY score DESC, id"
				      " LIMIT 1), (SELECT phase FROM oom WHERE id = 1)) END)");
	int r;

	if (!st)
		return -1;
	if (cls)
		sqlite3_bind_text(st, 1, cls, -1, SQLITE_STATIC);
	if (cause)
		sqlite3_bind_text(st, 2, cause, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, conf);
	sqlite3_bind_text(st, 4, summary, -1, SQLITE_STATIC);
	if (missing)
		sqlite3_bind_text(st, 5, missing, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : rl_sql_failed(c);
	sqlite3_finalize(st);
	return r;
}

/* The verdict of primary class p: its confidence and summary. 0 or -1. */
static int write_classified(struct rule_ctx *c, const struct class_score *cs, int p,
			    const char *contrib, const char *missing)
{
	char summary[1600], lead[300] = "";
	double conf, other = 0;
	int i;

	for (i = 0; classes[i]; i++)
		if (i != p && cs[i].n) {
			size_t len = strlen(lead);
			if (cs[i].best > other)
				other = cs[i].best;
			/* the other classes' best causes lead the list */
			snprintf(lead + len, sizeof(lead) - len, "%s%s (%s)", len ? ", " : "",
				 cs[i].cause, classes[i]);
		}
	conf = cs[p].best * (0.85 + 0.075 * (cs[p].n > 3 ? 2 : cs[p].n - 1));
	conf *= 1 - 0.3 * other;
	if (p == 1 && cs[2].n)
		conf = cs[p].best * 0.9;   /* leak + spike agree on the story */
	conf = rl_clamp01(conf);
	/* a sentence for people: the class is the verdict's own column */
	snprintf(summary, sizeof(summary), "%s.%s%s%s%s", cs[p].title,
		 lead[0] || contrib[0] ? " Contributing: " : "", lead,
		 lead[0] && contrib[0] ? ", " : "", contrib);
	return insert_verdict(c, classes[p], cs[p].cause, (double)(int)(conf * 1000 + 0.5) / 1000,
			      summary, missing[0] ? missing : NULL);
}

/* The verdict when no artifact records an OOM, a kill or a memory
 * failure (the derived table oom is empty): no_oom, whatever the findings
 * say; its summary names what was read (artifacts by kind), and a kill
 * of unknown cause when one was seen (settle.c). 0 or -1. */
static int write_no_oom(struct rule_ctx *c, const char *missing)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT kind, count(*) FROM artifact WHERE kind IS NOT NULL"
				      " AND status IN ('ok', 'partial', 'no_records')"
				      " GROUP BY kind ORDER BY 2 DESC, 1 LIMIT 8");
	char summary[1200], read[500] = "", kill[320], survived[300];
	size_t len;
	int n = 0;

	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		len = strlen(read);
		if (len + 80 >= sizeof(read))
			break;
		snprintf(read + len, sizeof(read) - len, "%s%lld %s", n++ ? ", " : "",
			 (long long)sqlite3_column_int64(st, 1), q_text(st, 0));
	}
	sqlite3_finalize(st);
	if (rl_unexplained_kill(c, kill, sizeof(kill)))
		/* a SIGKILL without an OOM to explain it: the node's OOM killer
		 * is one cause, and only the node's kernel log says */
		snprintf(summary, sizeof(summary), "No OOM recorded, but a kill of unknown cause"
			 " was seen: %.300s. No artifact records an OOM or a memory failure%s%s%s;"
			 " the node's kernel log around the kill would say whether its OOM killer"
			 " sent it.", kill, n ? " (read: " : "", read, n ? ")" : "");
	else if (rl_first_text(c, "SELECT title FROM finding WHERE cause = 'kv_retract'"
			       " ORDER BY score DESC, id LIMIT 1", survived, sizeof(survived)) > 0)
		/* memory pressure the engine handled (retract.c): survived */
		snprintf(summary, sizeof(summary), "No OOM ended the service: %.500s (read: %s).",
			 survived, n ? read : "nothing else");
	else
		snprintf(summary, sizeof(summary), "No OOM: no artifact records an OOM, a kill or a"
			 " memory failure%s%s%s; what follows is a memory profile, not the cause of a"
			 " failure.", n ? " (read: " : "", read, n ? ")" : "");
	return insert_verdict(c, "no_oom", NULL, 1.0, summary, missing[0] ? missing : NULL);
}

/* The title of rule's strongest finding into out; 1 found, 0 none. */
static int title_of_rule(struct rule_ctx *c, const char *rule, char *out, size_t n)
{
	char sql[200];

	snprintf(sql, sizeof(sql), "SELECT title FROM finding WHERE rule = '%s'"
		 " ORDER BY score DESC, id LIMIT 1", rule);
	return rl_first_text(c, sql, out, n);
}

/* The title of a start-up finding whose failure's own figures show room
 * (startup_room.c: request_fits_free) into out; 1 found, 0 none. */
static int room_title(struct rule_ctx *c, char *out, size_t n)
{
	return rl_first_text(c, "SELECT title FROM finding WHERE cause = 'request_fits_free'"
			     " ORDER BY score DESC, id LIMIT 1", out, n);
}

static int write_verdict(struct rule_ctx *c)
{
	struct class_score cs[3];
	char summary[600], missing[1600], contrib[600] = "", title[300];
	int p;

	if (score_classes(c, cs, contrib, sizeof(contrib)) < 0)
		return -1;
	p = primary_class(cs);
	rl_missing_evidence(c, missing, sizeof(missing));
	if (!c->has_oom && rl_first_text(c, "SELECT title FROM finding WHERE rule = 'samples'"
					  " AND score >= 0.7 ORDER BY score DESC, id LIMIT 1",
					  title, sizeof(title))) {
		/* no OOM yet, but pasted samples that keep rising: a leak ahead
		 * of one (samples.c), said as untimed; a short series (three
		 * readings, scored lower) stays a reading without an OOM */
		snprintf(summary, sizeof(summary), "No OOM recorded, but a leak: %s.", title);
		return insert_verdict(c, "leak", "untimed_growth", 0.7, summary,
				      missing[0] ? missing : NULL);
	}
	if (!c->has_oom && rl_first_text(c, "SELECT title FROM finding WHERE rule ="
					  " 'leak_stated' AND class = 'leak' ORDER BY score DESC, id"
					  " LIMIT 1", title, sizeof(title))) {
		/* no OOM, but the program says it leaked (leak_stated.c) */
		snprintf(summary, sizeof(summary), "No OOM recorded, but a leak the program"
			 " states: %s.", title);
		return insert_verdict(c, "leak", "stated_leak", 0.7, summary,
				      missing[0] ? missing : NULL);
	}
	if (!c->has_oom && title_of_rule(c, "startup_killed", title, sizeof(title))) {
		/* no OOM recorded, but a SIGKILL in a start-up stage the log
		 * names (startup_killed.c): the sender inferred */
		snprintf(summary, sizeof(summary), "No OOM recorded, but a start-up's kill: %s.",
			 title);
		return insert_verdict(c, "misconfig", "killed_at_startup", 0.45, summary,
				      missing[0] ? missing : NULL);
	}
	if (!c->has_oom)
		return write_no_oom(c, missing);
	if (p >= 0)
		return write_classified(c, cs, p, contrib, missing);
	if (room_title(c, title, sizeof(title)))
		/* a start-up OOM whose figures show room: not decided, and why */
		snprintf(summary, sizeof(summary), "Not decided. %s. What the figures leave out"
			 " decides it: a per-allocation limit, fragmentation, another process or a"
			 " regression.", title);
	else
		snprintf(summary, sizeof(summary), "No rule found enough evidence to classify the"
			 " incident%s", missing[0] ? "; missing evidence is listed" : "");
	return insert_verdict(c, NULL, NULL, 0.0, summary, missing[0] ? missing :
			      "no memory pressure found in the evidence given");
}

/* A knob's value as the advice says it: sizes in binary units. */
static const char *knob_value(const struct rl_knob_note *k, char *buf, size_t n)
{
	if (strstr(k->knob, "limit") || strstr(k->knob, "bytes"))
		return rl_bytes(k->value, buf, n);
	snprintf(buf, n, "%.10g", k->value);
	return buf;
}

/* The strongest note of knob k->knob (score, then the first written). */
static const struct rl_knob_note *strongest(const struct rule_ctx *c, const struct rl_knob_note *k)
{
	const struct rl_knob_note *best = k;
	size_t j;

	for (j = 0; j < c->n_knobs; j++) {
		const struct rl_knob_note *o = &c->knobs[j];
		if (!strcmp(o->knob, k->knob) && (o->score > best->score ||
		    (o->score == best->score && o->finding < best->finding)))
			best = o;
	}
	return best;
}

/* A weaker finding's advice on a knob the strongest one sets: the
 * strongest's value in place of its own, then the rest of its advice.
 * 0 or -1. */
static int defer_knob(struct rule_ctx *c, const struct rl_knob_note *k,
		      const struct rl_knob_note *best)
{
	sqlite3_stmt *st = rl_prepare(c, "UPDATE finding SET advice = ?1, figures ="
				      " json_set(coalesce(figures, '{}'), '$.advice_value', ?2) WHERE id = ?3");
	char advice[sizeof(k->base) + 400], v[32];
	int r;

	if (!st)
		return -1;
	snprintf(advice, sizeof(advice), "%s: %s, the value of the strongest finding that sets"
		 " it (%s/%s).%s%s", best->flag, knob_value(best, v, sizeof(v)), best->class_,
		 best->cause, k->base[0] ? " " : "", k->base);
	sqlite3_bind_text(st, 1, advice, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 2, best->value);
	sqlite3_bind_int64(st, 3, k->finding);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : rl_sql_failed(c);
	sqlite3_finalize(st);
	return r;
}

/* The strongest finding's advice on its knob names the other findings
 * that ask for the same knob to change: their reasons, folded in. */
static int fold_reasons(struct rule_ctx *c, const struct rl_knob_note *best)
{
	sqlite3_stmt *st;
	char more[1600] = "", text[sizeof(more) + 120];
	size_t j, len;
	int r, n = 0;

	for (j = 0; j < c->n_knobs; j++) {
		const struct rl_knob_note *o = &c->knobs[j];
		if (o == best || strcmp(o->knob, best->knob))
			continue;
		len = strlen(more);
		snprintf(more + len, sizeof(more) - len, "%s%s/%s (%s)", n++ ? "; " : "", o->class_,
			 o->cause, o->title);
	}
	if (!n)
		return 0;
	st = rl_prepare(c, "UPDATE finding SET advice = coalesce(advice || ' ', '') || ?1 WHERE id = ?2");
	if (!st)
		return -1;
	snprintf(text, sizeof(text), "The same %s also answers %s: %s.", best->flag,
		 n > 1 ? "these findings" : "this finding", more);
	sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, best->finding);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : rl_sql_failed(c);
	sqlite3_finalize(st);
	return r;
}

/* One value per knob: where several findings advise the same knob
 * (rl_knob), the strongest finding's value stands; the others say that
 * value instead of their own, and the strongest names their reasons.
 * 0 or -1. */
static int one_value_per_knob(struct rule_ctx *c)
{
	size_t i, j;

	for (i = 0; i < c->n_knobs; i++) {
		const struct rl_knob_note *k = &c->knobs[i], *best;
		int seen = 0;

		for (j = 0; j < i && !seen; j++)
			seen = !strcmp(c->knobs[j].knob, k->knob);
		if (seen)
			continue;   /* its knob was done with the first note */
		best = strongest(c, k);
		for (j = i; j < c->n_knobs; j++) {
			const struct rl_knob_note *o = &c->knobs[j];
			if (o != best && !strcmp(o->knob, k->knob) && defer_knob(c, o, best) < 0)
				return -1;
		}
		if (fold_reasons(c, best) < 0)
			return -1;
	}
	return 0;
}

/* Why the analysis failed, into err (may be NULL); returns -1. */
static int analysis_failed(struct rule_ctx *c, const char *what, struct strbuf *err)
{
	/* a failed step leaves the transaction open: drop what was written */
	if (!sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
	if (err)
		strbuf_addf(err, "%s%s%s", what, c->failed ? ": " : "", c->failed ? c->err : "");
	free(c);
	return -1;
}

int analyze_timeline(struct timeline *tl, struct strbuf *err)
{
	struct rule_ctx *c = calloc(1, sizeof(*c));   /* large: the series cache */
	const struct rule *r;
	char what[80];

	if (!c) {
		if (err)
			strbuf_addstr(err, "out of memory");
		return -1;
	}
	c->tl = tl;
	c->db = tl->db;
	if (rl_exec(c, "BEGIN; DELETE FROM evidence; DELETE FROM finding; DELETE FROM verdict") < 0)
		return analysis_failed(c, "clearing the old findings failed", err);
	if (derive_incident(tl, err) < 0)
		return analysis_failed(c, NULL, NULL);   /* derive_incident() said why in err */
	c->oom_ns = rl_oom_time(c);
	c->has_oom = rl_has_oom(c);
	for (r = rule_table; r->name; r++)
		if (r->run(c) < 0 || c->failed) {
			snprintf(what, sizeof(what), "rule %s failed", r->name);
			return analysis_failed(c, what, err);
		}
	if (rule_critic(c) < 0 || c->failed)
		return analysis_failed(c, "the critic pass failed", err);
	if (one_value_per_knob(c) < 0 || c->failed)
		return analysis_failed(c, "leaving one value per knob failed", err);
	if (write_verdict(c) < 0 || c->failed)
		return analysis_failed(c, "writing the verdict failed", err);
	if (rl_exec(c, "COMMIT") < 0)
		return analysis_failed(c, "committing the findings failed", err);
	free(c);
	return 0;
}
