/*
 * kernel_hot.h -- the kernel parser's per-line filter: can this line start
 * or continue something the parser reads outside an OOM report's body?
 *
 * Outside a report's body almost every line of a syslog is ordinary
 * daemon noise; the filter rejects it after one look at its bytes, before
 * any prefix parsing and without copying. A line is hot when it holds one
 * of "oom" (header, oom_reaper, oom-kill:, oom.group, systemd-oomd,
 * earlyoom, Slurm's oom-kill events), "OOM" (sysrq), "Kil" (Kill/Killed
 * process, systemd-oomd), "lure" (page allocation failure), "NVRM" (the
 * NVIDIA driver's Xid and bus lines), "cnt" (a memcg's failcnt) or
 * "m-Info"/"m-info" (Mem-Info: both open a report whose header a paste
 * cut off), "n_alloc" (warn_alloc's call trace, a page allocation failure
 * whose header a paste cut off), or when it starts like a bare earlyoom
 * or srun line
 * (khot_bare_first, then userspace_bare_start).
 *
 * Two ways give the same answer: SSE2 bigrams 16 bytes a step (any
 * x86-64), and, where the CPU has AVX2 (checked at run time), trigrams
 * 32 bytes a step told exactly by nibble tables, so that a hit is almost
 * always a pattern. The filter is the kernel ingest's hot loop: its cost
 * per byte is what bench/check.sh guards.
 */
#ifndef OOMLENS_KERNEL_HOT_H
#define OOMLENS_KERNEL_HOT_H

#include <stddef.h>
#include <stdint.h>

enum khot_way { KHOT_SCALAR, KHOT_SSE2, KHOT_AVX2 };

/* The fastest way this CPU runs; call it before khot_line() takes that
 * way (it builds the AVX2 way's tables, once per process). */
enum khot_way khot_best_way(void);

/* Does the line l[0..n) hold one of the hot patterns (see above)? way
 * must be one this CPU runs (at most khot_best_way()); every way gives
 * the same answer. */
int khot_line(const char *l, size_t n, enum khot_way way);

/* The whole lines at the start of buf[0..n) that the filter drops (no
 * hot pattern, no start of a bare earlyoom/srun line or of a journal JSON
 * object), found 32 bytes a step with no call per line: their bytes are
 * returned, their count in *lines and the last one's start in *last.
 * 0 when the first line may matter, when the way is not KHOT_AVX2, or
 * when no whole line is in buf. A line it stops at is left to
 * khot_line() and the parser; the lines it passes are exactly those
 * they would drop. */
size_t khot_skip(const char *buf, size_t n, enum khot_way way, uint64_t *lines, size_t *last);

/* Can a line starting with byte c be a bare earlyoom/srun line? A table
 * look-up that spares userspace_bare_start() most lines. */
extern const unsigned char khot_bare_first[256];

#endif
