/*
 * server_engine.c -- a server log's engine instances and their memory
 * accounting, gathered line by line (see server_engine.h).
 */
#include "parsers/serving/server_engine.h"
#include "parsers/common/seriesutil.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srv_engine_init(struct srv_engine *e)
{
	memset(e, 0, sizeof(*e));
}

void srv_engine_new_run(struct srv_engine *e)
{
	e->run++;
	e->gen++;   /* the lines seen lately are of the earlier run's instances */
}

void srv_engine_release(struct srv_engine *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		json_decref(e->inst[i].errors);
	e->n = 0;
	if (e->held)
		json_decref(e->held_ev.data);
	e->held = 0;
}

#define specific engine_kind_named

int srv_engine_read(struct srv_engine *e, const struct srv_line *l, struct engine_line *el,
		    int served)
{
	char joined[sizeof(e->some) + 64];
	const char *v = l->msg;
	size_t vn = l->n;
	int r;

	if (e->some_n) {   /* "    max_total_tokens: Some(" then "        64000," */
		while (vn && *v == ' ')
			v++, vn--;
		e->some_n = 0;
		if (vn && vn < 64) {
			memcpy(joined, e->some, sizeof(e->some));
			memcpy(joined + strlen(joined), v, vn);
			joined[strlen(e->some) + vn] = 0;
			return served ? engine_line_served(joined, strlen(joined), el)
				      : engine_line(joined, strlen(joined), el);
		}
	}
	/* the GPUs' rows of llama.cpp's memory breakdown table under its
	 * header, pasted without the function's name: "| CUDA0 (...) | 32606
	 * = ..." (a frame's "| " may be gone: server_unwrap.c); the first
	 * other line ends the table and is read as any line */
	if (e->ggml_table) {
		if (engine_line_ggml_row(l->msg, l->n, el))
			return 1;
		e->ggml_table = 0;
	}
	r = served ? engine_line_served(l->msg, l->n, el) : engine_line(l->msg, l->n, el);
	e->ggml_table = el->ggml_table;
	if (l->n > 5 && l->n < sizeof(e->some) && !memcmp(l->msg + l->n - 5, "Some(", 5)) {
		memcpy(e->some, l->msg, l->n + 1);
		e->some_n = l->n;
	}
	return r;
}

/* ---- which instance ---- */

/* The instance's name from the line's wrappers (server_engine.h). */
static void instance_name(const struct srv_line *l, const struct engine_line *el,
			  enum engine_kind kind, int run, char *out, size_t cap)
{
	char who[32] = "";

	if (l->rank != OL_NULL)
		snprintf(who, sizeof(who), "rank %lld", (long long)l->rank);
	else if (l->pid != OL_NULL)
		snprintf(who, sizeof(who), "pid %lld", (long long)l->pid);
	else if (l->tp >= 0)
		snprintf(who, sizeof(who), "TP%d", l->tp);
	else if (el->rank >= 0 && kind == ENGINE_SGLANG)
		snprintf(who, sizeof(who), "TP%d", el->rank);
	else if (el->rank >= 0 && kind == ENGINE_TGI)
		snprintf(who, sizeof(who), "rank %d", el->rank);
	snprintf(out, cap, "%s%s%s", l->service, l->service[0] && who[0] ? " " : "", who);
	if (run > 0) {   /* a later run of the log (srv_engine_new_run) */
		size_t k = strlen(out);
		snprintf(out + k, cap - k, "%srun %d", k ? ", " : "", run + 1);
	}
}

/* The instance of (name, kind): one of that name and kind; else, for a
 * named engine, one of that name no engine named yet (it is this one);
 * for a line no engine names, the last of that name. NULL if none. */
/* FNV-1a of an instance's name: most lines' names differ from most
 * instances' in it, so find() compares few names. */
static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

/* 1 when a and b are Ollama and llama.cpp, either way round: the runner
 * under Ollama's server prints llama.cpp's lines. */
static int llama_pair(enum engine_kind a, enum engine_kind b)
{
	return (a == ENGINE_OLLAMA && b == ENGINE_LLAMACPP) ||
	       (a == ENGINE_LLAMACPP && b == ENGINE_OLLAMA);
}

static struct srv_instance *find(struct srv_engine *e, const char *name, enum engine_kind kind)
{
	struct srv_instance *loose = NULL, *any = NULL, *cousin = NULL;
	uint32_t h = name_hash(name);
	int i;

	for (i = e->n - 1; i >= 0; i--) {
		struct srv_instance *in = &e->inst[i];
		if (in->name_hash != h || strcmp(in->name, name))
			continue;
		if (in->kind == kind)
			return in;
		if (!any)
			any = in;
		if (!specific(in->kind) && !loose)
			loose = in;
		if (!cousin && llama_pair(in->kind, kind))
			cousin = in;
	}
	if (cousin) {   /* Ollama's runner is llama.cpp: one instance, Ollama's */
		if (kind == ENGINE_OLLAMA) {
			cousin->kind = ENGINE_OLLAMA;
			e->gen++;
		}
		return cousin;
	}
	if (specific(kind)) {
		if (loose) {
			loose->kind = kind;
			e->gen++;
		}
		return loose;
	}
	return any;
}

/* A new instance; NULL when SRV_ENGINES are kept already (said once,
 * *err set when the sink failed). */
static struct srv_instance *add(struct srv_engine *e, struct sink *s, const char *name,
				enum engine_kind kind, uint64_t lineno, int *err)
{
	struct srv_instance *in;
	int i;

	if (e->n == SRV_ENGINES) {
		if (!e->full_warned++ &&
		    sink_diagf(s, lineno, 0, OL_WARN, "more than %d engine instances: the"
			       " accounting of later ones is not kept", SRV_ENGINES) < 0)
			*err = 1;
		return NULL;
	}
	in = &e->inst[e->n++];
	e->gen++;
	memset(in, 0, sizeof(*in));
	in->kind = kind;
	copy_str(in->name, sizeof(in->name), name, strlen(name));
	in->name_hash = name_hash(in->name);
	for (i = 0; i < EF__COUNT; i++)
		in->fact[i] = NAN;
	in->line = lineno;
	return in;
}

/* The number of vLLM V1's engine whose statistics line l is ("Engine
 * 001: ..."), else 0. */
static int engine_number(const struct srv_line *l)
{
	int dp = 0;
	size_t i;

	if (l->n > 7 && !memcmp(l->msg, "Engine ", 7))
		for (i = 7; i < l->n && i < 12 && isdigit((unsigned char)l->msg[i]); i++)
			dp = dp * 10 + (l->msg[i] - '0');
	return dp;
}

/* The statistics' entity: the engine; vLLM V1's second engine
 * "vllm/engine1", an SGLang rank other than 0 "sglang/TPn". */
static void stat_entity(const struct srv_line *l, const struct engine_line *el,
			enum engine_kind kind, char *ent, size_t cap)
{
	int tp = l->tp >= 0 ? l->tp : el->rank, dp = kind == ENGINE_VLLM ? engine_number(l) : 0;

	if (dp > 0)
		snprintf(ent, cap, "vllm/engine%d", dp);
	else if (kind == ENGINE_SGLANG && tp > 0)
		snprintf(ent, cap, "sglang/TP%d", tp);
	else
		snprintf(ent, cap, "%s", kind == ENGINE_NONE ? "vllm" : engine_kind_name(kind));
}

/* The identity of line l: who it is from, as instance_name() reads it. */
static void identity(const struct srv_line *l, const struct engine_line *el, enum engine_kind kind,
		     struct srv_who *w)
{
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->pid = l->pid;
	w->rank = l->rank;
	w->tp = l->tp;
	w->el_rank = el->rank;
	w->engine_no = engine_number(l);
	memcpy(w->service, l->service, sizeof(w->service));
}

/* The line seen lately that l is one more line of, or NULL: l says
 * nothing an instance keeps, and is from the instance of the line before
 * or of the other line before it, with no instance added or changed
 * since (most lines of a log: no lookup then; the lookup would find the
 * same instance and entity: who holds all they are made of, the engine
 * number of a statistics line included). A hit becomes seen[0]. */
static struct srv_seen *seen_again(struct srv_engine *e, const struct srv_line *l,
				   const struct engine_line *el, enum engine_kind kind)
{
	struct srv_who w;
	struct srv_seen tmp;
	int i;

	if (el->nfacts || el->error || el->version[0] || el->preempted || el->capture)
		return NULL;
	identity(l, el, kind, &w);
	for (i = 0; i < 2; i++) {
		struct srv_seen *v = &e->seen[i];
		if (!v->set || v->gen != e->gen || memcmp(&w, &v->who, sizeof(w)))
			continue;
		if (i == 1) {   /* copied whole: who is compared with its padding */
			memcpy(&tmp, &e->seen[0], sizeof(tmp));
			memcpy(&e->seen[0], &e->seen[1], sizeof(tmp));
			memcpy(&e->seen[1], &tmp, sizeof(tmp));
		}
		return &e->seen[0];
	}
	return NULL;
}

/* l's instance (in, NULL when none) and entity become seen[0]; the one
 * before moves to seen[1] when it was another. */
static void remember(struct srv_engine *e, const struct srv_line *l, const struct engine_line *el,
		     enum engine_kind kind, const struct srv_instance *in, const char *ent)
{
	struct srv_seen v;

	memset(&v, 0, sizeof(v));
	identity(l, el, kind, &v.who);
	v.set = in != NULL;
	v.gen = e->gen;
	copy_str(v.ent, sizeof(v.ent), ent, strlen(ent));
	if (memcmp(&v.who, &e->seen[0].who, sizeof(v.who)))   /* copied whole, as above */
		memcpy(&e->seen[1], &e->seen[0], sizeof(v));
	memcpy(&e->seen[0], &v, sizeof(v));
}

/* ---- what is recorded ---- */

/* Keep one fact: the last said, except free memory (the first), and a
 * figure said again within 0.5% (vLLM's "Loading model weights took
 * 14.9595 GB", then "model weights take 14.96GiB"): the first, which is
 * the one printed with more digits. */
static void keep_fact(struct srv_instance *in, enum engine_fact k, double v)
{
	double old = in->fact[k];

	if (!isnan(old) && (k == EF_FREE || fabs(v - old) <= 0.005 * fabs(old)))
		return;
	in->fact[k] = engine_fact_integer(k) ? (double)llround(v) : v;
	in->said = 1;
}

/* A ggml buffer's size (llama.cpp prints one line per GPU): summed over
 * the GPUs of one load; a GPU seen again starts a new load. The total
 * "KV self size" (host included) is kept only when no GPU's KV was. */
static void keep_ggml(struct srv_instance *in, const struct engine_line *el, enum engine_fact k,
		      double v)
{
	int slot = k == EF_WEIGHTS ? 0 : k == EF_KV_CACHE ? 1 : k == EF_COMPUTE_BUFFER ? 2 : -1;
	uint32_t bit;

	if (slot < 0 || el->ggml_dev >= 32) {
		keep_fact(in, k, v);
		return;
	}
	if (el->ggml_total) {
		if (!in->ggml_devs[slot])
			keep_fact(in, k, v);
		return;
	}
	bit = 1u << el->ggml_dev;
	if (in->ggml_devs[slot] & bit || isnan(in->fact[k])) {
		in->ggml_devs[slot] = 0, in->fact[k] = 0;
		memset(in->ggml_dev[slot], 0, sizeof(in->ggml_dev[slot]));
	}
	in->ggml_devs[slot] |= bit;
	if (el->ggml_dev < SRV_GGML_DEVS)
		in->ggml_dev[slot][el->ggml_dev] += v;
	in->fact[k] += v;
	in->fact[k] = (double)llround(in->fact[k]);
	in->said = 1;
}

/* Ollama's per-GPU list k of el (0 available, 1 allocations): the last
 * said wins, GPU by GPU in order. */
static void keep_plan(struct srv_instance *in, const struct engine_line *el, int k)
{
	int i;

	in->plan_devs[k] = 0;
	for (i = 0; i < el->gpu_list_n[k] && i < SRV_GGML_DEVS; i++) {
		in->plan[k][i] = (double)llround(el->gpu_list[k][i]);
		in->plan_devs[k] |= 1u << i;
	}
	in->said = 1;
}

/* One event of kind ("engine_error", "preemption") with data d (taken). */
static int event(struct srv_engine *e, struct sink *s, const struct srv_line *l, uint64_t lineno,
		 const char *kind, const char *summary, json_t *d)
{
	struct ol_event ev = { .kind = kind, .t = l->t, .pid = l->pid, .bytes = OL_NULL,
			       .line = lineno, .summary = summary, .data = d };
	int64_t id = sink_event(s, &ev);

	json_decref(d);
	if (id < 0)
		return -1;
	e->records++;
	return 0;
}

static void held_counts(struct srv_engine *e, json_t *d, uint64_t lineno);

/* The error k of line l on instance in: into its list (unless it is the
 * one just told again), and an engine_error event when the line is not
 * a piece's. 1 when recorded, 0 when merged, -1 when the sink failed. */
static int keep_error(struct srv_engine *e, struct sink *s, struct srv_instance *in,
		      const struct srv_line *l, uint64_t lineno, enum engine_error k, int in_piece)
{
	size_t tn = l->n < SRV_ERROR_TEXT ? l->n : SRV_ERROR_TEXT;
	char summary[256];
	json_t *d;

	if (k == in->last_error && k != EE_RETRACT && lineno - in->last_error_line <= SRV_ERROR_GAP) {
		in->last_error_line = lineno;
		return 0;
	}
	in->last_error = k;
	in->last_error_line = lineno;
	in->said = 1;
	if (!in->errors)
		in->errors = json_array();
	if (json_array_size(in->errors) >= SRV_ENGINE_ERRORS)
		in->dropped++;
	else
		json_array_append_new(in->errors, json_pack("{s:s, s:o, s:s?, s:I, s:o}",
			"kind", engine_error_name(k), "time_ns",
			l->t.clock == OL_CLOCK_UTC || l->t.clock == OL_CLOCK_LOCAL
				? json_integer(l->t.utc_ns) : json_null(),
			"clock", l->t.clock == OL_CLOCK_UTC ? "utc" : l->t.clock == OL_CLOCK_LOCAL
				? "local" : NULL,
			"line", (json_int_t)lineno, "text", ol_json_strn(l->msg, tn)));
	if ((k == EE_DECODE_OOM || k == EE_PREFILL_OOM) && json_array_size(in->errors))
		held_counts(e, json_array_get(in->errors, json_array_size(in->errors) - 1), lineno);
	if (in_piece)
		return 1;
	snprintf(summary, sizeof(summary), "%s %s: %.*s", engine_kind_name(in->kind),
		 engine_error_name(k), (int)(tn > 160 ? 160 : tn), l->msg);
	d = json_pack("{s:s, s:s, s:s, s:o, s:s}", "error", engine_error_name(k), "engine",
		      engine_kind_name(in->kind), "instance", in->name, "text", ol_json_strn(l->msg, tn),
		      "phase", oom_phase_name(e->phase));
	if (e->family)
		json_object_set_new(d, "family", json_string(e->family));
	if (e->phase_by && e->phase != OOM_PHASE_UNKNOWN)
		json_object_set_new(d, "phase_by", json_string(e->phase_by));
	if (k == EE_TRT_OOM && e->phase == OOM_PHASE_UNKNOWN && !e->held) {
		/* its C++ stack comes below it: the caller holds it (held_ev) */
		snprintf(e->held_summary, sizeof(e->held_summary), "%s", summary);
		e->held_ev = (struct ol_event){ .kind = "engine_error", .t = l->t, .pid = l->pid,
						.bytes = OL_NULL, .line = lineno,
						.summary = e->held_summary, .data = d };
		e->held = 1;
		return 1;
	}
	return event(e, s, l, lineno, "engine_error", summary, d) < 0 ? -1 : 1;
}

/* The number after label at m[0..n)'s start, or -1. */
static json_int_t count_after(const char *m, size_t n, const char *label)
{
	size_t k = strlen(label), i;
	json_int_t v = 0;

	if (n <= k || memcmp(m, label, k))
		return -1;
	for (i = k; i < n && i < k + 12 && m[i] >= '0' && m[i] <= '9'; i++)
		v = v * 10 + (m[i] - '0');
	return i > k ? v : -1;
}

int srv_engine_counts(struct srv_engine *e, const char *m, size_t n, uint64_t lineno)
{
	json_int_t asked, avail = -1;
	json_t *last;
	int i;

	if (!n || (m[0] != 'T' && m[0] != 'A'))   /* the prefilter: most lines stop here */
		return 0;
	if ((asked = count_after(m, n, "Try to allocate ")) < 0 &&
	    (avail = count_after(m, n, "Available tokens: ")) < 0 &&
	    (avail = count_after(m, n, "Avaliable tokens: ")) < 0)
		return 0;
	for (i = e->n - 1; i >= 0; i--) {
		struct srv_instance *in = &e->inst[i];
		if ((in->last_error != EE_DECODE_OOM && in->last_error != EE_PREFILL_OOM) ||
		    lineno < in->last_error_line || lineno - in->last_error_line > SRV_COUNT_LINES ||
		    !in->errors || !(last = json_array_get(in->errors, json_array_size(in->errors) - 1)))
			continue;
		json_object_set_new(last, asked >= 0 ? "asked_tokens" : "available_tokens",
				    json_integer(asked >= 0 ? asked : avail));
		return 1;
	}
	/* its error not recorded yet: kept for keep_error() */
	i = (int)(e->cnt_next++ % SRV_COUNT_LINES);
	e->cnt[i].line = lineno;
	e->cnt[i].key = asked >= 0 ? "asked_tokens" : "available_tokens";
	e->cnt[i].v = asked >= 0 ? asked : avail;
	return 1;
}

/* The counts read before error entry d (of line lineno) was recorded. */
static void held_counts(struct srv_engine *e, json_t *d, uint64_t lineno)
{
	int i;

	for (i = 0; i < SRV_COUNT_LINES; i++)
		if (e->cnt[i].key && e->cnt[i].line > lineno &&
		    e->cnt[i].line - lineno <= SRV_COUNT_LINES)
			json_object_set_new(d, e->cnt[i].key, json_integer(e->cnt[i].v));
}

/* vLLM's preemption warning as a preemption event. */
static int preemption(struct srv_engine *e, struct sink *s, const struct srv_instance *in,
		      const char *name, const struct srv_line *l, const struct engine_line *el,
		      uint64_t lineno)
{
	char summary[160];
	json_t *d = json_pack("{s:s, s:s, s:s, s:o}", "engine", "vllm", "instance",
			      in ? in->name : name, "mode", el->swap ? "swap" : "recompute",
			      "cumulative", el->preempt_total >= 0
					? json_integer(el->preempt_total) : json_null());

	snprintf(summary, sizeof(summary), "vLLM preempted a request (%s): not enough KV cache"
		 " space", el->swap ? "swapped out" : "to recompute");
	return event(e, s, l, lineno, "preemption", summary, d);
}

int srv_engine_line(struct srv_engine *e, struct sink *s, const struct srv_line *l,
		    const struct engine_line *el, uint64_t lineno, int in_piece,
		    char *ent, size_t cap, enum engine_error *error)
{
	enum engine_kind kind = specific(el->engine) ? el->engine
				: specific(l->hint) ? l->hint : el->engine;
	char name[sizeof(e->inst[0].name)];
	struct srv_instance *in;
	enum engine_error k = el->error;
	int i, err = 0;

	struct srv_seen *again;

	*error = EE_NONE;
	if (kind == ENGINE_LLAMACPP && l->hint == ENGINE_OLLAMA)
		kind = ENGINE_OLLAMA;   /* the runner's line in Ollama's journal */
	e->lines[kind]++;
	if ((again = seen_again(e, l, el, kind))) {   /* one more line of a recent one */
		copy_str(ent, cap, again->ent, strlen(again->ent));
		return 0;
	}
	instance_name(l, el, kind, e->run, name, sizeof(name));
	in = find(e, name, kind);
	if (!in && (specific(l->hint) || (specific(el->engine) && !el->stats_set) ||
		    el->nfacts || el->error || el->version[0]))
		in = add(e, s, name, kind, lineno, &err);   /* not for a bare statistics line:
							     * a terminal wraps them */
	if (err)
		return -1;
	stat_entity(l, el, in && specific(in->kind) ? in->kind : kind, ent, cap);
	remember(e, l, el, kind, in, ent);
	if (el->preempted && preemption(e, s, in, name, l, el, lineno) < 0)
		return -1;
	if (!in)
		return 0;
	for (i = 0; i < el->nfacts; i++)
		if (el->ggml_dev >= 0 || el->ggml_total)
			keep_ggml(in, el, el->facts[i].key, el->facts[i].value);
		else
			keep_fact(in, el->facts[i].key, el->facts[i].value);
	for (i = 0; i < 2; i++)
		if (el->gpu_list_n[i])
			keep_plan(in, el, i);
	if (el->version[0]) {
		copy_str(in->version, sizeof(in->version), el->version, strlen(el->version));
		in->said = 1;
	}
	if (el->capture == 1)
		in->capture_line = lineno;
	else if (el->capture == 2)
		in->capture_line = 0;
	if (k == EE_CUDA_OOM && in->capture_line && lineno - in->capture_line <= SRV_CAPTURE_LINES)
		k = EE_GRAPH_CAPTURE_OOM;
	if (k) {
		int r = keep_error(e, s, in, l, lineno, k, in_piece);
		if (r < 0)
			return -1;
		*error = k;
	}
	return 0;
}

/* ---- the rows ---- */

/* The engine most lines of the log are of, or NONE. */
static enum engine_kind log_engine(const struct srv_engine *e)
{
	enum engine_kind best = ENGINE_NONE;
	unsigned most = 0;
	int k;

	for (k = 0; k < ENGINE__COUNT; k++)
		if (specific((enum engine_kind)k) && e->lines[k] > most) {
			best = (enum engine_kind)k;
			most = e->lines[k];
		}
	return best;
}

/* The rows of in's GPUs, one each (server_engine.h), kind k: only when
 * its ggml buffers or Ollama's per-GPU lists spoke of several GPUs or of
 * one other than GPU 0. 0, or -1 when the sink failed. */
static int device_rows(struct srv_engine *e, struct sink *s, const struct srv_instance *in,
		       enum engine_kind k)
{
	static const enum engine_fact keys[3] = { EF_WEIGHTS, EF_KV_CACHE, EF_COMPUTE_BUFFER };
	uint32_t devs = in->ggml_devs[0] | in->ggml_devs[1] | in->ggml_devs[2] |
			in->plan_devs[0] | in->plan_devs[1];
	char name[sizeof(in->name) + 16];
	int d, j;

	if (!devs || devs == 1u)
		return 0;
	for (d = 0; d < SRV_GGML_DEVS; d++) {
		struct ol_engine row;
		if (!(devs & (1u << d)))
			continue;
		memset(&row, 0, sizeof(row));
		for (j = 0; j < EF__COUNT; j++)
			row.fact[j] = NAN;
		for (j = 0; j < 3; j++)
			if (in->ggml_devs[j] & (1u << d))
				row.fact[keys[j]] = (double)llround(in->ggml_dev[j][d]);
		if (in->plan_devs[0] & (1u << d))
			row.fact[EF_FREE] = in->plan[0][d];
		if (in->plan_devs[1] & (1u << d))
			row.fact[EF_REQUESTED] = in->plan[1][d];
		snprintf(name, sizeof(name), "%s%sdevice %d", in->name, in->name[0] ? " " : "", d);
		row.engine = engine_kind_name(k);
		row.instance = name;
		row.version = in->version[0] ? in->version : NULL;
		row.line = in->line;
		if (sink_engine(s, &row) < 0)
			return -1;
		e->records++;
	}
	return 0;
}

int srv_engine_finish(struct srv_engine *e, struct sink *s)
{
	enum engine_kind main_kind = log_engine(e);
	int i;

	for (i = 0; i < e->n; i++) {
		struct srv_instance *in = &e->inst[i];
		struct ol_engine row;
		enum engine_kind k = specific(in->kind) ? in->kind : main_kind;

		if (!specific(k))
			k = in->kind == ENGINE_PYTORCH ? ENGINE_PYTORCH : ENGINE_NONE;
		if ((!in->said && !specific(k)) || k == ENGINE_NONE)
			continue;   /* a named engine is a row even when it said nothing */
		memset(&row, 0, sizeof(row));
		row.engine = engine_kind_name(k);
		row.instance = in->name;
		row.version = in->version[0] ? in->version : NULL;
		memcpy(row.fact, in->fact, sizeof(row.fact));
		row.errors = in->errors;
		row.errors_dropped = in->dropped;
		row.line = in->line;
		if (sink_engine(s, &row) < 0 || device_rows(e, s, in, k) < 0)
			return -1;
		e->records++;
	}
	return 0;
}
