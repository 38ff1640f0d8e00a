/*
 * server_memfail.c -- the phase of a server log's program and its
 * memory failures as mem_failure events; see server_memfail.h.
 */
#include "parsers/serving/server_memfail.h"
#include "parsers/serving/input_ops.h"
#include "parsers/serving/memfail_limit.h"
#include "parsers/serving/phase_table.h"
#include "parsers/serving/frame_words.h"
#include "parsers/common/seriesutil.h"
#include "parsers/torch/torch_oom_text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srv_mem_init(struct srv_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->phase = m->below = OOM_PHASE_UNKNOWN;
	m->stack = -1;
}

/* How many lines after the failure held (since its last repeat) its own
 * lines may still come: its echo, or the frames below it. IPython prints
 * the exception's name and "Traceback (most recent call last)" on one
 * line above the frames (IPython/core/ultratb.py, VerboseTB: each frame
 * with its context lines, the message last), so a failure read from that
 * header keeps its traceback's frames as a window of SRV_MEM_FRAMES. */
static uint64_t own_lines(const struct srv_mem *m)
{
	return m->header ? SRV_MEM_FRAMES : SRV_MEM_REPEAT;
}

void srv_mem_stack(struct srv_mem *m, const char *text, size_t n)
{
	int rank, st = memfail_stack_hint(text, n, &rank);

	/* DeepSpeed's inference engine is no training stack, whatever of
	 * DeepSpeed's files its frames also name */
	if (st == MEMFAIL_STACK_INFERENCE) {
		m->inference = 1;
		m->stack = -1;
		return;
	}
	if (st >= 0 && !m->inference && (m->stack < 0 || rank < m->stack_rank)) {
		m->stack = st;
		m->stack_rank = rank;
	}
}

void srv_mem_put_stack(const struct srv_mem *m, json_t *d)
{
	if (d && m->stack >= 0 && m->stack < VST__COUNT)
		json_object_set_new(d, "stack", json_string(vocab_stack((enum vocab_stack)m->stack)));
}

enum oom_phase srv_mem_phase(const struct srv_mem *m, enum oom_phase hint)
{
	if (m->served)
		return OOM_PHASE_SERVING;
	return memfail_phase_pick(hint, m->phase);
}

void srv_mem_served(struct srv_mem *m)
{
	m->served = 1;
	m->phase = OOM_PHASE_SERVING;
}

const char *srv_mem_phase_by(int served, enum oom_phase own, enum oom_phase logph,
			     enum oom_phase ph)
{
	if (ph == OOM_PHASE_UNKNOWN)
		return NULL;
	if (served && ph == OOM_PHASE_SERVING)
		return "request_served";
	if (own == ph)
		return "frames";
	if (logph == ph)
		return ph == OOM_PHASE_STARTUP ? "startup_lines" : "stage_line";
	return "frames";
}

int srv_mem_ran_past_load(int load_line, enum oom_phase ph)
{
	return load_line && (ph == OOM_PHASE_SERVING || ph == OOM_PHASE_TRAINING_STEP ||
			     ph == OOM_PHASE_EVAL);
}

/* 1 when the log's phase ph names no stage: unknown, or only that the
 * program was starting (a start-up line, phase_rows_startup.inc) */
static int no_stage(enum oom_phase ph)
{
	return ph == OOM_PHASE_UNKNOWN || ph == OOM_PHASE_STARTUP;
}

static json_t *bytes_or_null(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

json_t *srv_mem_data(const struct memfail *f, enum oom_phase ph)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:b, s:s, s:o, s:o, s:s}",
			 "family", memfail_family_name(f->family), "wording", f->wording,
			 "requested_bytes", bytes_or_null(f->requested_bytes),
			 "device", f->device >= 0 ? json_integer(f->device) : json_null(),
			 "host", f->host ? 1 : 0, "scope", vocab_scope(f->scope),
			 "total_bytes", bytes_or_null(f->total_bytes),
			 "free_bytes", bytes_or_null(f->free_bytes),
			 "phase", oom_phase_name(ph));
}

/* Write the failure held as a mem_failure event. 0 or -1. */
static int flush(struct srv_mem *m, struct sink *s)
{
	char summary[256], size[32] = "";
	struct ol_event e = { .kind = "mem_failure", .t = m->t, .pid = m->pid, .line = m->line,
			      .summary = summary };
	/* its own lines first, then the frames of the traceback it ends
	 * (printed above it: of a chain of exceptions the cause's, the
	 * innermost), then a traceback printed after it (THCudaCheck's),
	 * then the log's phase; a stage named by any of them wins over
	 * start-up alone (memfail_phase_pick) */
	enum oom_phase above = memfail_phase_pick(m->f.phase,
						  m->ctx_frame ? m->ctx : OOM_PHASE_UNKNOWN);
	enum oom_phase own = memfail_phase_pick(above, m->below);
	/* placed by the names of the program's own frames alone (the lowest
	 * tier, frame_words.h): a stage line of the log's wins over them */
	int words = own != above ? m->below_rank == MEMFAIL_RANK_WORDS
				 : above != m->f.phase && m->ctx_words;
	if (words && !m->ctx_frame && !no_stage(m->ctx) && !srv_mem_ran_past_load(m->ctx_load, own))
		own = m->f.phase;
	enum oom_phase ph = memfail_phase_pick(own, m->ctx);
	const char *by;

	/* a step several stages run (PM_INSIDE: ggml's graph reservation, a
	 * SYCL tensor upload) ran in the later stage the log's lines name
	 * (llama-server's projector warm-up after its context's profile; a
	 * decode's inputs once the lines say it serves) */
	if (m->f.phase_inside && own == m->f.phase && !m->ctx_frame &&
	    m->ctx > own && m->ctx >= OOM_PHASE_LOAD_WEIGHTS && m->ctx <= OOM_PHASE_SERVING &&
	    own >= OOM_PHASE_LOAD_WEIGHTS)
		ph = m->ctx;
	int64_t id;

	/* Metal fails only when a command buffer runs, inside llama_decode
	 * whether the program warms up or serves: the lines before it say
	 * which, the decode named after it says only that one ran */
	if (m->f.family == MF_METAL && m->ctx != OOM_PHASE_UNKNOWN)
		ph = m->ctx;
	by = srv_mem_phase_by(m->served, own, m->ctx_frame ? OOM_PHASE_UNKNOWN : m->ctx, ph);
	if (by && words && own == ph && !m->served)
		by = "frame_names";

	if (!m->held)
		return 0;
	m->held = 0;
	m->far = 0;
	/* kvcached's pool shortfall that no error followed: the engine went
	 * on (the scheduler waits for blocks), no failure (memfail_words.c) */
	if (m->f.family == MF_KVCACHED && !m->confirmed)
		return 0;
	e.bytes = m->f.requested_bytes >= 0 ? m->f.requested_bytes : OL_NULL;
	if (m->f.requested_bytes >= 0)
		snprintf(size, sizeof(size), " of %.1f MiB", (double)m->f.requested_bytes / 1048576.0);
	snprintf(summary, sizeof(summary), "%s memory failure%s (%s): %.*s",
		 memfail_family_name(m->f.family), size, oom_phase_name(ph),
		 (int)(m->text_n > 160 ? 160 : m->text_n), m->text);
	e.data = srv_mem_data(&m->f, ph);
	if (by)
		json_object_set_new(e.data, "phase_by", json_string(by));
	/* the program whose stage line placed it (its knobs, not another's) */
	if (by && !strcmp(by, "stage_line") && m->stage_app)
		json_object_set_new(e.data, "app", json_string(m->stage_app));
	/* the projector's warm-up line placed it: its graph, not the text
	 * model's, failed (phase_table.h PM_PROJECTOR) */
	if (m->ctx_projector && ph == m->ctx)
		json_object_set_new(e.data, "graph", json_string("projector"));
	srv_mem_put_stack(m, e.data);
	srv_mem_put_input_op(m, e.data, m->line, NULL);
	json_object_set_new(e.data, "text", ol_json_strn(m->text, m->text_n));
	memfail_put_figures(e.data, &m->f, m->text, m->text_n);
	json_object_set_new(e.data, "repeats", json_integer(m->repeats));
	id = sink_event(s, &e);
	json_decref(e.data);
	if (id < 0)
		return -1;
	m->records++;
	return 0;
}

/* 1 when f is the failure held told again (same family, device, size).
 * TensorFlow tells one failure twice on its way up: the BFC allocator's
 * "Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.39GiB"
 * and its summary (BFCAllocator::AllocateRaw, DumpMemoryLog), then the
 * kernel that asked for it, with the tensor's shape and no size
 * ("OP_REQUIRES failed at ...: Resource exhausted: OOM when allocating
 * tensor with shape[...]", framework/op_kernel.cc CtxFailure;
 * tensorflow/core/common_runtime/bfc_allocator.cc@v1.12.0,v2.4.0). That
 * sizeless line, just after the summary, is the same failure: the
 * traceback under it places the allocator's line too. */
static int same(const struct srv_mem *m, const struct memfail *f, uint64_t lineno)
{
	int64_t a = f->requested_bytes, b = m->f.requested_bytes;

	if (m->held && lineno - m->last_line <= SRV_MEM_FOLLOW && f->family == MF_TF_BFC &&
	    m->f.family == MF_TF_BFC && a < 0 && b >= 0 && (f->device < 0 || f->device == m->f.device))
		return 1;
	/* MLX's "[METAL] Command buffer execution failed: Insufficient
	 * Memory" wrapped before Metal's status code, which then stands on
	 * the next line alone ("(00000008:kIOGPUCommandBufferCallbackError
	 * OutOfMemory)", mlx-lm #1015): the status of the failure held, not
	 * a second one of ggml's (memfail_words.c) */
	if (m->held && lineno - m->last_line <= 1 && m->f.family == MF_MLX &&
	    f->family == MF_METAL)
		return 1;
	/* "allocating 9866.00 MiB" against the exact bytes a continuation gave */
	return m->held && lineno - m->last_line <= SRV_MEM_REPEAT && f->family == m->f.family &&
	       f->device == m->f.device && (a < 0) == (b < 0) && llabs(a - b) <= (a > b ? a : b) / 100;
}

/* 1 when l[0..n) heads a frame of IPython's verbose traceback
 * (IPython/core/ultratb.py VerboseTB): "File PATH:N, in NAME(" (IPython
 * 8), "Cell In[N], line N" (IPython 8, a notebook cell), "PATH.py in
 * NAME(" (IPython 7). */
static int ipython_frame(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	l += i;
	n -= i;
	if (n > 8 && !memcmp(l, "Cell In[", 8))
		return 1;
	if (n > 5 && !memcmp(l, "File ", 5) && l[5] != '"')
		return mem_find(l, n, ", in ") != NULL;
	return (l[0] == '/' || l[0] == '~') && mem_find(l, n, ".py in ") != NULL;
}

/* 1 when l[0..n) is the message line of the IPython traceback whose
 * header the held failure was read from: it starts with the header's
 * exception name and a colon ("OutOfMemoryError: CUDA out of memory"). */
static int header_message(const struct srv_mem *m, const char *l, size_t n)
{
	size_t k = 0;

	while (k < m->text_n && m->text[k] != ' ' && m->text[k] != '\t')
		k++;
	return k > 5 && n > k && l[k] == ':' && !memcmp(l, m->text, k);
}

int srv_mem_header_told(struct srv_mem *m, const char *exc, size_t en, enum oom_phase *ph)
{
	if (!m->held || !m->header || !header_message(m, exc, en))
		return 0;
	*ph = memfail_phase_pick(m->f.phase, m->below);
	m->held = 0;
	return 1;
}

/* 1 when l[0..n) reports an error of its own: a Python exception line
 * ("ValueError: ...", "tvm.error.InternalError: ..."), a log record at
 * level ERROR, a C++ program's "terminate called". A reporter's prose
 * ("then the next backtrace error:") is none. */
static int other_error(const char *l, size_t n)
{
	static const char *const levels[] = { " ERROR ", "[ERROR]", "ERROR:", "terminate called" };
	size_t i = 0, k;

	while (i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '>'))
		i++;
	for (k = i; k < n && (isalnum((unsigned char)l[k]) || l[k] == '_' || l[k] == '.'); k++)
		;
	if (k < n && l[k] == ':' &&
	    ((k - i >= 5 && !memcmp(l + k - 5, "Error", 5)) ||
	     (k - i >= 9 && !memcmp(l + k - 9, "Exception", 9))))
		return 1;
	for (k = 0; k < sizeof(levels) / sizeof(levels[0]); k++)
		if (mem_find(l, n < 160 ? n : 160, levels[k]))
			return 1;
	return 0;
}

/* 1 when a traceback at lineno may still be the held failure's: no
 * request was served and no other error was told since, and it is
 * within SRV_MEM_FAR lines of the failure. */
static int far_open(const struct srv_mem *m, uint64_t lineno)
{
	return !m->served && !m->interrupted && lineno - m->line <= SRV_MEM_FAR;
}

/* 1 when the failure held, now own_lines() lines behind, is kept
 * waiting for a traceback printed further down (m->far): nothing placed
 * it and far_open() holds. */
static int far_wait(struct srv_mem *m, uint64_t lineno)
{
	if (!far_open(m, lineno) ||
	    m->f.phase != OOM_PHASE_UNKNOWN || !no_stage(m->ctx) ||
	    m->below != OOM_PHASE_UNKNOWN)
		return 0;
	m->far = 1;
	return 1;
}

/* 1 when the failure f on line l is the one held told again by the
 * program above the layer that noticed it first, which took it in: the
 * held failure's wording is an unknown one (MF_UNKNOWN), f's a known
 * family's, within SRV_MEM_FOLLOW lines. A driver reports its refusal
 * and returns the error to the program, which reports the allocation in
 * its own words: Mesa's RADV prints "radv/amdgpu: Failed to allocate a
 * buffer:" and its size, alignment and domains, then returns
 * VK_ERROR_OUT_OF_DEVICE_MEMORY (src/amd/vulkan/winsys/amdgpu/
 * radv_amdgpu_bo.c, radv_amdgpu_winsys_bo_create), and ggml's Vulkan
 * backend prints "ggml_vulkan: Device memory allocation of size N
 * failed." (set 8 spent, w-spent8s). Jetson's nvmap (MF_NVMAP) is such a
 * layer too: "NvMapMemAllocInternalTagged: ... error 12" then the
 * program's "cudaMalloc failed: out of memory" or PyTorch's OOM for the
 * same allocation. The known wording then stands for
 * the failure: its family, figures and phase; a figure only the held
 * one stated is kept. */
static int told_below(struct srv_mem *m, const struct memfail *f, const struct srv_line *l,
		      uint64_t lineno)
{
	struct memfail held = m->f;

	if (!m->held || (held.family != MF_UNKNOWN && held.family != MF_NVMAP) ||
	    f->family == MF_UNKNOWN || f->family == MF_NVMAP ||
	    lineno - m->last_line > SRV_MEM_FOLLOW)
		return 0;
	m->f = *f;
	if (m->f.requested_bytes < 0)
		m->f.requested_bytes = held.requested_bytes;
	if (m->f.device < 0)
		m->f.device = held.device;
	if (m->served)
		m->f.phase = OOM_PHASE_SERVING;
	m->line = m->last_line = lineno;
	m->text_n = l->n < SRV_MEM_TEXT ? l->n : SRV_MEM_TEXT;
	memcpy(m->text, l->msg, m->text_n);
	return 1;
}

/* 1 when a record header (l->prefix, server_unwrap.c) names a module
 * that logs only while it handles a request. vLLM's OpenAI server builds
 * its handlers (init_app_state in vllm/entrypoints/openai/api_server.py,
 * 0.4-0.11 indexed copies) only once build_async_engine_client has
 * returned an engine that loaded its weights, profiled, allocated its KV
 * cache and captured its graphs; OpenAIServingChat and
 * OpenAIServingCompletion then log for requests ("Error in chat
 * completion stream generator." and its traceback, "Error in
 * preprocessing prompt inputs"; serving_chat.py, serving_completion.py),
 * each line of a record under the logger's "serving_chat.py:N]" (in
 * brackets from 0.8). Even their one start-up line ("Using default chat
 * sampling params") comes after every stage. So a line under that header
 * says the server was serving: a failure whose traceback a cut paste
 * keeps only under it (the message "Error in ..." and the handler's
 * frames above the cut) is placed in serving (round 12, tunephase13). */
int srv_mem_request_logger(const char *prefix, size_t n)
{
	static const char *const modules[] = { "serving_chat.py:", "serving_completion.py:", NULL };
	int i;

	if (n < 16 || !memmem(prefix, n, ".py:", 4))
		return 0;
	for (i = 0; modules[i]; i++)
		if (mem_find(prefix, n, modules[i]))
			return 1;
	return 0;
}

/* Whether text[0..n) holds a digit. */
static int has_digit(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (text[i] >= '0' && text[i] <= '9')
			return 1;
	return 0;
}

int srv_mem_line(struct srv_mem *m, struct sink *s, const struct srv_line *l, uint64_t lineno,
		 unsigned marks, int told_error)
{
	struct memfail f;
	enum oom_phase ph;
	int rank;
	unsigned fl;
	const char *app = NULL;

	if (m->held && lineno - m->last_line <= SRV_MEM_FOLLOW && (marks & MEMFAIL_MARK_CONTINUES) &&
	    memfail_continues(l->msg, l->n, &m->f)) {
		m->last_line = lineno;
		return 1;
	}
	if ((marks & MEMFAIL_MARK_FAILURE) && memfail_line(l->msg, l->n, &f)) {
		if (same(m, &f, lineno)) {
			/* a repeat that names the stage places the failure held
			 * when its own text did not: workers in lockstep print
			 * the same failure, one with its stage (vLLM V0's
			 * "Exception in worker VllmWorkerProcess while
			 * processing method determine_num_available_blocks:",
			 * vllm/executor/multiproc_worker_utils.py) */
			if (!m->served && (m->f.phase == OOM_PHASE_UNKNOWN ||
					   m->f.phase == OOM_PHASE_STARTUP) &&
			    f.phase != OOM_PHASE_UNKNOWN) {
				m->f.phase = f.phase;
				m->f.phase_inside = f.phase_inside;
			}
			/* the exception's line after the source line that raised
			 * it (a traceback's `assert ..., f"... {msg}"` then
			 * "AssertionError: ... total=.."): the text with the
			 * figures is the one kept */
			if (!has_digit(m->text, m->text_n) && has_digit(l->msg, l->n)) {
				m->text_n = l->n < SRV_MEM_TEXT ? l->n : SRV_MEM_TEXT;
				memcpy(m->text, l->msg, m->text_n);
			}
			/* a repeat's figures fill those the held one lacks (TF
			 * 2.x's BFC dump: "Sum Total of in-use chunks" told
			 * first, then "total_region_allocated_bytes_: N
			 * memory_limit_: L ..." with the limit; bfc_allocator.cc
			 * @v2.4.0) */
			if (m->f.total_bytes < 0)
				m->f.total_bytes = f.total_bytes;
			if (m->f.free_bytes < 0)
				m->f.free_bytes = f.free_bytes;
			m->repeats++;
			m->last_line = lineno;
			return 1;
		}
		/* an engine_error event tells f already: the held failure
		 * stays its own */
		if (!told_error && told_below(m, &f, l, lineno))
			return 1;
		if (flush(m, s) < 0)
			return -1;
		if (told_error) {   /* an engine_error event already */
			m->told_line = lineno;
			m->told_family = f.family;
			return 0;
		}
		if (m->told_line && lineno - m->told_line <= SRV_MEM_FOLLOW &&
		    f.family == m->told_family) {
			m->told_line = lineno;   /* the engine_error's failure, told on */
			return 1;
		}
		if (m->served)
			f.phase = OOM_PHASE_SERVING;
		/* a frame just above stands in for the failure's own phase,
		 * but what the failure's continuation lines name comes first
		 * (llama.cpp: "ggml_gallocr_reserve_n" after the cudaMalloc) */
		m->ctx_frame = m->frame_line && lineno - srv_mem_frame_end(m) <= SRV_MEM_FRAMES &&
			       m->frame != OOM_PHASE_UNKNOWN;
		/* frames placed by their names alone: a stage line wins */
		m->ctx_words = m->ctx_frame && m->frame_rank == MEMFAIL_RANK_WORDS;
		if (m->ctx_words && !no_stage(m->phase) && !srv_mem_ran_past_load(m->stage_load, m->frame))
			m->ctx_frame = m->ctx_words = 0;
		m->ctx = m->ctx_frame ? m->frame : m->phase;
		m->ctx_projector = !m->ctx_frame && m->stage_projector && !m->served;
		m->ctx_load = !m->ctx_frame && m->stage_load && !m->served;
		m->frame_line = m->frame_run = m->frame_file = 0;
		m->frame_armed = 0;
		m->below = OOM_PHASE_UNKNOWN;
		m->f = f;
		m->held = 1;
		m->header = mem_find(l->msg, l->n, "Traceback (most recent call last)") != NULL;
		m->far = m->interrupted = m->confirmed = 0;
		m->t = l->t;
		m->pid = l->pid;
		m->line = m->last_line = lineno;
		m->repeats = 0;
		m->text_n = l->n < SRV_MEM_TEXT ? l->n : SRV_MEM_TEXT;
		memcpy(m->text, l->msg, m->text_n);
		return 1;
	}
	/* IPython's verbose traceback under the header the failure was read
	 * from: each frame's header line ("File ~/x.py:544, in Trainer.fit(",
	 * IPython 8; "/x.py in _do_call(self, fn)", IPython 7; "Cell In[5],
	 * line 1") and its context lines, the message last
	 * (IPython/core/ultratb.py VerboseTB). A frame header keeps the
	 * failure held however many frames the traceback has, so the message
	 * line below is read as its telling, not a second failure (set 13
	 * spent, w-spend13d: a Lightning fit's 280-line traceback) */
	if (m->held && m->header && lineno > m->line && lineno - m->last_line <= own_lines(m) &&
	    ipython_frame(l->msg, l->n))
		m->last_line = lineno;
	/* another error told after the failure: a traceback further down
	 * may be that one's (only looked for while a failure is held) */
	if (m->held && lineno > m->line && !m->interrupted && other_error(l->msg, l->n))
		m->interrupted = 1;
	/* an error after a kvcached shortfall: the engine's fatal error
	 * (vLLM V1 "EngineCore encountered a fatal error", after the
	 * assert), whatever a progress bar left before it on the line */
	if (m->held && lineno > m->line && m->f.family == MF_KVCACHED &&
	    (m->interrupted || mem_find(l->msg, l->n, "encountered a fatal error")))
		m->confirmed = 1;
	/* a Rust backtrace printed below the failure (std's panic, anyhow's
	 * and candle's Error::bt: "   N: crate::path::fn", innermost first)
	 * keeps it held while its frames go on, as an IPython traceback's
	 * do, and its innermost program frame that speaks places it, at
	 * the frame names' tier (frame_words.c; set 14 spent, w-spend14b,
	 * candle #2631: MmapedSafetensors::load, Falcon::load) */
	if (m->held && lineno > m->line && lineno - m->last_line <= own_lines(m) &&
	    frame_words_rust_line(l->msg, l->n)) {
		m->last_line = lineno;
		if (m->below == OOM_PHASE_UNKNOWN &&
		    (ph = frame_words_phase(l->msg, l->n, 1)) != OOM_PHASE_UNKNOWN)
			srv_mem_below(m, ph, MEMFAIL_RANK_WORDS, lineno);
	}
	if (m->held && lineno - m->last_line > own_lines(m) && !far_wait(m, lineno) &&
	    flush(m, s) < 0)
		return -1;
	/* once a request was served every later failure is the serving
	 * phase's (above): no line before it can change that, so the phase
	 * phrases are not looked for again (an access log marks most lines) */
	if (!(marks & MEMFAIL_MARK_PHASE))
		return 0;
	/* a new engine process for a model's load (Ollama's runner, a
	 * PM_RESTART row): its start-up phases begin again, a request served
	 * before was another process's. Once served, only such lines are
	 * marked (engine_line_served) and looked at again. */
	if (m->served) {
		if (!(marks & MEMFAIL_MARK_RESTART))
			return 0;
		memfail_phase_line_flags(l->msg, l->n, &fl);
		/* or a model's load from its files in the same process (a
		 * PM_RELOAD row: a checkpoint switched, a model rebuilt): the
		 * new model's load, a start-up of it, whatever was served */
		if (!(fl & (PM_RESTART | PM_RELOAD)))
			return 0;
		m->served = 0;
		m->phase = OOM_PHASE_UNKNOWN;   /* the earlier process's serving */
	}
	srv_mem_stack(m, l->msg, l->n);
	if ((ph = memfail_phase_line_app(l->msg, l->n, &fl, &app)) != OOM_PHASE_UNKNOWN) {
		if (fl & PM_RESTART) {   /* a new engine process: server_answers.h */
			srv_answers_note(&m->answers, SRV_ANS_RESTART, lineno);
			/* after a failure of the log the earlier process died:
			 * the stage it reached is not this one's (a start-up
			 * line never hides a stage seen, below). Without one,
			 * a sibling's banner (a second data-parallel engine
			 * core) keeps the stage its twin reached. */
			if (m->records > 0)
				m->phase = OOM_PHASE_UNKNOWN;
		}
		/* workers in lockstep (Ray's, tensor parallel) interleave their
		 * lines: a start-up phase's notice just after a failure that
		 * nothing before placed ("Capturing the model for CUDA graphs"
		 * after one worker's CUDA error) is the phase it failed in (the
	 * start-up phases are load_weights..warmup in lib/vocab.h's order) */
		if (m->held && m->f.phase == OOM_PHASE_UNKNOWN && no_stage(m->ctx) &&
		    m->below == OOM_PHASE_UNKNOWN && lineno - m->line <= SRV_MEM_FOLLOW &&
		    ph >= OOM_PHASE_LOAD_WEIGHTS && ph <= OOM_PHASE_WARMUP)
			srv_mem_below(m, ph, 0, lineno);
		/* a later start-up stage's line printed after a frame run that
		 * named an earlier stage: the program went on past that stage,
		 * the frame no longer stands in for the next failure's phase
		 * (llama.cpp's "sched_reserve:" lines of its context, then
		 * "warming up the model" and the projector's warm-up) */
		if (!m->held && m->frame_line && lineno > srv_mem_frame_end(m) &&
		    m->frame >= OOM_PHASE_LOAD_WEIGHTS && ph > m->frame && ph <= OOM_PHASE_WARMUP) {
			m->frame_line = m->frame_run = m->frame_file = 0;
			m->frame_armed = 0;
		}
		/* the end of a ComfyUI prompt that failed (server_answers.h
		 * unserved_line) serves nothing and reaches no new stage */
		if (m->answers.unserved_line == lineno)
			return 0;
		/* a PM_RUNS line (phase_table.h) puts the log in the serving
		 * phase without a request served: a later load line moves it */
		if (ph == OOM_PHASE_SERVING && !(fl & PM_RUNS))
			srv_mem_served(m);
		else if (!m->served && !(ph == OOM_PHASE_STARTUP && !no_stage(m->phase))) {
			m->phase = ph;   /* a start-up line never hides a stage seen */
			m->stage_projector = (fl & PM_PROJECTOR) != 0;
			m->stage_load = (fl & PM_RELOAD) != 0;
			m->stage_app = app;
		}
		return 0;
	}
	if ((ph = memfail_phase_hint_ranked(l->msg, l->n, &rank)) == OOM_PHASE_UNKNOWN)
		return 0;
	/* a statement typed at Python's interactive prompt runs until the
	 * next prompt: the call it names is a stage the program entered
	 * (srv_mem_repl_statement) */
	if (!m->served && srv_mem_repl_statement(l->msg, l->n) &&
	    ph >= OOM_PHASE_LOAD_WEIGHTS && ph <= OOM_PHASE_EVAL) {
		m->phase = ph;
		m->stage_projector = m->stage_load = 0;
		return 0;
	}
	srv_mem_input_op(m, l->msg, l->n, lineno);
	srv_mem_frame(m, ph, rank, lineno);
	if (m->frame_line == lineno) {
		m->frame_loose = 1;
		m->frame_pid = l->pid;
	}
	/* a frame of the traceback a held failure prints after itself
	 * (PyTorch's THCudaCheck, then "Traceback ...": loss.backward(),
	 * evaluate()) names that failure's phase, the innermost wins */
	srv_mem_below(m, ph, rank, lineno);
	return 0;
}

/* Set 15 spent (w-spend15c): an interactive Python session pasted as
 * the program's output. CPython's REPL prints sys.ps1 (">>> ", Python/
 * pythonrun.c PyRun_InteractiveLoopFlags, the default of sys.ps1 in
 * Python/sysmodule.c@v3.11.13) before each statement it reads, and the
 * next prompt only once the statement returned; a statement that calls
 * what the phase table names (a framework's from_pretrained, a Trainer's
 * train) is the stage the process was in until a prompt follows. A line
 * that is ">>> " and then a statement, at the line's start. */
int srv_mem_repl_statement(const char *l, size_t n)
{
	return n > 4 && !memcmp(l, ">>> ", 4) && l[4] != ' ';
}

/* Round 15 (w-wordings16): the REPL prints its next prompt only once
 * the statement before returned (srv_mem_repl_statement), so a later
 * statement ends whatever stage the earlier one set (its call, or the
 * lines it printed: ">>> model = X.from_pretrained(...)", then ">>> out
 * = model(x)" is no longer the load). A statement that names a stage
 * itself sets it again (srv_mem_line). */
void srv_mem_repl_line(struct srv_mem *m, const char *l, size_t n)
{
	if (m->served || !srv_mem_repl_statement(l, n))
		return;
	if (m->repl && !m->held) {
		m->phase = OOM_PHASE_UNKNOWN;
		m->stage_projector = m->stage_load = 0;
	}
	m->repl = 1;
}

void srv_mem_frame(struct srv_mem *m, enum oom_phase ph, int rank, uint64_t lineno)
{
	/* a later frame is an inner one: it wins unless it is of a lower
	 * tier than the one noted (memfail_phase_hint_ranked) */
	if (!m->frame_line || lineno - srv_mem_frame_end(m) > SRV_MEM_FRAMES ||
	    rank <= m->frame_rank) {
		if (!m->frame_line || lineno - srv_mem_frame_end(m) > 1)
			m->frame_run = m->frame_file = 0;   /* a new run */
		m->frame = ph;
		m->frame_rank = rank;
		m->frame_line = lineno;
		m->frame_armed = 1;
	}
}

uint64_t srv_mem_frame_end(const struct srv_mem *m)
{
	return m->frame_run > m->frame_line ? m->frame_run : m->frame_line;
}

void srv_mem_frame_run(struct srv_mem *m, const char *msg, size_t n, uint64_t lineno)
{
	size_t i = 0;
	uint64_t end = srv_mem_frame_end(m);

	if (!m->frame_line || lineno <= end)
		return;
	/* past the gap the run is over: end moves only here, and lines only
	 * go on, so no later line extends it until a frame is noted again
	 * (srv_mem_frame re-arms) */
	if (lineno - end > SRV_MEM_FRAME_GAP) {
		m->frame_armed = 0;
		return;
	}
	while (i < n && (msg[i] == ' ' || msg[i] == '\t'))
		i++;
	/* a frame line, also past a line another writer put into the run
	 * (a progress bar's, on the same terminal) */
	if (n - i > 6 && !memcmp(msg + i, "File \"", 6)) {
		m->frame_run = m->frame_file = lineno;
		return;
	}
	/* an indented line just below a frame line: its source, the carets
	 * under it (Python 3.11+), a statement over a few lines (3.13) */
	if (i > 0 && i < n &&
	    lineno - (m->frame_file ? m->frame_file : m->frame_line) <= SRV_MEM_FRAME_SRC)
		m->frame_run = lineno;
}

void srv_mem_below(struct srv_mem *m, enum oom_phase ph, int rank, uint64_t lineno)
{
	if (m->held && lineno > m->line && lineno - m->last_line <= own_lines(m) &&
	    ph != OOM_PHASE_UNKNOWN && (m->below == OOM_PHASE_UNKNOWN || rank <= m->below_rank)) {
		m->below = ph;
		m->below_rank = rank;
	}
}

int srv_mem_far_below(struct srv_mem *m, struct sink *s, enum oom_phase ph, int rank,
		      uint64_t lineno, const char *exc, size_t en)
{
	struct memfail mf;

	if (!m->held || !m->far)
		return 0;
	/* a traceback that ends in another error is that error's: the
	 * failure is written unplaced */
	if (en && !torch_oom_text(exc, en) && !memfail_line(exc, en, &mf))
		return flush(m, s) < 0 ? -1 : 1;
	if (lineno <= m->line || !far_open(m, lineno) || ph == OOM_PHASE_UNKNOWN)
		return 0;
	m->below = ph;
	m->below_rank = rank;
	return 1;
}

void srv_mem_stage(struct srv_mem *m, enum oom_phase before, const struct ol_time *t,
		   uint64_t lineno)
{
	if (m->phase == before || m->phase == OOM_PHASE_UNKNOWN)
		return;
	m->stage_line = lineno;
	m->stage_epoch_named = 0;   /* the reader names the new stage's, if any */
	if (t)
		m->stage_t = *t;
	else
		m->stage_t = (struct ol_time){ .clock = OL_CLOCK_NONE, .utc_ns = OL_NULL,
					       .boot_ns = OL_NULL };
}

void srv_mem_cut_traceback(struct srv_mem *m, const char *tb, size_t n, uint64_t lineno)
{
	enum oom_phase before = m->phase, ph;

	if (!tb || !n || m->records || m->held || m->served)
		return;
	ph = memfail_phase_hint(tb, n);
	if (ph < OOM_PHASE_LOAD_WEIGHTS || ph > OOM_PHASE_EVAL)
		return;
	m->phase = ph;
	srv_mem_stage(m, before, NULL, lineno);
}

/* The log's last stage as meta server.last_stage (srv_mem_finish). 0 or -1. */
static int last_stage(const struct srv_mem *m, struct sink *s)
{
	char v[240], t[40] = "null", ep[32] = "";
	int timed = m->stage_t.clock != OL_CLOCK_NONE && m->stage_t.utc_ns != OL_NULL;

	if (!m->stage_line || m->phase == OOM_PHASE_UNKNOWN)
		return 0;
	if (timed)
		snprintf(t, sizeof(t), "%lld", (long long)m->stage_t.utc_ns);
	if (m->stage_epoch_named && !m->served)
		snprintf(ep, sizeof(ep), ",\"epoch\":%ld", m->stage_epoch);
	snprintf(v, sizeof(v), "{\"phase\":\"%s\",\"by\":\"%s\",\"line\":%llu,"
		 "\"time_ns\":%s,\"clock\":\"%s\"%s}", vocab_phase(m->phase),
		 m->served ? "request_served" : "stage_line", (unsigned long long)m->stage_line,
		 t, !timed ? "none" : m->stage_t.clock == OL_CLOCK_LOCAL ? "local" : "utc", ep);
	return sink_meta(s, vocab_meta_key(VM_SERVER_LAST_STAGE), v) < 0 ? -1 : 0;
}

int srv_mem_finish(struct srv_mem *m, struct sink *s)
{
	return flush(m, s) < 0 || last_stage(m, s) < 0 ||
	       srv_answers_finish(&m->answers, s) < 0 ? -1 : 0;
}
