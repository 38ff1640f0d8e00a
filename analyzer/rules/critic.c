/*
 * critic.c -- the critic pass: after every rule has written its findings
 * and before the verdict leaves one value per knob (verdict.c), each
 * finding's title and advice are checked against the facts they rely on,
 * and corrected or withdrawn where they contradict them:
 *
 *  - a card to buy must be larger than the card that failed (the ledger's
 *    capacity of each card, else PyTorch's message);
 *  - a tensor-parallel size must agree with the ranks and the group the
 *    evidence shows (engine instances "rank N"/"TPn", the configured
 *    server.tensor_parallel_size);
 *  - a concurrency cap must be below what was running at the OOM
 *    (server.running); a cap advised with two requests or fewer running
 *    is no lever;
 *  - "the card was full of live tensors" only when the live tensors fill
 *    what the allocator could reach; else the title names what did (the
 *    request, the cache, memory outside PyTorch), and a large private
 *    pool (CUDA graphs, MemPool) is named in it;
 *  - one figure per quantity: every finding names the same card size;
 *  - no budget to lower where a start-up failure's own figures show the
 *    memory was there (startup_room.c's request_fits_free): a lower
 *    gpu_memory_utilization, max_model_len, max_num_seqs or more cards
 *    is withdrawn, the figures say the budget was not the limit.
 *
 * What was changed and why is kept in the finding's figures, key
 * "critic" (a sentence per check), so a reader sees the correction. The
 * pass writes no finding of its own; it reads only the database and the
 * knob notes rl_finding_write() left in the context.
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/derive/servwhatif.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Allocated memory fills the reach (reserved + free) from this share:
 * below it, the request, not the live tensors, is what did not fit. */
#define CRITIC_FULL_SHARE 0.85
/* A private pool worth naming in a title: this share of the card. */
#define CRITIC_POOL_SHARE 0.20
/* A cap is no lever with this many requests running or fewer. */
#define CRITIC_FEW_RUNNING 2.0
/* What ran "at the OOM": the samples of this long before it. */
#define CRITIC_RUNNING_WINDOW_NS (60 * 1000000000LL)

/* The facts the checks rely on, read once. */
struct facts {
	double card;               /* the largest card that failed; -1 unknown */
	double tp;                 /* configured tensor parallel size; -1 unknown */
	int max_rank;              /* the highest rank seen; -1 none */
	double running;            /* requests running at the OOM; -1 unknown */
	double card_advice;        /* the one card size every finding names; -1 none */
	struct rl_card k;          /* PyTorch's message; k.ev 0 none */
	char room[300];            /* a request_fits_free finding's title; "" none */
};

/* One finding as the checks edit it. */
struct crit {
	int64_t id;
	double score;
	char class_[16], cause[48];
	char title[300];
	char advice[2400];
	json_t *figs;
	char note[600];
	int changed;
};

/* ---- text ---------------------------------------------------------------- */

/* Append a sentence to f's critic note. */
static void note(struct crit *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct crit *f, const char *fmt, ...)
{
	size_t len = strlen(f->note);
	va_list ap;

	if (len && len + 1 < sizeof(f->note))
		f->note[len++] = ' ', f->note[len] = 0;
	va_start(ap, fmt);
	vsnprintf(f->note + len, sizeof(f->note) - len, fmt, ap);
	va_end(ap);
	f->changed = 1;
}

/* The sentence of s holding at: [*b, *e) (e past its full stop and the
 * space after it). */
static void sentence_at(const char *s, const char *at, const char **b, const char **e)
{
	const char *p = at;

	while (p > s && !(p[-1] == ' ' && p - 1 > s && p[-2] == '.'))
		p--;
	*b = p;
	p = strstr(at, ". ");
	*e = p ? p + 2 : at + strlen(at);
}

/* Drop the sentence of s that holds phrase; 1 dropped, 0 none. */
static int drop_sentence(char *s, const char *phrase)
{
	char *at = strstr(s, phrase);
	const char *b, *e;

	if (!at)
		return 0;
	sentence_at(s, at, &b, &e);
	memmove((char *)b, e, strlen(e) + 1);
	return 1;
}

/* Replace every `from` of s (n bytes) by `to`, as room allows; the count. */
static int replace_all(char *s, size_t n, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to);
	char *p = s;
	int k = 0;

	if (!lf)
		return 0;
	while ((p = strstr(p, from))) {
		if (strlen(s) - lf + lt + 1 > n)
			break;
		memmove(p + lt, p + lf, strlen(p + lf) + 1);
		memcpy(p, to, lt);
		p += lt;
		k++;
	}
	return k;
}

static double fig(const struct crit *f, const char *key)
{
	json_t *v = json_object_get(f->figs, key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

static const char *knob_of(const struct crit *f)
{
	json_t *v = json_object_get(f->figs, "advice_knob");

	return json_is_string(v) ? json_string_value(v) : "";
}

/* The knob note of finding id in c (verdict.c's pass reads them), or NULL. */
static struct rl_knob_note *knob_note(struct rule_ctx *c, int64_t id)
{
	size_t i;

	for (i = 0; i < c->n_knobs; i++)
		if (c->knobs[i].finding == id)
			return &c->knobs[i];
	return NULL;
}

/* The knob f sets is withdrawn: its sentence (the advice's first, as
 * rl_finding_write() puts it) goes, and the verdict's pass forgets it. */
static void withdraw_knob(struct rule_ctx *c, struct crit *f)
{
	struct rl_knob_note *k = knob_note(c, f->id);
	const char *e;

	if (k) {
		e = strstr(f->advice, ". ");
		if (k->base[0] && (e = strstr(f->advice, k->base)))
			memmove(f->advice, e, strlen(e) + 1);
		else if ((e = strstr(f->advice, ". ")))
			memmove(f->advice, e + 2, strlen(e + 2) + 1);
		else
			f->advice[0] = 0;
		memmove(k, k + 1, (size_t)(&c->knobs[c->n_knobs] - (k + 1)) * sizeof(*k));
		c->n_knobs--;
	}
	json_object_del(f->figs, "advice_knob");
	json_object_del(f->figs, "advice_value");
	f->changed = 1;
}

/* f's title becomes t, cut to fit. */
static void set_title(struct crit *f, const char *t)
{
	size_t n = strlen(t);

	if (n >= sizeof(f->title))
		n = sizeof(f->title) - 1;
	memcpy(f->title, t, n);
	f->title[n] = 0;
}

/* Drop the sentence holding phrase from f's advice and from its knob
 * note's copy (the verdict's pass rewrites weaker advice from it). */
static int edit_drop(struct rule_ctx *c, struct crit *f, const char *phrase)
{
	struct rl_knob_note *k = knob_note(c, f->id);

	if (k)
		drop_sentence(k->base, phrase);
	return drop_sentence(f->advice, phrase);
}

/* Replace from by to in f's advice and its knob note's copy. */
static int edit_replace(struct rule_ctx *c, struct crit *f, const char *from, const char *to)
{
	struct rl_knob_note *k = knob_note(c, f->id);

	if (k)
		replace_all(k->base, sizeof(k->base), from, to);
	return replace_all(f->advice, sizeof(f->advice), from, to);
}

/* ---- the facts ------------------------------------------------------------ */

static void read_facts(struct rule_ctx *c, struct facts *x)
{
	sqlite3_stmt *st;
	double v;

	memset(x, 0, sizeof(*x));
	x->card = x->tp = x->running = x->card_advice = -1;
	x->max_rank = -1;
	if (rl_card_read(c, &x->k) < 0)
		x->k.ev = 0;
	if (q_has_table(c->db, "ledger") && rl_num(c, &v, "SELECT max(bytes) FROM ledger WHERE"
	    " scope = 'gpu' AND line = 'capacity'") == 0 && v > 0)
		x->card = v;
	if (x->k.ev && x->k.total > x->card)
		x->card = x->k.total;
	if (rl_meta_num(c, "server.tensor_parallel_size", &v) == 0 && v >= 1)
		x->tp = v;
	if (q_has_table(c->db, "engine") && (st = rl_prepare(c, "SELECT instance FROM engine"))) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *in = (const char *)sqlite3_column_text(st, 0), *p;
			long r = -1;
			if (!in)
				continue;
			if ((p = strstr(in, "rank ")))
				r = strtol(p + 5, NULL, 10);
			else if ((p = strstr(in, "TP")) && p[2] >= '0' && p[2] <= '9')
				r = strtol(p + 2, NULL, 10);
			if (r > x->max_rank && r < 65536)
				x->max_rank = (int)r;
		}
		sqlite3_finalize(st);
	}
	/* the highest running count in the window before the last sample at
	 * or before the OOM (no such sample: none) */
	if (rl_num(c, &v, "WITH t AS (SELECT max(sample_last_ns(id, %lld)) AS last FROM series"
		   " WHERE name = 'server.running') SELECT max(sample_max(s.id, max(%lld - %lld,"
		   " t.last - %lld), %lld)) FROM series s, t WHERE s.name = 'server.running'"
		   " AND t.last IS NOT NULL",
		   (long long)(c->oom_ns == OL_NULL ? INT64_MAX : c->oom_ns),
		   (long long)(c->oom_ns == OL_NULL ? INT64_MIN / 2 : c->oom_ns),
		   (long long)CRITIC_RUNNING_WINDOW_NS, (long long)CRITIC_RUNNING_WINDOW_NS,
		   (long long)(c->oom_ns == OL_NULL ? INT64_MAX : c->oom_ns)) == 0 && v >= 0)
		x->running = v;
	if ((st = rl_prepare(c, "SELECT title FROM finding WHERE cause = 'request_fits_free'"
			     " LIMIT 1"))) {
		if (sqlite3_step(st) == SQLITE_ROW)
			snprintf(x->room, sizeof(x->room), "%s", q_text(st, 0));
		sqlite3_finalize(st);
	}
}

/* ---- the checks ----------------------------------------------------------- */

/* A budget lowered (or more cards) where the start-up failure's own
 * figures show the memory was there: withdrawn, since the figures say
 * the budget was not the limit. */
static void check_room(struct rule_ctx *c, struct crit *f, const struct facts *x)
{
	static const char *const budget[] = { "gpu_memory_utilization", "max_model_len",
					      "max_num_seqs", "tensor_parallel_size", NULL };
	const char *k = knob_of(f);
	int i;

	if (!x->room[0] || !strcmp(f->cause, "request_fits_free"))
		return;
	for (i = 0; budget[i]; i++)
		if (!strcmp(k, budget[i]))
			break;
	if (!budget[i])
		return;
	note(f, "Its %s advice was withdrawn: %s, so a smaller budget is no fix.", k, x->room);
	withdraw_knob(c, f);
}

/* A card to buy must be larger than the card that failed: a suggestion
 * at or below it is withdrawn (the fix is to hold less, not a card). */
static void check_card_size(struct rule_ctx *c, struct crit *f, const struct facts *x)
{
	double s = fig(f, "suggested_card_bytes");
	char b1[32], b2[32], phrase[64];

	if (s <= 0 || x->card <= 0 || s > x->card)
		return;
	rl_bytes(s, b1, sizeof(b1));
	snprintf(phrase, sizeof(phrase), "card of at least %s", b1);
	if (!edit_drop(c, f, phrase)) {
		snprintf(phrase, sizeof(phrase), "a card of %s", b1);
		edit_replace(c, f, phrase, "a larger card");
	}
	json_object_del(f->figs, "suggested_card_bytes");
	note(f, "A card of at least %s was withdrawn: the card that failed has %s already, so"
	     " the step must hold less.", b1, rl_bytes(x->card, b2, sizeof(b2)));
}

/* One card size across findings: the largest any of them names. */
static void check_one_card_size(struct rule_ctx *c, struct crit *f, const struct facts *x)
{
	double s = fig(f, "suggested_card_bytes");
	char b1[32], b2[32];

	if (s <= 0 || x->card_advice <= 0 || s == x->card_advice)
		return;
	rl_bytes(s, b1, sizeof(b1));
	rl_bytes(x->card_advice, b2, sizeof(b2));
	if (strcmp(b1, b2))
		edit_replace(c, f, b1, b2);
	json_object_set_new(f->figs, "suggested_card_bytes", json_integer((json_int_t)x->card_advice));
	note(f, "The card size is %s in every finding (this one computed %s).", b2, b1);
}

/* A tensor-parallel size must exceed the group the evidence shows: a log
 * from rank 5 runs in a group of at least 6 cards. */
static void check_parallelism(struct rule_ctx *c, struct crit *f, const struct facts *x)
{
	struct rl_knob_note *k;
	double v = fig(f, "advice_value"), group;
	char text[400];
	const char *rest;

	if (strcmp(knob_of(f), "tensor_parallel_size") || v < 1)
		return;
	group = fmax(x->tp, x->max_rank + 1.0);
	if (group <= 1 || v > group)
		return;
	k = knob_note(c, f->id);
	if (x->tp >= 1 && v < x->tp * 2) {
		/* the configured size is known: scale it */
		double nv = x->tp * v;
		if (nv <= group)
			nv = group * 2;
		rest = k && k->base[0] ? strstr(f->advice, k->base) : NULL;
		snprintf(text, sizeof(text), "Set --tensor-parallel-size to %.0f: the model runs on"
			 " %.0f cards already, and each needs %.0f times the room it had.%s%s", nv,
			 x->tp, v, rest ? " " : "", rest ? rest : "");
		snprintf(f->advice, sizeof(f->advice), "%s", text);
		if (k)
			k->value = nv;
		json_object_set_new(f->figs, "advice_value", json_integer((json_int_t)nv));
		note(f, "--tensor-parallel-size %.0f was corrected to %.0f: the configuration"
		     " already splits the model over %.0f cards.", v, nv, x->tp);
		return;
	}
	withdraw_knob(c, f);
	snprintf(text, sizeof(text), "Spread the model over %.0f times the cards of its group"
		 " (the log is from rank %d, so the group has %.0f or more; the log does not print"
		 " its size). ", v, x->max_rank, group);
	if (strlen(text) + strlen(f->advice) < sizeof(f->advice)) {
		memmove(f->advice + strlen(text), f->advice, strlen(f->advice) + 1);
		memcpy(f->advice, text, strlen(text));
	}
	note(f, "--tensor-parallel-size %.0f was withdrawn: the log is from rank %d of a group"
	     " of at least %.0f cards.", v, x->max_rank, group);
}

/* A cap advised without a value ("the log does not give their values")
 * when the log gives what was running: the value derived from it (x 0.7,
 * as the engine rule sizes a cap), set as the finding's knob. */
static void derive_cap(struct rule_ctx *c, struct crit *f, const char *flag, double running)
{
	struct rl_knob_note *k;
	char text[300], phrase[64];
	double v = floor(running * 0.7);
	int whatif = rl_serving_choice(c, "max_num_seqs", &v) == 0 && v < running;
	const char *b, *e, *at;

	if (!whatif)
		v = floor(running * 0.7);
	snprintf(phrase, sizeof(phrase), "Lower %s", flag);
	if (!(at = strstr(f->advice, phrase)) || v < 1)
		return;
	sentence_at(f->advice, at, &b, &e);
	if (b != f->advice)   /* the knob's sentence must lead the advice */
		return;
	if (whatif)   /* the serving what-if's cap: one value per knob */
		snprintf(text, sizeof(text), "Lower %s to %.0f: %.0f requests were running at the"
			 " OOM, and the serving what-if fits the recorded load under %.0f with a"
			 " 0.7 margin.%s", flag, v, running, v, *e ? " " : "");
	else
		snprintf(text, sizeof(text), "Lower %s to %.0f: %.0f requests were running at the"
			 " OOM, and x 0.7 leaves the pool room for them to grow.%s", flag, v,
			 running, *e ? " " : "");
	if (strlen(f->advice) - (size_t)(e - b) + strlen(text) + 1 > sizeof(f->advice))
		return;
	memmove(f->advice + strlen(text), e, strlen(e) + 1);
	memcpy(f->advice, text, strlen(text));
	json_object_set_new(f->figs, "advice_knob", json_string("max_num_seqs"));
	json_object_set_new(f->figs, "advice_value", json_integer((json_int_t)v));
	json_object_set_new(f->figs, "running_at_oom", json_integer((json_int_t)running));
	note(f, "The cap was derived from the %.0f requests running at the OOM, not left unsaid.",
	     running);
	if (c->n_knobs >= RL_MAX_KNOBS)
		return;
	k = &c->knobs[c->n_knobs++];
	memset(k, 0, sizeof(*k));
	k->finding = f->id;
	k->score = f->score;
	snprintf(k->class_, sizeof(k->class_), "%s", f->class_);
	snprintf(k->cause, sizeof(k->cause), "%s", f->cause);
	snprintf(k->knob, sizeof(k->knob), "max_num_seqs");
	snprintf(k->flag, sizeof(k->flag), "%s", flag);
	k->value = v;
	snprintf(k->base, sizeof(k->base), "%s", f->advice + strlen(text));
	snprintf(k->title, sizeof(k->title), "%s", f->title);
}

/* A concurrency cap must be below what was running at the OOM. */
static void check_concurrency(struct rule_ctx *c, struct crit *f, const struct facts *x)
{
	double v = fig(f, "advice_value");
	char phrase[80];
	int i;

	if (x->running < 0)
		return;
	if (!strcmp(knob_of(f), "max_num_seqs") && v >= 0 && v >= x->running) {
		withdraw_knob(c, f);
		note(f, "A cap of %.0f requests was withdrawn: %.0f were running at the OOM, so the"
		     " cap would not have changed what ran.", v, x->running);
		return;
	}
	if (knob_of(f)[0])
		return;
	/* each engine's own cap (lib/engine_knobs.h), SGLang's first as before */
	for (i = ENGINE__COUNT - 1; i > ENGINE_NONE; i--) {
		const char *flag = engine_knob_flag((enum engine_kind)i, KR_MAX_SEQS);
		if (!flag || !engine_kind_named((enum engine_kind)i))
			continue;
		snprintf(phrase, sizeof(phrase), "Lower %s", flag);
		if (!strstr(f->advice, phrase))
			continue;
		if (x->running <= CRITIC_FEW_RUNNING) {
			edit_drop(c, f, phrase);
			note(f, "\"%s\" was withdrawn: %.0f request%s running at the OOM; fewer at"
			     " once is no lever.", phrase, x->running, x->running == 1 ? " was" : "s were");
		} else {
			derive_cap(c, f, flag, x->running);
		}
		return;
	}
}

/* "The card was full of live tensors" only when they fill the reach. */
static void check_full_of_tensors(struct crit *f, const struct facts *x)
{
	const struct rl_card *k = &x->k;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], t[700];
	double pools;

	if (strcmp(f->cause, "capacity") || !strstr(f->title, "full of live tensors") || !k->ev ||
	    k->room <= 0 || k->alloc < 0)
		return;
	pools = k->pools > 0 ? k->pools : 0;
	if (k->alloc >= CRITIC_FULL_SHARE * k->room) {
		if (pools < CRITIC_POOL_SHARE * k->total)
			return;
		snprintf(t, sizeof(t), "%s; %s of them (%.0f%% of the card) in private pools (CUDA"
			 " graphs, MemPool)", f->title, rl_bytes(pools, b1, sizeof(b1)),
			 100 * pools / k->total);
		set_title(f, t);
		note(f, "The title names the private pools: %.0f%% of the card.", 100 * pools / k->total);
		return;
	}
	/* the live tensors did not fill the reach: the request did */
	snprintf(t, sizeof(t), "A request of %s on top of %s of live tensors: more than the %s"
		 " the allocator could reach (%s free, %s cached) of the %s card",
		 rl_bytes(k->req, b1, sizeof(b1)), rl_bytes(k->alloc, b5, sizeof(b5)),
		 rl_bytes(k->room, b2, sizeof(b2)), rl_bytes(k->free, b3, sizeof(b3)),
		 rl_bytes(k->unalloc > 0 ? k->unalloc : 0, b4, sizeof(b4)),
		 rl_bytes(k->total, b6, sizeof(b6)));
	set_title(f, t);
	note(f, "\"The card was full of live tensors\" was withdrawn: they held %.0f%% of what the"
	     " allocator could reach; the request was the rest.", 100 * k->alloc / k->room);
}

/* ---- the pass ------------------------------------------------------------- */

static int write_back(struct rule_ctx *c, struct crit *f)
{
	sqlite3_stmt *st;
	char *figs;
	int r;

	if (!f->changed)
		return 0;
	json_object_set_new(f->figs, "critic", json_string(f->note));
	figs = json_dumps(f->figs, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
	if (!figs)
		return rl_fail(c, "out of memory");
	if (!(st = rl_prepare(c, "UPDATE finding SET title = ?1, advice = ?2, figures = ?3"
			      " WHERE id = ?4"))) {
		free(figs);
		return -1;
	}
	sqlite3_bind_text(st, 1, f->title, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, f->advice, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, figs, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, f->id);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : rl_sql_failed(c);
	sqlite3_finalize(st);
	free(figs);
	return r;
}

/* The card size every finding should name: the largest one computed
 * above the card that failed. */
static int one_card_size(struct rule_ctx *c, struct facts *x)
{
	double v;

	if (rl_num(c, &v, "SELECT max(json_extract(figures, '$.suggested_card_bytes')) FROM finding"
		   " WHERE json_valid(figures)") == 0 && v > 0 && (x->card <= 0 || v > x->card))
		x->card_advice = v;
	return 0;
}

int rule_critic(struct rule_ctx *c)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT id, cause, title, coalesce(advice, ''),"
				      " coalesce(figures, '{}'), score, class FROM finding ORDER BY id");
	struct facts *x = calloc(1, sizeof(*x));
	struct crit *f = calloc(1, sizeof(*f));
	int r = 0;

	if (!st || !x || !f) {
		sqlite3_finalize(st);
		free(x);
		free(f);
		return st ? rl_fail(c, "out of memory") : -1;
	}
	read_facts(c, x);
	one_card_size(c, x);
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		memset(f, 0, sizeof(*f));
		f->id = sqlite3_column_int64(st, 0);
		snprintf(f->cause, sizeof(f->cause), "%s", q_text(st, 1));
		snprintf(f->class_, sizeof(f->class_), "%s", q_text(st, 6));
		f->score = sqlite3_column_double(st, 5);
		snprintf(f->title, sizeof(f->title), "%s", q_text(st, 2));
		snprintf(f->advice, sizeof(f->advice), "%s", q_text(st, 3));
		if (!(f->figs = json_loads(q_text(st, 4), 0, NULL)) || !json_is_object(f->figs)) {
			json_decref(f->figs);
			continue;
		}
		check_card_size(c, f, x);
		check_one_card_size(c, f, x);
		check_parallelism(c, f, x);
		check_concurrency(c, f, x);
		check_full_of_tensors(f, x);
		check_room(c, f, x);
		if (f->changed && knob_note(c, f->id))
			snprintf(knob_note(c, f->id)->title, sizeof(knob_note(c, f->id)->title), "%s",
				 f->title);
		r = write_back(c, f);
		json_decref(f->figs);
	}
	sqlite3_finalize(st);
	free(x);
	free(f);
	return r < 0 || c->failed ? -1 : 0;
}
