/*
 * engine_readers.h -- what engine_lines.c and engine_readers.c share: an
 * anchor (a phrase an engine prints) and the readers of what follows it.
 * Not for other modules: parsers/serving/engine_lines.h is the interface.
 */
#ifndef OOMLENS_ENGINE_READERS_H
#define OOMLENS_ENGINE_READERS_H

#include <stddef.h>
#include "parsers/serving/engine_lines.h"

/* A reader gets the line, where the anchor ends and the line's end. */
struct anchor;
typedef void reader_fn(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end);

struct anchor {
	const char *text;
	size_t len;
	enum engine_kind engine;  /* NONE: any engine prints it */
	reader_fn *read;
	int arg;                  /* the fact, stat or error it gives */
	double mult;              /* statistics: the factor to percent */
	unsigned strong : 1;      /* only engines print it (detection) */
	unsigned gated : 1;       /* a vLLM statistic: kept only with its company */
	unsigned phrase : 1;      /* must start a phrase ("token usage", not
				   * "full token usage") */
};

/* The readers, one per shape of what follows an anchor (engine_readers.c). */
reader_fn er_size, er_num, er_error, er_stat, er_concurrency, er_can_use,
	er_free_below, er_initial_free, er_max_seq_len, er_blocks, er_graph_took,
	er_capture, er_mem_usage, er_sglang_kv, er_shard_failed, er_preempt,
	er_prefill_oom, er_trt_paged, er_trt_before, er_trt_usage, er_trt_error,
	er_version, er_rank, er_config, er_engine, er_memfail_mark, er_ds_mark, er_pressure_mark,
	er_train_mark,
	er_ggml_layers, er_ggml_buffer, er_ggml_free, er_ggml_kv_total, er_quoted_size,
	er_ollama_buffer, er_quoted_list, er_ollama_evaluating, er_trt_gib, er_trt_component,
	er_wrap_open, er_fraction,
	er_ggml_breakdown, er_ggml_table,   /* engine_readers_ggml.c */
	er_sched_batch;                     /* engine_readers_sched.c */

/* engine_readers.c's helpers, for the readers in other files
 * (engine_readers_trt.c): a decimal at s (spaces skipped; 0, *v and
 * *used set, or -1), needle in s[0..end) (NULL none), a fact of the line
 * (a key already stated keeps its first value), the size or number after
 * p's separators as fact k, 10^k exactly (k <= 22; 0 beyond). */
int er_read_num(const char *s, const char *end, double *v, size_t *used);
const char *er_find(const char *s, const char *end, const char *needle);
void er_fact(struct engine_line *o, enum engine_fact k, double v);
void er_size_fact(struct engine_line *o, enum engine_fact k, const char *p, const char *end);
void er_num_fact(struct engine_line *o, enum engine_fact k, const char *p, const char *end);
double er_pow10(size_t k);
/* 1 for a ggml buffer type or device name of a GPU ("CUDA0", "SYCL0",
 * "MTL0"), 0 for the host's, w[0..n). */
int er_ggml_gpu(const char *w, size_t n);

/* The rank of SGLang's "[2025-03-07 21:49:33 TP13] " / "[TP0] " prefix,
 * in the first 64 bytes of line[0..n); -1 if none. */
int er_sglang_rank(const char *line, size_t n);

#endif
