/*
 * host_core_int.h -- the state of one host core being read, shared by the
 * two halves of the host-core reader (host_core.c: notes, mappings, the
 * crash; host_core_stack.c: the backtraces through libdwfl). Not a public
 * interface: only those two files include it.
 */
#ifndef OOMLENS_HOST_CORE_INT_H
#define OOMLENS_HOST_CORE_INT_H

#include "parsers/cores/core_file.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_FRAMES 256
#define MAX_THREADS 100000
#define OL_STR_(x) #x
#define OL_STR(x) OL_STR_(x)

struct file_ent {
	uint64_t start, end, pgoff;
	const char *name;       /* inside the note data */
};

struct thr {
	int64_t tid, signal;
	uint64_t offset;        /* of its NT_PRSTATUS note */
	int seen;               /* found by libdwfl */
};

struct hcore {
	struct core_out out;    /* sink, records, failed */
	struct core_elf file;
	Elf *elf;               /* file.elf */
	Dwfl *dwfl;
	int64_t pid, signal, si_code, si_errno;
	int64_t fault_addr;
	char comm[17], psargs[81];
	struct thr *thr;
	size_t nthr, capthr;
	size_t thr_left_out;    /* thread notes past MAX_THREADS or the budget */
	int thr_budget;         /* the budget, not MAX_THREADS, left them out */
	uint64_t thr_drawn;     /* bytes of thr drawn from the run's budget */
	struct file_ent *files;
	size_t nfiles;
	uint64_t page_size;
	uint64_t fsize;         /* bytes of the core (at open; inflated for gzip) */
	unsigned bad_notes;
	struct ol_frame frames[MAX_FRAMES];
	size_t nframes;
	char *strs[MAX_FRAMES * 2];   /* strings owned for the current stack */
	size_t nstrs;
	int64_t cur_tid;
};

#define HDIAG(h, ...) core_diag(&(h)->out, __VA_ARGS__)

/* Unwind every thread of h's core with libdwfl (h->elf open, the thread
 * notes read): each becomes a thread and its stack through h's sink;
 * threads libdwfl does not give are emitted without a stack. Problems
 * are diagnostics; a sink failure is kept in h->out.failed. */
void hcore_read_threads(struct hcore *h);

#endif
