/*
 * sink.h -- what parsers produce, and the interface they hand it to.
 *
 * A parser turns one artifact into calls on a struct sink: events, task
 * rows, series samples, stacks, mappings, GPU objects, holders,
 * diagnostics. It knows
 * nothing about where they go. analyzer/store/timeline.c implements the sink over
 * SQLite; a zeroed struct sink (every op NULL) is the null sink used by the
 * fuzzers, and the sink_* wrappers below make a NULL op a no-op.
 *
 * Conventions for every record:
 *   - an unknown integer is OL_NULL (INT64_MIN), never 0;
 *   - an unknown string is NULL;
 *   - strings are borrowed: valid only during the call (the sink copies);
 *   - sizes are bytes unless the field name says otherwise (_kb, _pages).
 * Ops return an id (> 0) or 0 where there is none, and -1 when the store
 * failed; a parser stops on -1 (the artifact is then rolled back).
 *
 * Threads: a sink belongs to the thread that called the parser. Every op,
 * sink_diagf and the n_errors/n_warnings counters are used from that
 * thread only, so an implementation needs no locking and may do anything
 * (SQLite included) in any op. A parser that works in a second thread
 * gives that thread a sink of its own and hands what it produces,
 * diagnostics included, back to the calling thread (torch_pipe.h).
 */
#ifndef OOMLENS_SINK_H
#define OOMLENS_SINK_H

#include <stdint.h>
#include <stddef.h>
#include <jansson.h>

#include "lib/common.h"
#include "lib/engine_vocab.h"


/* Which clock a time was read on. */
enum ol_clock {
	OL_CLOCK_NONE = 0,  /* no time at all */
	OL_CLOCK_UTC,       /* utc_ns is UTC */
	OL_CLOCK_LOCAL,     /* wall clock of unknown zone, stored as if UTC */
	OL_CLOCK_BOOT,      /* only boot_ns is known (aligned later if anchored) */
};

/* A point in time as the artifact gave it. */
struct ol_time {
	enum ol_clock clock;
	int64_t utc_ns;       /* ns since the epoch, OL_NULL if unknown */
	int64_t boot_ns;      /* ns since boot, OL_NULL if unknown */
	const char *boot_id;  /* journal boot id, or NULL */
};

enum ol_severity { OL_INFO = 0, OL_WARN = 1, OL_ERROR = 2 };

/* Options a user gives that parsers need to place times. */
struct ingest_opts {
	int64_t boot_time_ns;   /* --boot-time, OL_NULL if not given */
	int tz_known;           /* --tz given */
	int32_t tz_offset_s;    /* local time = UTC + tz_offset_s */
	int year;               /* --year for year-less syslog, 0 = from mtime */
};

/* A discrete happening. data holds the kind's own fields (json object,
 * borrowed; may be NULL); docs/json.md lists them per kind. */
struct ol_event {
	const char *kind;       /* "oom_kill", "oom_invoked", "oom_reaper", ... */
	struct ol_time t;
	int64_t pid;
	const char *comm;
	int64_t bytes;          /* the kind's main size (e.g. rss freed, bytes requested) */
	uint64_t line;          /* 1-based source line, or byte offset for binary inputs */
	const char *summary;    /* one line for humans */
	json_t *data;
};

/* One row of the kernel's OOM task dump. Page columns are pages. */
struct ol_task {
	int64_t pid, uid, tgid;
	int64_t total_vm_pages, rss_pages;
	int64_t rss_anon_pages, rss_file_pages, rss_shmem_pages;
	int64_t pgtables_bytes, nr_ptes, nr_pmds, swapents;
	int64_t oom_adj, oom_score_adj;
	const char *name;
};

/* One stack frame, innermost first. */
struct ol_frame {
	const char *name;       /* function */
	const char *file;       /* source file or module path */
	int64_t line;           /* source line, or offset within module */
	const char *build_id;   /* hex, or NULL */
};

/* One capture of a process's mappings (smaps, smaps_rollup, core NT_FILE). */
struct ol_capture {
	const char *source;     /* "smaps", "smaps_rollup", "core" */
	struct ol_time t;
	int64_t pid;
	const char *comm;
	const char *status;     /* NULL, or "ESRCH"/"EACCES" for an empty record */
};

/* One VMA. Sizes in kB as smaps prints them; kinds: heap, anon, file,
 * stack, gpu, shmem, hugepage, special. extra: every other smaps key. */
struct ol_mapping {
	uint64_t start, end;
	const char *perms;
	uint64_t offset;
	const char *dev;
	int64_t inode;
	const char *path;
	const char *kind;
	int64_t size_kb, rss_kb, pss_kb, anon_kb, swap_kb;
	const char *vmflags;
	json_t *extra;
};

/* --- CUDA and host core dumps: record types --- */

/* One row of a CUDA core's device table. Strings from .strtab. */
struct ol_gpu_device {
	int64_t device;                 /* device-table row index (devIdx) */
	const char *name, *type, *sm_type;
	int64_t dev_id, pci_bus_id, pci_dev_id, num_sms, warps_per_sm;
	int64_t lanes_per_warp, regs_per_lane, preds_per_lane;
	int64_t sm_major, sm_minor, instruction_size, status;
	int64_t uregs_per_warp, upreds_per_warp, barriers_per_warp; /* r400, r575 */
	int64_t contexts;               /* context rows read for this device */
};

struct ol_gpu_context {
	int64_t device, row, context_id, tid, device_idx;
	int64_t shared_window, local_window, global_window;
	int64_t modules;                /* module rows read for this context */
};

/* A loaded module; functions: json array of STT_FUNC names of its
 * relocated image (borrowed, may be NULL). */
struct ol_gpu_module {
	int64_t device, context_id, module_handle;
	int64_t size;                   /* relocated image bytes, OL_NULL if none */
	int64_t elf_size;               /* non-relocated image bytes, OL_NULL if none */
	int64_t kernels;                /* entry functions in the image */
	json_t *functions;
};

struct ol_gpu_grid {
	int64_t device, grid_id, context_id, module_handle, function_entry;
	const char *function;           /* kernel name from the module's symbols */
	int64_t grid_dim[3], block_dim[3], cluster_dim[3];
	const char *status;             /* "pending", "active", ... */
	int64_t status_code, kernel_type, origin, num_regs, host_tid;
	const char *exception;          /* exception name seen in this grid, or NULL */
};

/* A recorded device memory range (contents never read). */
struct ol_gpu_region {
	int64_t device;                 /* OL_NULL for global/managed (root level) */
	const char *kind;               /* global, managed, local, shared, param */
	int64_t address, size, file_offset;
	int complete;                   /* 1: all bytes are inside the file */
};

/* A thread of a host core with its backtrace (stack id from sink_stack). */
struct ol_thread {
	int64_t pid, tid;
	const char *name;
	int64_t signal;                 /* the signal that ended the process, on the thread it hit */
	int64_t stack_id;
	int crashed;                    /* 1: the thread that got the signal */
};

/* --- PyTorch snapshots: rows of docs/schema.md "PyTorch
 * snapshots". pool ids are text "A,B"; sizes bytes; times UTC ns. --- */
struct ol_snapshot {
	const char *form;        /* "dict" or "list" */
	int64_t protocol;        /* pickle protocol */
	int64_t devices, trace_events, peak_allocated_bytes; /* known at the end */
	json_t *settings;        /* allocator_settings object, or NULL */
};

struct ol_segment {
	int64_t device, address, total_size, allocated_size, active_size, requested_size;
	int64_t stream;
	const char *segment_type, *pool_id;
	int64_t is_expandable, stack_id;
};

struct ol_block {
	int64_t address, size, requested_size;
	const char *state;
	int64_t stack_id;
};

struct ol_trace {
	int64_t device, seq;
	const char *action;
	int64_t addr, size, stream, time_ns, device_free;
	const char *compile_context, *user_metadata, *pool_id;
	int64_t stack_id;
};

struct ol_alloc {
	int64_t device, addr, size, alloc_seq, alloc_ns, free_seq, free_ns;
	const char *state;       /* "freed", "live", "orphan_free" */
	int64_t stack_id;
};

/* --- what the diagnostic tools name as holding memory: memray's top
 * allocating locations, the profiler's operators with memory columns --- */
struct ol_holder {
	const char *tool;       /* "memray", "torch_profiler" */
	const char *scope;      /* "total" (allocated over the run), "self" (the
				 * operator's own, children excluded), "peak", "live" */
	const char *space;      /* "host" or "device" */
	int64_t device;         /* device index; OL_NULL: host, or not stated */
	int64_t bytes;          /* OL_NULL if the tool gave a count only; may be
				 * negative (an operator that freed more than it
				 * allocated) */
	int64_t allocations;    /* OL_NULL if the tool gave a size only */
	int64_t rank;           /* 1-based place in the tool's list, or OL_NULL */
	int64_t stack_id;       /* sink_stack id of the frames named, or OL_NULL */
	const char *label;      /* the location or operator as printed */
	uint64_t line;          /* 1-based source line */
	json_t *data;           /* the tool's other columns (borrowed, may be NULL) */
};

/* --- serving engines --- */

/* One serving-engine instance of a log (docs/schema.md "engine"): the
 * memory accounting the log states for it, gathered over its lines. */
struct ol_engine {
	const char *engine;      /* engine_kind_name(): "vllm", "sglang", ... */
	const char *instance;    /* "" the main process, "pid N", "rank N", "TPn";
				  * after a docker-compose service name */
	const char *version;     /* as the log states it, or NULL */
	double fact[EF__COUNT];  /* by enum engine_fact; NaN: the log does not say */
	json_t *errors;          /* [{kind, time_ns, clock, line, text}] in log
				  * order (borrowed), or NULL */
	int64_t errors_dropped;  /* errors past the list's cap */
	uint64_t line;           /* the first line that named it */
};

struct sink {
	void *ctx;                      /* the implementation's state */
	const struct ingest_opts *opts; /* may be NULL */
	const char *path;               /* artifact being parsed, for messages */

	int64_t (*event)(struct sink *, const struct ol_event *);
	int64_t (*task)(struct sink *, int64_t event_id, const struct ol_task *);
	int64_t (*series)(struct sink *, const char *name, const char *unit,
			  const char *entity);
	int64_t (*sample)(struct sink *, int64_t series_id, const struct ol_time *,
			  double value);
	int64_t (*meta)(struct sink *, const char *key, const char *value);
	int64_t (*stack)(struct sink *, const struct ol_frame *frames, size_t n);
	int64_t (*anchor)(struct sink *, const char *boot_id, int64_t boot_ns,
			  int64_t utc_ns, const char *how);
	int64_t (*capture)(struct sink *, const struct ol_capture *);
	int64_t (*mapping)(struct sink *, int64_t capture_id, const struct ol_mapping *);
	int64_t (*diag)(struct sink *, uint64_t line, uint64_t offset,
			enum ol_severity, const char *msg);
	/* Add delta to every sample this artifact wrote to a series (a
	 * relative series placed on its level once the level is known). */
	int64_t (*series_shift)(struct sink *, int64_t series_id, double delta);

	/* --- PyTorch snapshots --- */
	int64_t (*snapshot)(struct sink *, const struct ol_snapshot *);  /* -> id */
	/* the end-of-file fields (devices, trace_events, peak, settings) */
	int64_t (*snapshot_end)(struct sink *, int64_t snapshot_id, const struct ol_snapshot *);
	int64_t (*segment)(struct sink *, int64_t snapshot_id, const struct ol_segment *);
	int64_t (*block)(struct sink *, int64_t segment_id, const struct ol_block *);
	int64_t (*trace)(struct sink *, int64_t snapshot_id, const struct ol_trace *);
	int64_t (*alloc)(struct sink *, int64_t snapshot_id, const struct ol_alloc *);

	/* --- CUDA and host core dumps --- */
	int64_t (*gpu_device)(struct sink *, const struct ol_gpu_device *);
	int64_t (*gpu_context)(struct sink *, const struct ol_gpu_context *);
	int64_t (*gpu_module)(struct sink *, const struct ol_gpu_module *);
	int64_t (*gpu_grid)(struct sink *, const struct ol_gpu_grid *);
	int64_t (*gpu_region)(struct sink *, const struct ol_gpu_region *);
	int64_t (*thread)(struct sink *, const struct ol_thread *);

	/* --- serving engines --- */
	int64_t (*engine)(struct sink *, const struct ol_engine *);

	/* --- diagnostic tools' reports --- */
	int64_t (*holder)(struct sink *, const struct ol_holder *);

	unsigned n_errors, n_warnings;  /* diagnostics so far (kept by sink_diagf) */
	/* The first error so far, as sink_diagf got it, for the user's line
	 * when no report may be written: "" when none. */
	char first_error[512];
	uint64_t first_error_line, first_error_offset;
};

/* Wrappers: a NULL op succeeds without storing (returns 1 for ids). */
#define OL_SINK_CALL(s, op, ...) ((s)->op ? (s)->op((s), __VA_ARGS__) : 1)
static inline int64_t sink_event(struct sink *s, const struct ol_event *e)
{ return OL_SINK_CALL(s, event, e); }
static inline int64_t sink_task(struct sink *s, int64_t ev, const struct ol_task *t)
{ return OL_SINK_CALL(s, task, ev, t); }
static inline int64_t sink_series(struct sink *s, const char *name, const char *unit,
				  const char *entity)
{ return OL_SINK_CALL(s, series, name, unit, entity); }
static inline int64_t sink_sample(struct sink *s, int64_t id, const struct ol_time *t, double v)
{ return OL_SINK_CALL(s, sample, id, t, v); }
static inline int64_t sink_meta(struct sink *s, const char *k, const char *v)
{ return OL_SINK_CALL(s, meta, k, v); }
static inline int64_t sink_stack(struct sink *s, const struct ol_frame *f, size_t n)
{ return OL_SINK_CALL(s, stack, f, n); }
static inline int64_t sink_anchor(struct sink *s, const char *boot_id, int64_t boot_ns,
				  int64_t utc_ns, const char *how)
{ return OL_SINK_CALL(s, anchor, boot_id, boot_ns, utc_ns, how); }
static inline int64_t sink_series_shift(struct sink *s, int64_t id, double delta)
{ return OL_SINK_CALL(s, series_shift, id, delta); }
static inline int64_t sink_capture(struct sink *s, const struct ol_capture *c)
{ return OL_SINK_CALL(s, capture, c); }
static inline int64_t sink_mapping(struct sink *s, int64_t cap, const struct ol_mapping *m)
{ return OL_SINK_CALL(s, mapping, cap, m); }
static inline int64_t sink_gpu_device(struct sink *s, const struct ol_gpu_device *d)
{ return OL_SINK_CALL(s, gpu_device, d); }
static inline int64_t sink_gpu_context(struct sink *s, const struct ol_gpu_context *c)
{ return OL_SINK_CALL(s, gpu_context, c); }
static inline int64_t sink_gpu_module(struct sink *s, const struct ol_gpu_module *m)
{ return OL_SINK_CALL(s, gpu_module, m); }
static inline int64_t sink_gpu_grid(struct sink *s, const struct ol_gpu_grid *g)
{ return OL_SINK_CALL(s, gpu_grid, g); }
static inline int64_t sink_gpu_region(struct sink *s, const struct ol_gpu_region *r)
{ return OL_SINK_CALL(s, gpu_region, r); }
static inline int64_t sink_thread(struct sink *s, const struct ol_thread *t)
{ return OL_SINK_CALL(s, thread, t); }

static inline int64_t sink_holder(struct sink *s, const struct ol_holder *h)
{ return OL_SINK_CALL(s, holder, h); }
static inline int64_t sink_engine(struct sink *s, const struct ol_engine *e)
{ return OL_SINK_CALL(s, engine, e); }

static inline int64_t sink_snapshot(struct sink *s, const struct ol_snapshot *x)
{ return OL_SINK_CALL(s, snapshot, x); }
static inline int64_t sink_snapshot_end(struct sink *s, int64_t id, const struct ol_snapshot *x)
{ return OL_SINK_CALL(s, snapshot_end, id, x); }
static inline int64_t sink_segment(struct sink *s, int64_t snap, const struct ol_segment *x)
{ return OL_SINK_CALL(s, segment, snap, x); }
static inline int64_t sink_block(struct sink *s, int64_t seg, const struct ol_block *x)
{ return OL_SINK_CALL(s, block, seg, x); }
static inline int64_t sink_trace(struct sink *s, int64_t snap, const struct ol_trace *x)
{ return OL_SINK_CALL(s, trace, snap, x); }
static inline int64_t sink_alloc(struct sink *s, int64_t snap, const struct ol_alloc *x)
{ return OL_SINK_CALL(s, alloc, snap, x); }

/* Record a diagnostic "path:line: message" (line 0: use offset instead).
 * Counts errors and warnings in s. Returns -1 only if the store failed. */
int64_t sink_diagf(struct sink *s, uint64_t line, uint64_t offset,
		   enum ol_severity sev, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Record (meta time.year_basis) that year-less stamps took their year
 * from the file's mtime (year_not_after in lib/timeutil.h): an inference,
 * said as such in the report. -1 only if the store failed. */
int64_t sink_year_basis(struct sink *s, int64_t mtime_ns);

/* A time with nothing known. */
static inline struct ol_time ol_time_none(void)
{
	struct ol_time t = { OL_CLOCK_NONE, OL_NULL, OL_NULL, NULL };
	return t;
}

/* json helpers for event data: integers that may be OL_NULL become null. */
static inline json_t *ol_json_int(int64_t v)
{ return v == OL_NULL ? json_null() : json_integer(v); }
static inline json_t *ol_json_str(const char *s)
{ return s ? json_string(s) : json_null(); }

/* A json string from n bytes of untrusted text (invalid UTF-8 replaced);
 * never NULL unless out of memory. */
json_t *ol_json_strn(const char *s, size_t n);

#endif
