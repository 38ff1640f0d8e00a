/*
 * input.c -- buffered reading of artifacts, compressed ones and streams
 * included; see input.h: opening and closing, and the bytes (the buffer
 * and its refill, the content hash fed as they come). gzip is read with
 * zlib (as it always was: a stream cut short is told apart); xz, zstd and
 * bzip2 with libarchive's raw format and its filters. Lines are
 * input_lines.c's, the hash of the whole input_hash.c's.
 */
#include "lib/input.h"
#include "lib/input_internal.h"
#include "lib/archive_lazy.h"
#include "lib/hash_async.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zlib.h>
#include <archive.h>

static int init_common(struct input *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->path = name;
	in->fd = -1;
	in->arc_fd = -1;
	in->next_line = input_getline_any;
	hash64_init(&in->hash);
	in->buf = malloc(INPUT_BUFSZ);
	return in->buf ? 0 : -1;
}

/* Fail an open: the message (path: why) into err, the input closed. */
static int open_failed(struct input *in, struct strbuf *err, const char *why)
{
	if (err)
		strbuf_addf(err, "%s: %s", in->path, why);
	input_close(in);
	return -1;
}

/* The kernel's pseudo-filesystem fd is on, by its magic (statfs(2)), or
 * NULL for a filesystem of files. Their files are the running kernel's
 * state, not evidence on disk: /proc/kmsg stats as a regular empty file
 * and blocks a read (and consumes the messages), /proc/self/environ is
 * the analyst's own environment. */
static const char *pseudo_fs(int fd)
{
	static const struct { unsigned long magic; const char *name; } fs[] = {
		{ 0x9fa0, "procfs (/proc)" }, { 0x62656572, "sysfs (/sys)" },
		{ 0x27e0eb, "cgroupfs" }, { 0x63677270, "cgroup2fs" },
		{ 0x64626720, "debugfs" }, { 0x74726163, "tracefs" },
		{ 0x73636673, "securityfs" }, { 0xcafe4a11, "bpffs" },
		{ 0x62656570, "configfs" }, { 0x6165676c, "pstorefs" },
		{ 0xde5e81e4, "efivarfs" },
	};
	struct statfs sf;
	size_t i;

	if (fstatfs(fd, &sf) < 0)
		return NULL;
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if ((unsigned long)sf.f_type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

/* The open descriptor is the regular file stat() saw: same device and
 * inode (nothing was swapped in between), still regular. */
static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && S_ISREG(b->st_mode);
}

const char *input_compression(const unsigned char *h, size_t n)
{
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return "gzip";
	if (n >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6))
		return "xz";
	if (n >= 4 && !memcmp(h, "\x28\xb5\x2f\xfd", 4))
		return "zstd";
	if (n >= 4 && !memcmp(h, "BZh", 3) && h[3] >= '1' && h[3] <= '9')
		return "bzip2";
	return NULL;
}

/* Read an xz, zstd or bzip2 file through libarchive's raw format (its
 * one entry is the uncompressed data), from a dup of in->fd. 0, or -1
 * with why. */
static int open_filtered(struct input *in, const char **why)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;

	*why = "out of memory";
	if (!a) {
		if (archive_lazy_why())
			*why = archive_lazy_why();
		return -1;
	}
	in->arc = a;
	/* the filters linked in, named: _all would also run external
	 * programs (lrzip, lzop...) on untrusted data */
	archive_read_support_filter_xz(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_raw(a);
	in->arc_fd = dup(in->fd);
	*why = "cannot open the compressed stream";
	if (in->arc_fd < 0 || archive_read_open_fd(a, in->arc_fd, 64 * 1024) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK)
		return -1;
	in->compressed = 1;
	return 0;
}

int input_open(struct input *in, const char *path, struct strbuf *err)
{
	struct stat before, st;
	unsigned char magic[6];
	char why[128];
	ssize_t n;

	if (init_common(in, path) < 0)
		return open_failed(in, err, "out of memory");
	/* Look before opening: open(2) itself blocks on a FIFO without a
	 * writer, and on some devices; only regular files are read. */
	if (stat(path, &before) < 0)
		return open_failed(in, err, strerror(errno));
	if (!S_ISREG(before.st_mode)) {
		snprintf(why, sizeof(why), "%s, not a regular file: not read",
			 input_file_type(before.st_mode));
		return open_failed(in, err, why);
	}
	/* O_NONBLOCK: should a FIFO be swapped in after the stat, the open
	 * returns at once and the fstat below refuses it. */
	in->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in->fd < 0 || fstat(in->fd, &st) < 0)
		return open_failed(in, err, strerror(errno));
	if (!same_file(&before, &st))
		return open_failed(in, err, "the file changed while it was opened: not read");
	{
		const char *fs = pseudo_fs(in->fd);
		if (fs) {
			snprintf(why, sizeof(why), "a file of the kernel's %s, not one on disk: not"
				 " read (copy it to a file first)", fs);
			return open_failed(in, err, why);
		}
	}
	fcntl(in->fd, F_SETFL, fcntl(in->fd, F_GETFL) & ~O_NONBLOCK);
	in->size = (uint64_t)st.st_size;
	in->mtime = (int64_t)st.st_mtime;
	in->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	in->dev = (uint64_t)st.st_dev;
	in->ino = (uint64_t)st.st_ino;
	n = pread(in->fd, magic, sizeof(magic), 0);
	{
		const char *c = n > 0 ? input_compression(magic, (size_t)n) : NULL;
		const char *whyc;
		if (c && strcmp(c, "gzip") && open_filtered(in, &whyc) < 0) {
			/* not the stream its magic says: read as it is */
			if (in->arc)
				archive_read_free(in->arc);
			if (in->arc_fd >= 0)
				close(in->arc_fd);
			in->arc = NULL;
			in->arc_fd = -1;
			in->compressed = 0;
		}
	}
	if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		int fd2 = dup(in->fd);
		if (fd2 < 0 || !(in->gz = gzdopen(fd2, "rb"))) {
			if (fd2 >= 0)
				close(fd2);
			return open_failed(in, err, "cannot open gzip stream");
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

int input_open_stream(struct input *in, const char *name,
		      ssize_t (*fn)(void *arg, void *dst, size_t n, int *err), void *arg,
		      uint64_t size)
{
	if (init_common(in, name) < 0)
		return -1;
	in->stream = fn;
	in->stream_arg = arg;
	in->size = size;
	return 0;
}

void input_close(struct input *in)
{
	hash_async_free(in->ha);   /* waits for the piece in flight */
	in->ha = NULL;
	if (in->arc)
		archive_read_free(in->arc);
	if (in->arc_fd >= 0)
		close(in->arc_fd);
	in->arc = NULL;
	in->arc_fd = -1;
	if (in->gz)
		gzclose(in->gz);
	if (in->fd >= 0)
		close(in->fd);
	free(in->buf);
	in->buf = NULL;
	in->gz = NULL;
	in->fd = -1;
}

/* Read from the underlying source into dst, without hashing. Returns
 * bytes, 0 at EOF, -1 on error (in->error set). */
static ssize_t source_read(struct input *in, unsigned char *dst, size_t n)
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
		if (z == 0) {   /* the end: of the stream, or of a file cut inside it */
			int zerr;
			gzerror(in->gz, &zerr);
			in->gz_cut = zerr == Z_BUF_ERROR;
		}
		return z;
	}
	if (in->arc) {
		la_ssize_t z = archive_read_data(in->arc, dst, n);
		if (z < 0) {
			/* corrupt, or cut short: keep what came out */
			in->error = EIO;
			in->gz_cut = 1;
			return -1;
		}
		return (ssize_t)z;
	}
	if (in->stream) {
		int e = 0;
		r = in->stream(in->stream_arg, dst, n, &e);
		if (r < 0)
			in->error = e ? e : EIO;
		return r;
	}
	/* never past the size at open: a log appended while read ends where
	 * it ended then (input_changed() says more came) */
	if (n > in->size - in->fd_pos)
		n = (size_t)(in->size - in->fd_pos);
	if (!n)
		return 0;
	do
		r = read(in->fd, dst, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		in->error = errno;
	else
		in->fd_pos += (uint64_t)r;
	return r;
}

/* source_read(), every byte also fed to the hash (input_internal.h). */
ssize_t input_raw_read(struct input *in, unsigned char *dst, size_t n, int later)
{
	ssize_t r = source_read(in, dst, n);

	if (later && !in->ha && !in->ha_tried && in->size >= INPUT_HASH_ASYNC_MIN) {
		in->ha_tried = 1;
		in->ha = hash_async_new(&in->hash);
	}
	if (r > 0 && later && in->ha) {
		hash_async_post(in->ha, dst, (size_t)r);
	} else if (r > 0) {
		if (in->ha)
			hash_async_wait(in->ha);
		hash64_update(&in->hash, dst, (size_t)r);
	}
	return r;
}

/* Top the buffer up (input_internal.h). */
ssize_t input_fill(struct input *in)
{
	ssize_t r;

	if (in->eof)
		return 0;
	if (in->ha)   /* the bytes in the buffer are hashed before they move */
		hash_async_wait(in->ha);
	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, in->end - in->pos);
		in->end -= in->pos;
		in->pos = 0;
	}
	if (in->end == INPUT_BUFSZ)
		return 0;
	r = input_raw_read(in, in->buf + in->end, INPUT_BUFSZ - in->end, 1);
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
			ssize_t r = input_raw_read(in, d + got, n - got, 0);
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
		if (input_fill(in) <= 0) {
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

	if (!in->gz && !in->mem && !in->arc && in->fd >= 0 && in->pos == in->end &&
	    n > INPUT_BUFSZ) {
		off_t cur = lseek(in->fd, 0, SEEK_CUR);
		if (cur >= 0 && (uint64_t)cur + n <= in->size &&
		    lseek(in->fd, (off_t)n, SEEK_CUR) >= 0) {
			in->offset += n;
			in->fd_pos += n;
			in->hash_gap = 1;  /* input_hash reads the file again */
			return n;
		}
	}
	while (done < n) {
		size_t avail = in->end - in->pos;
		if (!avail) {
			if (input_fill(in) <= 0)
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


const unsigned char *input_peek(struct input *in, size_t want, size_t *n)
{
	if (want > INPUT_BUFSZ)
		want = INPUT_BUFSZ;
	while (in->end - in->pos < want && !in->eof)
		if (input_fill(in) <= 0)
			break;
	*n = in->end - in->pos;
	return in->buf + in->pos;
}

const unsigned char *input_unread(const struct input *in, size_t *n)
{
	*n = in->end - in->pos;
	return in->buf + in->pos;
}
