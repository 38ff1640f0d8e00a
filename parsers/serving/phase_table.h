/*
 * phase_table.h -- the one table of what names the phase of a program's
 * life: a traceback frame's function (or the call on the source line
 * under it) and a log line an engine prints as it moves from one phase
 * to the next, each with the phase it names, the engine, the versions
 * it holds for and the source file (at a tag) it was read from.
 *
 * The generic memory-failure recogniser (memfail.c) reads it: a
 * failure's traceback is placed by its innermost engine frame
 * (memfail_phase_hint()), a failure without one by the last phase line
 * before it (memfail_phase_line(), followed by server_memfail.c). The
 * table is data only, its rows in one file per engine family
 * (phase_rows_<family>.inc, listed in phase_table.c); the order of its
 * rows and files does not decide anything but a tie between phrases of
 * one kind that start at the same byte (phase_table.c names the pairs).
 *
 * Frames rank in four tiers, the first that a traceback holds deciding
 * (the innermost of that tier, memfail.c frames_phase): an engine's own
 * frame; a framework's beneath it (PM_FRAMEWORK: transformers,
 * accelerate, PEFT, diffusers, ComfyUI, Lightning, Keras); a library any
 * phase calls into (PM_GENERIC); last, a frame or message that says only
 * that the program was starting (phase startup: "Engine core
 * initialization failed"), which any stage named wins over. Below them
 * all, where no row names any frame, the words of the program's own
 * frames (frame_words.c: train, evaluate, generate, load_model; marked
 * PM_WORDS, the event's phase_by "frame_names"), which an engine's stage
 * line before the failure also wins over.
 */
#ifndef OOMLENS_PHASE_TABLE_H
#define OOMLENS_PHASE_TABLE_H

#include <stddef.h>

#include "lib/engine_vocab.h"

enum phase_mark_kind {
	PM_FRAME,     /* a function in a traceback, or the call that names it */
	PM_LINE,      /* a line the engine prints on entering a phase */
	PM_AFTER,     /* a line a program prints after a failure, naming the
		       * stage that failed ("Stable diffusion model failed to
		       * load"): it places the failure just above it and is no
		       * phase the program enters */
};

/* A frame of a library any phase calls into (PyTorch's backward, an
 * optimizer's step): an engine's own frame anywhere in the same
 * traceback decides before it, inner or outer (DeepSpeed's set-up runs
 * optimizer.step() once inside initialize_optimizer_states). */
#define PM_GENERIC 1u

/* A frame of a framework beneath the engines (a model's load by
 * transformers or diffusers, a Trainer's or Lightning's loop, Keras's
 * fit): it places a failure no engine's frame places; an engine's own
 * frame anywhere in the same traceback decides before it. */
#define PM_FRAMEWORK 2u

/* A tqdm bar's description (a PM_AFTER or PM_LINE row): the row counts
 * only where the phrase opens a bar, that is is followed by a number,
 * the rest of the description, ": " and the bar's percentage ("Epoch 0:
 *   4%|", "Epoch 4/10 | training error: 43.58%:  40%|", tqdm's l_bar
 * "{desc}: {percentage}%|"; memfail_bar.c), or where it opens an
 * epoch's header line alone ("Epoch 3/10", Keras's ProgbarLogger; round
 * 17, memfail_bar.c memfail_epoch_header); any other line holding the
 * phrase names nothing. */
#define PM_TQDM 4u

/* A node's name follows the phrase (a PM_FRAME row): the row counts only
 * where that name holds "Loader". ComfyUI names the node whose execution
 * failed ("- **Node Type:** X" in its error report, "Error occurred when
 * executing X:" before it), and its loading nodes are named so by
 * convention (nodes.py NODE_CLASS_MAPPINGS: CheckpointLoaderSimple,
 * UNETLoader, VAELoader, LoraLoaderModelOnly...; custom nodes follow it:
 * TangoFluxLoader, JanusModelLoader), while its other nodes are not
 * (KSampler, VAEDecode, LoadImage). */
#define PM_LOADER 8u

/* A line that says the program runs a request's work, not that a
 * request was served (a PM_LINE row of phase serving): the log is in the
 * serving phase until a later stage line moves it, and no request is
 * marked served, so a model's load that follows in the same request is
 * that load's phase. ComfyUI loads the models a prompt's nodes need
 * while it runs the prompt: "loaded completely" ends one load, the node
 * then runs on the prompt's inputs, and the next node's "Requested to
 * load" starts another (phase_rows_apps.inc, round 8 comfyserved); only
 * "Prompt executed in" says a prompt was served. */
#define PM_RUNS 16u

/* A step several start-up stages run (a PM_FRAME row): ggml's compute
 * graph reservation (ggml_gallocr_reserve, ggml_backend_sched_reserve)
 * sizes llama.cpp's context's compute buffers after the KV cache
 * (profile), and the multimodal projector's warm-up runs the same
 * reservation for its dummy image (tools/mtmd/clip.cpp warmup ->
 * alloc_compute_meta -> ggml_backend_sched_reserve). The row's phase
 * holds unless the log's lines before the failure name a later stage,
 * start-up or serving (server_memfail.c flush): then the step ran in that
 * stage (ggml reserves a graph again when a decode's graph outgrows it;
 * a SYCL tensor upload is a weight's at load, a decode's inputs later). */
#define PM_INSIDE 32u
/* A line a supervisor prints when it starts a new process of the engine
 * for a model's load (a PM_LINE row): Ollama's scheduler starting a
 * runner, later a llama-server. The new process's phases start over: a
 * request served by an earlier runner says nothing of this one's load
 * (server_memfail.c srv_mem_line). */
#define PM_RESTART 64u
/* A stage line of a model beside the text model (a PM_LINE row): the
 * multimodal projector's warm-up (llama.cpp tools/mtmd/clip.cpp
 * clip_model_loader::warmup), whose compute graph is sized by its dummy
 * image, not by the text context's batch. A failure this line placed is
 * that model's graph: its event says "graph": "projector"
 * (server_memfail.c), and the advice names the projector's knobs. */
#define PM_PROJECTOR 128u
/* A module's constructor (a PM_FRAME row): the phrase names a module (a
 * package's name as it stands in a frame's file path, either path
 * separator), and the row counts only where the innermost frame of that
 * module (the last frame line holding the phrase) is a class's
 * constructor, "in __init__". A library whose model class loads its
 * weights when it is built (faster-whisper's WhisperModel.__init__
 * builds CTranslate2's model on the device) is placed by that frame
 * alone when a frozen app prints no source lines under its frames
 * (memfail_phase.c). Set 13, spent round 12 (w-spend13a). */
#define PM_CTOR 256u
/* A scope in a TensorFlow op's name (a PM_AFTER row): TensorFlow names
 * the op that failed on the line below the error, "[[Node: a/b/Op = ...]]"
 * (1.x), "[[{{node a/b/Op}}]]" (1.14 on), "[[scope/.../Op/_N]]", and the
 * op's name holds the name scopes it was built in. The row counts only
 * on such a line (it starts, after blanks, with "[[") and where the
 * phrase starts a scope of the name (after '/', '[', '{' or a blank):
 * Keras builds its training function's ops under the scope "training"
 * (keras/engine/training.py@2.2.4 _make_train_function,
 * K.name_scope('training')), tf.gradients its backward ops under
 * "gradients" (tensorflow/python/ops/gradients_impl.py, 1.x indexed
 * copy: ops.name_scope(name, "gradients", ys + xs + grad_ys)). Set 14,
 * spent round 13 (w-spend14a). */
#define PM_TFNODE 512u
/* A line a program prints as it builds a model or reads a model's weights
 * from its files (a PM_LINE row of phase load_weights): a load from
 * disk, not a move onto the card of a model the process holds (ComfyUI's
 * "Requested to load" before each prompt's nodes). After a request was
 * served it begins a new model's load in the same process, a reload
 * (a switch of checkpoint, a setting that rebuilds the model): the
 * failure that follows is that load's, load_weights, until a later line
 * says the program runs or serves again (server_memfail.c srv_mem_line).
 * Unlike PM_RESTART no new process starts: no new run. Round 14,
 * w-startup15. */
#define PM_RELOAD 1024u
struct phase_mark {
	const char *phrase;          /* at least 6 bytes (engine_lines.c's sieve) */
	enum oom_phase phase;
	unsigned char kind;          /* enum phase_mark_kind */
	unsigned short flags;        /* PM_GENERIC, PM_FRAMEWORK, PM_TQDM,
				      * PM_LOADER, PM_RUNS, PM_INSIDE,
				      * PM_RESTART, PM_PROJECTOR, PM_CTOR,
				      * PM_TFNODE, PM_RELOAD; 16 bits, five of
				      * them still free */
	const char *engine;          /* "vllm", "sglang", "llama.cpp", ... */
	const char *versions;        /* the versions read, "0.5-0.10" */
	const char *source;          /* where it was read: file@tag, or the
				      * thread that shows an engine's wording */
};

extern const struct phase_mark phase_marks[];
extern const size_t phase_marks_n;

#endif
