/*
 * seriesutil.h -- what the time-series parsers (smaps, cgroup, nvidia-smi,
 * DCGM, server logs) share: the "### <iso> key=value ..." capture
 * separator of specs/linux-oom-artifacts.md 3.5, sizes with units, local
 * wall-clock placement and small text helpers. No SQL, no output.
 */
#ifndef OOMLENS_SERIESUTIL_H
#define OOMLENS_SERIESUTIL_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/sink.h"
#include "lib/input.h"

/* A parsed capture separator. Strings are copied (NUL-terminated). */
struct capsep {
	int64_t utc_ns;        /* the ISO time (UTC), OL_NULL if unreadable */
	int64_t pid;           /* OL_NULL if absent */
	int64_t mono_ns;       /* mono= in ns, OL_NULL if absent */
	char src[64];          /* "smaps", "smaps_rollup", "cgroup:memory.stat", ... or "" */
	char comm[64];
	char boot_id[64];
	char status[16];
	char cgroup[512];
};

/* 1 if line is a separator ("### " + time + key=value list), filling sep;
 * 0 otherwise. Unknown keys are ignored. */
int capsep_parse(const char *line, size_t len, struct capsep *sep);
/* The time of a separator: UTC with boot_ns = mono when given. */
struct ol_time capsep_time(const struct capsep *sep);

/* A size "2.00 GiB", "512 bytes", "78012 MiB", "14.99 GB" (GB, MB, KB
 * are read as binary units, as PyTorch and vLLM print them). Leading
 * spaces skipped. Returns bytes and sets *used, or OL_NULL (used = 0). */
int64_t parse_size(const char *s, size_t n, size_t *used);
/* A decimal number (strtod on a bounded copy). 0 on success. */
int parse_num(const char *s, size_t n, double *v, size_t *used);
/* A non-negative decimal integer, commas between digits allowed
 * ("446,608"). 0 on success. */
int parse_uint_commas(const char *s, size_t n, int64_t *v, size_t *used);

/* A wall-clock time of unknown zone: UTC when the user gave --tz, else
 * OL_CLOCK_LOCAL (stored as if UTC). */
struct ol_time wall_time(const struct sink *s, int64_t wall_ns);
/* Record once per artifact (meta time.clock = "local", artifact-scoped)
 * that its times are wall clock of unknown zone. -1 if the sink failed. */
int note_local_clock(struct sink *s, const struct ol_time *t, int *noted);
/* The year for year-less stamps: --year, else the file's mtime year, else
 * 0 (unknown). */
int guess_year(const struct sink *s, const struct input *in);

/* Find needle in [s, s+n); NULL if absent. */
const char *mem_find(const char *s, size_t n, const char *needle);
/* Copy at most cap-1 bytes of s[0..n) into dst, NUL-terminated. */
void copy_str(char *dst, size_t cap, const char *s, size_t n);

#endif
