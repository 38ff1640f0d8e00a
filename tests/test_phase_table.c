/*
 * test_phase_table.c -- the invariants of phase_marks[]
 * (parsers/serving/phase_table.c and its row files by engine family)
 * that no single row shows: no two rows carry the same phrase with the
 * same kind (the second would never decide, and a reader would not know
 * which one does), every phrase is at least ANCHOR_MIN bytes (the anchor
 * sieve of parsers/serving/engine_lines.c asserts it, so a short row
 * would abort a sanitizer build), every row names its engine, versions
 * and source, and its kind, flags and phase are ones the readers know.
 */
#include "testutil.h"
#include "parsers/serving/phase_table.h"

#include <stdio.h>
#include <string.h>

/* engine_lines.c's ANCHOR_MIN (STRIDE + 3, STRIDE 3): the shortest
 * phrase its sieve takes. */
#define ANCHOR_MIN 6

/* Every row's phrase is unique within its kind. */
static void no_duplicate_rows(void **state)
{
	size_t i, j, dup = 0;

	(void)state;
	assert_true(phase_marks_n > 0);
	for (i = 0; i < phase_marks_n; i++)
		for (j = i + 1; j < phase_marks_n; j++)
			if (phase_marks[i].kind == phase_marks[j].kind &&
			    strcmp(phase_marks[i].phrase, phase_marks[j].phrase) == 0) {
				fprintf(stderr, "rows %zu and %zu: \"%s\" twice\n", i, j,
					phase_marks[i].phrase);
				dup++;
			}
	assert_int_equal(dup, 0);
}

/* Every phrase is long enough for the anchor sieve, and every row says
 * where it was read. */
static void rows_complete(void **state)
{
	size_t i, bad = 0;

	(void)state;
	for (i = 0; i < phase_marks_n; i++) {
		const struct phase_mark *m = &phase_marks[i];
		int ok = m->phrase && strlen(m->phrase) >= ANCHOR_MIN &&
			 m->engine && *m->engine && m->versions && *m->versions &&
			 m->source && *m->source;
		if (!ok) {
			fprintf(stderr, "row %zu (\"%s\"): short phrase or no engine, "
				"versions or source\n", i, m->phrase ? m->phrase : "(null)");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Kinds, flags and phases are those the readers handle: a tqdm row is a
 * PM_AFTER or PM_LINE row (memfail_bar.c), a loader-named row a framework frame, a PM_RUNS row a
 * serving line (phase_table.h). */
static void kinds_and_flags(void **state)
{
	size_t i, bad = 0;
	const unsigned known = PM_GENERIC | PM_FRAMEWORK | PM_TQDM | PM_LOADER | PM_RUNS |
			       PM_INSIDE | PM_RESTART | PM_PROJECTOR | PM_CTOR | PM_TFNODE |
			       PM_RELOAD;

	(void)state;
	for (i = 0; i < phase_marks_n; i++) {
		const struct phase_mark *m = &phase_marks[i];
		int ok = (m->kind == PM_FRAME || m->kind == PM_LINE || m->kind == PM_AFTER) &&
			 !(m->flags & ~known) &&
			 (!(m->flags & PM_TQDM) || m->kind == PM_AFTER || m->kind == PM_LINE) &&
			 (!(m->flags & PM_LOADER) ||
			  (m->kind == PM_FRAME && (m->flags & PM_FRAMEWORK))) &&
			 /* a module's constructor: a frame row */
			 (!(m->flags & PM_CTOR) || m->kind == PM_FRAME) &&
			 /* a TensorFlow op's scope: a line under the error */
			 (!(m->flags & PM_TFNODE) || m->kind == PM_AFTER) &&
			 (!(m->flags & PM_RUNS) ||
			  (m->kind == PM_LINE && m->phase == OOM_PHASE_SERVING)) &&
			 /* a step inside start-up stages; a new process's load,
			  * whose phrase engine_line_served() keeps */
			 (!(m->flags & PM_INSIDE) ||
			  (m->kind == PM_FRAME && m->phase >= OOM_PHASE_LOAD_WEIGHTS &&
			   m->phase <= OOM_PHASE_WARMUP)) &&
			 /* a new engine process: its load, or (round 13) an
			  * engine's start-up banner */
			 (!(m->flags & PM_RESTART) ||
			  (m->kind == PM_LINE && (m->phase == OOM_PHASE_LOAD_WEIGHTS ||
						  m->phase == OOM_PHASE_STARTUP))) &&
			 /* a model's load from its files (round 14): a line
			  * of the load */
			 (!(m->flags & PM_RELOAD) ||
			  (m->kind == PM_LINE && m->phase == OOM_PHASE_LOAD_WEIGHTS)) &&
			 /* a projector's stage line: a start-up stage */
			 (!(m->flags & PM_PROJECTOR) ||
			  (m->kind == PM_LINE && m->phase >= OOM_PHASE_LOAD_WEIGHTS &&
			   m->phase <= OOM_PHASE_WARMUP)) &&
			 (int)m->phase >= 0 && m->phase < OOM_PHASE__COUNT &&
			 m->phase != OOM_PHASE_UNKNOWN;
		if (!ok) {
			fprintf(stderr, "row %zu (\"%s\"): kind %u, flags %u, phase %d\n", i,
				m->phrase, m->kind, m->flags, (int)m->phase);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The flags field holds a flag past PM_PROJECTOR (round 10: the byte it
 * was is full): a ninth flag written into a row reads back unchanged. */
static void flags_have_room(void **state)
{
	struct phase_mark m = { 0 };
	const unsigned next = PM_PROJECTOR << 1;

	(void)state;
	m.flags = (unsigned short)(PM_PROJECTOR | next);
	assert_int_equal(m.flags & next, next);
	assert_int_equal(m.flags & PM_PROJECTOR, PM_PROJECTOR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_duplicate_rows),
		cmocka_unit_test(rows_complete),
		cmocka_unit_test(kinds_and_flags),
		cmocka_unit_test(flags_have_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
