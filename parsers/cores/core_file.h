/*
 * core_file.h -- what the two core dump readers (cuda_core.c, host_core.c)
 * share: opening a core for libelf, and counting what a reader stored.
 *
 * Opening: an in-memory input is copied (libelf wants writable memory), a
 * gzip-compressed core is inflated into memory (at most cuda_core_gz_limit
 * bytes, and within the run's budget: no temporary file), a plain file is read with pread (or
 * mapped, for a reader that asks: a mapping of a file that shrinks while
 * read raises SIGBUS, so that reader reads it under core_guard.h). A core whose section headers do not
 * fit in the budget is read as far as they do: the count is lowered in
 * the copy (in memory) or, for a plain file, in an image of it read with
 * pread within the budget (never in a mapping of the file, whatever the
 * reader asked: it could raise SIGBUS if the file shrank). Nothing from
 * the core is ever executed.
 */
#ifndef OOMLENS_CORE_FILE_H
#define OOMLENS_CORE_FILE_H

#include <libelf.h>
#include <stdint.h>

#include "parsers/common/sink.h"
#include "lib/input.h"

/* Most bytes a gzip-compressed core (CUDA or host) is inflated to; the
 * rest is reported as cut. A variable so that tests can lower it. */
extern uint64_t cuda_core_gz_limit;
/* Called, when set, between mapping a core and libelf's first read of the
 * mapping, with the file's descriptor: tests cut the file there. NULL in
 * every run of oomlens. */
extern void (*core_map_hook)(int fd);

/* A core opened for libelf. */
struct core_elf {
	Elf *elf;              /* NULL: libelf could not start on it */
	int fd;                /* what libelf reads; -1 for an image in memory */
	unsigned char *copy;   /* the image in memory (a private copy of an
				* in-memory input, or the inflated gzip core), or NULL */
	size_t len;            /* bytes of copy that hold the image */
	uint64_t drawn;        /* bytes drawn from the run's budget for copy */
	void *map;             /* a mapped file (MAP_PRIVATE), or NULL */
	size_t maplen;         /* its length: the file's size when mapped */
};

/* Inflate the gzip input in into ce->copy (ce->len bytes), in memory and
 * within the run's budget (lib/budget.h), only as far as the ELF core's
 * own headers reach (its header tables and every segment and section they
 * name): data after that is said to be trailing (a warning) and not
 * inflated; a core that needs more than the budget is cut there (an
 * error: the artifact is partial). Nothing is written to disk. 0 (ce->copy
 * may still be NULL for an empty stream), or -2 (the sink failed). */
int core_inflate_mem(struct core_elf *ce, struct input *in, struct sink *s);

enum core_open {
	CORE_OPEN_OK = 0,      /* ce->elf may still be NULL: see elf_errmsg */
	CORE_OPEN_NOMEM,       /* no memory for the copy; nothing said */
	CORE_OPEN_NOFILE,      /* the core could not be read (diagnostic given) */
	CORE_OPEN_SINK,        /* the sink failed while saying so */
};

/* Open in for libelf into ce (always safe to core_elf_close after). For
 * an in-memory input, in->offset is set to its length; for a file the
 * caller sets it. mapped: the file is mapped (ce->map, private) and libelf
 * opens the mapping (elf_memory) under a SIGBUS guard (core_guard.h), so a
 * file cut while libelf reads its headers is said ("shrank while opened",
 * with the byte) instead of killing the run; otherwise libelf reads it
 * with pread (ELF_C_READ). */
enum core_open core_elf_open(struct core_elf *ce, struct input *in, struct sink *s,
			     int mapped);
/* Release what core_elf_open made (ends the Elf, frees the image and
 * returns it to the budget). */
void core_elf_close(struct core_elf *ce);

/* A reader's tally: its sink, the records stored, and whether the sink
 * failed (the reader then stops and returns -1). */
struct core_out {
	struct sink *s;
	int records;
	int failed;
};

/* Count the result of a sink op: an id/1 is a record, -1 a store failure. */
void core_note(struct core_out *o, int64_t r);
/* A diagnostic at byte offset off; remembers a store failure. */
void core_diag(struct core_out *o, uint64_t off, enum ol_severity sev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
