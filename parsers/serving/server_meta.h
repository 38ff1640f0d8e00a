/*
 * server_meta.h -- what an inference server states once, at start-up, as
 * server.* meta (docs/formats.md "Server logs"): its configuration (vLLM's
 * "with config: ..." and "args: ...", TGI's "Args { ... }" on one line or
 * pretty-printed one field a line), its version, and the memory it set
 * aside (weights, KV cache size, blocks and tokens, maximum concurrency).
 * A key is stored again only when its value changes; the last row wins.
 */
#ifndef OOMLENS_SERVER_META_H
#define OOMLENS_SERVER_META_H

#include <stddef.h>
#include "parsers/serving/engine_lines.h"
#include "parsers/common/sink.h"

/* The server.* meta keys, in docs/formats.md's order. */
enum srv_meta_key {
	SM_MODEL, SM_DTYPE, SM_GPU_MEMORY_UTILIZATION, SM_MAX_NUM_SEQS,
	SM_MAX_NUM_BATCHED_TOKENS, SM_MAX_MODEL_LEN, SM_TENSOR_PARALLEL_SIZE,
	SM_WEIGHTS_BYTES, SM_KV_CACHE_BYTES, SM_KV_CACHE_BLOCKS, SM_KV_CACHE_TOKENS,
	SM_MAX_CONCURRENCY_TOKENS, SM_MAX_CONCURRENCY, SM_NAME, SM_VERSION,
	SM__COUNT
};

struct srv_meta {
	char last[SM__COUNT][160];  /* the value each key was last stored with */
	int in_args;                /* inside TGI's pretty-printed "Args {" */
	char args_key[64];          /* "num_shard" of a "num_shard: Some(" line */
	int records;                /* meta rows written */
};

/* A TGI "Args {" block's line (the block's own line too). Returns 1 if
 * the line was the block's, 0 if it is not (the block may just have
 * ended), -1 when the sink failed. */
int srv_meta_args(struct srv_meta *sm, struct sink *s, const char *m, size_t n);

/* The engine's figures a line stated (engine_line()), as meta. 0, or -1
 * when the sink failed. */
int srv_meta_facts(struct srv_meta *sm, struct sink *s, const struct engine_line *el);

/* A line dumping the configuration (engine_line()'s config): the keys
 * it states. 0, or -1 when the sink failed. */
int srv_meta_line(struct srv_meta *sm, struct sink *s, const char *m, size_t n);

#endif
