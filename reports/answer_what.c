/*
 * answer_what.c -- the answer's sentence of what happened: which process,
 * which memory, in which phase (row 1 of table oom and the verdict's
 * phase), how that phase was placed, and then what became of the server
 * the OOM hit (oom.survival). Read from the database only; load_answer
 * (answer.c) puts the sentence in the model every format renders.
 */
#include "reports/section.h"
#include "reports/summary.h"
#include "reports/answer_parts.h"
#include "analyzer/store/query.h"
#include "lib/common.h"
#include "lib/mem_family.h"

#include <stdio.h>
#include <string.h>

/* The phase as a clause for the sentence ("while loading the weights");
 * NULL when the evidence does not name it. fam: the OOM's wording
 * family (NULL none), whose graph word (lib/mem_family.h: CUDA's, HIP's,
 * an NPU's) names the graphs captured; a family with none says plain
 * graphs. A DeepSpeed job's load_weights is its engine's set-up (the
 * model, ZeRO's partitions, the optimizer states), before the first
 * training step. buf (n bytes) holds a clause built from the family's
 * graph word; the result is static text or buf. */
static const char *phase_clause(const char *p, const char *stack, const char *fam,
				char *buf, size_t n)
{
	static const char *const t[][2] = {
		{ "load_weights", "while loading the model's weights" },
		{ "profile", "during the engine's start-up profile run" },
		{ "kv_alloc", "while allocating the KV cache at start-up" },
		{ "graph_capture", "while capturing CUDA graphs at start-up" },
		{ "warmup", "while warming up, before the first request" },
		{ "serving", "while serving requests" },
		{ "training_step", "during a training step" },
		{ "eval", "during evaluation or inference" },
		{ "startup", "at start-up, before any request (the stage is not shown)" },
	};
	const struct mem_family *mf = mem_family_find(fam);
	size_t i;

	if (p && !strcmp(p, "graph_capture") && fam && *fam) {
		snprintf(buf, n, "while capturing %s at start-up",
			 mf && mf->graphs ? mf->graphs : "graphs");
		return buf;
	}
	if (p && stack && !strcmp(p, "load_weights") && !strncmp(stack, "deepspeed", 9))
		return "while DeepSpeed set up its engine (deepspeed.initialize), before the first"
		       " training step";
	for (i = 0; p && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(p, t[i][0]))
			return t[i][1];
	return NULL;
}

/* The subject of the answer's sentence for a wording family as its
 * users write it (lib/mem_family.h's name: "hip" is "HIP (ROCm)"); an
 * unknown one keeps its key. Which memory ran out and how its devices
 * are called is memory_of()'s, by scope. */
static const char *family_name(const char *f)
{
	const struct mem_family *mf = mem_family_find(f);

	return mf && mf->name ? mf->name : f;
}

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* The memory that ran out, by oom.scope (lib/vocab.h "OOM scopes") and,
 * for another accelerator, its wording family: "GPU memory", "TPU memory
 * (HBM)", "unified memory (the machine's RAM, shared by its GPU and
 * CPU)", "Ascend NPU memory"... *dev: the word before a device ordinal
 * ("gpu", "TPU", "device"). */
static const char *memory_of(const char *scope, const char *fam, const char *wording,
			     const char **dev)
{
	const struct mem_family *mf = mem_family_find(fam);

	*dev = "device ";
	/* a pool the program sized itself ran out, not the memory it sits
	 * in: ggml's context arena (ggml.c ggml_new_object, ggerganov/ggml
	 * @v0.0.1: "not enough space in the context's memory pool"), whose
	 * size is ggml_init_params.mem_size; a family that fixes no scope
	 * and names its own memory (DyNet's and cnn's pools) */
	if (wording && strstr(wording, "context's memory pool"))
		return "its ggml context's memory pool (an arena in host memory whose size the"
		       " program set itself, ggml_init_params.mem_size)";
	if (mf && !mf->scope && mf->memory)
		return mf->memory;
	if (!scope || !strcmp(scope, "gpu")) {
		*dev = "gpu";
		return "GPU memory";
	}
	if (!strcmp(scope, "host"))
		return "host memory";
	if (!strcmp(scope, "tpu")) {
		*dev = "TPU ";
		return "TPU memory (HBM)";
	}
	if (!strcmp(scope, "unified"))
		return "unified memory (the machine's RAM, shared by its GPU and CPU)";
	return mf && mf->memory ? mf->memory : "accelerator memory";
}

/* "python3 (pid 4312)", "process 4312", "python3" or "" into out. */
static void who(struct strbuf *out, const char *comm, int64_t pid)
{
	if (comm && *comm)
		strbuf_add_utf8(out, comm, strlen(comm));
	if (pid != OL_NULL)
		strbuf_addf(out, comm && *comm ? " (pid %lld)" : "process %lld", (long long)pid);
}

/* The kill decision of row 1 of oom when the kernel chose one process and
 * killed its child, the victim (mm/oom_kill.c to 5.0: "Kill process N (c)
 * score S or sacrifice child", then "Killed process M"): appends " chose
 * c (pid N, score S) and killed its child" to out and returns 1; else 0,
 * out unchanged. */
static int kill_decision(struct report_ctx *c, struct strbuf *out, int64_t victim)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT json_extract(e.data, '$.selected_pid'),"
				     " json_extract(e.data, '$.selected_comm'),"
				     " json_extract(e.data, '$.selected_score') FROM oom o JOIN event e"
				     " ON e.id = o.victim_event WHERE o.id = 1 AND json_valid(e.data)");
	int r = 0;

	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    victim != OL_NULL && sqlite3_column_int64(st, 0) != victim) {
		const char *comm = col(st, 1);
		long long pid = (long long)sqlite3_column_int64(st, 0);

		int score = sqlite3_column_type(st, 2) != SQLITE_NULL;

		if (comm && *comm) {
			strbuf_addstr(out, " chose ");
			strbuf_add_utf8(out, comm, strlen(comm));
			strbuf_addf(out, " (pid %lld", pid);
		} else {
			strbuf_addf(out, " chose process %lld%s", pid, score ? " (" : "");
		}
		if (score)
			strbuf_addf(out, "%sscore %lld", comm && *comm ? ", " : "",
				    (long long)sqlite3_column_int64(st, 2));
		strbuf_addstr(out, comm && *comm ? ") and killed its child" : score ?
			      ") and killed its child" : " and killed its child");
		r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

/* How the phase was placed, as a clause for the sentence (oom.phase_source,
 * docs/schema.md); NULL for none or a source not named here. */
static const char *placed_by(const char *src)
{
	static const char *const t[][2] = {
		{ "frames", "placed by the failure's own words or its traceback's frames" },
		{ "frame_names", "placed by the names of the program's own frames (inferred)" },
		{ "stage_line", "placed by the last stage line the program printed before it" },
		{ "startup_lines", "placed by the engine's start-up lines (inferred: no stage line"
		  " and no request served before it)" },
		{ "request_served", "placed by a request served before it" },
		{ "request_failed", "placed by the server's 5xx answer to the request it failed" },
		{ "engine_error", "placed by the engine's own error" },
		{ "engine_figures", "placed by the engine's own memory figures" },
		{ "failed_start", "placed by the engine's saying it never started" },
		{ "train_progress", "placed by the training loop's progress bar and the trainer's"
		  " launch configuration" },
		{ "same_failure", "placed by the traceback of the same failure, told again below"
		  " it (same time, same size asked)" },
	};
	size_t i;

	for (i = 0; src && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(src, t[i][0]))
			return t[i][1];
	return NULL;
}

/* The paste number a path's file name starts with ("02-run.log" -> 2),
 * as analyzer/derive/oom_paste.c reads it; -1 when none. */
static long paste_num(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	long n = 0;
	int k = 0;

	b = b ? b + 1 : path;
	if (!b)
		return -1;
	for (; b[k] >= '0' && b[k] <= '9' && k < 6; k++)
		n = n * 10 + (b[k] - '0');
	return k && (b[k] == '-' || b[k] == '_' || b[k] == '.' || b[k] == ' ') ? n : -1;
}

/* How another paste placed the phase (phase_source other_paste_time or
 * other_paste_order, path: that paste, oom.phase_artifact; fail: the
 * failure's own paste, may be NULL), as a sentence into out: its file
 * name, and for the order that it is inferred from the file names (an
 * earlier paste, or a later one that ends in a start-up or, phase
 * training_step, a training loop that did not finish; launch_command: a
 * command of an inference-only program). Nothing for another source. */
static void placed_by_paste(struct strbuf *out, const char *src, const char *path,
			    const char *fail, const char *phase)
{
	const char *b = strrchr(path, '/');
	int run = phase && !strcmp(phase, "training_step");
	int pass = phase && !strcmp(phase, "eval");

	b = b ? b + 1 : path;
	if (!strcmp(src, "other_paste_time")) {
		strbuf_addstr(out, " Phase placed by the last stage of ");
		strbuf_add_utf8(out, b, strlen(b));
		strbuf_addstr(out, ", another paste, at or before the failure's time.");
	} else if (!strcmp(src, "other_paste_order")) {
		strbuf_addstr(out, " Phase placed by the last stage of ");
		strbuf_add_utf8(out, b, strlen(b));
		if (fail && paste_num(path) > paste_num(fail) && paste_num(fail) >= 0)
			strbuf_addstr(out, run ? ", a later paste whose training loop did not finish:"
				      " order inferred from the file names."
				      : pass ? ", a later paste of an inference pass that held no"
				      " failure of its own: order inferred from the file names."
				      : ", a later paste whose start-up did not finish: order"
				      " inferred from the file names.");
		else
			strbuf_addstr(out, ", an earlier paste: order inferred from the file names.");
	} else if (!strcmp(src, "launch_command")) {
		strbuf_addstr(out, " Phase placed by the launch command in ");
		strbuf_add_utf8(out, b, strlen(b));
		strbuf_addstr(out, ": the program it runs does only inference, its whole run.");
	}
}

/* No OOM, but memory pressure the engine survived (a kv_retract finding,
 * analyzer/rules/retract.c: SGLang's retractions, its "Decode out of
 * memory happened" among them): the sentence says so, with the counts,
 * into out, and returns 1; 0 when there is none, out unchanged. */
static int survived_pressure(struct report_ctx *c, struct strbuf *out)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT json_extract(figures, '$.retract_events'),"
				     " json_extract(figures, '$.retracted_requests'), phase FROM finding"
				     " WHERE cause = 'kv_retract' AND json_valid(figures)"
				     " ORDER BY score DESC, id LIMIT 1");
	long long ev, rq;
	int r = 0;

	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		ev = sqlite3_column_int64(st, 0);
		rq = sqlite3_column_int64(st, 1);
		strbuf_addf(out, "No OOM ended the service: the engine's KV cache pool ran full%s and"
			    " it survived: %lld retraction%s (%lld request%s given back to its queue,"
			    " recomputed later). Nothing was killed and no request failed for"
			    " memory.", col(st, 2) && !strcmp(col(st, 2), "serving")
			    ? " while serving" : "", ev, ev == 1 ? "" : "s", rq, rq == 1 ? "" : "s");
		r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

void answer_what_happened(struct report_ctx *c, struct strbuf *out, const char *phase)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT kind, scope, device, cgroup, requested_bytes,"
				     " victim_pid, victim_comm, victim_bytes, phase, family, (SELECT"
				     " json_extract(e.data, '$.stack') FROM event e WHERE e.id ="
				     " oom.event_id AND json_valid(e.data)), total_bytes, free_bytes,"
				     " phase_source, phase, (SELECT a.path FROM artifact a WHERE"
				     " a.id = oom.phase_artifact), (SELECT a.path FROM artifact a"
				     " WHERE a.id = oom.artifact_id), (SELECT json_extract(e.data,"
				     " '$.wording') FROM event e WHERE e.id = oom.event_id AND"
				     " json_valid(e.data)), (SELECT json_extract(e.data, '$.app') FROM"
				     " event e WHERE e.id = oom.event_id AND json_valid(e.data))"
				     " FROM oom WHERE id = 1");
	char req[40] = "", vb[40] = "", dev[24] = "", tot[40] = "", fr[40] = "", pcbuf[96];
	const char *kind, *mem, *stack, *devword, *pc;
	struct strbuf v = STRBUF_INIT;

	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		if (r_int(c, "SELECT count(*) FROM event e" KILL_WHERE, 0) > 0) {
			/* a SIGKILL with no OOM to explain it (a container's exit
			 * 137 without OOMKilled): the verdict's words (settle.c) */
			strbuf_addstr(out, "No OOM recorded, but a kill of unknown cause was seen"
				      " (see the failures below): the node's kernel log around it"
				      " would say whether its OOM killer sent it.");
			sqlite3_finalize(st);
			return;
		}
		if (survived_pressure(c, out)) {
			sqlite3_finalize(st);
			return;
		}
		if (r_int(c, "SELECT count(*) FROM verdict WHERE class = 'leak'", 0) > 0 &&
		    r_int(c, "SELECT count(*) FROM event e" FAILURE_WHERE, 0) == 0) {
			/* memory samples still rising with no failure anywhere
			 * (analyzer/rules/samples.c, leak.c): a leak in progress,
			 * said as such on the first screen */
			strbuf_addstr(out, "No OOM recorded and nothing has failed yet, but memory"
				      " is still rising: a leak in progress (the finding below"
				      " gives its growth).");
			sqlite3_finalize(st);
			return;
		}
		strbuf_addstr(out, "No artifact records an OOM, a kill or a memory failure");
		if (r_int(c, "SELECT count(*) FROM event e" FAILURE_WHERE, 0) > 0)
			strbuf_addstr(out, ", but a failure was recorded: see the failures below.");
		else
			strbuf_addstr(out, ": what follows is a memory profile.");
		sqlite3_finalize(st);
		return;
	}
	kind = col(st, 0) ? col(st, 0) : "";
	if (sqlite3_column_type(st, 4) != SQLITE_NULL)
		fmt_bytes(req, sizeof(req), sqlite3_column_double(st, 4));
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		fmt_bytes(vb, sizeof(vb), sqlite3_column_double(st, 7));
	if (sqlite3_column_type(st, 11) != SQLITE_NULL && sqlite3_column_double(st, 11) > 0)
		fmt_bytes(tot, sizeof(tot), sqlite3_column_double(st, 11));
	if (sqlite3_column_type(st, 12) != SQLITE_NULL && sqlite3_column_double(st, 12) >= 0)
		fmt_bytes(fr, sizeof(fr), sqlite3_column_double(st, 12));
	mem = memory_of(col(st, 1), col(st, 9), col(st, 17), &devword);
	if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		snprintf(dev, sizeof(dev), " on %s%lld", devword,
			 (long long)sqlite3_column_int64(st, 2));
	who(&v, col(st, 6), sqlite3_column_type(st, 5) == SQLITE_NULL ? OL_NULL
						: sqlite3_column_int64(st, 5));
	if (!phase)
		phase = col(st, 8);
	stack = col(st, 10);
	pc = phase_clause(phase, stack, col(st, 9), pcbuf, sizeof(pcbuf));

	if (!strcmp(kind, "kernel_oom") || !strcmp(kind, "memcg_oom")) {
		if (!strcmp(kind, "memcg_oom"))
			strbuf_addstr(out, "A memory cgroup reached its limit");
		else
			strbuf_addstr(out, "The host ran out of memory");
		if (col(st, 3) && !strcmp(kind, "memcg_oom")) {
			strbuf_addstr(out, " (");
			strbuf_add_utf8(out, col(st, 3), strlen(col(st, 3)));
			strbuf_addstr(out, ")");
		}
		if (v.len) {
			strbuf_addstr(out, " and the kernel's OOM killer");
			if (!kill_decision(c, out, sqlite3_column_type(st, 5) == SQLITE_NULL ? OL_NULL
					   : sqlite3_column_int64(st, 5)))
				strbuf_addstr(out, " killed");
			strbuf_addf(out, " %s%s%s%s", v.buf, vb[0] ? ", which held " : "", vb,
				    vb[0] ? " resident" : "");
		}
		else
			strbuf_addstr(out, "; the kernel's OOM killer ran");
	} else if (!strcmp(kind, "userspace_kill")) {
		strbuf_addf(out, "A user-space OOM killer (earlyoom, systemd-oomd) killed %s%s%s",
			    v.len ? v.buf : "a process", vb[0] ? ", which held " : "", vb);
	} else if (!strcmp(kind, "k8s_oom_kill")) {
		strbuf_addf(out, "Kubernetes OOM-killed %s: the container reached its memory limit",
			    v.len ? v.buf : "a container");
	} else if (!strcmp(kind, "k8s_eviction")) {
		strbuf_addf(out, "Kubernetes evicted %s for memory pressure on the node",
			    v.len ? v.buf : "a pod");
	} else if (!strcmp(kind, "lsf_memlimit")) {
		strbuf_addf(out, "IBM LSF killed %s at its memory limit (TERM_MEMLIMIT)",
			    v.len ? v.buf : "a job");
	} else if (!strcmp(kind, "slurm_oom") || !strcmp(kind, "systemd_unit_oom")) {
		strbuf_addf(out, "%s says %s was killed for memory",
			    kind[0] == 's' && kind[1] == 'l' ? "Slurm" : "systemd",
			    v.len ? v.buf : "a job's process");
	} else if (!strcmp(kind, "alloc_failure")) {
		strbuf_addf(out, "The kernel failed a page allocation%s%s (a warning: nothing was"
			    " killed)", req[0] ? " of " : "", req);
	} else {
		/* a process's own allocation failed: PyTorch, CUDA, an engine, any stack */
		const char *fam = col(st, 9);
		/* one buffer beyond a per-allocation limit is no memory running
		 * out (analyzer/rules/startup_room.c) */
		int limit = r_int(c, "SELECT count(*) FROM verdict WHERE cause = 'allocation_limit'",
				  0) > 0;
		if (limit) {
			const char *fn = fam && *fam ? family_name(fam) : "The backend";
			strbuf_add_utf8(out, fn, strlen(fn));
			strbuf_addf(out, " refused %s%s as larger than its per-allocation limit, not"
				    " for want of %s", req[0] ? "an allocation of " : "one allocation",
				    req, mem);
			if (pc)
				strbuf_addf(out, ", %s", pc);
			strbuf_addstr(out, ".");
			goto done;
		}
		if (!strcmp(kind, "torch_oom") || !strcmp(kind, "torch_oom_count"))
			strbuf_addstr(out, "PyTorch ran out of ");
		else if (!strcmp(kind, "engine_oom"))
			strbuf_addstr(out, "The serving engine ran out of ");
		else if (fam && (!strcmp(fam, "ggml") || !strcmp(fam, "metal")) && col(st, 18) &&
			 *col(st, 18)) {
			/* the program whose stage line placed it (event data app):
			 * "whisper.cpp (ggml)", not every ggml program's list */
			strbuf_add_utf8(out, col(st, 18), strlen(col(st, 18)));
			strbuf_addstr(out, " (ggml) ran out of ");
		} else if (fam && *fam && strcmp(fam, "cuda")) {
			const char *fn = family_name(fam);
			strbuf_add_utf8(out, fn, strlen(fn));
			strbuf_addstr(out, " ran out of ");
		} else
			strbuf_addstr(out, "A CUDA allocation ran out of ");
		strbuf_addf(out, "%s%s", mem, dev);
		if (v.len)
			strbuf_addf(out, " in %s", v.buf);
		if (pc)
			strbuf_addf(out, " %s", pc);
		if (req[0])
			strbuf_addf(out, ": an allocation of %s failed", req);
		/* what the failure states of that memory: free, and of how much */
		if (fr[0])
			strbuf_addf(out, "%s%s free%s%s%s", req[0] ? " with " : " (", fr,
				    tot[0] ? " of " : "", tot, req[0] ? "" : ")");
		else if (tot[0])
			strbuf_addf(out, " (capacity %s)", tot);
		/* a per-process cap that ran out (rules/capacity.c): the free figure is not
		 * this process's to take, so the sentence must not let it read as room */
		if (r_int(c, "SELECT count(*) FROM finding WHERE cause = 'memory_fraction_cap'", 0) > 0)
			strbuf_addstr(out, ", out of this process's reach: its per-process cap ran out");
		strbuf_addstr(out, pc ? "." : " (the evidence does not name"
			      " the phase).");
		goto done;
	}
	if (pc)
		strbuf_addf(out, " %s", pc);
	strbuf_addstr(out, ".");
done:
	/* how the OOM's phase was placed, where the sentence names that phase */
	if (pc && col(st, 14) && !strcmp(phase, col(st, 14)) &&
	    placed_by(col(st, 13)))
		strbuf_addf(out, " Phase %s.", placed_by(col(st, 13)));
	else if (pc && col(st, 14) && !strcmp(phase, col(st, 14)) &&
		 col(st, 15))
		placed_by_paste(out, col(st, 13), col(st, 15), col(st, 16), phase);
	strbuf_inherit(out, &v);
	strbuf_release(&v);
	sqlite3_finalize(st);
}

/* What became of the server the OOM hit (oom.survival of row 1,
 * analyzer/derive/oom_fate.c), a sentence after what happened: it
 * survived (its log answers a request after the failure, or reaches its
 * serving stage, or the failure's own message says the program goes on
 * with a smaller batch) or the requests it answered after it, before a new
 * engine process or the log's end, all failed; nothing when the log
 * says neither. The line is the log's own. */
void answer_fate(struct report_ctx *c, struct strbuf *out)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT survival, survival_by, survival_line, phase,"
				     " (SELECT a.path FROM event e JOIN artifact a ON a.id = e.artifact_id"
				     "  WHERE e.id = oom.event_id) FROM oom WHERE id = 1"
				     " AND survival IN ('survived', 'died') AND survival_line IS NOT NULL");
	const char *sv, *by, *ph, *path;
	long long line;

	if (!st)
		return;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return;
	}
	sv = col(st, 0) ? col(st, 0) : "";
	by = col(st, 1) ? col(st, 1) : "";
	line = sqlite3_column_int64(st, 2);
	ph = col(st, 3) ? col(st, 3) : "unknown";
	path = col(st, 4);
	if (!strcmp(sv, "survived") && !strcmp(by, "batch_fallback")) {
		/* the failure's own words: the program retries the batch smaller */
		strbuf_addf(out, " The program survived it: its own message (line %lld", line);
		if (path) {
			strbuf_addstr(out, " of ");
			strbuf_add_utf8(out, path, strlen(path));
		}
		strbuf_addstr(out, ") says it caught the failure on one batch and goes on with"
			      " a smaller one.");
	} else if (!strcmp(sv, "survived")) {
		strbuf_addf(out, " The server survived it: its log %s after the failure (line %lld",
			    strcmp(by, "request_served") ? "goes on to its serving stage"
			    : "answers a request", line);
		if (path) {
			strbuf_addstr(out, " of ");
			strbuf_add_utf8(out, path, strlen(path));
		}
		strbuf_addstr(out, !strcmp(ph, "serving") ? "): a transient failure, not a crash."
			      : "): this failure is not the incident's end.");
	} else {
		strbuf_addf(out, " No request was served after it: what its log answers after the"
			    " failure, before a new engine process or the log's end, is an error"
			    " (line %lld", line);
		if (path) {
			strbuf_addstr(out, " of ");
			strbuf_add_utf8(out, path, strlen(path));
		}
		strbuf_addstr(out, ").");
	}
	sqlite3_finalize(st);
}
