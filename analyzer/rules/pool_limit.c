/*
 * pool_limit.c -- misconfiguration of a pool the program sized once: the
 * memory failure of row 1 of table oom says that a pool allocated at
 * start-up, at the size a setting gives, is full (parsers/serving/
 * memfail_words.c, set 15 spent, w-spend15b):
 *   - DyNet's and cnn's memory pools (family `pool`: "dynet is out of
 *     memory, try increasing with --dynet-mem (current capacity: N)",
 *     clab/dynet dynet/aligned-mem-pool.h and .cc; "cnn is out of memory,
 *     try increasing with --cnn-mem", clab/cnn cnn/aligned-mem-pool.h);
 *   - vLLM V0's CPU swap space ("Aborted due to the lack of CPU swap
 *     space. Please increase the swap space to avoid this error.",
 *     vllm/core/scheduler.py _swap_out, v0.1.x-v0.6): --swap-space GiB
 *     per card, allocated when the engine starts.
 *   - ggml's context arena ("ggml_new_object: not enough space in the
 *     context's memory pool (needed N, available M)", ggml.c
 *     ggml_new_object at ggerganov/ggml@v0.0.1 and the copies whisper.cpp,
 *     encodec.cpp, starcoder.cpp and rustformers/llm vendored): the
 *     program allocates one buffer per context at ggml_init, of
 *     ggml_init_params.mem_size bytes its own code computes -- a constant
 *     or an estimate from the model's sizes, fixed when it was built --
 *     and tensors are placed in it until it is full. The machine's RAM
 *     did not run out; the size the program chose was too small for what
 *     this input or model asked. No flag sets it: the advice says so.
 *     Scored lower than a named flag (GGML_CTX_SCORE): an input much
 *     longer than the program's authors planned for (a long audio file,
 *     a long prompt) fills it the same way.
 *
 * The allocator refused because the pool was full, not because the device
 * or the host was: the pool's size is a setting, and the message names
 * it. So the class is misconfig in any phase, the knob the one the
 * message names (the flag after "try increasing with"), or what the step
 * asks of the pool (a smaller batch, shorter sequences, fewer sequences
 * preempted at once). A pool that fills because the program keeps what
 * it should free is a leak the message cannot tell apart; the finding
 * says so.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <string.h>

#define POOL_SCORE 0.7       /* the program's own words name the pool and its setting */
#define GGML_CTX_SCORE 0.55  /* the pool is named, its size is the program's code */

enum pool_kind { PK_NONE, PK_FRAMEWORK, PK_SWAP, PK_GGML_CTX };

/* Row 1 of oom when its event is a full pool: its phase into phase, the
 * line's text into line (the flag it names), its event id. The kind, or
 * PK_NONE; -1 failed. */
static int read_oom(struct rule_ctx *c, char *phase, size_t n, char *line, size_t ln,
		    int64_t *event_id)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT coalesce(o.phase, 'unknown'), o.event_id,"
		" json_extract(e.data, '$.family'), coalesce(json_extract(e.data, '$.text'),"
		"  e.summary, '')"
		" FROM oom o JOIN event e ON e.id = o.event_id"
		" WHERE o.id = 1 AND e.kind = 'mem_failure' AND json_valid(e.data)"
		" AND (json_extract(e.data, '$.family') = 'pool'"
		"  OR instr(json_extract(e.data, '$.wording'), 'lack of CPU swap space') > 0"
		"  OR (json_extract(e.data, '$.family') = 'ggml' AND"
		"   instr(json_extract(e.data, '$.wording'), 'context''s memory pool') > 0))");
	int r = PK_NONE;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *fam = sqlite3_column_text(st, 2);

		snprintf(phase, n, "%s", (const char *)sqlite3_column_text(st, 0));
		*event_id = sqlite3_column_int64(st, 1);
		snprintf(line, ln, "%s", (const char *)sqlite3_column_text(st, 3));
		r = fam && !strcmp((const char *)fam, "pool") ? PK_FRAMEWORK
		    : fam && !strcmp((const char *)fam, "ggml") ? PK_GGML_CTX : PK_SWAP;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : r;
}

/* The flag the message names after "try increasing with " into flag
 * ("--dynet-mem"); "" when it names none. */
static void named_flag(const char *line, char *flag, size_t n)
{
	const char *p = strstr(line, "try increasing with ");
	size_t k = 0;

	flag[0] = '\0';
	if (!p)
		return;
	for (p += 20; p[k] && p[k] != ' ' && p[k] != ')' && p[k] != ',' && k + 1 < n; k++)
		flag[k] = p[k];
	flag[k] = '\0';
}

/* Writes one misconfig finding (cause pool_limit) when row 1 of oom is a
 * full pool the program sized once. 1 written, 0 none, -1 failed. */
int rule_pool_limit(struct rule_ctx *c)
{
	struct rl_finding f;
	char phase[24], line[512], flag[64];
	int64_t event_id = 0, fid;
	int r;

	if ((r = read_oom(c, phase, sizeof(phase), line, sizeof(line), &event_id)) <= 0)
		return r;
	rl_finding_init(&f, "pool_limit", "misconfig", "pool_limit");
	f.score = POOL_SCORE;
	if (strcmp(phase, "unknown"))
		f.phase = phase;
	if (r == PK_FRAMEWORK) {
		named_flag(line, flag, sizeof(flag));
		snprintf(f.title, sizeof(f.title), "The program's own memory pool is full%s%s%s: it"
			 " was sized once, at start-up, by a setting", flag[0] ? " (sized by " : "",
			 flag, flag[0] ? ")" : "");
		rl_advice(&f, "The framework allocates one pool when it starts, at the size its"
			  " flag gives, and aborts when a computation asks for more: raise the"
			  " flag%s%s (in MB) to what the step needs, or make the step smaller (a"
			  " smaller batch, shorter sequences, a smaller model).",
			  flag[0] ? " " : "", flag);
	} else if (r == PK_GGML_CTX) {
		f.score = GGML_CTX_SCORE;
		snprintf(f.title, sizeof(f.title), "The program's ggml context pool is full: an"
			 " arena the program sized itself (ggml_init_params.mem_size), not the"
			 " machine's RAM, ran out");
		rl_advice(&f, "ggml places a context's tensors in one buffer allocated at"
			  " ggml_init, of the mem_size the program's own code gives (a constant"
			  " or an estimate from the model's sizes, set when the program was built;"
			  " no command-line flag sizes it): what this model or input asked"
			  " outgrew it. Raise that size in the program's source and rebuild, or"
			  " update the program (later versions size their contexts from the"
			  " graph they build), or give it a smaller model or a shorter input (a"
			  " shorter audio file, a shorter prompt or context).");
	} else {
		snprintf(f.title, sizeof(f.title), "vLLM's CPU swap space is full: the preempted"
			 " sequences' KV blocks did not fit the --swap-space it was given");
		rl_advice(&f, "vLLM (V0's scheduler) swaps a preempted sequence group's KV blocks"
			  " to a host pool of --swap-space GiB per card (4 by default), allocated"
			  " at start-up; with many or long sequences (n > 1, beam search, long"
			  " outputs) it fills. Raise swap_space where the host has the RAM, or ask"
			  " for fewer parallel samples, shorter sequences or fewer max_num_seqs.");
	}
	rl_advice(&f, "The message says the pool was full, not why: a program that keeps what"
		  " it should free fills it the same way.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", event_id, "the program's own message: a"
				   " pool sized at start-up is full") < 0)
		return -1;
	return 1;
}
