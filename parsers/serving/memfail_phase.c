/*
 * memfail_phase.c -- where the generic memory-failure recogniser places a
 * failure in the program's life: the phase a traceback's frames name
 * (the highest tier's innermost frame, phase_table.h), the phase a stage
 * line names, and the stage a handler's words after a failure name. It
 * reads phase_table.c's rows through memfail.c's one phrase set
 * (memfail_set.h), so a line is still scanned once; split from memfail.c
 * (round 10) so that each file keeps to one job.
 */
#include "parsers/serving/memfail.h"
#include "parsers/serving/memfail_set.h"
#include "parsers/serving/phase_table.h"
#include "parsers/serving/frame_words.h"
#include "parsers/common/phrases.h"
#include "parsers/common/seriesutil.h"
#include "parsers/serving/server_answers.h"
#include "lib/strci.h"

#include <string.h>

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- phases ------------------------------------------------------------- */


/* The start of the last occurrence of phrase in t[0..n), or NULL. */
static const char *last_find(const char *t, size_t n, const char *phrase)
{
	const char *p = t, *end = t + n, *last = NULL;

	while ((p = mem_find(p, (size_t)(end - p), phrase))) {
		last = p;
		p++;
	}
	return last;
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* last_find for a framework's frame row (PM_FRAMEWORK: the names of a
 * training loop's steps, which programs reuse as longer names): where
 * the phrase ends with a name's character, an occurrence that the name
 * goes on after is another name
 * ("validation_steps=validation_steps)", the argument Keras 2's fit
 * passes down on its frames' source lines, keras/engine/training.py@2.1.6
 * fit, is no Lightning validation_step). Only on a frame's source line
 * (the line under 'File "...", line N, in f'): on a frame line ("in
 * evaluate_bpb") the program's own function extends the framework's
 * word and says the same (round 12's mlx autoresearch row), and a row
 * may name a family of names by their start elsewhere (ComfyUI's
 * "CheckpointLoader" node names, CheckpointLoaderSimple). Set 14,
 * spent round 13 (w-spend14a). */
/* 1 when p stands on a frame's source line: the line above p's is a
 * traceback's frame line ('File "...", line N, in f'). */
static int on_source_line(const char *t, const char *p)
{
	const char *bol = p, *prev;

	while (bol > t && bol[-1] != '\n')
		bol--;
	if (bol == t)
		return 0;
	for (prev = bol - 1; prev > t && prev[-1] != '\n'; prev--)
		;
	return mem_find(prev, (size_t)(bol - prev), "File \"") != NULL;
}

static const char *last_find_name(const char *t, size_t n, const char *phrase)
{
	const char *p = t, *end = t + n, *last = NULL;
	size_t k = strlen(phrase);

	if (!k || !is_ident(phrase[k - 1]))
		return last_find(t, n, phrase);
	while ((p = mem_find(p, (size_t)(end - p), phrase))) {
		if (p + k >= end || !is_ident(p[k]) || !on_source_line(t, p))
			last = p;
		p++;
	}
	return last;
}

/* Where Python starts the next exception of a chain: the cause is
 * printed first, so the first traceback holds the innermost frames. */
static const char *const chain_marks[] = {
	"The above exception was the direct cause of the following exception",
	"During handling of the above exception, another exception occurred",
};

/* The end of the first traceback of a chain in t[0..n) (n when none). */
static size_t chain_cut(const char *t, size_t n)
{
	size_t i, cut = n;
	const char *p;

	for (i = 0; i < ARRAY_N(chain_marks); i++)
		if ((p = mem_find(t, n, chain_marks[i])) && (size_t)(p - t) < cut)
			cut = (size_t)(p - t);
	return cut;
}

/* The tier of phase_table.c's row m, higher deciding first: 3 an
 * engine's own frame, 2 a framework's (PM_FRAMEWORK), 1 a library any
 * phase calls into (PM_GENERIC), 0 a frame that names only start-up. */
static int mark_level(const struct phase_mark *m)
{
	if (m->phase == OOM_PHASE_STARTUP)
		return 0;
	if (m->flags & PM_GENERIC)
		return 1;
	return m->flags & PM_FRAMEWORK ? 2 : 3;
}

#define LEVEL_TOP 3
_Static_assert(MEMFAIL_RANK_WORDS == LEVEL_TOP + 1, "the words tier ranks below every row's");

/* 1 when the traceback t[0..n) was printed newest call first (a web UI's
 * or a Windows console's reversed paste): Python's header "most recent
 * call last" stands below its last frame. Then the innermost frame is
 * the one printed first. */
static int printed_newest_first(const char *t, size_t n)
{
	const char *h = last_find(t, n, "most recent call last"), *f = last_find(t, n, "File \"");

	return h && f && h > f;
}

/* 1 when the name that starts at p (up to a blank, a colon, a quote or
 * end) holds "Loader" (PM_LOADER). */
static int names_loader(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q != ' ' && *q != '\t' && *q != ':' && *q != '\n' && *q != '\r' &&
	       *q != '"' && *q != '\'')
		q++;
	return mem_find(p, (size_t)(q - p), "Loader") != NULL;
}

/* 1 when row m is PyTorch's own graph capture (torch/cuda/graphs.py's
 * capture_begin, capture_end) and the traceback t[0..n) shows it run by
 * torch.compile's CUDA graph trees: cudagraph_trees.py's
 * deferred_cudagraphify records a new graph the first time the compiled
 * function is called with a new shape key, inside that call, whatever
 * the program was doing (pytorch/pytorch
 * torch/_inductor/cudagraph_trees.py@v2.9.0 cudagraphify_impl,
 * CUDAGraphTreeManager.record_function, CUDAGraphNode._record). Such a
 * capture names no start-up stage: the caller's frames decide (set 13
 * spent, w-spend13d: a policy's evaluation recording a graph after two
 * hours of rollouts). */
static int lazy_capture(const struct phase_mark *m, const char *t, size_t n)
{
	return m->phase == OOM_PHASE_GRAPH_CAPTURE && !strcmp(m->engine, "pytorch") &&
	       mem_find(t, n, "_inductor/cudagraph_trees.py") != NULL;
}

/* The start of the last occurrence of phrase in t[0..n) that stands on
 * a traceback's frame line ("File \"" before it on its line), or NULL. */
static const char *last_frame_find(const char *t, size_t n, const char *phrase)
{
	const char *p = t, *end = t + n, *last = NULL, *bol;

	while ((p = mem_find(p, (size_t)(end - p), phrase))) {
		for (bol = p; bol > t && bol[-1] != '\n'; bol--)
			;
		if (mem_find(bol, (size_t)(p - bol), "File \""))
			last = p;
		p++;
	}
	return last;
}

/* 1 when the line [at, eol) ends with s. */
static int ends_with(const char *at, const char *eol, const char *s)
{
	size_t k = strlen(s);

	return (size_t)(eol - at) >= k && !memcmp(eol - k, s, k);
}

/* 1 when the frame line holding at names a constructor: it ends (before
 * blanks) with "in __init__" (PM_CTOR), or with "in init" where a
 * traceback pasted unfenced into a Markdown page (a GitHub issue) had
 * its dunders eaten as bold marks: the frame's file then reads
 * "whisper-fast_main_.py" and its function "init" (set 17, spent on
 * w-spend17c: Purfview/whisper-standalone-win issue 50). A Python
 * method named plain "init" on a PM_CTOR row's own module is not one
 * of faster-whisper's (faster_whisper/transcribe.py@v0.5.1..v1.2.1). */
static int frame_is_ctor(const char *at, const char *end)
{
	const char *eol = memchr(at, '\n', (size_t)(end - at));

	if (!eol)
		eol = end;
	while (eol > at && (eol[-1] == ' ' || eol[-1] == '\t' || eol[-1] == '\r'))
		eol--;
	return ends_with(at, eol, "in __init__") || ends_with(at, eol, ", in init");
}

/* The phase text t[0..n) names by its frames, found the hints it holds:
 * the highest tier's frame (mark_level: an engine's before a
 * framework's before a generic library's before one that names only
 * start-up), of that tier the innermost (a Python traceback is most
 * recent call last, llama.cpp's prefixed lines name the function that
 * printed them; a traceback printed newest first is read the other way),
 * a tie to the earlier row. Of a chain of tracebacks the first that
 * names a stage decides (the cause is printed first). *rank: LEVEL_TOP
 * less the tier, LEVEL_TOP + 1 for none (lower wins when frames are read
 * a line at a time). */
/* Round 18 (w-phase19): 1 when a program frame of traceback t[0..n) (a
 * 'File "<path>"' outside site-packages and dist-packages) is a script
 * whose file name opens with an evaluation's word ("eval_asr.py",
 * "evaluate.py", "validate.py"), or any frame's function has a word
 * opening so ("evaluate", "simple_evaluate", "run_validation"): the
 * program says it evaluates. */
static int script_says_eval(const char *t, size_t n)
{
	static const char *const eval_names[] = { "eval", "valid" };
	const char *p = t, *end = t + n, *q, *b;
	size_t k;

	/* any frame's function (a library's too: lm-evaluation-harness's
	 * evaluator.py "in evaluate", "in simple_evaluate", lm_eval/
	 * evaluator.py@v0.4.2) whose name has a word opening so */
	for (p = t; (p = mem_find(p, (size_t)(end - p), ", in ")); ) {
		p += 5;
		for (q = p; q < end && (is_ident(*q)); q++)
			;
		for (b = p; b < q; b++)
			if (b == p || b[-1] == '_')
				for (k = 0; k < ARRAY_N(eval_names); k++)
					if ((size_t)(q - b) >= strlen(eval_names[k]) &&
					    mem_find_ci(b, strlen(eval_names[k]), eval_names[k]) == b)
						return 1;
	}
	p = t;
	while ((p = mem_find(p, (size_t)(end - p), "File \""))) {
		p += 6;
		q = memchr(p, '"', (size_t)(end - p));
		if (!q || q - p > 400)
			continue;
		if (mem_find(p, (size_t)(q - p), "-packages/") || mem_find(p, (size_t)(q - p), "-packages\\"))
			continue;
		for (b = q; b > p && b[-1] != '/' && b[-1] != '\\'; b--)
			;
		for (k = 0; k < ARRAY_N(eval_names); k++)
			if ((size_t)(q - b) > strlen(eval_names[k]) &&
			    mem_find_ci(b, strlen(eval_names[k]), eval_names[k]) == b)
				return 1;
	}
	return 0;
}

/* Round 18 (w-phase19): the phase of a failure that only a generic
 * library row of inference placed (transformers' GenerationMixin.generate,
 * phase_rows_frameworks.inc): inference, a request's work -- an offline
 * generation loop over a dataset is serving-like -- unless the program's
 * own frames say an evaluation or a training called it (frame_words.c:
 * "evaluate", "validate", "train" in a function's name or its source
 * line) or the script's file name opens with "eval"/"valid". */
static enum oom_phase library_inference(const char *t, size_t n)
{
	enum oom_phase w = frame_words_phase(t, n, printed_newest_first(t, n));

	if (w == OOM_PHASE_EVAL || w == OOM_PHASE_TRAINING_STEP)
		return w;
	return script_says_eval(t, n) ? OOM_PHASE_EVAL : OOM_PHASE_SERVING;
}

enum oom_phase memfail_frames_phase(const char *t, size_t n, const struct phrases_found *found,
				    int *rank, unsigned *flags)
{
	size_t i, from = 0, cut;
	int best = -1, best_level = -1, reversed;
	const char *best_at = NULL, *at;

	while (from < n && (best < 0 || best_level == 0)) {
		cut = from + chain_cut(t + from, n - from);
		reversed = -1;          /* not yet asked */
		for (i = 0; i < memfail_hints_n; i++) {
			const struct phase_mark *m = &phase_marks[memfail_hint_row[i]];
			int level = mark_level(m), later;
			if (!memfail_set_has(found, T_HINT, (int)i) ||
			    !(at = (m->flags & PM_CTOR)
					   ? last_frame_find(t + from, cut - from, m->phrase)
					   : (m->flags & PM_FRAMEWORK)
					   ? last_find_name(t + from, cut - from, m->phrase)
					   : last_find(t + from, cut - from, m->phrase)))
				continue;
			if ((m->flags & PM_CTOR) && !frame_is_ctor(at, t + cut))
				continue;
			if ((m->flags & PM_LOADER) && !names_loader(at + strlen(m->phrase), t + cut))
				continue;
			if (lazy_capture(m, t + from, cut - from))
				continue;
			if (best >= 0 && level == best_level && reversed < 0)
				reversed = printed_newest_first(t + from, cut - from);
			later = reversed > 0 ? at < best_at : at > best_at;
			if (best < 0 || level > best_level || (level == best_level && later)) {
				best = (int)i;
				best_level = level;
				best_at = at;
			}
		}
		from = cut + 1;
	}
	/* no row names the phase: the names of the program's own frames,
	 * the lowest tier (frame_words.c), the cause's traceback first */
	if (best < 0) {
		enum oom_phase w = OOM_PHASE_UNKNOWN;
		for (from = 0; from < n && w == OOM_PHASE_UNKNOWN; from = cut + 1) {
			cut = from + chain_cut(t + from, n - from);
			w = frame_words_phase(t + from, cut - from,
					      printed_newest_first(t + from, cut - from));
		}
		*rank = w == OOM_PHASE_UNKNOWN ? MEMFAIL_RANK_NONE : MEMFAIL_RANK_WORDS;
		*flags = w == OOM_PHASE_UNKNOWN ? 0u : PM_WORDS;
		return w;
	}
	*rank = LEVEL_TOP - best_level;
	*flags = phase_marks[memfail_hint_row[best]].flags;
	if ((*flags & PM_GENERIC) && phase_marks[memfail_hint_row[best]].phase == OOM_PHASE_SERVING)
		return library_inference(t, n);
	return phase_marks[memfail_hint_row[best]].phase;
}

enum oom_phase memfail_phase_pick(enum oom_phase held, enum oom_phase named)
{
	if (held == OOM_PHASE_UNKNOWN || (held == OOM_PHASE_STARTUP && named != OOM_PHASE_UNKNOWN))
		return named;
	return held;
}

enum oom_phase memfail_phase_hint_ranked(const char *text, size_t n, int *rank)
{
	struct phrases_found found;

	unsigned flags;

	memfail_set_scan(text, n, &found);
	return memfail_frames_phase(text, n, &found, rank, &flags);
}

enum oom_phase memfail_phase_hint(const char *text, size_t n)
{
	int rank;

	return memfail_phase_hint_ranked(text, n, &rank);
}

/* 1 when the request phrase p (an access-log row's '"POST ') stands in
 * l[0..n) after a URL's authority ("https://host:443 \"POST /api/...
 * HTTP/1.1\" 200 2"): that is a client's request sent out, not one the
 * program served. urllib3 logs every request it sends in that form at
 * DEBUG (urllib3/src/urllib3/connectionpool.py@2.2.0 _make_request:
 * log.debug('%s://%s:%s "%s %s %s" %s %s', scheme, host, port, method,
 * url, version, status, length); 1.26.x the same), so a training run
 * whose logging is at DEBUG and whose wandb or sentry client posts its
 * metrics prints one beside each upload (set 14, a recommender's
 * training run). A server's own access line names the peer's address
 * ("10.0.0.7:51234 - \"POST"), never a scheme. */
static int client_request(const char *l, size_t n, const char *p)
{
	const char *at = mem_find(l, n, p), *w;

	if (!at || at == l || at[-1] != ' ')
		return 0;
	for (w = at - 1; w > l && w[-1] != ' '; w--)
		;
	return mem_find(w, (size_t)(at - w), "://") != NULL;
}

/* 1 when the access-log row p found in l[0..n) posts to a route that
 * answers no inference: Ollama's GIN line '[GIN] ... | 200 | ... | POST
 * "/api/show"' (the CLI's `ollama run` shows the model before it
 * generates; /api/pull, /api/create ... likewise, server/routes.go).
 * Such a 200 serves no model, so it marks no serving phase: a load
 * refused after it is still a load (set 18, w-spend18d: Ollama 0.9.0
 * in Docker, "model requires more system memory" after /api/show). */
static int admin_request(const char *l, size_t n, const char *p)
{
	const char *at = mem_find(l, n, p);
	size_t k = strlen(p);

	return at && srv_answer_admin_route(at + k, n - (size_t)(at - l) - k);
}

/* The index in memfail_line_row of the first line row found in l[0..n) that
 * holds there (a PM_TQDM row only where its phrase opens a bar or an
 * epoch's header line, memfail_bar.c; an
 * access-log row not where the line is a client's request, client_request),
 * or -1. */
int memfail_first_line(const char *l, size_t n, const struct phrases_found *found)
{
	int i = memfail_set_first_of(found, T_PHASE_LINE), at = memfail_set_table_at(T_PHASE_LINE), next;

	while (i >= 0 && (((phase_marks[memfail_line_row[i]].flags & PM_TQDM) &&
			   !memfail_opens_bar(l, n, phase_marks[memfail_line_row[i]].phrase) &&
			   !memfail_epoch_header(l, n, phase_marks[memfail_line_row[i]].phrase)) ||
			  (phase_marks[memfail_line_row[i]].phrase[0] == '"' &&
			   phase_marks[memfail_line_row[i]].phase == OOM_PHASE_SERVING &&
			   client_request(l, n, phase_marks[memfail_line_row[i]].phrase)) ||
			  (phase_marks[memfail_line_row[i]].phase == OOM_PHASE_SERVING &&
			   !strcmp(phase_marks[memfail_line_row[i]].phrase, "| POST ") &&
			   admin_request(l, n, phase_marks[memfail_line_row[i]].phrase)))) {
		next = phrases_first(found, at + i + 1, memfail_set_table_at(T_PHASE_LINE + 1));
		i = next < 0 ? -1 : next - at;
	}
	return i;
}

enum oom_phase memfail_phase_line_app(const char *line, size_t n, unsigned *flags,
				      const char **app)
{
	struct phrases_found found;
	int i;

	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	memfail_set_scan(line, n, &found);
	i = memfail_first_line(line, n, &found);
	*flags = i >= 0 ? phase_marks[memfail_line_row[i]].flags : 0u;
	*app = i >= 0 ? phase_marks[memfail_line_row[i]].engine : NULL;
	return i < 0 ? OOM_PHASE_UNKNOWN : phase_marks[memfail_line_row[i]].phase;
}

enum oom_phase memfail_phase_line_flags(const char *line, size_t n, unsigned *flags)
{
	const char *app;

	return memfail_phase_line_app(line, n, flags, &app);
}

enum oom_phase memfail_phase_line(const char *line, size_t n)
{
	unsigned flags;

	return memfail_phase_line_flags(line, n, &flags);
}

/* 1 when line l[0..n) is TensorFlow's name of the op that failed (it
 * starts, after blanks, with "[[") and phrase starts a name scope there:
 * after '/', '[', '{' or a blank (PM_TFNODE, phase_table.h), or in the
 * names the op's line gives beside its own: its colocation class
 * ("_class=[\"loc:@gradients/...\"]") and its inputs ("(a, b)"), which
 * name ops of the same graph (tensorflow/core/graph/graph.cc, NodeDef's
 * SummarizeNode@v1.12.0): a forward op colocated with or fed by a
 * gradient op runs in a graph that holds a backward pass, a training
 * step's (set 17 spent, w-spend17b). */
static int tf_node_scope(const char *l, size_t n, const char *phrase)
{
	const char *end = l + n, *p = l;
	char c;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 2 || p[0] != '[' || p[1] != '[')
		return 0;
	while ((p = mem_find(p, (size_t)(end - p), phrase))) {
		c = p[-1];      /* the line starts with "[[": p > l */
		if (c == '/' || c == '[' || c == '{' || c == ' ' || c == '@' || c == '(' ||
		    c == ',')
			return 1;
		p++;
	}
	return 0;
}

/* The phase of the first PM_AFTER row found in l[0..n) that holds there
 * (a PM_TQDM row only where its phrase opens a bar, a PM_TFNODE row only
 * on a TensorFlow op's name, as a scope of it), or unknown. */
enum oom_phase memfail_after_phase(const char *l, size_t n, const struct phrases_found *found)
{
	size_t i;

	for (i = 0; i < memfail_afters_n; i++) {
		const struct phase_mark *m = &phase_marks[memfail_after_row[i]];
		if (memfail_set_has(found, T_AFTER, (int)i) &&
		    (!(m->flags & PM_TQDM) || memfail_opens_bar(l, n, m->phrase)) &&
		    (!(m->flags & PM_TFNODE) || tf_node_scope(l, n, m->phrase)))
			return m->phase;
	}
	return OOM_PHASE_UNKNOWN;
}

enum oom_phase memfail_phase_after(const char *line, size_t n)
{
	struct phrases_found found;

	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	memfail_set_scan(line, n, &found);
	return memfail_after_phase(line, n, &found);
}
