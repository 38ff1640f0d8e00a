/*
 * input.c -- buffered reading of artifacts, gzip included; see input.h.
 */
#include "lib/input.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int init_common(struct input *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->path = name;
	in->fd = -1;
	in->buf = malloc(INPUT_BUFSZ);
	return in->buf ? 0 : -1;
}

int input_open(struct input *in, const char *path, struct strbuf *err)
{
	struct stat st;
	unsigned char magic[2];
	ssize_t n;

	if (init_common(in, path) < 0) {
		if (err)
			strbuf_addf(err, "%s: out of memory", path);
		return -1;
	}
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0 || fstat(in->fd, &st) < 0) {
		if (err)
			strbuf_addf(err, "%s: %s", path, strerror(errno));
		input_close(in);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		if (err)
			strbuf_addf(err, "%s: not a regular file", path);
		input_close(in);
		return -1;
	}
	in->size = (uint64_t)st.st_size;
	in->mtime = (int64_t)st.st_mtime;
	n = pread(in->fd, magic, 2, 0);
	if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		int fd2 = dup(in->fd);
		if (fd2 < 0 || !(in->gz = gzdopen(fd2, "rb"))) {
			if (fd2 >= 0)
				close(fd2);
			if (err)
				strbuf_addf(err, "%s: cannot open gzip stream", path);
			input_close(in);
			return -1;
		}
		gzbuffer(in->gz, 256 * 1024);
		in->compressed = 1;
	}
	return 0;
}

int input_open_mem(struct input *in, const char *name, const void *data, size_t n)
{
	if (init_common(in, name) < 0)
		return -1;
	in->mem = data;
	in->mem_len = n;
	in->size = n;
	return 0;
}

void input_close(struct input *in)
{
	if (in->gz)
		gzclose(in->gz);
	if (in->fd >= 0)
		close(in->fd);
	free(in->buf);
	in->buf = NULL;
	in->gz = NULL;
	in->fd = -1;
}

/* Read from the underlying source into dst. Returns bytes, 0 at EOF, -1. */
static ssize_t raw_read(struct input *in, unsigned char *dst, size_t n)
{
	ssize_t r;

	if (in->mem) {
		size_t left = in->mem_len - in->mem_pos;
		if (n > left)
			n = left;
		memcpy(dst, in->mem + in->mem_pos, n);
		in->mem_pos += n;
		return (ssize_t)n;
	}
	if (in->gz) {
		int z;
		if (n > (1u << 30))
			n = 1u << 30;
		z = gzread(in->gz, dst, (unsigned)n);
		if (z < 0) {
			/* A truncated or corrupt stream: keep what came out. */
			in->error = EIO;
			return -1;
		}
		return z;
	}
	do
		r = read(in->fd, dst, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		in->error = errno;
	return r;
}

/* Top the buffer up; returns bytes added, 0 at EOF, -1 on error. */
static ssize_t fill(struct input *in)
{
	ssize_t r;

	if (in->eof)
		return 0;
	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, in->end - in->pos);
		in->end -= in->pos;
		in->pos = 0;
	}
	if (in->end == INPUT_BUFSZ)
		return 0;
	r = raw_read(in, in->buf + in->end, INPUT_BUFSZ - in->end);
	if (r <= 0) {
		in->eof = 1;
		return r;
	}
	in->end += (size_t)r;
	if (in->progress && in->offset >= in->progress_next) {
		in->progress_next = in->offset + in->progress_every;
		in->progress(in, in->progress_arg);
	}
	return r;
}

ssize_t input_read(struct input *in, void *dst, size_t n)
{
	size_t got = 0;
	unsigned char *d = dst;

	while (got < n) {
		size_t avail = in->end - in->pos;
		if (avail) {
			size_t k = avail < n - got ? avail : n - got;
			memcpy(d + got, in->buf + in->pos, k);
			in->pos += k;
			in->offset += k;
			got += k;
			continue;
		}
		if (n - got >= INPUT_BUFSZ && !in->eof) {
			ssize_t r = raw_read(in, d + got, n - got);
			if (r < 0)
				return got ? (ssize_t)got : -1;
			if (r == 0) {
				in->eof = 1;
				break;
			}
			got += (size_t)r;
			in->offset += (uint64_t)r;
			continue;
		}
		if (fill(in) <= 0) {
			if (in->error && !got)
				return -1;
			break;
		}
	}
	return (ssize_t)got;
}

uint64_t input_skip(struct input *in, uint64_t n)
{
	uint64_t done = 0;

	if (!in->gz && !in->mem && in->pos == in->end && n > INPUT_BUFSZ) {
		off_t cur = lseek(in->fd, 0, SEEK_CUR);
		if (cur >= 0 && (uint64_t)cur + n <= in->size &&
		    lseek(in->fd, (off_t)n, SEEK_CUR) >= 0) {
			in->offset += n;
			return n;
		}
	}
	while (done < n) {
		size_t avail = in->end - in->pos;
		if (!avail) {
			if (fill(in) <= 0)
				break;
			continue;
		}
		if (avail > n - done)
			avail = (size_t)(n - done);
		in->pos += avail;
		in->offset += avail;
		done += avail;
	}
	return done;
}

/* Drop bytes up to and including the next newline (the tail of a cut line). */
static void skip_rest_of_line(struct input *in)
{
	for (;;) {
		unsigned char *p = memchr(in->buf + in->pos, '\n', in->end - in->pos);
		if (p) {
			size_t k = (size_t)(p - (in->buf + in->pos)) + 1;
			in->pos += k;
			in->offset += k;
			return;
		}
		in->offset += in->end - in->pos;
		in->pos = in->end;
		if (fill(in) <= 0)
			return;
	}
}

int input_getline(struct input *in, const char **line, size_t *len)
{
	unsigned char *nl;
	size_t scanned = 0;

	if (in->line_cut)
		skip_rest_of_line(in);
	in->line_cut = 0;
	for (;;) {
		nl = memchr(in->buf + in->pos + scanned, '\n', in->end - in->pos - scanned);
		if (nl)
			break;
		scanned = in->end - in->pos;
		if (scanned >= INPUT_MAX_LINE) {
			/* Too long: return the head now, skip the rest next call. */
			*line = (const char *)in->buf + in->pos;
			*len = INPUT_MAX_LINE;
			in->line_offset = in->offset;
			in->lineno++;
			in->line_cut = 1;
			in->pos += INPUT_MAX_LINE;
			in->offset += INPUT_MAX_LINE;
			return 1;
		}
		if (fill(in) <= 0) {
			/* fill() may have moved the data to the buffer's start. */
			if (in->end == in->pos)
				return in->error ? -1 : 0;
			/* Last line without a newline. */
			*line = (const char *)in->buf + in->pos;
			*len = in->end - in->pos;
			in->line_offset = in->offset;
			in->offset += *len;
			in->pos = in->end;
			in->lineno++;
			goto strip;
		}
	}
	*line = (const char *)in->buf + in->pos;
	*len = (size_t)(nl - (in->buf + in->pos));
	in->line_offset = in->offset;
	in->offset += *len + 1;
	in->pos += *len + 1;
	in->lineno++;
strip:
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	return 1;
}

const unsigned char *input_peek(struct input *in, size_t want, size_t *n)
{
	if (want > INPUT_BUFSZ)
		want = INPUT_BUFSZ;
	while (in->end - in->pos < want && !in->eof)
		if (fill(in) <= 0)
			break;
	*n = in->end - in->pos;
	return in->buf + in->pos;
}
