/*
 * holders.h -- what held the memory of a PyTorch snapshot, derived once
 * when the snapshot's file ends (the derive stage's; not for parsers,
 * rules or reports, which read the tables).
 *
 * While a snapshot is read, ingest hands the parser a tee
 * (parsers/common/sink_tee.h): each record goes to the store, then to the
 * holders' sink (holders_sink.c), a second sink whose collector
 * (holders_collect.c) keeps what the derivation needs in memory, bounded
 * as the records stream past: segments, blocks, the
 * lifetimes of the alloc rows, the trace's oom and annotate entries and
 * counts. When the snapshot ends, holders_end derives and writes
 * (docs/schema.md "What held the memory"):
 *   - holder rows (tool 'torch_snapshot'), per device, at three scopes:
 *     'snapshot' (the segments' active blocks grouped by allocation stack;
 *     a block without a stack takes the stack of its open alloc when the
 *     trace has one), 'peak' (the allocations alive just after the peak of
 *     live bytes, the trace replayed as memory_viz's Active Memory
 *     Timeline does: holders_replay.c) and 'oom' (alive just before the
 *     device's first oom entry);
 *   - holder_timeline rows: the live bytes of the top holders at the peak
 *     over the trace, per pixel column (the peak of each column kept);
 *   - pool rows: each (device, pool) with its figures and largest holder;
 *   - block.holder_id, and snapshot.recording (what the recorder kept and
 *     which option would have recorded what is missing).
 */
#ifndef OOMLENS_HOLDERS_H
#define OOMLENS_HOLDERS_H

#include <stdint.h>
#include <stddef.h>

#include "parsers/common/sink.h"
#include "analyzer/store/holder_tables.h"

struct strbuf;

struct timeline;

/* Element kinds: how an allocation's stack is known. */
enum hd_kind {
	HK_STACK = 0,      /* its allocation stack */
	HK_NO_STACK,       /* none recorded (before recording, or context off) */
	HK_NOT_IN_TRACE,   /* a free whose alloc the trace does not hold */
	HK_OTHER,          /* the holders past the cap, summed */
	HK_NKINDS
};

#define HD_NEVER INT64_MAX  /* an end that is not in the trace */

/* An allocation on the Active Memory Timeline: alive from start (-1:
 * before the first event) to end (HD_NEVER: still alive). */
struct hd_elem {
	int64_t size, stack;           /* stack: OL_NULL when none */
	int64_t start, end;            /* trace indexes */
	int64_t t0, t1;                /* their times (ns), OL_NULL when unknown */
	int32_t kind;                  /* enum hd_kind */
	int32_t band;                  /* timeline band (holders_replay.c) */
};

/* A live alloc row: where a block finds the trace's stack. */
struct hd_live {
	int64_t addr;
	size_t elem;
};

struct hd_device {
	int used;
	struct hd_elem *e;
	size_t n, cap;
	struct hd_live *live;
	size_t nlive, livecap;
	int traced;                    /* an alloc or free entry in its trace */
	int64_t events, events_timed, events_stack, max_seq;
	int64_t t_first, t_last;       /* times of its first and last timed entry */
	int64_t oom_seq, oom_size, oom_free, oom_ns;  /* its first oom entry, oom_seq -1: none */
};

enum hd_state { HB_INACTIVE, HB_ALLOCATED, HB_PENDING, HB_OTHER };

struct hd_block {
	int64_t id, address, size, requested, stack;
	size_t seg;
	int state;                     /* enum hd_state */
	int64_t eff;                   /* its stack, else its open alloc's (OL_NULL: none) */
	int from_trace;                /* eff came from the trace */
	int in_trace;                  /* its device's trace holds its open alloc */
	int64_t holder;                /* its group, then its holder row (scope snapshot) */
};

struct hd_segment {
	int64_t device, total, allocated;
	int expandable;
	char pool[48];                 /* "A,B", "" when not recorded */
};

struct hd_annot {
	int64_t device, addr, seq;
	char *text;
};

#define HD_MAX_DEVICES 1024
#define HD_MAX_ANNOTS 1000

struct tl_holders {
	int64_t snapshot_id;           /* 0: no snapshot open */
	int failed;                    /* out of memory while collecting */
	struct hd_segment *seg;
	size_t nseg, segcap;
	struct hd_block *blk;
	size_t nblk, blkcap;
	struct hd_device *dev;         /* HD_MAX_DEVICES, on first use */
	int list_form;                 /* a bare segment list (no trace at all) */
	int64_t trace_events, orphan_frees, alloc_events, alloc_events_stack;
	struct hd_annot *ann;
	size_t nann, anncap;
};

/* ---- the second sink (holders_sink.c) ---- */

/* The holders' sink: hand &hs->sink to sink_tee_init as the second sink,
 * with the store first. It keeps one snapshot's collector at a time and
 * writes that snapshot's holders, through tl's write API, when the
 * snapshot ends (inside the artifact's transaction, as its records). */
struct holders_sink {
	struct sink sink;
	struct timeline *tl;           /* where the holders are written */
	const int64_t *stored_id;      /* the store's id of the record at hand (sink_tee.id) */
	struct tl_holders h;
};

/* Make hs a sink over tl; stored_id (borrowed) gives the id the store
 * gave the record each op is handed. Allocates nothing until a snapshot
 * begins. */
void holders_sink_init(struct holders_sink *hs, struct timeline *tl, const int64_t *stored_id);
/* Forget what was collected (the artifact ended, or failed). hs may be
 * initialised again or dropped. */
void holders_sink_release(struct holders_sink *hs);

/* ---- collecting (holders_collect.c), called by the holders' sink ---- */
void holders_begin(struct tl_holders *h, int64_t snapshot_id, const char *form);
void holders_segment(struct tl_holders *h, const struct ol_segment *s);
void holders_block(struct tl_holders *h, int64_t block_id, const struct ol_block *b);
void holders_trace(struct tl_holders *h, const struct ol_trace *t);
void holders_alloc(struct tl_holders *h, const struct ol_alloc *a);
/* Derive and write the holders of snapshot snapshot_id collected in h,
 * into tl (holders_write.c); then forget them. 0, or -1 when the store
 * failed (tl->errmsg says why). */
int holders_end(struct timeline *tl, struct tl_holders *h, int64_t snapshot_id);
/* Forget what was collected (frees it; h stays usable). */
void holders_discard(struct tl_holders *h);
/* The device's state, NULL when out of range or out of memory. */
struct hd_device *holders_device(struct tl_holders *h, int64_t device);

/* ---- the Active Memory Timeline (holders_replay.c) ---- */

#define HD_COLS 240                    /* timeline columns */
#define HD_BANDS 8                     /* top holders drawn, the rest is one band */

/* One device's replay: the peak of live bytes, the bytes before its OOM. */
struct hd_replay {
	uint32_t *order;               /* element events in trace order: elem << 1 | is_end */
	size_t nord;
	int64_t initial;               /* bytes alive before the first event */
	int64_t peak, peak_seq, peak_ns;  /* peak_seq -1: before the first event */
	int64_t oom_live;              /* bytes alive just before the oom entry */
	int time_axis;                 /* 1: columns over time, 0: over trace index */
	int64_t x0, x1;                /* the axis' span (ns or index) */
	/* the timeline, filled by hd_timeline */
	int64_t col_seq[HD_COLS], col_ns[HD_COLS];
	int64_t col_bytes[HD_COLS][HD_BANDS + 1];
};

/* Order d's events and find its peak and the bytes before its OOM. 0, or
 * -1 out of memory. Free r->order with hd_replay_free. */
int hd_replay(const struct hd_device *d, struct hd_replay *r);
/* The per-column live bytes of each band (elements' band set by the
 * caller: 0..HD_BANDS-1, HD_BANDS for the rest). */
void hd_timeline(const struct hd_device *d, struct hd_replay *r);
void hd_replay_free(struct hd_replay *r);
/* 1 when element e is alive just after trace index x (inclusive: the
 * peak) or just before it (the OOM). */
int hd_alive_after(const struct hd_elem *e, int64_t x);
int hd_alive_before(const struct hd_elem *e, int64_t x);

/* ---- groups of allocations (holders_groups.c) ---- */

/* Allocations grouped by (kind, stack): one holder. */
struct hd_group {
	int kind;                      /* enum hd_kind */
	int64_t stack;                 /* OL_NULL when none */
	int64_t bytes, requested, count, largest, from_trace;
	int band;                      /* timeline band, HD_BANDS: the rest */
	int64_t holder;                /* its holder row, once written */
	json_t *annots;                /* texts of annotate entries, or NULL */
};

struct hd_groups {
	struct hd_group *g;
	size_t n, cap;
	size_t *slot;                  /* index + 1, open addressing */
	size_t nslots;
};

void hg_free(struct hd_groups *gs);
/* The group of (kind, stack), made empty on first use; NULL out of
 * memory (the pointer holds until the next hg_get). */
struct hd_group *hg_get(struct hd_groups *gs, int kind, int64_t stack);
/* The groups' indexes, largest first (bytes, then allocations, then
 * stack); caller frees. NULL out of memory. */
size_t *hg_ranked(const struct hd_groups *gs);

/* What a holder's stack says (read once per stack from the frame table). */
struct hd_stackinfo {
	int64_t stack;
	int depth, python;             /* frames, Python frames among them */
	int user;                      /* index of the user's frame, -1: none */
	char *file, *name;             /* the user's frame (NULL when none) */
	int64_t line;
	char *node, *op;               /* for a C++-only stack: the autograd node and the ATen
					* op it allocates for ("DivBackward0",
					* "at::_ops::div_Tensor"), or NULL */
};

struct hd_stacks {
	struct hd_stackinfo *s;
	size_t n, cap;
};

/* The info of stack (OL_NULL: none), read from tl's frame table on first
 * use; NULL when it cannot be read. */
const struct hd_stackinfo *hs_get(struct hd_stacks *ss, struct timeline *tl, int64_t stack);
void hs_free(struct hd_stacks *ss);
/* ---- writing (holders_write.c, holders_notes.c) ---- */

/* What one snapshot's writing shares. */
struct hd_write {
	struct timeline *tl;
	struct tl_holders *h;
	struct hd_stacks stacks;
	json_t *devices;               /* recording: the replay's figures per device */
};

/* The pool rows of the snapshot (after every device's holders). 0 or -1. */
int holders_pools(struct hd_write *w);
/* snapshot.recording: what the recorder kept, the replay's figures, and
 * which option would have recorded what is missing; failed: the holders
 * could not be derived (out of memory). 0 or -1. */
int holders_recording(struct hd_write *w, int failed);

/* The label of a holder for people: the user's frame "file:line name",
 * else what the group is ("no stack recorded", "C++ only"...). */
void hd_label(const struct hd_group *g, const struct hd_stackinfo *si, int64_t others,
	      struct strbuf *out);

#endif
