/*
 * kernel_oom_report.h -- what the files of the kernel OOM message layer
 * share: the state of one parse, the OOM report being assembled, and the
 * functions each file offers the others. Internal to parsers/kernel_oom*.c;
 * the public interface is parsers/kernel/kernel_oom.h.
 *
 * Who owns what:
 *   kernel_oom.c          the entry points; the per-line filter that rejects
 *                         lines that cannot matter, the split of a record
 *                         into messages, and the dispatch of each message
 *                         to the matchers below.
 *   kernel_oom_report.c   one report's life (open, close) and the events it
 *                         becomes: oom_invoked with its task rows and
 *                         anchor, oom_no_kill; page size and constraint.
 *   kernel_oom_header.c   the header line ("invoked oom-killer") and the
 *                         context lines of a report's body (CPU line and
 *                         kernel release, cpuset, memcg wording, oom.group,
 *                         reasons for no kill); page allocation failures.
 *   kernel_oom_meminfo.c  the memory block: Mem-Info, per-node and zone
 *                         lines, buddy lists, swap and RAM totals, memcg
 *                         usage/limit counters.
 *   kernel_oom_tasks.c    the task dump: its column header, its rows, the
 *                         rows kept for the report.
 *   kernel_oom_kill.c     the victims: the selection line, the oom-kill:
 *                         summary, "Killed process", oom_reaper.
 *   kernel_userspace.c    the userspace killers and their witnesses:
 *                         earlyoom, systemd-oomd, systemd's unit notices.
 *   kernel_slurm.c        Slurm's job and step kills at the memory limit.
 *   kernel_xid.c          the NVIDIA driver's NVRM lines: Xid errors and a
 *                         GPU fallen off the bus (gpu_xid events).
 *
 * Matchers (the m_* functions) all take the parse, the record when they
 * need its time or identifier, and one message [p, e) with its wrapper
 * stripped and its blanks trimmed. They return 1 when they took the line,
 * 0 when it is not theirs, -1 when the sink failed.
 */
#ifndef OOMLENS_KERNEL_OOM_REPORT_H
#define OOMLENS_KERNEL_OOM_REPORT_H

#include <stdint.h>

#include "parsers/kernel/kernel_prefix.h"
#include "parsers/kernel/kernel_oom_wrap.h"
#include "parsers/common/sink.h"
#include "lib/input.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#define RECENT_KILLS 16
#define GAP_NS (30 * NS_PER_S)   /* a header this long without a kill is over */
#define TASK_COLS 24             /* columns of the task dump read at most */
#define GROUP_KILLS 64           /* pids of an oom.group kill remembered */

/* A zone line of the memory block ("DMA32 free:..kB min:..kB ... managed:..kB"). */
#define KZONES 8
struct kzone {
	char name[24];
	int64_t free_kb, min_kb, low_kb, high_kb, present_kb, managed_kb;
};

/* One kept row of the task dump; its name is in oomev.names. */
struct ktask {
	struct ol_task t;
	size_t name_off;          /* into oomev.names */
};

/* One OOM report being assembled. Owns tasks and names (kept, emptied,
 * across reports by report_reset; freed at the end of the parse). */
struct oomev {
	int open;                 /* 1: header seen or kill selection seen */
	int have_header;
	int finalized;            /* oom_invoked emitted */
	uint64_t line;
	struct ol_time t;
	char boot_id[64];
	char comm[64];
	int64_t pid;              /* invoker, from the CPU line */
	char gfp[32], gfp_flags[160];
	int64_t order, score_adj, oom_adj;
	char nodemask[64], cpuset[256], mems[64];
	int have_nodemask, have_cpuset, cpu_seen;
	char release[96];
	int operator_triggered;
	char constraint[32];      /* from oom-kill: (lower case, no prefix) */
	char oom_memcg[512], task_memcg[512];
	int memcg_hint, mpol_hint, global_oom;
	int64_t mc[4][3];         /* memory, memory+swap, kmem, swap: usage, limit, failcnt */
	int64_t mi_free, mi_aa, mi_ia, mi_af, mi_if, mi_sr, mi_su, mi_shmem;
	int64_t swap_free_kb, swap_total_kb, pages_ram, pages_reserved, pagecache;
	int64_t buddy_kb, present_kb;
	uint64_t nodes_seen;
	int in_meminfo;
	/* task table */
	int ncols;
	unsigned char cols[TASK_COLS]; /* per column: an index into the tasks file's column table */
	struct ktask *tasks;
	size_t ntasks, cap;
	struct strbuf names;
	int tasks_dropped;
	/* victim selection */
	int64_t sel_pid, sel_score;
	char sel_comm[64];
	char ck_task[64];
	int64_t ck_pid, ck_uid;
	int group;
	char group_path[512];
	int64_t invoked_id;
	int nkills;
	int64_t killed[GROUP_KILLS];  /* pids killed in this report (oom.group repeats) */
	int64_t last_kill_pid;
	const char *nokill_reason;
	int panic;
	/* a report whose header is not in the log (an excerpt cut after it) */
	int partial;              /* opened by a line of its body */
	int oom_evidence;         /* it holds lines only an OOM report prints */
	int64_t invoker_uid;      /* "CPU: N UID: U PID: ..." (6.x) */
	json_t *mi_pages;         /* every "key:pages" of the Mem-Info summary */
	struct kzone zones[KZONES];
	int nzones;
	json_t *memcg_stats;      /* "Memory cgroup stats for X:" key -> bytes */
	char memcg_stats_path[512];
	int in_memcg_stats;
};

/* A kill lately emitted, for the oom_reaper line that follows it. */
struct recent_kill {
	int64_t pid, event_id, boot_ns, utc_ns;
};

/* What the NVRM lines tell across lines (kernel_xid.c). */
#define NVRM_UUIDS 16
struct nvrm_state {
	char pci[NVRM_UUIDS][24];   /* "NVRM: GPU at PCI:<pci>: GPU-<uuid>" pairs */
	char uuid[NVRM_UUIDS][48];
	unsigned nuuid;
	char bus_pci[24];           /* "The NVIDIA GPU <pci>" waiting for its
				       "fallen off the bus" continuation */
	uint64_t bus_line;
	char off_pci[24];           /* the GPU of the last off-the-bus event */
	uint64_t off_line;
};

/* A userspace killer's event held until the lines after it are read:
 * earlyoom's escalation and exit, srun's task line and the CANCELLED
 * line after Slurm's oom-kill count (kernel_slurm.c). */
struct upending {
	json_t *d;                /* owned; NULL when nothing is held */
	const char *kind;
	struct ol_time t;
	uint64_t line;
	int64_t pid, bytes;
	char comm[64];
	char summary[256];
	int what;                 /* which killer: see kernel_userspace.c */
};

/* What systemd-oomd said before it killed (kernel_userspace.c). */
#define OOMD_CANDIDATES 8
#define OOMD_PIDS 16
struct oomd_ctx {
	char monitored[256];      /* "Memory pressure for X is P% > L% for > Ds" */
	double pressure, limit;
	int64_t duration_s;
	int have_pressure;
	int64_t pids[OOMD_PIDS];  /* "oomd attempting to kill N with KILL" */
	int npids;
	int64_t considered;       /* "Considered N cgroups for killing, top candidates were:" */
	int have_list;
	struct { char path[256]; int64_t mem, swap; } cand[OOMD_CANDIDATES];
	int ncand;
	struct ol_time list_t;
	uint64_t list_line;
};

/* earlyoom's last "mem avail: A of T MiB (P%), swap free: F of S MiB". */
struct eo_status {
	int64_t avail, total, swap_free, swap_total;  /* bytes, OL_NULL unknown */
	double avail_pct;
	int have;
	char total_meta[32], swap_meta[32];           /* host.*_total_bytes last stored */
};

/* The state of one parse. */
struct kparse {
	struct sink *s;
	struct input *in;
	struct kprefix px;        /* the log-source wrapper layer */
	struct oomev ev;
	char boot_id[64];         /* journal _BOOT_ID, or "boot-N" guessed from stamps */
	char last_boot_id[64];    /* the boot id last anchored */
	int page_kb;              /* inferred page size in kB, 0 = not yet */
	char release[96];
	struct recent_kill recent[RECENT_KILLS];
	unsigned nrecent;
	int n;                    /* records produced */
	int reports;              /* OOM reports or kills seen */
	int64_t max_boot_ns;      /* text logs: a stamp far below it = a reboot */
	int boots;
	int failed;
	int sysrq_pending;
	int rate_limited;
	struct nvrm_state nvrm;
	struct upending up;
	struct oomd_ctx oomd;
	struct eo_status eo;
	uint64_t alloc_fail_line; /* line of the last page allocation failure */
	char *clean;              /* a damaged line cleaned (textclean.h), CLEAN_MAX bytes */
	int hot_way;              /* enum khot_way: how the line filter runs here */
	int table_only;           /* the input opens with a task dump's rows and no
				   * header (a paste of the table alone): every line
				   * is read, and a row opens a headerless report;
				   * -1: not known before the first line */
	struct kwrap wrap;        /* a report line a paste wrapped, held while
				     its next piece may follow (kernel_oom_wrap.h) */
};

#define CLEAN_MAX (64 * 1024)
#define PARTIAL_LINES 4000   /* a headerless report without a kill is over after this */

/* --- kernel_oom_report.c: the report and its events --- */

/* Is ev between its header and its first victim, where every line may
 * belong to it? */
static inline int report_in_body(const struct oomev *ev)
{
	return ev->open && (ev->have_header || ev->partial) && !ev->nkills;
}

/* Empty ev for the next report, keeping its task and name buffers. */
void report_reset(struct oomev *ev);
/* Start a new report at record r (the current line, the current boot id). */
void report_open(struct kparse *kp, const struct krec *r);
/* Close the open report and start one whose header is not in the log, at
 * record r (a body line came with no report open). -1 when the sink failed. */
int report_open_partial(struct kparse *kp, const struct krec *r);
/* Close the open report: a header without a kill becomes oom_no_kill.
 * The report is reset either way. -1 when the sink failed. */
int report_close(struct kparse *kp);
/* Emit the open report's oom_invoked event (once), with its task rows and
 * the anchor its time gives; victim_pid and victim_vm_kb (OL_NULL when
 * unknown) tell the page size. -1 when the sink failed. */
int report_emit_invoked(struct kparse *kp, int64_t victim_pid, int64_t victim_vm_kb);
/* The CONSTRAINT_* word of ev in lower case, or NULL when it cannot be told. */
const char *report_constraint(struct oomev *ev);
/* A new json object {comm, pid, gfp_mask, order, oom_score_adj} of the
 * invoker (nulls without a header); the caller owns it. */
json_t *report_invoker_json(struct oomev *ev);

/* Count a record the sink returned id for: -1 (and kp->failed) when it
 * failed, else 0. */
int kp_emit(struct kparse *kp, int64_t id);
/* Send an event of kind at record r's time and the current line and boot
 * id; data d is released here. Returns its id, or -1 when the sink failed. */
int64_t kp_record_event(struct kparse *kp, const struct krec *r, const char *kind,
			int64_t pid, const char *comm, int64_t bytes, const char *summary,
			json_t *d);
/* Send an event of kind at time t and source line line (a record read
 * earlier, held until what followed it was known); as kp_record_event
 * otherwise. */
int64_t kp_event_at(struct kparse *kp, const struct ol_time *t, uint64_t line, const char *kind,
		    int64_t pid, const char *comm, int64_t bytes, const char *summary, json_t *d);
/* Send an event of kind at the open report's time, line, boot id and
 * invoker; d is released here. Returns its id, or -1. */
int64_t kp_report_event(struct kparse *kp, const char *kind, int64_t bytes,
			const char *summary, json_t *d);
/* Store the kernel release as meta, once per parse. */
void kp_note_release(struct kparse *kp, const char *rel);

/* json object field k = v; an empty or NULL string, or OL_NULL, is null. */
void jset_str(json_t *o, const char *k, const char *v);
void jset_int(json_t *o, const char *k, int64_t v);

/* b - a in ns, on the boot clock when both have it, else on a shared
 * wall clock; 0 when they cannot be compared. */
int64_t ns_between(const struct ol_time *a, const struct ol_time *b);
/* a + b for sizes read from the log: OL_NULL in, a negative or a value
 * that could overflow gives OL_NULL. */
int64_t kb_sum(int64_t a, int64_t b);

/* --- kernel_oom_header.c --- */
int m_header(struct kparse *kp, const struct krec *r, const char *p, const char *e);
int m_context(struct kparse *kp, const char *p, const char *e);
int m_group(struct kparse *kp, const char *p, const char *e);
int m_alloc_failure(struct kparse *kp, const struct krec *r, const char *p, const char *e);
/* A line only an OOM report's body prints (memcg counters, Mem-Info, the
 * task dump's header) with no report open: a report whose header was cut
 * off opens there. */
int m_fragment(struct kparse *kp, const struct krec *r, const char *p, const char *e);

/* --- kernel_oom_meminfo.c --- */
int m_meminfo(struct kparse *kp, const char *p, const char *e);
int m_memcg_counter(struct kparse *kp, const char *p, const char *e);

/* --- kernel_oom_tasks.c --- */
int m_task_header(struct kparse *kp, const char *p, const char *e);
int m_task_row(struct kparse *kp, const char *p, const char *e);
/* Does buf[0..n) open with task dump rows ("[  pid]" then at least seven
 * numbers and a name, after an optional "[ secs]" stamp) and no column
 * header: 1 when its first three non-blank lines are such rows. */
int task_table_head(const char *buf, size_t n);
/* Is line l[0..n) such a row (an optional dmesg stamp before it)? */
int task_row_line(const char *l, size_t n);
/* Is [p, e) a task dump row by its shape alone? Its count of numbers
 * after "[pid]" (7 to 10), or 0. */
int task_row_shape(const char *p, const char *e);
/* The kept task row of pid in ev, or NULL. */
const struct ol_task *report_task(const struct oomev *ev, int64_t pid);

/* --- kernel_xid.c: NVIDIA driver (NVRM) lines --- */
int m_nvrm(struct kparse *kp, const struct krec *r, const char *p, const char *e);
/* The catalogue name of Xid x, or NULL for one not in the table. */
const char *xid_name(int64_t x);

/* --- kernel_oom_kill.c --- */
int m_kill_select(struct kparse *kp, const struct krec *r, const char *p, const char *e);
int m_oomkill_summary(struct kparse *kp, const struct krec *r, const char *p, const char *e);
int m_killed(struct kparse *kp, const struct krec *r, const char *p, const char *e);
/* The eBPF oomkill tracers' "Triggered by PID N (\"c\"), OOM kill of PID M ..." line. */
int m_oomkill_tool(struct kparse *kp, const struct krec *r, const char *p, const char *e);
int m_reaper(struct kparse *kp, const struct krec *r, const char *p, const char *e);

/* --- kernel_userspace.c: earlyoom, systemd-oomd, systemd --- */
int m_userspace(struct kparse *kp, const struct krec *r, const char *p, const char *e);
/* Is the bare line l[0..n) (no wrapper, as a terminal shows it) one of
 * the userspace killers' lines that hold none of the hot patterns? */
int userspace_bare_start(const char *l, size_t n);
/* Set the userspace state of a new parse (sizes unknown). */
void userspace_init(struct kparse *kp);
/* The end of the log: send what is held. -1 when the sink failed. */
int userspace_finish(struct kparse *kp);
/* Free what is held (after a failure). */
void userspace_release(struct kparse *kp);
/* Which killer an upending holds (upending.what). */
enum { UP_EARLYOOM = 1, UP_SLURM };
/* Hold event kind (data d, owned from here) of record r until its lines
 * are read; the one held before is sent first. -1 when the sink failed. */
int up_hold(struct kparse *kp, const struct krec *r, int what, const char *kind,
	    int64_t pid, const char *comm, int64_t bytes, const char *summary, json_t *d);
/* Send the held event, if any. -1 when the sink failed. */
int up_flush(struct kparse *kp);

/* --- kernel_slurm.c: Slurm's job and step kills --- */
/* A line of slurmstepd or srun (ident, or "" for a bare line): 1 when it
 * was Slurm's, 0 when not, -1 when the sink failed. */
int slurm_line(struct kparse *kp, const struct krec *r, const char *ident, const char *p,
	       const char *e);

#endif
