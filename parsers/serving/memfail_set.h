/*
 * memfail_set.h -- the generic memory-failure recogniser's one phrase
 * set, shared by its files (memfail.c: the wordings and figures;
 * memfail_phase.c: the phase a failure's frames and lines name). Every
 * phrase of every table is in one set (parsers/common/phrases.h), so a
 * line is scanned once and the tables are read from what it holds.
 * Internal to parsers/serving/memfail*.c; the rest of oomlens reads
 * memfail.h.
 */
#ifndef OOMLENS_MEMFAIL_SET_H
#define OOMLENS_MEMFAIL_SET_H

#include <stddef.h>

#include "parsers/common/phrases.h"
#include "lib/engine_vocab.h"

/* The set's tables; a table's i-th phrase is at its start + i. */
enum { T_NOT, T_FAMILY, T_ERROR, T_ADVICE, T_STACK, T_REQUESTED, T_TOTAL, T_FREE, T_DEVICE,
       T_HINT, T_PHASE_LINE, T_CONTINUES, T_AFTER, T__COUNT };

/* The frames, phase lines and after-lines of phase_table.c, as the set's
 * tables T_HINT, T_PHASE_LINE and T_AFTER: the i-th phrase of each is
 * row memfail_hint_row[i] (line, after) of phase_marks[]. Filled once,
 * with the set, by memfail.c; read only after a scan. MARKS_MAX bounds
 * each kind (the frame rows passed 256 in set 11's spent round). */
#define MARKS_MAX 512
extern unsigned short memfail_hint_row[MARKS_MAX], memfail_line_row[MARKS_MAX],
	memfail_after_row[MARKS_MAX];
extern size_t memfail_hints_n, memfail_lines_n, memfail_afters_n;

/* Scan l[0..n) for every phrase of every table (building the set on the
 * first call). */
void memfail_set_scan(const char *l, size_t n, struct phrases_found *found);

/* Where table t starts in the set (t == T__COUNT: its end). */
int memfail_set_table_at(int t);

/* The index in its table of the first phrase of table t found, or -1. */
int memfail_set_first_of(const struct phrases_found *found, int t);

/* 1 when the i-th phrase of table t is found. */
int memfail_set_has(const struct phrases_found *found, int t, int i);

/* memfail_phase.c, for memfail.c: the phase text t[0..n)'s frames name
 * (found: its scan), *rank the frame's tier (LEVEL_TOP less it; one more
 * for none) and *flags its row's flags; the index in memfail_line_row of
 * the first phase line l holds (-1 for none); the phase of the first
 * after-line l holds (unknown for none). */
enum oom_phase memfail_frames_phase(const char *t, size_t n, const struct phrases_found *found,
				    int *rank, unsigned *flags);
int memfail_first_line(const char *l, size_t n, const struct phrases_found *found);
enum oom_phase memfail_after_phase(const char *l, size_t n, const struct phrases_found *found);

#endif
