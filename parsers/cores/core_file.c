/*
 * core_file.c -- opening a core dump for libelf and counting what a core
 * reader stored; shared by cuda_core.c and host_core.c. See core_file.h.
 */
#include "parsers/cores/core_file.h"
#include "parsers/cores/core_guard.h"
#include "lib/budget.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t cuda_core_gz_limit = 64ull << 30;
void (*core_map_hook)(int fd);

void core_note(struct core_out *o, int64_t r)
{
	if (r < 0)
		o->failed = 1;
	else
		o->records++;
}

void core_diag(struct core_out *o, uint64_t off, enum ol_severity sev, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sink_diagf(o->s, 0, off, sev, "%s", msg) < 0)
		o->failed = 1;
}

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Copy n bytes at off of the image img (total bytes inflated so far) to
 * out: 0, or -1 when they are not all there yet. */
static int img_at(const unsigned char *img, uint64_t total, uint64_t off, void *out, size_t n)
{
	if (off > total || n > total - off)
		return -1;
	memcpy(out, img + off, n);
	return 0;
}

/* How far the ELF64 little-endian core img (total bytes inflated so far)
 * reaches by its own headers: the end of its program and section header
 * tables and of every segment and section they name. 0 while the tables
 * are not all inflated yet; UINT64_MAX when it cannot be told (another
 * class or byte order: inflate up to the limit). */
static uint64_t elf_reach(const unsigned char *img, uint64_t total)
{
	unsigned char h[64], e[64];
	uint64_t phoff, shoff, phn, shn, reach, i;

	if (total < 64)
		return 0;
	memcpy(h, img, 64);
	if (memcmp(h, "\177ELF", 4) || h[4] != 2 || h[5] != 1)
		return UINT64_MAX;
	phoff = le(h + 32, 8);
	shoff = le(h + 40, 8);
	phn = le(h + 56, 2);
	shn = le(h + 60, 2);
	if (shoff && !shn) {       /* extended numbering: the count in section 0 */
		if (shoff > UINT64_MAX - 64)
			return UINT64_MAX;
		if (img_at(img, total, shoff, e, 64) < 0)
			return 0;
		shn = le(e + 32, 8);
	}
	if (phn > (UINT64_MAX - phoff) / 56 || shn > (UINT64_MAX - shoff) / 64)
		return UINT64_MAX;
	reach = 64;
	if (phn && phoff + phn * 56 > reach)
		reach = phoff + phn * 56;
	if (shn && shoff + shn * 64 > reach)
		reach = shoff + shn * 64;
	if (reach > total)
		return 0;
	for (i = 0; i < phn; i++) {
		uint64_t end;

		memcpy(e, img + phoff + i * 56, 56);
		end = le(e + 8, 8) + le(e + 32, 8);
		if (end > reach)
			reach = end < le(e + 8, 8) ? UINT64_MAX : end;
	}
	for (i = 0; i < shn; i++) {
		uint64_t end;

		memcpy(e, img + shoff + i * 64, 64);
		if (le(e + 4, 4) == 8)   /* SHT_NOBITS */
			continue;
		end = le(e + 24, 8) + le(e + 32, 8);
		if (end > reach)
			reach = end < le(e + 24, 8) ? UINT64_MAX : end;
	}
	return reach;
}

/* Grow ce's image to hold at least want bytes (at most cap), drawing the
 * growth from the run's budget. 0, or -1 (cap reached, the budget spent
 * or no memory: nothing changed). */
static int img_grow(struct core_elf *ce, size_t *cap, uint64_t want, uint64_t limit)
{
	uint64_t nc = *cap ? *cap : 1u << 20;
	unsigned char *nb;

	while (nc < want)
		nc *= 2;
	if (nc > limit)
		nc = limit;
	if (nc <= *cap || ol_budget_take(nc - *cap) < 0)
		return -1;
	nb = realloc(ce->copy, (size_t)nc);
	if (!nb) {
		ol_budget_give(nc - *cap);
		return -1;
	}
	ce->drawn += nc - *cap;
	ce->copy = nb;
	*cap = (size_t)nc;
	return 0;
}

int core_inflate_mem(struct core_elf *ce, struct input *in, struct sink *s)
{
	struct core_out o = { s, 0, 0 };
	uint64_t total = 0, reach = 0, limit = cuda_core_gz_limit;
	size_t cap = 0;
	int cut = 0, past = 0;
	unsigned char b;
	const size_t bsz = 256 * 1024;

	if (limit > SIZE_MAX / 2)
		limit = SIZE_MAX / 2;
	/* Inflate only as far as the core's own headers reach (found once its
	 * header tables are inflated): what follows is not the core's. */
	for (;;) {
		size_t want = limit - total < bsz ? (size_t)(limit - total) : bsz;
		ssize_t n;

		if (!want)
			break;
		if (total + want > cap && img_grow(ce, &cap, total + want, limit) < 0) {
			if (total >= cap) {
				cut = 1;
				break;
			}
			want = cap - total;
		}
		n = input_read(in, ce->copy + total, want);
		if (n <= 0)
			break;
		total += (uint64_t)n;
		if (!reach && (reach = elf_reach(ce->copy, total)) && reach < limit)
			limit = reach > total ? reach : total;
		if (total >= limit)
			break;
	}
	if (reach && reach != UINT64_MAX && total > reach) {
		past = 1;   /* bytes after the core were read with it */
		total = limit = reach;
	}
	ce->len = (size_t)total;
	if (cut) {
		if (input_read(in, &b, 1) > 0)
			core_diag(&o, total, OL_ERROR, "the inflated core needs more memory than "
				  "is left of %llu bytes (%s); only its first %llu bytes are read",
				  (unsigned long long)ol_budget(), OL_BUDGET_HINT,
				  (unsigned long long)total);
	} else if (total >= limit && (past || input_read(in, &b, 1) > 0)) {
		if (limit == cuda_core_gz_limit)
			core_diag(&o, total, OL_ERROR, "the gzip core inflates to more than the "
				  "%llu-byte limit; only the first %llu bytes are read",
				  (unsigned long long)cuda_core_gz_limit,
				  (unsigned long long)cuda_core_gz_limit);
		else
			core_diag(&o, limit, OL_WARN, "the gzip stream goes on past byte %llu, "
				  "where the core's headers reach: the trailing data is not the "
				  "core's and is not read", (unsigned long long)limit);
	}
	return o.failed ? -2 : 0;
}

/* What one section header costs once opened: libelf's own record of it
 * and the readers' tables (measured: about 270 bytes). */
#define CORE_SECTION_COST 320

/* The section count of the ELF64 little-endian core whose first bytes are
 * h (64) and whose byte at off is read by at(); where the count lives
 * (*where: 60 for e_shnum, else the offset of section 0's sh_size). 0
 * when there is none or it cannot be told. */
static uint64_t shnum_of(const unsigned char *h, int (*at)(void *, uint64_t, void *, size_t),
			 void *arg, uint64_t *where)
{
	unsigned char e[8];
	uint64_t shoff = le(h + 40, 8), n = le(h + 60, 2);

	*where = 60;
	if (memcmp(h, "\177ELF", 4) || h[4] != 2 || h[5] != 1 || !shoff)
		return 0;
	if (n)
		return n;
	if (shoff > UINT64_MAX - 40 || at(arg, shoff + 32, e, 8) < 0)
		return 0;
	*where = shoff + 32;
	return le(e, 8);
}

static int at_mem(void *arg, uint64_t off, void *out, size_t n)
{
	const struct core_elf *ce = arg;
	return img_at(ce->copy, ce->len, off, out, n);
}

static int at_fd(void *arg, uint64_t off, void *out, size_t n)
{
	return pread(*(int *)arg, out, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* Read the plain file in (up to its size at open) into ce->copy with
 * pread, drawing the image from the run's budget less keep bytes (left
 * for the section headers): the count is then lowered in memory, never in
 * a mapping of the file, so a core that shrinks later cannot raise
 * SIGBUS. An image that does not fit holds the first bytes that do
 * (*cut: 1). A short read (the file shrank) ends the image there; the
 * ingest then says "changed while read". 0, or -1 (not even the ELF
 * header could be read or held). */
static int read_image(struct core_elf *ce, struct input *in, uint64_t keep, int *cut)
{
	uint64_t left = ol_budget_left(), want = in->size, got = 0;

	*cut = 0;
	if (left <= keep || want < 64)
		return -1;
	if (want > left - keep) {
		want = left - keep;
		*cut = 1;
	}
	if (want > SIZE_MAX || ol_budget_take(want) < 0)
		return -1;
	ce->copy = malloc((size_t)want);
	if (!ce->copy) {
		ol_budget_give(want);
		return -1;
	}
	ce->drawn += want;
	while (got < want) {
		size_t n = want - got > (1u << 20) ? 1u << 20 : (size_t)(want - got);
		ssize_t r = pread(in->fd, ce->copy + got, n, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (uint64_t)r;
	}
	ce->len = (size_t)got;
	if (got < 64)
		return -1;
	return 0;
}

/* The image ce->copy holds the first ce->len bytes of a core whose
 * section header table (at shoff) may lie past them: then the core is
 * read without its section headers (shoff and the counts zeroed in the
 * image). 1 when they were dropped, else 0. */
static int drop_sections_past(struct core_elf *ce, uint64_t n)
{
	uint64_t shoff = le(ce->copy + 40, 8);

	if (shoff <= ce->len && (ce->len - shoff) / 64 >= n)
		return 0;
	memset(ce->copy + 40, 0, 8);    /* e_shoff */
	memset(ce->copy + 60, 0, 4);    /* e_shnum, e_shstrndx */
	return 1;
}

/* Draw the cost of the core's section headers from the run's budget
 * before libelf allocates one record per header. A core whose headers do
 * not all fit has its count lowered to what fits in its image in memory:
 * the private copy (a core in memory, an inflated one) or, for a plain
 * file, an image read with pread within the budget (read_image: no
 * mapping of the file, which could raise SIGBUS if it shrank), cut where
 * the budget ends if the whole file does not fit (said; its section
 * headers are then dropped if the cut leaves them out). It is read that
 * far (said, with the count left out: an error, the artifact is
 * partial). 0 (go on), 1 (not read: not even two headers fit, or no image
 * could be made; said), -2 (sink failed). */
static int fit_sections(struct core_elf *ce, struct input *in, struct sink *s)
{
	struct core_out o = { s, 0, 0 };
	unsigned char h[64];
	uint64_t n, fit, where, left;
	int cut = 0, dropped = 0;

	if (ce->copy) {
		if (ce->len < 64)
			return 0;
		n = shnum_of(ce->copy, at_mem, ce, &where);
	} else {
		if (pread(in->fd, h, 64, 0) != 64)
			return 0;
		n = shnum_of(h, at_fd, &in->fd, &where);
	}
	if (n <= 1 || ol_budget_take(n * CORE_SECTION_COST) == 0) {
		if (n > 1)
			ce->drawn += n * CORE_SECTION_COST;
		return 0;
	}
	if (!ce->copy) {
		/* A plain file: its image within the budget, at least half of
		 * what is left kept for the section headers. */
		left = ol_budget_left();
		if (read_image(ce, in, n * CORE_SECTION_COST < left / 2 ? n * CORE_SECTION_COST
			       : left / 2, &cut) < 0)
			goto refuse;
		/* the count again, from the image (the file may have changed) */
		n = shnum_of(ce->copy, at_mem, ce, &where);
		if (n > 1 && ol_budget_take(n * CORE_SECTION_COST) == 0) {
			ce->drawn += n * CORE_SECTION_COST;
			dropped = cut && drop_sections_past(ce, n);
			goto said;
		}
	}
	/* half of what is left: the rest is the reader's (its thread and
	 * mapping tables), or the headers would starve them */
	fit = ol_budget_left() / 2 / CORE_SECTION_COST;
	if (n <= 1) {
		dropped = cut && drop_sections_past(ce, n);
		goto said;
	}
	if (fit < 2 || where + 8 > ce->len)
		goto refuse;
	if (where == 60) {
		ce->copy[60] = (unsigned char)fit;
		ce->copy[61] = (unsigned char)(fit >> 8);
	} else {
		uint64_t k;
		for (k = 0; k < 8; k++)
			ce->copy[where + k] = (unsigned char)(fit >> (8 * k));
	}
	dropped = cut && drop_sections_past(ce, fit);
	if (!dropped) {
		ol_budget_take(fit * CORE_SECTION_COST);
		ce->drawn += fit * CORE_SECTION_COST;
	}
	core_diag(&o, where, OL_ERROR, "the core names %llu section headers; only the first "
		  "%llu fit in half of what is left of %llu bytes (%s) and are read, %llu "
		  "left out",
		  (unsigned long long)n, dropped ? 0ull : (unsigned long long)fit,
		  (unsigned long long)ol_budget(), OL_BUDGET_HINT,
		  (unsigned long long)(dropped ? n : n - fit));
said:
	if (cut)
		core_diag(&o, ce->len, OL_ERROR, "the %llu-byte core does not fit in what is left "
			  "of %llu bytes (%s) with its section headers; only its first %llu "
			  "bytes are read%s", (unsigned long long)in->size,
			  (unsigned long long)ol_budget(), OL_BUDGET_HINT,
			  (unsigned long long)ce->len,
			  dropped ? ", without its section headers" : "");
	return o.failed ? -2 : 0;
refuse:
	core_diag(&o, where, OL_ERROR, "the core names %llu section headers, more than "
		  "fit in what is left of %llu bytes (%s); it is not read",
		  (unsigned long long)n, (unsigned long long)ol_budget(), OL_BUDGET_HINT);
	return o.failed ? -2 : 1;
}

/* Map the plain file ce->fd (its size now, private and read-only, as
 * libelf's own ELF_C_READ_MMAP maps it: a writable private mapping would
 * be charged in full to the commit limit, and a 64 GiB core could then
 * not be mapped at all; libelf reads a native ELF64 image without writing
 * to it) and open the mapping with libelf under a guard: libelf reads the ELF header and the section
 * header table from the mapping, and a file cut meanwhile raises SIGBUS
 * there. On that jump the error names the byte that is gone and ce->elf
 * stays NULL (what libelf had allocated for the headers is lost: one
 * record per section, bounded by the budget drawn in fit_sections, and
 * only for a file cut in that window). An empty file or a failed mapping
 * leaves ce->elf NULL for the caller to explain. */
static enum core_open map_open(struct core_elf *ce, struct sink *s)
{
	struct core_out o = { s, 0, 0 };
	struct core_guard g;
	struct stat st;
	void *m;

	if (fstat(ce->fd, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX)
		return CORE_OPEN_OK;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, ce->fd, 0);
	if (m == MAP_FAILED)
		return CORE_OPEN_OK;
	ce->map = m;
	ce->maplen = (size_t)st.st_size;
	if (core_map_hook)
		core_map_hook(ce->fd);
	if (CORE_GUARD_TRY(&g, ce->map, ce->maplen)) {
		core_guard_disarm(&g);
		ce->elf = NULL;
		core_diag(&o, g.fault_off, OL_ERROR, "the core shrank while opened: byte %llu "
			  "of %llu is gone (cut or rotated while oomlens read its headers)",
			  (unsigned long long)g.fault_off, (unsigned long long)ce->maplen);
		return o.failed ? CORE_OPEN_SINK : CORE_OPEN_NOFILE;
	}
	ce->elf = elf_memory(ce->map, ce->maplen);
	core_guard_disarm(&g);
	return CORE_OPEN_OK;
}

enum core_open core_elf_open(struct core_elf *ce, struct input *in, struct sink *s,
			     int mapped)
{
	ce->elf = NULL;
	ce->fd = -1;
	ce->copy = NULL;
	ce->len = 0;
	ce->drawn = 0;
	ce->map = NULL;
	ce->maplen = 0;
	elf_version(EV_CURRENT);
	if (in->mem) {
		/* elf_memory wants writable memory: work on a private copy. */
		if (ol_budget_take(in->mem_len) < 0) {
			struct core_out o = { s, 0, 0 };
			core_diag(&o, 0, OL_ERROR, "a private copy of the %llu-byte core does not "
				  "fit in what is left of %llu bytes (%s); it is not read",
				  (unsigned long long)in->mem_len, (unsigned long long)ol_budget(),
				  OL_BUDGET_HINT);
			return o.failed ? CORE_OPEN_SINK : CORE_OPEN_NOFILE;
		}
		ce->drawn = in->mem_len;
		ce->copy = malloc(in->mem_len ? in->mem_len : 1);
		if (!ce->copy) {
			ol_budget_give(ce->drawn);
			ce->drawn = 0;
			return CORE_OPEN_NOMEM;
		}
		memcpy(ce->copy, in->mem, in->mem_len);
		ce->len = in->mem_len;
		in->offset = in->mem_len;
	} else if (in->compressed) {
		/* Inflated into memory, within the budget: no temporary file. */
		if (core_inflate_mem(ce, in, s) < 0)
			return CORE_OPEN_SINK;
		if (!ce->copy)
			return CORE_OPEN_NOFILE;
	}
	switch (fit_sections(ce, in, s)) {
	case 0:
		break;
	case 1:
		return CORE_OPEN_NOFILE;
	default:
		return CORE_OPEN_SINK;
	}
	if (ce->copy) {
		ce->elf = elf_memory((char *)ce->copy, ce->len);
		return CORE_OPEN_OK;
	}
	ce->fd = in->fd;
	if (mapped)
		return map_open(ce, s);
	/* ELF_C_READ: libelf (and libdwfl through it) reads with pread, so a
	 * core that shrinks while read gives short reads, not SIGBUS. */
	ce->elf = elf_begin(ce->fd, ELF_C_READ, NULL);
	return CORE_OPEN_OK;
}

void core_elf_close(struct core_elf *ce)
{
	if (ce->elf)
		elf_end(ce->elf);
	ce->elf = NULL;
	if (ce->map)
		munmap(ce->map, ce->maplen);
	ce->map = NULL;
	ce->maplen = 0;
	free(ce->copy);
	ce->copy = NULL;
	ol_budget_give(ce->drawn);
	ce->drawn = 0;
	ce->len = 0;
	ce->fd = -1;
}
