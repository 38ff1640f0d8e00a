/*
 * server_sniff.c -- whether a file's head is an inference server's log
 * (server_log_sniff): engine lines of any engine, a serving stack's
 * traceback or memory failure, tables of engine figures, a traceback
 * pasted inside prose; never oomlens' own reports, which quote engine
 * lines but are not evidence. The parser itself is server_log.c.
 */
#include "parsers/serving/server_log.h"
#include "parsers/serving/engine_lines.h"
#include "parsers/serving/memfail.h"
#include "parsers/serving/server_memfail.h"
#include "parsers/common/seriesutil.h"

#include <ctype.h>
#include <string.h>

/* 1 when the head is one of oomlens' own reports (JSON, HTML), which
 * quote engine lines but are never evidence. */
static int own_report(const char *h, size_t n)
{
	size_t k = n < 512 ? n : 512;

	return (k && h[0] == '{' && mem_find(h, k, "\"oomlens\":")) ||
	       (n >= 15 && !memcmp(h, "<!DOCTYPE html>", 15) && mem_find(h, n, "oomlens"));
}

/* 1 when the line l[0..n) is a reStructuredText directive (".. note::",
 * ".. code-block:: text"), alone or as a unified diff's added, removed or
 * context line: Sphinx documentation, which quotes failures to explain
 * them and is never a program's log (docutils' directive syntax: "..",
 * a space, a name, "::"). */
static int rst_directive(const char *l, size_t n)
{
	size_t i = 0, k;

	if (i < n && (l[i] == '+' || l[i] == '-'))
		i++;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (n - i < 6 || memcmp(l + i, ".. ", 3))
		return 0;
	for (k = i + 3; k < n && (isalnum((unsigned char)l[k]) || l[k] == '-' || l[k] == '_'); k++)
		;
	return k > i + 3 && k + 1 < n && l[k] == ':' && l[k + 1] == ':';
}

/* 1 when the head is documentation (a reStructuredText directive on a
 * line of its own, or in a diff of such a page): what it says of memory
 * failures is prose about them, so it is not a server log. */
static int documentation(const char *h, size_t n)
{
	const char *p = h, *end = h + n, *nl;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl - p >= 6 && memchr(p, '.', (size_t)(nl - p)) && rst_directive(p, (size_t)(nl - p)))
			return 1;
	}
	return 0;
}

/* 1 when the head is a table of tab-separated values (a manifest, a
 * spreadsheet export): its cells may quote engine lines, it is not one. */
static int tabular(const char *h, size_t n)
{
	const char *p = h, *end = h + n, *nl;
	int lines = 0, rows = 0, tabs;

	for (; p < end && lines < 32; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl == p)
			continue;
		for (tabs = 0; p < nl; p++)
			tabs += *p == '\t';
		lines++;
		rows += tabs >= 3;
	}
	return lines && rows * 5 >= lines * 4;
}

/* The multi-process tags and headers only the engines write ("(EngineCore_DP0
 * pid=7) ", "[TensorRT-LLM][INFO] ", Triton's "model_lifecycle.cc:473] ")
 * at line[0..n), where a log puts them: at the start, or after a time, a
 * space, a bracket or a progress bar. */
static int engine_header(const char *line, size_t n)
{
	static const char *const tags[] = { "(VllmWorkerProcess pid=", "(VllmWorker ",
		"(EngineCore", "(APIServer pid=", "(Worker_TP", "(Worker pid=", "[TensorRT-LLM]",
		"model_lifecycle.cc:", NULL };
	const char *p;
	int i;

	for (i = 0; tags[i]; i++)
		if ((p = mem_find(line, n, tags[i])) &&
		    (p == line || p[-1] == ' ' || p[-1] == ']' || p[-1] == ')' || p[-1] == ':'))
			return 1;
	return 0;
}

/* Whether line[0..n) holds a line of llama.cpp's HTTP server as its
 * logging macros print it (SLT_*, SRV_*, QUE_* in examples/server/
 * utils.hpp@61e588a, tools/server/server-common.h, server-context.cpp
 * @fb40266): "slot " or "srv  " or "que  ", the calling function's name
 * right-aligned in a field of 12 (llamafile's copy: 25) and cut to it,
 * ": ", and for a slot "id %2d | task %d | " ("slot launch_slot_: id  0
 * | task 12 | processing task", "srv  log_server_r: request: POST ...").
 * The tag starts the line or follows a space or a bracket (a journal,
 * a "[pid] " or "16.15.162.661 I " prefix). A shape, not a wording: it
 * holds whatever the request lines say. */
static int llama_server_line(const char *line, size_t n)
{
	static const char *const tags[] = { "slot ", "srv  ", "que  " };
	static const size_t widths[] = { 12, 25 };
	size_t t, w, i, at;
	const char *p;

	for (t = 0; t < 3; t++) {
		if (!(p = mem_find(line, n, tags[t])))
			continue;
		at = (size_t)(p - line);
		if (at && p[-1] != ' ' && p[-1] != ']' && p[-1] != '\t')
			continue;
		for (w = 0; w < 2; w++) {
			size_t f = at + 5, e = f + widths[w];

			if (e + 2 > n || line[e] != ':' || line[e + 1] != ' ')
				continue;
			for (i = f; i < e && line[i] == ' '; i++)
				;
			if (i == e)
				continue;
			for (; i < e && (isalnum((unsigned char)line[i]) || line[i] == '_'); i++)
				;
			if (i < e)
				continue;
			if (t != 0 || (e + 5 < n && !memcmp(line + e, ": id ", 5)))
				return 1;
		}
	}
	return 0;
}

/* Whether line[0..n) is one of llama.cpp's model-load lines: the loader's
 * functions print "<function>: " first (LLAMA_LOG_INFO("%s: ...",
 * __func__): llama.cpp@b1937 llama.cpp llama_model_loader,
 * llm_load_print_meta, llm_load_tensors, llama_new_context_with_model,
 * llama_kv_cache_init; src/llama-model.cpp and src/llama-context.cpp
 * @b4500 print_info, load_tensors, llama_context), at the line's start or
 * after a prefix (a time, "[pid] ", a compose service's "| "). Ollama's
 * runner prints the same lines. */
static int llama_load_line(const char *line, size_t n)
{
	static const char *const tags[] = { "llama_model_loader: ", "llm_load_print_meta: ",
		"llm_load_tensors: ", "llama_new_context_with_model: ", "llama_kv_cache_init: ",
		"print_info: ", "load_tensors: ", "llama_context: ", NULL };
	const char *p;
	int i;

	for (i = 0; tags[i]; i++)
		if ((p = mem_find(line, n, tags[i])) && (p == line || p[-1] == ' ' || p[-1] == ']'))
			return 1;
	return 0;
}

/* Whether the span s[0..n) opens with a Rust error value as its Debug
 * formatter prints it: a type or variant whose name ends in "Error", then
 * its fields in parentheses ("DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out
 * of memory\")": cudarc's DriverError, which candle and mistral.rs wrap;
 * mistral.rs' pipeline panics with "Model failed with error `{e}`",
 * mistralrs-core/src/pipeline/mistral.rs and its siblings, 2024-2025),
 * possibly inside the variants that carry it ("Cuda(DriverError(...))"). */
static int rust_error_value(const char *s, size_t n)
{
	const char *p = mem_find(s, n, "Error(");
	size_t i;

	if (!p || p == s)
		return 0;
	for (i = 0; s + i < p; i++)   /* identifiers and '(' up to it */
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '(' || s[i] == ':'))
			return 0;
	return isalnum((unsigned char)p[-1]) != 0;
}

/* Whether the inline code span opening at line[k] (a backtick) holds a
 * raised exception as a program printed it: its class and message
 * ("RuntimeError: [metal::malloc] ...", "...Exception: ..."), or a Rust
 * error's value (rust_error_value), which a note pastes, not names. */
static int pasted_exception(const char *line, size_t n, size_t k)
{
	const char *end = memchr(line + k + 1, '`', n - k - 1);
	size_t span = end ? (size_t)(end - line) - k - 1 : n - k - 1;

	return mem_find(line + k + 1, span, "Error: ") || mem_find(line + k + 1, span, "Exception: ") ||
	       rust_error_value(line + k + 1, span);
}

/* A line of prose as a note writes it, into out (cap bytes), to be
 * judged: 0 when it is a Markdown list item or heading (a note about
 * logs, not a log); else 1, with the inline code spans that open after
 * the line's first word blanked (the wording a note quotes; a paste in
 * backticks opens with them), unless a span holds a raised exception's
 * class and message (the error itself, pasted mid-sentence). */
static int not_prose(const char *line, size_t n, char *out, size_t cap, size_t *on)
{
	size_t i = 0, k;
	int in_code = 0, blank = 0;

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i + 1 < n && strchr("*-+#", line[i]) && (line[i + 1] == ' ' || line[i + 1] == '#'))
		return 0;
	for (k = 0; k < n && k < cap; k++) {
		if (line[k] == '`' && k > i) {
			in_code = !in_code;
			blank = in_code && !pasted_exception(line, n, k);
			out[k] = ' ';
			continue;
		}
		out[k] = in_code && blank ? ' ' : line[k];
	}
	*on = k;
	return 1;
}

/* 70 when the head's lines are an engine's: one holds an engine's own
 * phrase and says something with it (a figure, a statistic, an error; a
 * paste quoting the wording without its figures is not enough), or two
 * carry an engine's header or are llama.cpp's own (llama_server_line,
 * llama_load_line); else 0. Lines of prose do not count. */
static int engine_lines_in(const char *h, size_t n)
{
	const char *p = h, *end = h + n, *nl;
	struct engine_line el;
	struct memfail mf;
	char text[4096];
	size_t tn;
	int headers = 0, table = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!not_prose(p, (size_t)(nl - p), text, sizeof(text), &tn))
			continue;
		/* a row of llama.cpp's memory breakdown under its header */
		if (table && engine_line_ggml_row(text, tn, &el))
			return 70;
		table = 0;
		if (engine_line_strong(text, tn)) {
			if (engine_line(text, tn, &el) &&
			    (el.nfacts || el.stats_set || el.error || el.preempted))
				return 70;
			table = el.ggml_table;
		}
		if ((engine_header(text, tn) || llama_server_line(text, tn) ||
		     llama_load_line(text, tn)) && ++headers == 2)
			return 70;
		if (memfail_line(text, tn, &mf))   /* any stack's memory failure */
			return 70;
	}
	return 0;
}

/* What marks a server log in its head, with the score it gives: the
 * engines' own phrases, PyTorch's OOM message, a Python traceback or a
 * C++ abort. */
static const struct { const char *text; int score; } markers[] = {
	{ "Avg prompt throughput: ", 80 }, { "text_generation_launcher", 80 },
	{ "text_generation_router", 80 }, { "vLLM API server version", 80 },
	{ "LLM engine (v", 80 },
	{ "CUDA out of memory. Tried to allocate", 75 },
	{ "OutOfMemoryError: CUDA out of memory.", 75 },
	{ "would exceed allowed memory. (out of memory)", 75 },
	{ "Traceback (most recent call last):", 60 },
	{ "terminate called after throwing an instance of '", 60 },
	{ ":see_memory_usage] ", 70 },   /* DeepSpeed (server_deepspeed.h) */
	/* a training loop's logged steps (server_progress.h): the HF
	 * Trainer's log dict, DeepSpeed's step line */
	{ "'learning_rate': ", 60 }, { ", skipped=", 60 },
	/* set 9 spent (w-spent9b): the step line of PyTorch's ImageNet
	 * example and the scripts built on it (pytorch/examples
	 * imagenet/main.py train(): ProgressMeter(len(train_loader), ...,
	 * prefix="Epoch: [{}]"), printing "Epoch: [0][ 415/1736]"; before
	 * 2020 'Epoch: [{0}][{1}/{2}]\t', kept by CGCNN's main.py), the
	 * progress server_progress.c reads and phase_rows_generic.inc's
	 * "Epoch: [" row places */
	{ "Epoch: [", 60 },
	/* ComfyUI's error report (Comfy-Org/ComfyUI_frontend's generated
	 * "# ComfyUI Error Report", "- **Exception Type:** ..." bullets, the
	 * node's traceback): a Python program's exception, as a traceback is */
	{ "# ComfyUI Error Report", 60 },
	/* round 7 (w-worldf): the same report's exception bullet
	 * ("- **Exception Type:** torch.OutOfMemoryError", the frontend's
	 * errorReportUtil template) when a browser translated the page: the
	 * heading and the label change language, the bold label's colon and
	 * the class name stay (ComfyUI #8465: "- **Tipo de exceção:**
	 * torch.OutOfMemoryError") */
	{ ":** torch.OutOfMemoryError", 60 },
	/* set 8 spent (w-spent8s): start-up lines of engines oomlens
	 * knows, printed once as each starts, so that a start-up log pasted
	 * apart from its failure is read and places it: KoboldCpp's banner
	 * (koboldcpp.py __main__, 1.10 to 1.11x: "Welcome to KoboldCpp -
	 * Version N"), Aphrodite's engine, a vLLM fork (aphrodite/engine/
	 * aphrodite_engine.py: "Initializing the Aphrodite Engine with the
	 * following config:", from 0.5 "(vX) with the following config:"),
	 * and the quantization warning of vLLM's ModelConfig that the forks
	 * keep (vllm/config.py _verify_quantization, 0.2-0.6: "<method>
	 * quantization is not fully optimized yet. The speed can be slower
	 * than non-quantized models.") */
	{ "Welcome to KoboldCpp - Version", 70 },
	{ "Initializing the Aphrodite Engine", 70 },
	{ "quantization is not fully optimized yet. The speed", 70 },
	/* set 10 spent (w-spent10b): Keras's progress bar, the console of
	 * every model.fit at verbose 1 (keras/utils/generic_utils.py@v2.11.0
	 * Progbar.update: "N/M [====>...] - ETA: 2:01 - loss: X" while an
	 * epoch runs, " - 130s 8s/step - loss: X" when it ends; Keras 3
	 * keras/src/utils/progbar.py: "... 0s 50ms/step - loss: X"): a
	 * training log pasted apart from the kill notice that ended it */
	{ "/step - loss: ", 60 },
	{ "] - ETA: ", 60 },
	/* set 11 spent (w-spent11b): tinygrad's training examples' step
	 * line (examples/hlb_cifar10.py, examples/mlperf/model_train.py:
	 * "781   83.19 ms run,    3.17 ms python,   80.01 ms CL,  570.95
	 * loss, ..."), pasted apart from the failure that ended the loop;
	 * phase_rows_training.inc places it */
	{ " ms CL, ", 60 },
	/* set 12 spent (w-spend12d): transformers' TranslationPipeline's
	 * warning on a long input (pipelines/text2text_generation.py@v4.35.0
	 * check_inputs), printed throughout a translation pass pasted apart
	 * from its failure; phase_rows_frameworks.inc places it */
	{ "increasing your max_length manually, e.g. translator(", 60 },
	/* set 15 spent (w-spend15d): TensorFlow 1.x training scripts' step
	 * line ("step N, loss = X (N examples/sec; N sec/batch)",
	 * tensorflow/models@b76bc7c tutorials/image/cifar10/cifar10_train.py),
	 * pasted apart from the failure; phase_rows_training.inc places it */
	{ " examples/sec; ", 60 },
};

/* 1 when the head holds a statement typed at Python's interactive prompt
 * (">>> ", srv_mem_repl_statement) that calls what the phase table names
 * (">>> Model.from_pretrained(device='cpu')"): a program's session
 * pasted whole, whose last such call is a stage the reader places a
 * failure by (set 15 spent, w-spend15c: a model's load killed by the
 * kernel, the kill in the next paste). */
static int repl_session(const char *h, size_t n)
{
	const char *p = h, *end = h + n, *nl;
	enum oom_phase ph;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!srv_mem_repl_statement(p, (size_t)(nl - p)))
			continue;
		ph = memfail_phase_hint(p, (size_t)(nl - p));
		if (ph >= OOM_PHASE_LOAD_WEIGHTS && ph <= OOM_PHASE_EVAL)
			return 1;
	}
	return 0;
}

int server_log_not_a_log(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	return own_report(h, n) || tabular(h, n) || documentation(h, n);
}

int server_log_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	int best = 0;
	size_t i;

	if (own_report(h, n) || tabular(h, n) || documentation(h, n))
		return 0;
	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (markers[i].score > best && mem_find(h, n, markers[i].text))
			best = markers[i].score;
	if (best < 70)
		best = engine_lines_in(h, n) > best ? 70 : best;
	if (best < 60 && repl_session(h, n))
		best = 60;
	return best;
}
