/*
 * seriesutil.h -- what the time-series parsers (smaps, cgroup, nvidia-smi,
 * DCGM, server logs) share: the "### <iso> key=value ..." capture
 * separator (docs/formats.md "The capture separator"), sizes with units, local
 * wall-clock and file-time placement, the sink calls every series parser
 * makes the same way, and small text helpers. No SQL, no output.
 */
#ifndef OOMLENS_SERIESUTIL_H
#define OOMLENS_SERIESUTIL_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"
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
/* The byte unit that starts s[0..n) (no space skipped): its size in
 * bytes with *len its length, or 0 with *len 0 when none. The units are
 * parse_size's: "bytes", "byte", "KiB".."TiB", "kB", "KB".."TB", "B",
 * each as written unless flags hold SU_ANY_CASE ("mb", "Gb"); with
 * SU_WHOLE_WORD no letter or digit may follow ("B" of "Bar" is none).
 * For readers of prose, where a figure's unit is written any way. */
#define SU_ANY_CASE   1u
#define SU_WHOLE_WORD 2u
double size_unit_at(const char *s, size_t n, unsigned flags, size_t *len);
/* A decimal number (strtod on a bounded copy). 0 on success. */
int parse_num(const char *s, size_t n, double *v, size_t *used);
/* A non-negative number then "GB" ("14.55 GB", leading spaces and spaces
 * before the unit allowed), as DeepSpeed and vllm-mlx print sizes: 0
 * with *v the number (in the printer's GB), -1 otherwise. */
int parse_num_gb(const char *s, size_t n, double *v);
/* A non-negative decimal integer, commas between digits allowed
 * ("446,608"). 0 on success. */
int parse_uint_commas(const char *s, size_t n, int64_t *v, size_t *used);

/* A wall-clock time of unknown zone: UTC when the user gave --tz, else
 * OL_CLOCK_LOCAL (stored as if UTC). */
struct ol_time wall_time(const struct sink *s, int64_t wall_ns);
/* Record once per artifact (meta time.clock = "local", artifact-scoped)
 * that its times are wall clock of unknown zone. -1 if the sink failed. */
int note_local_clock(struct sink *s, const struct ol_time *t, int *noted);

/* The anchor a separator with both a UTC time and mono= gives (boot id
 * from the separator), described as how. 0 (also when there is none to
 * give), or -1 when the sink failed. */
int capsep_anchor(struct sink *s, const struct capsep *sep, const char *how);

/* Store a sample v at t of the series (name, unit, entity). 0, or -1 when
 * the sink failed. */
int su_put_sample(struct sink *s, const char *name, const char *unit, const char *entity,
	       const struct ol_time *t, double v);
/* Store meta key = val unless val equals last (the value last stored under
 * key, a buffer of cap bytes), which it then becomes: a file read again
 * and again does not repeat a setting. 1 stored, 0 same as last, -1 when
 * the sink failed. */
int su_put_meta_changed(struct sink *s, char *last, size_t cap, const char *key,
		     const char *val);
/* Store meta gpu.total_bytes.gpuN = val (a byte count) the first time GPU
 * index gpu (< 64) is seen, marking it in *seen. 0, or -1 when the sink
 * failed. */
int note_gpu_total(struct sink *s, uint64_t *seen, unsigned gpu, const char *val);

/* The length of the first line of [s, s + n) (without its '\n'). */
size_t first_line_len(const char *s, size_t n);
/* n less the trailing spaces and CRs of s[0..n). */
size_t trim_end(const char *s, size_t n);
/* Find needle in [s, s+n); NULL if absent. */
const char *mem_find(const char *s, size_t n, const char *needle);
/* 1 if key (the start of a key) appears in s[0..n) as a dict key: after a
 * quote, then the rest of the key, its closing quote and ':' (a dict,
 * JSON) or ',' (an OrderedDict's pairs). A note that names the key in
 * backticks is not a dump of it. */
int quoted_key(const char *s, size_t n, const char *key);
/* Copy at most cap-1 bytes of s[0..n) into dst, NUL-terminated. */
void copy_str(char *dst, size_t cap, const char *s, size_t n);

#endif
