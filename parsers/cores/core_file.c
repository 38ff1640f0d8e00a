/*
 * core_file.c -- opening a core dump for libelf and counting what a core
 * reader stored; shared by cuda_core.c and host_core.c. See core_file.h.
 */
#include "parsers/cores/core_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t cuda_core_gz_limit = 64ull << 30;

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

/* Write n bytes to fd; an all-zero block becomes a hole. 0, or -1 (errno
 * set). */
static int write_sparse(int fd, const unsigned char *buf, size_t n)
{
	size_t k;

	for (k = 0; k < n && !buf[k]; k++)
		;
	if (k == n)
		return lseek(fd, (off_t)n, SEEK_CUR) < 0 ? -1 : 0;
	return write(fd, buf, n) == (ssize_t)n ? 0 : -1;
}

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* How far the ELF64 little-endian core in fd (total bytes written so far)
 * reaches by its own headers: the end of its program and section header
 * tables and of every segment and section they name. 0 while the tables
 * are not all written yet; UINT64_MAX when it cannot be told (another
 * class or byte order, an unreadable table: inflate up to the limit). */
static uint64_t elf_reach(int fd, uint64_t total)
{
	unsigned char h[64], e[64];
	uint64_t phoff, shoff, phn, shn, reach, i;

	if (total < 64)
		return 0;
	if (pread(fd, h, 64, 0) != 64 || memcmp(h, "\177ELF", 4) || h[4] != 2 || h[5] != 1)
		return UINT64_MAX;
	phoff = le(h + 32, 8);
	shoff = le(h + 40, 8);
	phn = le(h + 56, 2);
	shn = le(h + 60, 2);
	if (shoff && !shn) {       /* extended numbering: the count in section 0 */
		if (shoff > UINT64_MAX - 64 || shoff + 64 > total)
			return shoff > UINT64_MAX - 64 ? UINT64_MAX : 0;
		if (pread(fd, e, 64, (off_t)shoff) != 64)
			return UINT64_MAX;
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

		if (pread(fd, e, 56, (off_t)(phoff + i * 56)) != 56)
			return UINT64_MAX;
		end = le(e + 8, 8) + le(e + 32, 8);
		if (end > reach)
			reach = end < le(e + 8, 8) ? UINT64_MAX : end;
	}
	for (i = 0; i < shn; i++) {
		uint64_t end;

		if (pread(fd, e, 64, (off_t)(shoff + i * 64)) != 64)
			return UINT64_MAX;
		if (le(e + 4, 4) == 8)   /* SHT_NOBITS */
			continue;
		end = le(e + 24, 8) + le(e + 32, 8);
		if (end > reach)
			reach = end < le(e + 24, 8) ? UINT64_MAX : end;
	}
	return reach;
}

int core_inflate_tmp(struct input *in, struct sink *s)
{
	struct core_out o = { s, 0, 0 };
	const char *dir = getenv("TMPDIR");
	char path[4096];
	unsigned char *buf = NULL;
	uint64_t total = 0, reach = 0, limit = cuda_core_gz_limit;
	int fd;
	const size_t bsz = 256 * 1024;

	snprintf(path, sizeof(path), "%s/oomlens-cudacore-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		core_diag(&o, 0, OL_ERROR, "cannot create a temporary file to inflate the gzip "
			  "core into (%s): %s", path, strerror(errno));
		goto out;
	}
	unlink(path);
	buf = malloc(bsz);
	if (!buf)
		goto fail;
	/* Inflate only as far as the core's own headers reach (found once its
	 * header tables are written): what follows is not the core's. */
	for (;;) {
		size_t want = limit - total < bsz ? (size_t)(limit - total) : bsz;
		ssize_t n = want ? input_read(in, buf, want) : 0;

		if (n <= 0)
			break;
		if (write_sparse(fd, buf, (size_t)n) < 0)
			goto fail;
		total += (uint64_t)n;
		if (!reach && (reach = elf_reach(fd, total)) && reach < limit)
			limit = reach > total ? reach : total;
		if (total >= limit)
			break;
	}
	if (reach && reach != UINT64_MAX && total > reach)
		limit = reach;
	if (total >= limit && (total > limit || input_read(in, buf, 1) > 0)) {
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
	if (ftruncate(fd, (off_t)total) < 0)
		goto fail;
	goto out;
fail:
	core_diag(&o, total, OL_ERROR, "cannot write the inflated core to a temporary file "
		  "after %llu bytes: %s", (unsigned long long)total, strerror(errno));
	close(fd);
	fd = -1;
out:
	free(buf);
	if (o.failed && fd >= 0) {
		close(fd);
		return -2;
	}
	return o.failed ? -2 : fd;
}

enum core_open core_elf_open(struct core_elf *ce, struct input *in, struct sink *s,
			     int mapped)
{
	ce->elf = NULL;
	ce->fd = ce->tmpfd = -1;
	ce->copy = NULL;
	elf_version(EV_CURRENT);
	if (in->mem) {
		/* elf_memory wants writable memory: work on a private copy. */
		ce->copy = malloc(in->mem_len ? in->mem_len : 1);
		if (!ce->copy)
			return CORE_OPEN_NOMEM;
		memcpy(ce->copy, in->mem, in->mem_len);
		in->offset = in->mem_len;
		ce->elf = elf_memory((char *)ce->copy, in->mem_len);
		return CORE_OPEN_OK;
	}
	ce->fd = in->fd;
	if (in->compressed) {
		int fd = core_inflate_tmp(in, s);
		if (fd < 0) {
			ce->fd = -1;
			return fd == -2 ? CORE_OPEN_SINK : CORE_OPEN_NOFILE;
		}
		ce->fd = ce->tmpfd = fd;
	}
	/* ELF_C_READ: libelf (and libdwfl through it) reads with pread, so a
	 * core that shrinks while read gives short reads, not SIGBUS. */
	ce->elf = elf_begin(ce->fd, mapped ? ELF_C_READ_MMAP : ELF_C_READ, NULL);
	return CORE_OPEN_OK;
}

void core_elf_close(struct core_elf *ce)
{
	if (ce->elf)
		elf_end(ce->elf);
	ce->elf = NULL;
	free(ce->copy);
	ce->copy = NULL;
	if (ce->tmpfd >= 0)
		close(ce->tmpfd);
	ce->tmpfd = ce->fd = -1;
}
