/*
 * startup_killed.c -- a SIGKILL of unknown sender while the program's
 * own lines show it starting (loading its weights, profiling, allocating
 * its cache), and no OOM anywhere else: the start-up, likely, did not fit
 * the host's memory.
 *
 * A bare SIGKILL (a shell's "Killed", a launcher's "exits with return
 * code = -9": parsers/host/shell_kill.c) names no sender; settle.c keeps
 * it as "a kill of unknown cause" and the verdict stays no_oom. But the
 * reader also keeps the stage the program's lines last named above the
 * report (event data "phase", from the phase table's stage lines: the
 * transformers shard bar "Loading checkpoint shards",
 * modeling_utils.py@v4.36.0; llama.cpp's "load_tensors: loading model
 * tensors", src/llama-model.cpp@b5000). Killed in such a stage, nothing
 * had been served: no traffic could have grown it, and the one sender
 * that picks a process loading gigabytes of weights with nobody asking
 * is the kernel's OOM killer (or a container's limit). Real pastes:
 * tloen/alpaca-lora #546 (shards at 52 %, then "killed"; more host RAM
 * fixed it), and the held-out misses of round 16 ("start-ups that ended
 * in a plain SIGKILL"). So: misconfig, likely, at that phase, said as
 * inferred (score RL_KILLED_SCORE), and the kernel's log named as the
 * evidence that would settle it (settle.c rl_missing_evidence).
 *
 * Not made: where an OOM was recorded (the OOM's own rules judge it);
 * where the killer is named (killers.c); where the stage above the kill
 * is not a start-up one (serving, training: a kill there is any load's).
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <string.h>

/* Below the kernel-report rules (a named OOM killer), above
 * VERDICT_MIN_SCORE: the sender is inferred, the stage is read. */
#define RL_KILLED_SCORE 0.45

/* The advice for a kill while the weights loaded, else while the engine
 * sized its caches (profile, kv_alloc, graph_capture, warmup). */
static void killed_advice(struct rl_finding *f, const char *phase)
{
	if (!strcmp(phase, "load_weights"))
		rl_advice(f, "A SIGKILL while the weights load, with nothing served, is what the"
			  " kernel's OOM killer (or a container's memory limit) sends when the load"
			  " does not fit the host's RAM: the loader reads each checkpoint shard"
			  " through host memory before it reaches a device, each process its own"
			  " copy. Give the process more RAM (the host, the container's or cgroup's"
			  " memory limit), add swap, load with fewer processes on one host, or load"
			  " lazily (transformers: low_cpu_mem_usage=True or a device_map; a"
			  " quantized or smaller model).");
	else
		rl_advice(f, "A SIGKILL while the engine sizes its caches, with nothing served, is"
			  " what the kernel's OOM killer (or a container's memory limit) sends when"
			  " the host's share of the start-up (pinned buffers, a CPU KV cache or"
			  " swap space, each worker's copy) does not fit its RAM: lower the host"
			  " buffers the engine reserves, or give it more RAM.");
	rl_advice(f, "The sender is inferred: the kernel's log at that moment (`journalctl -k`"
		  " or `dmesg -T`) names the victim if its OOM killer sent it.");
}

/* The last path component of path. */
static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int rule_startup_killed(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	struct rl_finding f;
	char phase[32], file[200];
	int64_t line, at;
	int r;

	if (c->has_oom)
		return 0;
	r = rl_first_row(c, "SELECT json_extract(e.data, '$.phase'), coalesce(e.line, 0),"
			 " coalesce(json_extract(e.data, '$.phase_line'), 0), coalesce(a.path, '')"
			 " FROM event e LEFT JOIN artifact a ON a.id = e.artifact_id"
			 " WHERE e.kind = 'process_crash' AND json_valid(e.data)"
			 " AND json_extract(e.data, '$.signal') = 'SIGKILL'"
			 " AND json_extract(e.data, '$.killer') IS NULL"
			 " AND json_extract(e.data, '$.phase') IN ('load_weights', 'profile', 'kv_alloc',"
			 " 'graph_capture', 'warmup', 'startup') ORDER BY e.time_ns, e.id LIMIT 1", &st);
	if (r <= 0)
		return r;
	snprintf(phase, sizeof(phase), "%s", (const char *)sqlite3_column_text(st, 0));
	line = sqlite3_column_int64(st, 1);
	at = sqlite3_column_int64(st, 2);
	snprintf(file, sizeof(file), "%s", (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);

	rl_finding_init(&f, "startup_killed", "misconfig", "killed_at_startup");
	f.score = RL_KILLED_SCORE;
	f.phase = phase;
	rl_fig(&f, "kill_line", (double)line);
	rl_fig(&f, "stage_line", (double)at);
	snprintf(f.title, sizeof(f.title), "Killed by SIGKILL while %s (%.60s line %lld, the"
		 " stage named at line %lld), nothing served: the start-up did not fit the host's"
		 " memory, likely (the sender inferred)",
		 !strcmp(phase, "load_weights") ? "loading the model's weights" :
		 "the engine set up its memory", file[0] ? base_of(file) : "the log",
		 (long long)line, (long long)at);
	killed_advice(&f, phase);
	r = rl_finding_write(c, &f);
	return r < 0 ? -1 : 1;
}
