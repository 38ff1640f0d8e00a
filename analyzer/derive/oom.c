/*
 * oom.c -- the incident's OOMs, once: table `oom` (docs/schema.md), one
 * row per OOM or memory failure the artifacts record, and "the OOM" of
 * every report and rule, the row with id 1.
 *
 * What is an OOM here (the event kinds the parsers write): a kernel OOM
 * report (its oom_invoked header, its oom_kill victims, its oom_no_kill
 * and the oom_reaper lines of its kill are one row: kernel_oom, or
 * memcg_oom when a memory cgroup's limit was hit); a kill by a userspace
 * killer (userspace_kill: earlyoom, systemd-oomd; k8s_oom_kill,
 * k8s_eviction for memory, slurm_oom, lsf_memlimit (IBM LSF's
 * TERM_MEMLIMIT), systemd_unit_oom by systemd-oomd);
 * a PyTorch out-of-memory error (torch_oom; the same error read from a
 * snapshot and a log, same_as_event, is one row); a CUDA exception or an
 * Nsight-recorded allocation call that says out of memory; a serving
 * engine's memory error (engine_error, or a server_error whose traceback
 * names one; an engine whose own count leaves no KV cache); any stack's
 * memory failure the generic recogniser read (mem_failure); PyTorch's
 * count of the OOMs it caught (memory_stats num_ooms); and the warnings that memory ran short without a kill
 * (alloc_failure, a page-allocation failure).
 *
 * The rule for "the OOM" (OOM_ORDER): failures before warnings (a
 * page-allocation failure is the OOM only when nothing else is), then
 * the latest run's rows first when the folder holds several runs of the
 * service (oom_run.c: column run; with one run it is NULL everywhere),
 * then rows with a UTC time before rows without, by time, then by time
 * since boot, then in the order the artifacts were read.
 */
#include "analyzer/derive/derive.h"
#include "analyzer/derive/oom.h"
#include "analyzer/store/query.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <string.h>

#define OOM_EVIDENCE_CAP 64   /* event ids kept per row; the rest are counted */

static const char oom_schema[] =
	"DROP VIEW IF EXISTS oom_victim;"
	"DROP TABLE IF EXISTS oom;"
	"DROP TABLE IF EXISTS temp.oom_cand;"
	"CREATE TABLE oom(id INTEGER PRIMARY KEY, time_ns INTEGER, boot_ns INTEGER,"
	" clock TEXT NOT NULL, kind TEXT NOT NULL, scope TEXT NOT NULL, device INTEGER,"
	" cgroup TEXT, requested_bytes INTEGER, invoker_pid INTEGER, invoker_comm TEXT,"
	" victim_pid INTEGER, victim_comm TEXT, victim_bytes INTEGER, victim_event INTEGER,"
	" phase TEXT NOT NULL DEFAULT 'unknown', family TEXT, event_id INTEGER,"
	" evidence TEXT NOT NULL, artifact_id INTEGER, total_bytes INTEGER, free_bytes INTEGER,"
	" phase_source TEXT, phase_artifact INTEGER, survival TEXT NOT NULL DEFAULT 'unknown',"
	" survival_by TEXT, survival_line INTEGER, build_tool TEXT, run INTEGER, run_by TEXT,"
	" progress TEXT, progress_done INTEGER, progress_unit TEXT);"
	"CREATE TEMP TABLE oom_cand(time_ns INTEGER, boot_ns INTEGER, clock TEXT, kind TEXT,"
	" scope TEXT, device INTEGER, cgroup TEXT, requested_bytes INTEGER, invoker_pid INTEGER,"
	" invoker_comm TEXT, victim_pid INTEGER, victim_comm TEXT, victim_bytes INTEGER,"
	" victim_event INTEGER, event_id INTEGER, evidence TEXT, artifact_id INTEGER, phase TEXT,"
	" family TEXT, total_bytes INTEGER, free_bytes INTEGER, phase_source TEXT,"
	" phase_artifact INTEGER, run INTEGER, run_by TEXT);";

/* The columns every non-kernel candidate takes from its one event e. */
/* The candidate columns every INSERT gives (phase and family are read
 * from the main event afterwards). */
#define CAND_NAMES "time_ns, boot_ns, clock, kind, scope, device, cgroup, requested_bytes," \
	" invoker_pid, invoker_comm, victim_pid, victim_comm, victim_bytes, victim_event," \
	" event_id, evidence, artifact_id"
#define CAND_COLS "INSERT INTO temp.oom_cand(" CAND_NAMES ") SELECT e.time_ns, e.boot_ns," \
	" CASE WHEN e.time_ns IS NULL THEN CASE WHEN e.boot_ns IS NULL THEN 'none' ELSE 'boot' END" \
	"  WHEN e.clock = 'local' THEN 'local' ELSE 'utc' END, "
#define JD(key) "CASE WHEN json_valid(e.data) THEN json_extract(e.data, '$." key "') END"

/* why into err (may be NULL); returns -1. */
static int failed(struct strbuf *err, const char *why)
{
	if (err)
		strbuf_addstr(err, why);
	return -1;
}

/* The engine errors that are memory failures (docs/json.md, engines
 * errors): not the warning that expandable segments are unsupported, not
 * SGLang's retraction (it recovers), not the engine dying of some other
 * error, nor TGI's ShardCannotStart, which any shard failure ends with (a
 * ValueError, a signal 4: tests/data/real/serving, issue 27); a shard's
 * OOM is the PyTorch OOM its log prints. */
#define ENGINE_OOM_ERRORS "('kv_no_memory', 'max_len_exceeds_kv', 'free_below_utilization'," \
	" 'cuda_oom', 'graph_capture_oom', 'prefill_oom', 'decode_oom'," \
	" 'nccl_oom', 'cublas_alloc_failed', 'trt_oom')"

static const char *const single_sql[] = {
	/* PyTorch's OOM: the one another artifact repeats is the same row */
	CAND_COLS "'torch_oom', 'gpu', " JD("device") ", NULL,"
	" coalesce(" JD("requested_bytes") ", e.bytes), e.pid, e.comm,"
	" coalesce(e.pid, (SELECT o.pid FROM event o WHERE o.kind = 'torch_oom' AND"
	"  json_valid(o.data) AND json_extract(o.data, '$.same_as_event') = e.id AND o.pid IS NOT NULL)),"
	" coalesce(e.comm, (SELECT o.comm FROM event o WHERE o.kind = 'torch_oom' AND"
	"  json_valid(o.data) AND json_extract(o.data, '$.same_as_event') = e.id AND o.comm IS NOT NULL)),"
	" NULL, e.id, e.id, (SELECT json_group_array(x.id) FROM (SELECT e.id AS id UNION ALL"
	"  SELECT o.id FROM event o WHERE o.kind = 'torch_oom' AND json_valid(o.data) AND"
	"  json_extract(o.data, '$.same_as_event') = e.id ORDER BY 1) x), e.artifact_id"
	" FROM event e WHERE e.kind = 'torch_oom' AND " JD("same_as_event") " IS NULL",
	/* a CUDA exception that says out of memory, one row per message */
	CAND_COLS "'cuda_oom', 'gpu', " JD("device") ", NULL, NULL, e.pid, e.comm, e.pid, e.comm,"
	" NULL, e.id, e.id, json_array(e.id), e.artifact_id FROM event e"
	" WHERE e.kind = 'cuda_exception' AND lower(e.summary) LIKE '%out of memory%'"
	" AND e.id = (SELECT min(o.id) FROM event o WHERE o.kind = 'cuda_exception'"
	"  AND o.summary = e.summary AND o.time_ns IS e.time_ns)",
	/* a CUDA allocation call that failed for memory (Nsight Systems) */
	CAND_COLS "'alloc_failed', 'gpu', NULL, NULL, e.bytes, e.pid, e.comm, e.pid, e.comm, NULL,"
	" e.id, e.id, json_array(e.id), e.artifact_id FROM event e"
	" WHERE e.kind = 'alloc_failed' AND coalesce(" JD("out_of_memory") ", 1)",
	/* a serving engine's memory error, on its own line or in a traceback;
	 * not the line that tells the PyTorch OOM of the same log within 30
	 * lines again (that OOM is the row, with its figures) */
	CAND_COLS "'engine_oom', 'gpu', NULL, NULL, NULL, e.pid, e.comm, e.pid, e.comm, NULL,"
	" e.id, e.id, json_array(e.id), e.artifact_id FROM event e WHERE ((e.kind = 'engine_error'"
	" AND " JD("error") " IN " ENGINE_OOM_ERRORS ") OR (e.kind = 'server_error' AND "
	JD("engine_error") " IN " ENGINE_OOM_ERRORS ")) AND NOT EXISTS (SELECT 1 FROM event t"
	" WHERE t.kind = 'torch_oom' AND t.artifact_id IS e.artifact_id"
	" AND abs(coalesce(t.line, 0) - coalesce(e.line, 0)) <= 30)",
	/* any stack's memory failure the generic recogniser read (ROCm/HIP,
	 * ggml, Metal, MPS, XLA, cuDNN...), in host memory when it says so
	 * (ggml's CPU buffers: data.host); the line that repeats a PyTorch
	 * OOM of the same log within 30 lines is that OOM's */
	CAND_COLS "'mem_failure', CASE WHEN " JD("host") " THEN 'host' ELSE 'gpu' END, "
	JD("device") ", NULL, " JD("requested_bytes") ","
	" e.pid, e.comm, e.pid, e.comm, NULL, e.id, e.id, json_array(e.id), e.artifact_id"
	" FROM event e WHERE e.kind = 'mem_failure' AND NOT EXISTS (SELECT 1 FROM event t"
	" WHERE t.kind = 'torch_oom' AND t.artifact_id IS e.artifact_id"
	" AND abs(coalesce(t.line, 0) - coalesce(e.line, 0)) <= 30)",
	/* userspace killers */
	CAND_COLS "e.kind, 'host', NULL, " JD("cgroup") ", NULL, NULL, NULL, e.pid, e.comm, e.bytes,"
	" e.id, e.id, json_array(e.id), e.artifact_id FROM event e WHERE e.kind = 'userspace_kill'",
	CAND_COLS "e.kind, 'host', NULL, NULL, NULL, NULL, NULL, e.pid, coalesce(e.comm, "
	JD("container") "), NULL, e.id, e.id, json_array(e.id), e.artifact_id FROM event e"
	" WHERE e.kind = 'k8s_oom_kill' OR (e.kind = 'k8s_eviction' AND coalesce("
	JD("resource") ", 'memory') = 'memory')",
	CAND_COLS "e.kind, 'host', NULL, NULL, NULL, NULL, NULL, e.pid, e.comm, NULL, e.id, e.id,"
	" json_array(e.id), e.artifact_id FROM event e WHERE e.kind = 'slurm_oom'"
	" OR e.kind = 'systemd_unit_oom' OR e.kind = 'lsf_memlimit'",
	/* PyTorch's own count of the OOMs it caught (memory_stats num_ooms,
	 * the series torch.num_ooms): one row per device counted, when they
	 * happened unknown; the dumps that count them are the evidence */
	"INSERT INTO temp.oom_cand(" CAND_NAMES ") SELECT NULL, NULL, 'none', 'torch_oom_count', 'gpu',"
	" CASE WHEN s.entity GLOB 'cuda:[0-9]*' THEN CAST(substr(s.entity, 6) AS INTEGER) END,"
	" NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
	" (SELECT min(id) FROM event WHERE kind = 'torch_memory_stats' AND json_valid(data)"
	"  AND json_extract(data, '$.num_ooms') > 0),"
	" (SELECT json_group_array(o.id) FROM (SELECT id FROM event WHERE kind ="
	"  'torch_memory_stats' AND json_valid(data) AND json_extract(data, '$.num_ooms') > 0"
	"  ORDER BY id LIMIT 64) o), s.artifact_id FROM series s WHERE s.name = 'torch.num_ooms'"
	" AND sample_max(s.id) > 0",   /* a sample above 0 (samples_read.c) */
	/* a page-allocation failure: memory ran short, nothing was killed */
	CAND_COLS "'alloc_failure', 'host', NULL, NULL, e.bytes, e.pid, e.comm, NULL, NULL, NULL,"
	" NULL, e.id, json_array(e.id), e.artifact_id FROM event e WHERE e.kind = 'alloc_failure'",
	NULL
};

/* A serving engine instance whose memory errors (engine.errors) or own
 * count (GPU blocks or KV cache bytes not above zero: it cannot serve)
 * say it failed for memory, when no event of its log is already a row:
 * one row per instance, at its first memory error (no time for a count
 * alone). No event: event_id NULL, evidence []. */
static const char engine_sql[] =
	"INSERT INTO temp.oom_cand(" CAND_NAMES ") SELECT x.t, NULL, CASE WHEN x.t IS NULL THEN 'none'"
	" WHEN x.clock = 'local' THEN 'local' ELSE 'utc' END, 'engine_oom', 'gpu', NULL, NULL,"
	" n.requested_bytes, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '[]', n.artifact_id"
	" FROM engine n LEFT JOIN (SELECT n2.rowid AS rid, json_extract(j.value, '$.time_ns') AS t,"
	"  json_extract(j.value, '$.clock') AS clock, min(j.key) FROM engine n2,"
	"  json_each(CASE WHEN json_valid(n2.errors) THEN n2.errors ELSE '[]' END) j"
	"  WHERE json_extract(j.value, '$.kind') IN " ENGINE_OOM_ERRORS " GROUP BY n2.rowid) x"
	" ON x.rid = n.rowid"
	" WHERE (x.rid IS NOT NULL OR n.gpu_blocks <= 0 OR n.kv_cache_bytes < 0"
	"  OR n.kv_cache_tokens < 0)"
	" AND NOT EXISTS (SELECT 1 FROM temp.oom_cand o WHERE o.scope = 'gpu'"
	"  AND o.artifact_id IS n.artifact_id)";

/* The phase of an engine's own count, or of its memory error whose event named
 * none: what its errors or figures say the start-up was doing. No KV blocks, a
 * negative KV size, "No available memory for the cache blocks", a
 * max_model_len the cache cannot hold: sizing the KV cache (kv_alloc);
 * an OOM while capturing graphs: graph_capture; free memory below the
 * share asked for: the memory profile that sizes it (profile). */
#define ENGINE_ERR_IS(kinds) "EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(n.errors)" \
	" THEN n.errors ELSE '[]' END) j WHERE json_extract(j.value, '$.kind') IN " kinds ")"
static const char engine_phase_sql[] =
	"UPDATE temp.oom_cand SET phase = (SELECT CASE"
	"  WHEN max(n.gpu_blocks <= 0 OR n.kv_cache_bytes < 0 OR n.kv_cache_tokens < 0 OR"
	"   " ENGINE_ERR_IS("('kv_no_memory', 'max_len_exceeds_kv')") ") THEN 'kv_alloc'"
	"  WHEN max(" ENGINE_ERR_IS("('graph_capture_oom')") ") THEN 'graph_capture'"
	"  WHEN max(" ENGINE_ERR_IS("('free_below_utilization')") ") THEN 'profile' END"
	"  FROM engine n WHERE n.artifact_id IS temp.oom_cand.artifact_id),"
	" phase_source = 'engine_figures'"
	" WHERE kind = 'engine_oom' AND coalesce(phase, 'unknown') = 'unknown'";

/* Start-up with the stage not shown: a failure no source placed, in an
 * artifact whose engine says it never started (TGI's ShardCannotStart
 * and "Shard 0 failed to start", vLLM's "EngineCore failed to start" and
 * "Engine core initialization failed", "Engine process failed to
 * start", a model that failed to load: the words engine_facts.c reads as
 * failed_start). Such an engine served nothing, so the failure came
 * before serving; which stage it was in, nothing says. Runs last, after
 * every source that names a stage. */
static const char startup_phase_sql[] =
	"UPDATE temp.oom_cand SET phase = 'startup', phase_source = 'failed_start'"
	" WHERE coalesce(phase, 'unknown') = 'unknown' AND EXISTS (SELECT 1 FROM engine n,"
	"  json_each(CASE WHEN json_valid(n.errors) THEN n.errors ELSE '[]' END) j"
	"  WHERE n.artifact_id IS temp.oom_cand.artifact_id AND"
	"  (json_extract(j.value, '$.kind') = 'shard_cannot_start' OR "
	DERIVE_FAILED_START("json_extract(j.value, '$.text')") "))";

/* The phase an engine's memory error names by its kind, for the row of an
 * engine_error (or a server_error naming one) whose own lines named none:
 * no memory for the cache blocks, a max_model_len the cache cannot hold
 * (kv_alloc: vLLM's raise_if_cache_size_invalid and
 * _check_enough_kv_cache_memory, SGLang's profiled value), an OOM in graph
 * capture, free memory below the share asked for (the profile run). Runs
 * after the events' own phases were copied and before engine_phase_sql. */
static const char error_phase_sql[] =
	"UPDATE temp.oom_cand SET phase = (SELECT CASE coalesce(json_extract(e.data, '$.error'),"
	"   json_extract(e.data, '$.engine_error'))"
	"  WHEN 'kv_no_memory' THEN 'kv_alloc' WHEN 'max_len_exceeds_kv' THEN 'kv_alloc'"
	"  WHEN 'graph_capture_oom' THEN 'graph_capture' WHEN 'free_below_utilization' THEN 'profile'"
	"  END FROM event e WHERE e.id = temp.oom_cand.event_id AND json_valid(e.data)),"
	" phase_source = 'engine_error'"
	" WHERE kind = 'engine_oom' AND event_id IS NOT NULL AND coalesce(phase, 'unknown') = 'unknown'";

/* A training step by the program's own progress and configuration
 * (set 6, spent round 7, w-spent6p): a failure nothing placed, in a log
 * whose progress bar (or step line) stopped past its first step and
 * short of its total (server_progress.c's train_progress: a loop was
 * running), in an incident whose launch configuration states a
 * trainer's own knobs (launch.train_batch_size, launch.grad_accum_steps:
 * transformers' TrainingArguments per_device_train_batch_size and
 * gradient_accumulation_steps, DeepSpeed's train_micro_batch_size_per_gpu,
 * launch_table.c), failed in that loop's step. A bar alone says only that
 * a loop ran (a generation or an evaluation runs under tqdm too); a
 * trainer's knobs alone say nothing of when. A bar only a trainer draws
 * (train_progress loop "training": text-generation-webui's training tab,
 * round 10) says both. Runs after every source that names a stage, before
 * startup_phase_sql. */
static const char training_phase_sql[] =
	"UPDATE temp.oom_cand SET phase = 'training_step', phase_source = 'train_progress'"
	" WHERE coalesce(phase, 'unknown') = 'unknown' AND EXISTS (SELECT 1 FROM event e"
	"  WHERE e.kind = 'train_progress' AND e.artifact_id IS temp.oom_cand.artifact_id"
	"  AND json_valid(e.data) AND json_extract(e.data, '$.steps_done') > 0"
	"  AND (json_extract(e.data, '$.steps_total') IS NULL"
	"   OR json_extract(e.data, '$.steps_done') < json_extract(e.data, '$.steps_total'))"
	"  AND (json_extract(e.data, '$.loop') = 'training'"
	"   OR EXISTS (SELECT 1 FROM meta m WHERE m.key IN ('launch.train_batch_size',"
	"    'launch.grad_accum_steps'))))";

/* o is the same failure as the candidate being updated (same_failure_sql) */
#define SAME_FAILURE "o.rowid <> temp.oom_cand.rowid" \
	" AND o.artifact_id IS temp.oom_cand.artifact_id AND o.time_ns = temp.oom_cand.time_ns" \
	" AND o.requested_bytes = temp.oom_cand.requested_bytes" \
	" AND (o.device IS NULL OR temp.oom_cand.device IS NULL OR o.device = temp.oom_cand.device)" \
	" AND coalesce(o.phase, 'unknown') NOT IN ('unknown', '', 'startup')"

/* One failure told twice in one file (set 10, spent round 9,
 * w-spent10c): a stack's own log line first, the program's exception
 * below it, after a dump between (XLA's "E... Execution of replica 0
 * failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate N
 * bytes." and its BufferAssignment dump, then JAX's traceback ending in
 * XlaRuntimeError with the same words; xla/pjrt
 * pjrt_stream_executor_client.cc logs the status the Python call then
 * raises). Two candidates of one file at the same time asking the very
 * same number of bytes are that one failure: the one left unknown takes
 * the phase the other's traceback named, when every such other names
 * the same one. Runs after every source of the row's own, before
 * another paste's (derive_oom_paste). */
static const char same_failure_sql[] =
	/* each candidate looks among its own file's at its own time: an index,
	 * or 20,000 kernel reports of one syslog weigh each other (t_scale) */
	"CREATE INDEX IF NOT EXISTS temp.oom_cand_when ON oom_cand(artifact_id, time_ns);"
	"UPDATE temp.oom_cand SET phase = (SELECT min(o.phase) FROM temp.oom_cand o"
	"  WHERE " SAME_FAILURE "), phase_source = 'same_failure'"
	" WHERE coalesce(phase, 'unknown') IN ('unknown', '') AND requested_bytes IS NOT NULL"
	" AND time_ns IS NOT NULL AND (SELECT count(DISTINCT o.phase) FROM temp.oom_cand o"
	"  WHERE " SAME_FAILURE ") = 1";

/* o is a PyTorch OOM the count row being updated counts (count_phase_sql) */
#define COUNTED_FAILURE "o.kind = 'torch_oom' AND (o.artifact_id IS temp.oom_cand.artifact_id" \
	" OR (SELECT a.path || char(0) || coalesce(a.container, '') FROM artifact a" \
	"  WHERE a.id = o.artifact_id) = (SELECT a.path || char(0) || coalesce(a.container, '')" \
	"  FROM artifact a WHERE a.id = temp.oom_cand.artifact_id))" \
	" AND (o.device IS NULL OR temp.oom_cand.device IS NULL OR o.device = temp.oom_cand.device)" \
	" AND coalesce(o.phase, 'unknown') NOT IN ('unknown', '', 'startup')"

/* PyTorch's own count of the OOMs it caught (torch_oom_count: the
 * memory summary's "CUDA OOMs: N" row, torch.cuda.memory_summary() of
 * pytorch/pytorch torch/cuda/memory.py@v2.2.0, or memory_stats'
 * num_ooms) counts the failures the same file's tracebacks tell: a
 * trainer that prints the summary when it catches the OOM puts both in
 * one log (CoreNet's Trainer.run, apple/corenet
 * corenet/engine/default_trainer.py, and apple/ml-cvnets'
 * engine/training_engine.py before it, indexed copies: on an exception
 * saying "out of memory" it logs "OOM exception occured" and prints
 * torch.cuda.memory_summary(abbreviated=True) of each device). The
 * count row, which says no when, takes the phase those tracebacks on
 * its device (or any, where it names none) name, when they all name
 * the same one. The summary's reader and the log's read one file as two
 * artifacts (one path, one container): the same file is either. Runs
 * after every source of the rows' own. */
static const char count_phase_sql[] =
	"UPDATE temp.oom_cand SET phase = (SELECT min(o.phase) FROM temp.oom_cand o"
	"  WHERE " COUNTED_FAILURE "), phase_source = 'same_failure'"
	" WHERE kind = 'torch_oom_count' AND coalesce(phase, 'unknown') IN ('unknown', '')"
	" AND (SELECT count(DISTINCT o.phase) FROM temp.oom_cand o WHERE " COUNTED_FAILURE ") = 1";

/* One kernel OOM report being gathered (kernel_reports). */
struct kreport {
	int open;
	int64_t artifact, inv, kill, first;   /* event ids; 0: none */
	int64_t kill_pid;
	int memcg, ids;
	struct strbuf evidence;               /* "[id,id" */
};

/* Write the report r gathered as a candidate row; r is closed. 0 or -1. */
static int kreport_flush(sqlite3 *db, struct kreport *r, struct strbuf *err)
{
	/* header fields from the oom_invoked, victim from the first kill */
	static const char sql[] =
		"INSERT INTO temp.oom_cand(" CAND_NAMES ") SELECT coalesce(i.time_ns, k.time_ns, f.time_ns),"
		" coalesce(i.boot_ns, k.boot_ns, f.boot_ns), NULL, ?3, 'host', NULL,"
		" coalesce(CASE WHEN json_valid(i.data) THEN json_extract(i.data, '$.oom_memcg') END,"
		"  CASE WHEN json_valid(k.data) THEN json_extract(k.data, '$.oom_memcg') END),"
		" i.bytes, i.pid, i.comm, k.pid, k.comm, k.bytes, k.id, f.id, ?4, f.artifact_id"
		" FROM event f LEFT JOIN event i ON i.id = ?1 LEFT JOIN event k ON k.id = ?2"
		" WHERE f.id = coalesce(nullif(?1, 0), nullif(?2, 0), ?5)";
	sqlite3_stmt *st;
	int rc;

	if (!r->open)
		return 0;
	r->open = 0;
	strbuf_addch(&r->evidence, ']');
	if (strbuf_failed(&r->evidence)) {
		return failed(err, "out of memory");
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		return failed(err, sqlite3_errmsg(db));
	}
	sqlite3_bind_int64(st, 1, r->inv);
	sqlite3_bind_int64(st, 2, r->kill);
	sqlite3_bind_text(st, 3, r->memcg ? "memcg_oom" : "kernel_oom", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->evidence.buf, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, r->first);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		return failed(err, sqlite3_errmsg(db));
	}
	return 0;
}

static void kreport_open(struct kreport *r, int64_t artifact, int64_t id)
{
	r->open = 1;
	r->artifact = artifact;
	r->inv = r->kill = 0;
	r->first = id;
	r->kill_pid = -1;
	r->memcg = 0;
	r->ids = 0;
	strbuf_reset(&r->evidence);
	strbuf_addch(&r->evidence, '[');
}

static void kreport_add(struct kreport *r, int64_t id)
{
	if (r->ids++ < OOM_EVIDENCE_CAP)
		strbuf_addf(&r->evidence, "%s%lld", r->ids > 1 ? "," : "", (long long)id);
}

/* Does event (kind, invoker) belong to the open report r of artifact a? */
static int kreport_takes(const struct kreport *r, int64_t a, const char *kind, int64_t link,
			 int64_t pid)
{
	if (!r->open || r->artifact != a)
		return 0;
	if (!strcmp(kind, "oom_kill"))
		return link ? link == r->inv : !r->kill;
	if (!strcmp(kind, "oom_no_kill"))
		return link ? link == r->inv : !r->kill;
	/* oom_reaper: the kill it names, else the victim's pid */
	return r->kill && (link ? link == r->kill : pid == r->kill_pid);
}

/* The kernel's OOM reports, one candidate each: a header opens a report,
 * its kills (invoker_event, else the next kill of the same log before
 * another header), its no-kill line and the reaper of its kill join it;
 * a kill or a reaper line with no report open is a report of its own (a
 * log cut before the header). 0 or -1. */
static int kernel_reports(sqlite3 *db, struct strbuf *err)
{
	static const char sql[] =
		"SELECT id, coalesce(artifact_id, 0), kind, CASE WHEN json_valid(data) THEN"
		" coalesce(json_extract(data, '$.invoker_event'), json_extract(data, '$.kill_event'))"
		" END, pid, CASE WHEN json_valid(data) THEN json_extract(data, '$.constraint') END"
		" FROM event WHERE kind IN ('oom_invoked', 'oom_kill', 'oom_no_kill', 'oom_reaper')"
		" ORDER BY artifact_id, id";
	struct kreport r = { 0 };
	sqlite3_stmt *st;
	int rc = 0;

	strbuf_init(&r.evidence);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		strbuf_release(&r.evidence);
		return failed(err, sqlite3_errmsg(db));
	}
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), a = sqlite3_column_int64(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		int64_t link = sqlite3_column_int64(st, 3);   /* 0 when NULL */
		int64_t pid = sqlite3_column_type(st, 4) == SQLITE_NULL ? -2 : sqlite3_column_int64(st, 4);
		const char *cons = (const char *)sqlite3_column_text(st, 5);

		if (!kind)
			continue;
		if (!strcmp(kind, "oom_invoked") || !kreport_takes(&r, a, kind, link, pid)) {
			rc = kreport_flush(db, &r, err);
			kreport_open(&r, a, id);
		}
		kreport_add(&r, id);
		if (!strcmp(kind, "oom_invoked"))
			r.inv = id;
		else if (!strcmp(kind, "oom_kill") && !r.kill) {
			r.kill = id;
			r.kill_pid = pid;
		}
		if (cons && !strcmp(cons, "memcg"))
			r.memcg = 1;
	}
	if (rc == 0)
		rc = kreport_flush(db, &r, err);
	sqlite3_finalize(st);
	strbuf_release(&r.evidence);
	return rc;
}

/* The scopes an event's data may name (lib/vocab.h VOCAB_SCOPES). */
#define SCOPES "('gpu', 'host', 'tpu', 'unified', 'accelerator')"

/* The order of "the OOM" (the file's header): warnings last, then time. */
#define OOM_ORDER "kind = 'alloc_failure', run IS NULL, run DESC, time_ns IS NULL, time_ns," \
	" boot_ns IS NULL, boot_ns, event_id"

/* The incident's victim (view oom_victim, one row or none): the process
 * of the first row that killed one (the kernel, a userspace killer,
 * Kubernetes: scope host), else the process of the first row that names
 * one (a PyTorch OOM's, whose "bytes" are the allocation that failed).
 * kind is the event that names it (oom_kill, userspace_kill, torch_oom...). */
#define OOM_VICTIM "SELECT o.id AS oom_id, e.kind AS kind, o.victim_pid AS pid," \
	" o.victim_comm AS comm, CASE WHEN e.kind = 'torch_oom' THEN o.requested_bytes" \
	" ELSE o.victim_bytes END AS bytes, o.victim_event AS event_id" \
	" FROM oom o JOIN event e ON e.id = o.victim_event" \
	" ORDER BY o.scope <> 'host', o.id LIMIT 1"

int derive_oom(sqlite3 *db, struct strbuf *err)
{
	char *msg = NULL;
	int i;

	if (sqlite3_exec(db, oom_schema, NULL, NULL, &msg) != SQLITE_OK)
		goto failed;
	/* first: each engine row's run of its log (engine.run), read below */
	if (derive_engine_runs(db, err) < 0)
		return -1;
	if (kernel_reports(db, err) < 0)
		return -1;
	for (i = 0; single_sql[i]; i++)
		if (sqlite3_exec(db, single_sql[i], NULL, NULL, &msg) != SQLITE_OK)
			goto failed;
	/* one kill that two pastes tell (get pods and describe) is one row */
	if (derive_oom_same_kill(db, err) < 0)
		return -1;
	if (q_has_table(db, "engine") && sqlite3_exec(db, engine_sql, NULL, NULL, &msg) != SQLITE_OK)
		goto failed;
	if (sqlite3_exec(db,
		"UPDATE temp.oom_cand SET clock = CASE WHEN time_ns IS NOT NULL THEN"
		" coalesce((SELECT CASE WHEN e.clock = 'local' THEN 'local' END FROM event e"
		"  WHERE e.id = event_id), 'utc')"
		" WHEN boot_ns IS NOT NULL THEN 'boot' ELSE 'none' END WHERE clock IS NULL;"
		/* the phase and the wording family the parser read (server logs) */
		"UPDATE temp.oom_cand SET phase = (SELECT json_extract(e.data, '$.phase') FROM event e"
		"  WHERE e.id = event_id AND json_valid(e.data)), family = (SELECT"
		"  json_extract(e.data, '$.family') FROM event e WHERE e.id = event_id"
		"  AND json_valid(e.data)), phase_source = (SELECT json_extract(e.data, '$.phase_by')"
		"  FROM event e WHERE e.id = event_id AND json_valid(e.data)) WHERE event_id IS NOT NULL;"
		/* a phase the parser named without saying how: no source */
		"UPDATE temp.oom_cand SET phase_source = NULL WHERE coalesce(phase, 'unknown')"
		"  IN ('unknown', '');"
		/* which memory ran out and what the failure states of it (its
		 * device's capacity, or the cap it hit; the free memory), as
		 * the parser read them (lib/vocab.h scopes) */
		"UPDATE temp.oom_cand SET scope = coalesce((SELECT json_extract(e.data, '$.scope')"
		"  FROM event e WHERE e.id = event_id AND json_valid(e.data) AND"
		"  json_extract(e.data, '$.scope') IN " SCOPES "), scope),"
		" total_bytes = (SELECT json_extract(e.data, '$.total_bytes') FROM event e"
		"  WHERE e.id = event_id AND json_valid(e.data)),"
		" free_bytes = (SELECT json_extract(e.data, '$.free_bytes') FROM event e"
		"  WHERE e.id = event_id AND json_valid(e.data))"
		" WHERE event_id IS NOT NULL AND kind IN ('torch_oom', 'mem_failure');",
		NULL, NULL, &msg) != SQLITE_OK
	    || sqlite3_exec(db, error_phase_sql, NULL, NULL, &msg) != SQLITE_OK
	    || (q_has_table(db, "meta")
		&& sqlite3_exec(db, training_phase_sql, NULL, NULL, &msg) != SQLITE_OK)
	    || (q_has_table(db, "engine")
		&& (sqlite3_exec(db, engine_phase_sql, NULL, NULL, &msg) != SQLITE_OK
		    || sqlite3_exec(db, startup_phase_sql, NULL, NULL, &msg) != SQLITE_OK)))
		goto failed;
	/* a failure told twice in its file: the other telling's phase */
	if (sqlite3_exec(db, same_failure_sql, NULL, NULL, &msg) != SQLITE_OK
	    || sqlite3_exec(db, count_phase_sql, NULL, NULL, &msg) != SQLITE_OK)
		goto failed;
	/* one line two readers read (kernel/Slurm and the generic words): one row */
	if (derive_oom_same_line(db, err) < 0)
		return -1;
	/* what no source of its own file placed: another paste's last stage */
	if (derive_oom_paste(db, err) < 0)
		return -1;
	/* which run of the service each failure belongs to: the latest first */
	if (derive_oom_runs(db, err) < 0)
		return -1;
	if (sqlite3_exec(db,
		"INSERT INTO oom(id, time_ns, boot_ns, clock, kind, scope, device, cgroup,"
		" requested_bytes, invoker_pid, invoker_comm, victim_pid, victim_comm, victim_bytes,"
		" victim_event, phase, family, event_id, evidence, artifact_id, total_bytes,"
		" free_bytes, phase_source, phase_artifact, run, run_by)"
		" SELECT row_number() OVER (ORDER BY " OOM_ORDER "), time_ns, boot_ns, clock, kind,"
		" scope, device, cgroup, requested_bytes, invoker_pid, invoker_comm, victim_pid,"
		" victim_comm, victim_bytes, victim_event, coalesce(phase, 'unknown'), family,"
		" event_id, evidence, artifact_id, total_bytes, free_bytes,"
		" CASE WHEN coalesce(phase, 'unknown') = 'unknown' THEN NULL ELSE phase_source END,"
		" CASE WHEN phase_source IN ('other_paste_time', 'other_paste_order', 'launch_command')"
		"  THEN phase_artifact END, run, run_by FROM temp.oom_cand;"
		"DROP TABLE temp.oom_cand;"
		"CREATE INDEX oom_event ON oom(event_id);"
		"DROP VIEW IF EXISTS oom_victim;"
		"CREATE VIEW oom_victim AS " OOM_VICTIM ";", NULL, NULL, &msg) != SQLITE_OK)
		goto failed;
	return 0;
failed:
	failed(err, msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}
