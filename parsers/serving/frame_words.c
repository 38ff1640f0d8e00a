/*
 * frame_words.c -- the lowest tier of a traceback's phase: what the names
 * of the program's own frames say. phase_table.c names the functions of
 * the engines and frameworks one row each; a research script, an eval
 * loop or an app's loader has names no row holds, yet they say what the
 * program was doing (train_one_epoch, evaluate, generate_with_callback,
 * load_model) and so does the call on a frame's source line
 * (loss.backward(), trainer.train(), model.generate(...)). This file
 * reads those words, and only where no row of the table placed the
 * failure (memfail_phase.c memfail_frames_phase): an explicit row always
 * wins, and a phase placed here is marked PM_WORDS so the event says
 * "placed by the frame names" (phase_by "frame_names").
 *
 * Learnt from the real tracebacks of tests/data/real/any_stack and
 * tests/data/incoming/any_stack (round 13, w-framewords): of the program
 * frames (paths outside site-packages/dist-packages), the words of the
 * function names, counted in the rows whose thread names the phase:
 *   train        training_step 15, eval 3 (an evaluate() inside train():
 *                the inner frame decides)
 *   evaluate     eval 4; eval 2; val, validate eval 1 each; test eval 1,
 *                training_step 1
 *   predict      eval 1, serving 1; infer eval 1; transcribe serving 1,
 *                load_weights 1 (faster-whisper's model built inside
 *                its transcribe command: phase_table's PM_CTOR row);
 *                fit eval 1 (CARN's evaluate() called from fit(): the
 *                inner frame decides). So few rows: the words follow
 *                the engines' and frameworks' own (Keras fit/evaluate/
 *                predict, transformers' generate, whisper's transcribe).
 *   generate     serving 2, kv_alloc 1 (a first request's lazy cache);
 *   decode       serving 3, eval 1 -- not made a word: a model's own
 *                piece as often (embedder.decode, a VAE's decode)
 *   sample       serving 2, eval 1 (eval loops run inference: an
 *                outer eval frame decides)
 *   load         load_weights 4, kv_alloc 1
 *   step         training_step 2, serving 4, eval 1 -- says nothing
 *                alone (vLLM's _execute_model_single_step), training
 *                only beside optimizer ("optimizer_step")
 *   forward, run, main, process, loop, call, module, init: every
 *                phase -- none of them is a word here.
 * And the rows whose program frames' source lines hold the word
 * (anywhere on the line, same sets): backward training_step 8; train
 * training_step 20, eval 6 (an eval called from the training loop, a
 * train=... flag passed in an eval: only what a line runs or assigns
 * is read, see line_says); generate serving 4, kv_alloc 1; evaluate
 * eval 5; val eval 6 ("val_target_cpu.float().cuda(", LightNet++'s
 * "val_loss = loss_fn(...)" inside train()); from_pretrained
 * load_weights 2; load load_weights 4, kv_alloc 2; predict eval 1,
 * serving 1. A frame's line says what it was running, so it decides
 * for its frame before the frame's name.
 *
 * A program frame "__init__" whose caller's source line names a model
 * or assigns one ("model = Net(cfg)", "self.net = Generator(...)") is
 * the model's load: the layers are made there.
 *
 * A name is split into words at '_', at non-alphanumerics and at camel
 * case (generateWithCallback). Words that go with data, not weights
 * (load_dataset, load_image, load_audio) cancel "load"; a name that
 * says two things (train_and_evaluate) says nothing.
 */
#include "parsers/serving/frame_words.h"
#include "parsers/common/seriesutil.h"
#include "lib/strci.h"

#include <string.h>

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* what a word says */
enum {
	W_TRAIN = 1, W_EVAL = 2, W_SERVE = 4, W_LOAD = 8,  /* phases */
	W_STEP = 16, W_OPTIM = 32, W_FINE = 64, W_TUNE = 128,
	W_MODEL = 256, W_BUILD = 512, W_WEIGHTS = 1024, W_DATA = 2048,
	W_ESTIMATE = 4096, W_LOSS = 8192,
};

static const struct {
	const char *word;
	unsigned says;
} words[] = {
	/* training: Keras's fit, PyTorch's backward, SB3's learn */
	{ "train", W_TRAIN }, { "training", W_TRAIN }, { "fit", W_TRAIN },
	{ "backward", W_TRAIN }, { "finetune", W_TRAIN }, { "finetuning", W_TRAIN },
	{ "learn", W_TRAIN },
	{ "step", W_STEP }, { "optimizer", W_OPTIM }, { "optim", W_OPTIM },
	{ "fine", W_FINE }, { "tune", W_TUNE },
	/* evaluation */
	{ "eval", W_EVAL }, { "evaluate", W_EVAL }, { "evaluation", W_EVAL },
	{ "evaluator", W_EVAL }, { "validate", W_EVAL }, { "validation", W_EVAL },
	{ "val", W_EVAL }, { "test", W_EVAL }, { "testing", W_EVAL },
	/* nanoGPT's evaluation: "@torch.no_grad() def estimate_loss():"
	 * runs model.eval() over eval_iters batches of each split
	 * (karpathy/nanoGPT train.py@master, and its many forks) */
	{ "estimate", W_ESTIMATE }, { "loss", W_LOSS },
	/* inference */
	{ "generate", W_SERVE }, { "generation", W_SERVE }, { "infer", W_SERVE },
	{ "inference", W_SERVE }, { "predict", W_SERVE }, { "prediction", W_SERVE },
	{ "transcribe", W_SERVE }, { "transcription", W_SERVE }, { "chat", W_SERVE },
	{ "complete", W_SERVE }, { "completion", W_SERVE }, { "sample", W_SERVE },
	{ "sampling", W_SERVE }, { "translate", W_SERVE },
	/* not "decode": a model's own piece as often (big_vision's
	 * embedder.decode, a VAE's decode inside a training step) */
	/* a model's load */
	{ "load", W_LOAD }, { "loading", W_LOAD }, { "pretrained", W_LOAD },
	{ "restore", W_LOAD },
	{ "model", W_MODEL }, { "net", W_MODEL }, { "network", W_MODEL },
	{ "weights", W_WEIGHTS },
	{ "build", W_BUILD }, { "create", W_BUILD }, { "init", W_BUILD },
	{ "setup", W_BUILD }, { "make", W_BUILD }, { "prepare", W_BUILD },
	{ "get", W_BUILD },
	/* what a load of data, not of weights, names */
	{ "data", W_DATA }, { "dataset", W_DATA }, { "datasets", W_DATA },
	{ "dataloader", W_DATA }, { "image", W_DATA }, { "images", W_DATA },
	{ "img", W_DATA }, { "audio", W_DATA }, { "video", W_DATA },
	{ "batch", W_DATA }, { "csv", W_DATA }, { "json", W_DATA },
	{ "text", W_DATA }, { "tokenizer", W_DATA }, { "config", W_DATA },
	{ "cfg", W_DATA }, { "args", W_DATA },
};

/* Path pieces of frames that are not the program's own: installed
 * packages, the interpreter's library, and the packages of the engines
 * and frameworks that phase_table.c already weighs (run from a source
 * checkout, outside site-packages). Each is matched with '/' or '\\'
 * around it where it names a folder. */
static const char *const library_paths[] = {
	"site-packages", "dist-packages", "<frozen", "<string>",
};
static const char *const library_dirs[] = {
	"lib/python", "Lib", "torch", "vllm", "sglang", "transformers", "tensorrt_llm",
	"deepspeed", "accelerate", "lightning", "pytorch_lightning", "keras", "tensorflow",
	"jax", "flax", "ray", "diffusers", "peft", "trl", "lmdeploy", "mlx", "mlx_lm",
	"numpy", "xformers", "triton",
};

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static int is_lower(char c) { return c >= 'a' && c <= 'z'; }

/* What the word w[0..n) says (0: nothing). */
static unsigned word_says(const char *w, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_N(words); i++)
		if (mem_is_ci(w, n, words[i].word))
			return words[i].says;
	return 0;
}

/* The words of name s[0..n), their bits ORed: split at non-alphanumerics
 * and at camel case ("generateWithCallback", "HTTPServer"). */
static unsigned name_words(const char *s, size_t n)
{
	unsigned says = 0;
	size_t i = 0, start, prev = 0;

	while (i < n) {
		while (i < n && !is_alnum(s[i]))
			i++;
		start = i;
		while (i < n && is_alnum(s[i])) {
			i++;
			if (i < n && is_upper(s[i]) &&
			    (is_lower(s[i - 1]) || (i + 1 < n && is_lower(s[i + 1]) && is_upper(s[i - 1]))))
				break;
		}
		if (i == start)
			continue;
		/* "val" closing a name after a word is its value (mean_loss_val,
		 * max_val, ret_val: TF1's "_, loss_val = sess.run([optimizer,
		 * loss])" training loops); opening one, or after a split's one
		 * letter (val_loss, val_loader, x_val, y_val), the validation */
		if (!(i - start == 3 && i == n && prev > 1 && !memcmp(s + start, "val", 3)))
			says |= word_says(s + start, i - start);
		prev = i - start;
	}
	return says;
}

/* The phase bits (W_TRAIN..W_LOAD) that word bits w make. */
static unsigned phases_of(unsigned w)
{
	unsigned p = w & (W_TRAIN | W_EVAL | W_SERVE);

	if ((w & W_STEP) && (w & W_OPTIM))
		p |= W_TRAIN;
	if ((w & W_FINE) && (w & W_TUNE))
		p |= W_TRAIN;
	if ((w & W_ESTIMATE) && (w & W_LOSS))
		p |= W_EVAL;
	if (!(w & W_DATA) && ((w & W_LOAD) || ((w & W_BUILD) && (w & (W_MODEL | W_WEIGHTS)))))
		p |= W_LOAD;
	return p;
}

/* The one phase bit phase bits p say, 0 when none or two: an evaluation
 * runs inference (evaluate_generation is eval). */
static unsigned one_phase(unsigned p)
{
	if ((p & W_EVAL) && (p & W_SERVE))
		p &= ~(unsigned)W_SERVE;
	return p && !(p & (p - 1)) ? p : 0;
}

/* The offset just past the string literal that opens at s[i] (its
 * quote), escapes skipped; n at most. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
	char quote = s[i++];

	while (i < n && s[i] != quote)
		i += s[i] == '\\' ? 2 : 1;
	return i < n ? i + 1 : n;
}

/* The end of the assignment targets of source line s[0..n): the offset
 * of its first '=' outside brackets and strings that is no comparison
 * ("a, b = f(x)", "total += x"), or 0 when none. */
static size_t targets_end(const char *s, size_t n)
{
	size_t i = 0;
	int depth = 0;
	while (i < n && s[i] != '#') {
		if (s[i] == '"' || s[i] == '\'') {
			i = skip_string(s, n, i);
			continue;
		}
		if (s[i] == '(' || s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ')' || s[i] == ']' || s[i] == '}') && depth > 0)
			depth--;
		else if (s[i] == '=' && depth == 0) {
			if (i + 1 < n && s[i + 1] == '=')
				return 0;
			if (i > 0 && (s[i - 1] == '!' || s[i - 1] == '<' || s[i - 1] == '>'))
				return 0;
			return i;
		}
		i++;
	}
	return 0;
}

/* What source line s[0..n) says (phase bits), *words_out all its words:
 * the identifiers that run something -- a call and the chain it is
 * called on ("loss.backward()", "trainer.train(", "torch.load(path)",
 * "val_target_cpu.float().cuda(") -- and the names it assigns
 * ("val_loss = loss_fn(...)"), one by one (load_dataset names data,
 * model = load_model(config) a load); "step" beside an optimizer
 * anywhere on the line ("optimizer.step()"). Arguments are not read:
 * a keyword's name or a flag passed on is a mode, not what runs
 * (big_vision's self._llm(x, train=train) inside an eval). String
 * literals and a trailing comment say nothing. */
static unsigned line_says(const char *s, size_t n, unsigned *words_out)
{
	unsigned p = 0, all = 0, w;
	size_t i = 0, b, e, tend = targets_end(s, n);

	while (i < n) {
		if (s[i] == '#')
			break;
		if (s[i] == '"' || s[i] == '\'') {
			i = skip_string(s, n, i);
			continue;
		}
		if (!is_alnum(s[i]) && s[i] != '_') {
			i++;
			continue;
		}
		for (b = i; i < n && (is_alnum(s[i]) || s[i] == '_'); i++)
			;
		for (e = i; e < n && s[e] == ' '; e++)
			;
		if (!(b < tend || (e < n && (s[e] == '(' || s[e] == '.'))))
			continue;
		w = name_words(s + b, i - b);
		all |= w;
		p |= phases_of(w);
	}
	*words_out = all;
	return p | phases_of(all & (W_STEP | W_OPTIM));
}

/* 1 when path p[0..n) is a library's, not the program's. */
static int library_path(const char *p, size_t n)
{
	size_t i, k, dl;

	for (i = 0; i < ARRAY_N(library_paths); i++)
		if (mem_find(p, n, library_paths[i]))
			return 1;
	for (i = 0; i < ARRAY_N(library_dirs); i++) {
		dl = strlen(library_dirs[i]);
		for (k = 1; k + dl < n; k++)
			if ((p[k - 1] == '/' || p[k - 1] == '\\') && !memcmp(p + k, library_dirs[i], dl) &&
			    (p[k + dl] == '/' || p[k + dl] == '\\'))
				return 1;
	}
	return 0;
}

/* A program frame: what its name and its source line's calls say. */
struct pframe {
	unsigned name, src;
	unsigned srcw;       /* its source line's words, every one */
	int ctor;            /* its name is __init__ */
	unsigned file;       /* what its file's name says (phase bits) */
	unsigned dir;        /* what its folders say (W_EVAL or 0) */
};

/* The folders that hold a program's evaluation code, each a package of
 * its own: detectron2/evaluation/ (evaluator.py inference_on_dataset,
 * detectron2@v0.6), mmdet/evaluation/ (metrics, mmdetection@v3.3.0),
 * rfdetr/evaluation/ (matching.py, roboflow/rf-detr@develop 2026),
 * lm_eval's evaluator. Their code runs once a model is built, over the
 * held-out data: a failure in them is the evaluation's. "test" and
 * "val" are left out: a tests/ folder is a test suite's. */
static const char *const eval_dirs[] = {
	"eval", "evaluation", "evaluations", "evaluator", "evaluators", "validation",
};

/* W_EVAL when a folder of path p[0..n) (its file name left out) is one
 * of eval_dirs, else 0. */
static unsigned dir_says(const char *p, size_t n)
{
	size_t b = 0, e, i, dl;

	for (e = 0; e < n; e++) {
		if (p[e] != '/' && p[e] != '\\')
			continue;
		for (i = 0; i < ARRAY_N(eval_dirs); i++) {
			dl = strlen(eval_dirs[i]);
			if (e - b == dl && !strncmp(p + b, eval_dirs[i], dl))
				return W_EVAL;
		}
		b = e + 1;
	}
	return 0;
}

/* What the file name of path p[0..n) says, its folders and ".py" left
 * out: a training script is most often named so (nanoGPT's train.py,
 * lerobot's scripts/train.py and the scripts copied from it,
 * "finetune.py", "eval.py"). Only the phases a loop runs: a file named
 * for a load ("load_model.py") holds helpers any phase calls. */
static unsigned file_says(const char *p, size_t n)
{
	size_t b = n, e = n;

	while (b > 0 && p[b - 1] != '/' && p[b - 1] != '\\')
		b--;
	if (e - b > 3 && !memcmp(p + e - 3, ".py", 3))
		e -= 3;
	return phases_of(name_words(p + b, e - b)) & (W_TRAIN | W_EVAL | W_SERVE);
}

/* The end of the line that starts at p (before end). */
static const char *eol(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));

	return e ? e : end;
}

/* Crates of a Rust backtrace's frames that are not the program's: the
 * language's runtime and the async and error plumbing any program runs
 * under. A frame "<alloc::vec::Vec<T> as ...>::from_iter" is alloc's. */
static const char *const rust_library_crates[] = {
	"std", "core", "alloc", "tokio", "rayon", "futures", "futures_util", "anyhow",
	"backtrace", "hyper", "tower", "axum",
};

/* The symbol of Rust backtrace frame line s[0..n) -- std's panic and
 * anyhow's or candle's Error::bt print "   N: crate::path::function"
 * (a number, ": ", the demangled symbol; its "at file:line" on the next
 * line), innermost first -- or NULL when the line is none; *sn its
 * length, *lib 1 when the frame is a library crate's. A symbol without
 * "::" (main, __libc_start_main) is no frame here. */
static const char *rust_frame(const char *s, size_t n, size_t *sn, int *lib)
{
	size_t i = 0, d, c, k, cl;
	const char *sym;

	while (i < n && s[i] == ' ')
		i++;
	for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == d || i - d > 4 || i + 2 >= n || s[i] != ':' || s[i + 1] != ' ')
		return NULL;
	sym = s + i + 2;
	*sn = n - i - 2;
	while (*sn && (sym[*sn - 1] == ' ' || sym[*sn - 1] == '\r'))
		(*sn)--;
	if (!*sn || !mem_find(sym, *sn, "::") || memchr(sym, '/', *sn) || memchr(sym, '\\', *sn) ||
	    !(is_alnum(sym[0]) || sym[0] == '_' || sym[0] == '<'))
		return NULL;
	c = sym[0] == '<';
	*lib = 0;
	for (k = 0; k < ARRAY_N(rust_library_crates) && !*lib; k++) {
		cl = strlen(rust_library_crates[k]);
		*lib = c + cl + 2 <= *sn && !memcmp(sym + c, rust_library_crates[k], cl) &&
		       sym[c + cl] == ':' && sym[c + cl + 1] == ':';
	}
	return sym;
}

int frame_words_rust_line(const char *s, size_t n)
{
	size_t sn;
	int lib;

	return rust_frame(s, n, &sn, &lib) != NULL;
}

/* The phase the Rust backtrace in t[0..n) names by its frames' words:
 * the innermost program frame whose path and function say one thing
 * (candle's MmapedSafetensors::load, a model's Falcon::load:
 * load_weights). Frames are printed innermost first. Learnt from
 * huggingface/candle #2631 (set 14 spent, w-spend14b): the falcon
 * example's CUDA_ERROR_OUT_OF_MEMORY through
 * candle_core::safetensors::MmapedSafetensors::load under
 * candle_transformers::models::falcon::Falcon::load. */
static enum oom_phase rust_words_phase(const char *t, size_t n)
{
	const char *end = t + n, *p = t, *le, *sym;
	size_t sn;
	int lib;

	for (; p < end; p = le < end ? le + 1 : end) {
		le = eol(p, end);
		if (!(sym = rust_frame(p, (size_t)(le - p), &sn, &lib)) || lib)
			continue;
		switch (one_phase(phases_of(name_words(sym, sn)))) {
		case W_TRAIN: return OOM_PHASE_TRAINING_STEP;
		case W_EVAL: return OOM_PHASE_EVAL;
		case W_SERVE: return OOM_PHASE_SERVING;
		case W_LOAD: return OOM_PHASE_LOAD_WEIGHTS;
		default: break;
		}
	}
	return OOM_PHASE_UNKNOWN;
}

enum oom_phase frame_words_phase(const char *t, size_t n, int reversed)
{
	static const char file[] = "File \"", in[] = ", in ";
	struct pframe fr[FRAME_WORDS_MAX];
	size_t nfr = 0, total = 0, i, k;
	const char *end = t + n, *p = t, *q, *path, *pe, *le, *nm, *ne, *s, *se;
	unsigned got = 0, outer;

	while (p < end && (q = mem_find(p, (size_t)(end - p), file))) {
		le = eol(q, end);
		p = le < end ? le + 1 : end;
		path = q + sizeof(file) - 1;
		if (!(pe = memchr(path, '"', (size_t)(le - path))) ||
		    !(nm = mem_find(pe, (size_t)(le - pe), in)))
			continue;
		if (library_path(path, (size_t)(pe - path)))
			continue;
		nm += sizeof(in) - 1;
		for (ne = nm; ne < le && *ne != ' ' && *ne != '\t' && *ne != '\r'; ne++)
			;
		i = total++ % FRAME_WORDS_MAX;
		fr[i].name = name_words(nm, (size_t)(ne - nm));
		fr[i].ctor = ne - nm == 8 && !memcmp(nm, "__init__", 8);
		fr[i].name = phases_of(fr[i].name);
		fr[i].file = file_says(path, (size_t)(pe - path));
		fr[i].dir = dir_says(path, (size_t)(pe - path));
		fr[i].src = fr[i].srcw = 0;
		/* its source line: the next line, unless another frame or the
		 * exception's message */
		if (le < end) {
			s = le + 1;
			se = eol(s, end);
			if (!mem_find(s, (size_t)(se - s), file) && !mem_find(s, (size_t)(se - s), "Error:") &&
			    !mem_find(s, (size_t)(se - s), "Exception:"))
				fr[i].src = line_says(s, (size_t)(se - s), &fr[i].srcw);
		}
	}
	if (total == 0)
		return rust_words_phase(t, n);
	nfr = total < FRAME_WORDS_MAX ? total : FRAME_WORDS_MAX;
	/* innermost first: the last printed, or the first when reversed */
	for (k = 0; k < nfr; k++) {
		size_t at = reversed ? (total - nfr + k) % FRAME_WORDS_MAX
				     : (total - 1 - k) % FRAME_WORDS_MAX;
		unsigned say = one_phase(fr[at].src) ? one_phase(fr[at].src) : one_phase(fr[at].name);
		/* a class's constructor that its caller's line builds as the
		 * model ("model = Net(cfg)", "self.net = Generator(...)"): the
		 * model's load (its layers made on the device) */
		if (!say && fr[at].ctor && k + 1 < nfr) {
			size_t up = reversed ? (total - nfr + k + 1) % FRAME_WORDS_MAX
					     : (total - 2 - k) % FRAME_WORDS_MAX;
			if ((fr[up].srcw & W_MODEL) && !one_phase(fr[up].src))
				say = W_LOAD;
		}
		if (!say)
			continue;
		if (!got) {
			got = say;
			if (got != W_SERVE)
				break;
			continue;
		}
		/* inference under an evaluation or a training loop is that
		 * loop's (a sampler inside evaluate(), generate() in train()).
		 * Weights loaded inside a generation loop stay a load: FlexGen's
		 * load_weight inside generation_loop_overlap_single_batch (an
		 * offloading run whose thread names a configuration that does
		 * not fit) reads as load_weights, and as serving lost its
		 * misconfiguration (incoming, round 13) */
		outer = got == W_SERVE ? say & (W_EVAL | W_TRAIN) : 0;
		if (outer) {
			got = outer;
			break;
		}
	}
	/* the lowest tier: no frame's name or line said anything, the
	 * innermost program file whose name says one phase does (set 14:
	 * nanoGPT's train.py <module> calling model(X, Y) at its training
	 * step; lerobot's train_groot_mgd.py main calling policy(batch)) --
	 * only where a module's forward was running (torch.nn.Module's
	 * __call__ frame: "in _call_impl", from 2.1 also "in
	 * _wrapped_call_impl", torch/nn/modules/module.py): a training
	 * script also loads its model, and a load runs no forward (a
	 * QLoRA script's from_pretrained -> quantize_4bit, tuning set) */
	for (k = 0; !got && k < nfr && mem_find(t, n, "in _call_impl"); k++) {
		size_t at = reversed ? (total - nfr + k) % FRAME_WORDS_MAX
				     : (total - 1 - k) % FRAME_WORDS_MAX;
		got = one_phase(fr[at].file);
	}
	/* below it, the innermost program frame whose folder is an
	 * evaluation package's (set 16 spent, w-spend16a: rf-detr's
	 * rfdetr/evaluation/matching.py _compute_mask_iou, run by the
	 * validation after an epoch; no function name there says so) */
	for (k = 0; !got && k < nfr; k++) {
		size_t at = reversed ? (total - nfr + k) % FRAME_WORDS_MAX
				     : (total - 1 - k) % FRAME_WORDS_MAX;
		got = fr[at].dir;
	}
	switch (got) {
	case W_TRAIN: return OOM_PHASE_TRAINING_STEP;
	case W_EVAL: return OOM_PHASE_EVAL;
	case W_SERVE: return OOM_PHASE_SERVING;
	case W_LOAD: return OOM_PHASE_LOAD_WEIGHTS;
	default: return OOM_PHASE_UNKNOWN;
	}
}
