/*
 * engine_lines.h -- what one serving-engine log line says about memory.
 *
 * vLLM (0.1 to V1), SGLang, TGI, TensorRT-LLM/Triton, and the libraries
 * under them (PyTorch's allocator, NCCL, cuBLAS) print their start-up
 * memory accounting, their periodic load statistics and their memory
 * errors as free text, whose wording changed with every generation
 * (docs/formats.md lists the forms, tests/data/real/serving holds real
 * ones). engine_line() reads one line with its wrappers already removed
 * or not (anchors are found anywhere in it) and says, in a struct, what
 * the line states: facts of the engine's accounting, load statistics,
 * an error, a preemption. It keeps no state and knows no sink: the caller
 * (parsers/serving/server_engine.c) decides which engine instance a line belongs
 * to and records what is found.
 */
#ifndef OOMLENS_ENGINE_LINES_H
#define OOMLENS_ENGINE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/engine_vocab.h"

#define ENGINE_LINE_MAX_FACTS 12
#define ENGINE_VERSION_MAX 48
#define ENGINE_GPU_LIST 16         /* GPUs of an Ollama per-GPU list, at most */

/* What one line says. Facts and stats appear in the order read. */
struct engine_line {
	enum engine_kind engine;   /* who prints this wording; NONE if unsure */
	int nfacts;
	struct { enum engine_fact key; double value; } facts[ENGINE_LINE_MAX_FACTS];
	unsigned stats_set;        /* bit i: stats[i] is set */
	double stats[ES__COUNT];
	enum engine_error error;
	int preempted;             /* a preemption warning */
	int64_t preempt_total;     /* its cumulative count, or -1 */
	int swap;                  /* the preemption swapped (else recomputes) */
	int capture;               /* 1: a CUDA-graph capture begins, 2: it ended */
	int config;                /* the line dumps the engine's configuration
				    * ("with config:", "args: ", "Args {") */
	int rank;                  /* SGLang "TPn" / TGI "rank=n", or -1 */
	unsigned memfail;          /* a phrase of parsers/serving/memfail.c: bits
				    * MEMFAIL_MARK_* (the recogniser's prefilter) */
	int ds_memory;             /* DeepSpeed's "Max_MA " is in the line: worth
				    * ds_memory_line() (server_deepspeed.h); not
				    * counted as said */
	int pressure;              /* an engine's start-up memory projection
				    * (Rapid-MLX's): bit 1 its figures ("Est. working
				    * set:", "projected utilization)"), worth
				    * srv_pressure_line() (server_pressure.h); bit 2
				    * its advice, whose settings are no facts; not
				    * counted as said */
	int train_log;             /* a training loop's log line ("'learning_rate': ",
				    * ", skipped="): worth srv_progress_logged()
				    * (server_progress.h); not counted as said */
	int ggml_dev;              /* a ggml buffer of one GPU ("CUDA1 model buffer
				    * size"): its index, summed over the GPUs; -1 */
	int ggml_total;            /* llama.cpp's "KV self size": all devices' KV,
				    * host included: kept only without the GPUs' */
	int wrap_open;             /* a failure sentence ("CUDA runtime error in
				    * ::cudaMallocAsync(ptr, n, mCudaSt") that ends
				    * mid-word: a paste wrapped it, the next line
				    * may go on with it (server_log.c joins them) */
	int ggml_table;            /* llama.cpp's "memory breakdown [MiB] |"
				    * header: the rows below it may come
				    * without the function's name (a paste
				    * cut it): engine_line_ggml_row() reads
				    * them */
	char version[ENGINE_VERSION_MAX]; /* "" unless the line states it */
	/* Ollama's per-GPU lists of its offload line, each GPU's figure in
	 * order: [0] memory.available, [1] memory.required.allocations (what
	 * it plans to put on that GPU). engine_line() clears gpu_list_n only:
	 * gpu_list is read up to it (it must stay the last member). */
	int gpu_list_n[2];
	double gpu_list[2][ENGINE_GPU_LIST];
};

/* engine_line's memfail bits: the line holds a phrase the memory-failure
 * recogniser starts from (a failure's wording, a continuation of one, a
 * phase of the program's life); the line is worth memfail_line(),
 * memfail_continues(), memfail_phase_line(). Not counted as "said". */
#define MEMFAIL_MARK_FAILURE 1u
#define MEMFAIL_MARK_CONTINUES 2u
#define MEMFAIL_MARK_PHASE 4u
/* with MEMFAIL_MARK_PHASE: the phrase is a PM_RESTART row's (a new engine
 * process for a load, phase_table.h) or a PM_RELOAD row's (a model's load
 * from its files, a reload once a request was served), kept by
 * engine_line_served() too */
#define MEMFAIL_MARK_RESTART 8u

/* Read line[0..n) into *out. Returns 1 if it said anything, 0 if not.
 * Bounded work: one pass over the line to find anchors, then a bounded
 * parse at each. */
int engine_line(const char *line, size_t n, struct engine_line *out);

/* engine_line() without the recogniser's phase phrases but the
 * PM_RESTART ones: out->memfail has MEMFAIL_MARK_PHASE only with
 * MEMFAIL_MARK_RESTART, all else is the same. For a log in which
 * a request was served, where no line changes the phase any more
 * (parsers/serving/server_memfail.c): fewer anchors, fewer hits. */
int engine_line_served(const char *line, size_t n, struct engine_line *out);

/* A GPU's row of llama.cpp's memory breakdown table without the
 * function's name before it ("| CUDA0 (RTX 5090) | 32606 = 1057 + (29365
 * = 28609 + 397 + 358) + 2183 |", the first "| " optional), for a line
 * that follows a header engine_line() marked ggml_table: its figures as
 * facts of out (as the named row gives them). Returns 1 when it gave
 * facts, 0 otherwise (out is cleared either way). */
int engine_line_ggml_row(const char *line, size_t n, struct engine_line *out);

/* 1 when the line is worth a format's attention: it holds a phrase only
 * an engine or the libraries under it print (its accounting, statistics,
 * an error), not merely a configuration key a note could quote. For
 * detection (server_log_sniff). */
int engine_line_strong(const char *line, size_t n);

/* 0 when every anchor of the tables (the engines' and the memory-failure
 * recogniser's phrases) fits the filter, -1 when some were dropped: a
 * table outgrew ANCHORS_MAX and those phrases would never be read. */
int engine_lines_self_check(void);

#endif
