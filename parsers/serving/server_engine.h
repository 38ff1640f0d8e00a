/*
 * server_engine.h -- the engine instances of a server log and what each
 * states about its memory.
 *
 * engine_line() (parsers/serving/engine_lines.c) says what one line states; this
 * module decides which engine instance the line belongs to and gathers
 * its facts over the log's lines:
 *   - the instance is named by the line's wrappers (parsers/
 *     server_unwrap.h): a docker-compose service or vllm-omni stage first,
 *     then vLLM's tag ("rank N" when the tag has a rank, else "pid N"),
 *     SGLang's "TPn", TGI's "rank N"; "" is the main process; after an
 *     engine's start-up banner that follows a request served or a
 *     failure (srv_engine_new_run), ", run N" follows ("run N" alone);
 *   - an instance is made by a line with an engine's header, or one that
 *     states a fact, an error or a version, or whose wording is an
 *     engine's (a statistics line alone is not enough: its header may
 *     have gone with the first half of a terminal-wrapped line);
 *   - its engine is the one whose wording or header the line has; lines
 *     only PyTorch, NCCL or cuBLAS print join the instance of their name,
 *     and an instance no engine ever named takes the log's engine at the
 *     end (else it is "pytorch");
 *   - facts: the last value stated wins, except free_bytes, which keeps
 *     the first (free memory at start-up);
 *   - errors: a list per instance (SRV_ENGINE_ERRORS of them, the rest
 *     counted); the same error told again within SRV_ERROR_GAP lines (a
 *     message and its traceback's exception line) is one; a CUDA OOM
 *     while the instance captures CUDA graphs is graph_capture_oom;
 *   - events: engine_error for an error on a line outside a traceback or
 *     PyTorch message (those are server_error / torch_oom events already;
 *     the caller notes the error on them), preemption for each vLLM
 *     preemption warning.
 * At most SRV_ENGINES instances per log; past that, new ones are not
 * kept and a warning says so once. srv_engine_finish() writes one engine
 * row per instance that stated a fact, an error or its version, and for
 * a llama.cpp/Ollama instance whose ggml buffers (weights, KV cache,
 * compute) were on several GPUs, or on one other than the first, one
 * more row per GPU, instance "<name> device N" ("device N" for the main
 * process), holding that GPU's weights_bytes, kv_cache_bytes and
 * compute_buffer_bytes (the instance's own row keeps their sums), and,
 * from Ollama's offload line, its free_bytes (memory.available) and
 * requested_bytes (memory.required.allocations: what Ollama planned to
 * put there).
 */
#ifndef OOMLENS_SERVER_ENGINE_H
#define OOMLENS_SERVER_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/serving/engine_lines.h"
#include "parsers/serving/server_unwrap.h"
#include "parsers/common/sink.h"

#define SRV_ENGINES 64
#define SRV_ENGINE_ERRORS 32
#define SRV_ERROR_GAP 30
#define SRV_ERROR_TEXT 300
#define SRV_CAPTURE_LINES 2000      /* a capture's window, at most */
#define SRV_GGML_DEVS 16            /* GPUs whose ggml buffers are kept one by one */

struct srv_instance {
	enum engine_kind kind;
	char name[2 * SRV_NAME_MAX];
	uint32_t name_hash;          /* name_hash(name): compared before the name */
	char version[ENGINE_VERSION_MAX];
	double fact[EF__COUNT];      /* NaN: not said */
	int said;                    /* a fact, an error or the version: a row */
	uint64_t line;               /* the first line naming it */
	json_t *errors;              /* the error list, or NULL */
	int64_t dropped;             /* errors past SRV_ENGINE_ERRORS */
	enum engine_error last_error;
	uint64_t last_error_line;
	uint64_t capture_line;       /* a CUDA-graph capture began there; 0 none */
	uint32_t ggml_devs[3];       /* the GPUs (bit per index < 32) whose ggml buffer
				      * of weights, KV cache, compute is summed in */
	double ggml_dev[3][SRV_GGML_DEVS]; /* and each GPU's own (index < SRV_GGML_DEVS) */
	uint32_t plan_devs[2];       /* Ollama's per-GPU lists, the last said: */
	double plan[2][SRV_GGML_DEVS]; /* memory.available, memory.required.allocations */
};

/* Who a line is from (the inputs of its instance's name). */
struct srv_who {
	enum engine_kind kind;
	int64_t pid, rank;
	int tp, el_rank;
	int engine_no;               /* vLLM V1's "Engine 001:" number, else 0 */
	char service[SRV_NAME_MAX];
};

/* A line's instance seen lately, to know the next line of it without a
 * lookup. */
struct srv_seen {
	struct srv_who who;
	int set;                     /* who has an instance */
	unsigned gen;                /* srv_engine.gen when it was seen */
	char ent[64];                /* its statistics' entity */
};

#define SRV_COUNT_LINES 4   /* lines after its error a count may be on */

struct srv_engine {
	struct srv_instance inst[SRV_ENGINES];
	int n;
	int full_warned;
	unsigned lines[ENGINE__COUNT];  /* lines of each engine: the log's engine */
	/* SGLang's count lines read before their error was recorded (a
	 * traceback's piece records it when the piece ends): the last ones */
	struct { uint64_t line; const char *key; json_int_t v; } cnt[SRV_COUNT_LINES];
	unsigned cnt_next;
	unsigned gen;                /* counts the changes to inst[] (added, kind set) */
	int run;                     /* runs of the log begun since its first
				      * (srv_engine_new_run): instances named
				      * after then are another process's */
	int run_mark;                /* the failures and requests seen when the
				      * current run began (the caller's count) */
	struct srv_seen seen[2];     /* the last line's instance, then the one
				      * before that was another (a log's lines
				      * alternate between two most of the time) */
	char some[96];               /* TGI's "key: Some(" waiting for its value */
	enum oom_phase phase;        /* the phase the caller says the log is in:
				      * an engine_error event's "phase" */
	const char *family;          /* and the failure's wording family
				      * (parsers/serving/memfail.h), or NULL */
	const char *phase_by;        /* and how the phase was placed
				      * (srv_mem_phase_by), or NULL */
	size_t some_n;
	int ggml_table;              /* llama.cpp's memory breakdown header was
				      * read: its rows follow ("| CUDA0 ...") */
	int records;                 /* rows and events written */
	/* an engine_error event keep_error() did not write but left to the
	 * caller (held): TensorRT-LLM's memory error whose phase nothing
	 * above it named. TensorRT-LLM's exceptions print their C++ stack
	 * below the message (cpp/include/tensorrt_llm/common/tllmException.h),
	 * so the frames that follow may name it (server_log.c holds it as
	 * its lone OOM). Its data is owned while held. */
	struct ol_event held_ev;
	char held_summary[256];
	int held;
};

void srv_engine_init(struct srv_engine *e);
/* An engine's start-up banner after a failure or a request served in
 * this log (a PM_RESTART row, phase_table.h: a supervisor's restart, a
 * re-launch appended to the file): a new engine process. The instances
 * named from here on are new ones, named "<name>, run N" ("run N" for
 * the main process; N = 2 for the log's second run), so that each run's
 * facts are its own row and a failure is judged against its own run's
 * (analyzer/derive/oom.h OOM_OTHER_LOG_RUN). */
void srv_engine_new_run(struct srv_engine *e);
void srv_engine_release(struct srv_engine *e);

/* What line l says, into *el (joined to the line before when that one
 * was TGI's "key: Some("). served: a request was served, the phase
 * phrases are not looked for (engine_line_served()). Returns
 * engine_line()'s answer. */
int srv_engine_read(struct srv_engine *e, const struct srv_line *l, struct engine_line *el,
		    int served);

/* Record what l (line number lineno) said in *el: in_piece, the line is
 * part of a traceback or a PyTorch message. The instance's engine and
 * name go to *kind and ent (the statistics' entity, cap bytes), so the
 * caller can record the statistics; *error is the error recorded (after
 * the graph-capture rule), EE_NONE when none. 0, or -1 when the sink
 * failed. */
int srv_engine_line(struct srv_engine *e, struct sink *s, const struct srv_line *l,
		    const struct engine_line *el, uint64_t lineno, int in_piece,
		    char *ent, size_t cap, enum engine_error *error);

/* SGLang's decode or prefill OOM goes on over lines with its counts
 * ("Try to allocate 148 tokens.", "Available tokens: 2048", its own
 * "Avaliable" too): line m[0..n) (number lineno) as such a line of the
 * instance whose last error was one, within SRV_COUNT_LINES of it, is
 * kept in that error's entry (asked_tokens, available_tokens): the
 * first line alone cannot tell a full pool from an allocator that
 * under-counted. 1 when kept, 0 not such a line. */
int srv_engine_counts(struct srv_engine *e, const char *m, size_t n, uint64_t lineno);

/* The engine rows, at the end of the artifact. 0, or -1 when the sink
 * failed. */
int srv_engine_finish(struct srv_engine *e, struct sink *s);

#endif
