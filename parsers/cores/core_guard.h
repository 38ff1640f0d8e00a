/*
 * core_guard.h -- a guarded read of a mapped core (issue 32). A CUDA core
 * is mapped (core_file.c: libelf opens the mapping under a guard) and the
 * reader indexes the mapping directly; if the file shrinks while it is read (a core still being
 * written, or rotated), touching a page past the new end raises SIGBUS.
 * While a guard is armed on this thread, a SIGBUS whose address lies in
 * the guarded range [base, base + len) jumps back to where the guard was
 * armed (CORE_GUARD_TRY returns nonzero there) with the faulting offset
 * recorded; any other SIGBUS takes the default action (the process dies,
 * as it would have without the guard). The handler is installed while at
 * least one guard is armed in the process and the previous one restored
 * after the last is disarmed.
 *
 * Usage (the jump lands in the caller's frame, so sigsetjmp must be
 * called there -- hence the macro):
 *
 *	struct core_guard g;
 *	if (CORE_GUARD_TRY(&g, img, len)) {
 *		... the mapping shrank: g.fault_off is the offset ...
 *	} else {
 *		... read img ...
 *	}
 *	core_guard_disarm(&g);
 *
 * Whatever the guarded code allocates must hang on a structure the caller
 * frees after the jump (a pointer held only in a local is lost). Hand no
 * pointer into the range to code that must not be jumped out of (the
 * store: SQLite): copy the bytes out first.
 */
#ifndef OOMLENS_CORE_GUARD_H
#define OOMLENS_CORE_GUARD_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

struct core_guard {
	sigjmp_buf jb;
	const unsigned char *base;
	size_t len;
	volatile uint64_t fault_off;   /* set when the jump was taken */
	volatile int armed;
};

/* Arm g on this thread for [base, base + len) (installing the process's
 * SIGBUS handler if this is the first armed guard). 0, or -1 when the
 * handler could not be installed (g is then not armed; the read goes on
 * unguarded) or a guard is already armed on this thread. */
int core_guard_arm(struct core_guard *g, const void *base, size_t len);
/* Disarm g (safe on a guard that is not armed); the last disarm restores
 * the previous SIGBUS disposition. */
void core_guard_disarm(struct core_guard *g);

/* Arm g and set its jump point: 0 on the way in (armed or not), nonzero
 * after a SIGBUS in the guarded range jumped back (g->fault_off set). */
#define CORE_GUARD_TRY(g, base, len) \
	(core_guard_arm((g), (base), (len)) == 0 && sigsetjmp((g)->jb, 1) != 0)

#endif
