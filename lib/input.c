/*
 * input.c -- buffered reading of artifacts, compressed ones and streams
 * included; see input.h. gzip is read with zlib (as it always was: a
 * stream cut short is told apart); xz, zstd and bzip2 with libarchive's
 * raw format and its filters.
 */
#include "lib/input.h"
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
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define INPUT_AVX2 1
#endif

static int getline_any(struct input *in, const char **line, size_t *len);
#ifdef INPUT_AVX2
static int getline_wide(struct input *in, const char **line, size_t *len);
#endif

static int init_common(struct input *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->path = name;
	in->fd = -1;
	in->arc_fd = -1;
	in->next_line = getline_any;
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

/* source_read, every byte that comes also fed to the content hash: on
 * the hash's own thread when later (the bytes stay in the buffer until
 * the next fill() waits for it) and the input is large, else here. */
static ssize_t raw_read(struct input *in, unsigned char *dst, size_t n, int later)
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

/* Top the buffer up; returns bytes added, 0 at EOF, -1 on error. */
static ssize_t fill(struct input *in)
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
	r = raw_read(in, in->buf + in->end, INPUT_BUFSZ - in->end, 1);
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
			ssize_t r = raw_read(in, d + got, n - got, 0);
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

#ifdef INPUT_AVX2
/* The marks' look-up tables: in->mark_table for all of them, and
 * in->first_table for those of input_mark_bytes()'s bytes alone. 1 when
 * no two marks share their low four bits (then a byte b is a mark just
 * when mark_table[b & 15] == b), else 0. */
static int mark_tables(struct input *in)
{
	int k, i;

	for (i = 0; i < 16; i++)   /* low four bits other than i: never matched */
		in->mark_table[i] = in->first_table[i] = i ? 0 : 1;
	for (k = 0; k < 8; k++) {
		if (k >= in->n_first && (k < 4 || k >= 4 + in->n_also))
			continue;
		i = in->marks[k] & 15;
		if (in->mark_table[i] != (i ? 0 : 1) && in->mark_table[i] != in->marks[k])
			return 0;
		in->mark_table[i] = in->marks[k];
		if (k < 4)
			in->first_table[i] = in->marks[k];
	}
	return 1;
}
#endif

/* Up to four bytes of s into in->marks[at..at + 4), the slots left over
 * filled with the first (the SSE2 loop compares with four); the count. */
static int take_marks(struct input *in, int at, const char *s)
{
	int k, n;

	for (n = 0; n < 4 && s[n]; n++)
		in->marks[at + n] = (unsigned char)s[n];
	for (k = n; k < 4; k++)
		in->marks[at + k] = in->marks[at];
	return n;
}

void input_mark_bytes(struct input *in, const char *bytes, const char *also)
{
	in->n_first = take_marks(in, 0, bytes);
	in->n_also = take_marks(in, 4, also ? also : "");
	in->n_marks = in->n_first + in->n_also;
	in->mark_wide = 0;
#ifdef INPUT_AVX2
	in->mark_wide = in->n_marks && mark_tables(in) && __builtin_cpu_supports("avx2");
	if (in->mark_wide)
		in->next_line = getline_wide;
#endif
}

/* The first newline in p[0..n), or NULL; *marked gets 1 when one of
 * input_mark_bytes()'s bytes comes before it (anywhere in p[0..n) when
 * there is none), 2 when one of its also bytes does. Without marks it is
 * memchr; with them, one pass finds both, sixteen bytes a step where
 * SSE2 is there. */
static unsigned char *find_newline(const struct input *in, unsigned char *p, size_t n,
				   int *marked)
{
	size_t i = 0;
	int k;

	if (!in->n_marks)
		return memchr(p, '\n', n);
#ifdef __SSE2__
	{
		const __m128i nl = _mm_set1_epi8('\n');
		const __m128i m0 = _mm_set1_epi8((char)in->marks[0]);
		const __m128i m1 = _mm_set1_epi8((char)in->marks[1]);
		const __m128i m2 = _mm_set1_epi8((char)in->marks[2]);
		const __m128i m3 = _mm_set1_epi8((char)in->marks[3]);
		const __m128i m4 = _mm_set1_epi8((char)in->marks[4]);
		const __m128i m5 = _mm_set1_epi8((char)in->marks[5]);
		const __m128i m6 = _mm_set1_epi8((char)in->marks[6]);
		const __m128i m7 = _mm_set1_epi8((char)in->marks[7]);
		const int one = in->n_first > 0, two = in->n_also > 0;

		for (; i + 16 <= n; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			unsigned at = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl));
			unsigned first = 0, more = 0, before = ~0u;

			if (one)
				first = (unsigned)_mm_movemask_epi8(_mm_or_si128(
					_mm_or_si128(_mm_cmpeq_epi8(v, m0), _mm_cmpeq_epi8(v, m1)),
					_mm_or_si128(_mm_cmpeq_epi8(v, m2), _mm_cmpeq_epi8(v, m3))));
			if (two)
				more = (unsigned)_mm_movemask_epi8(_mm_or_si128(
					_mm_or_si128(_mm_cmpeq_epi8(v, m4), _mm_cmpeq_epi8(v, m5)),
					_mm_or_si128(_mm_cmpeq_epi8(v, m6), _mm_cmpeq_epi8(v, m7))));
			if (at)   /* (at & -at) - 1: the bits before the first newline */
				before = (at & (0u - at)) - 1;
			*marked |= (first & before ? 1 : 0) | (more & before ? 2 : 0);
			if (at)
				return p + i + __builtin_ctz(at);
		}
	}
#endif
	for (; i < n; i++) {
		if (p[i] == '\n')
			return p + i;
		for (k = 0; k < in->n_first; k++)
			if (p[i] == in->marks[k])
				*marked |= 1;
		for (k = 0; k < in->n_also; k++)
			if (p[i] == in->marks[4 + k])
				*marked |= 2;
	}
	return NULL;
}

/* input_getline() in full: a cut line's rest skipped, the buffer
 * refilled, a line too long cut, the last line without a newline. */
static int getline_any(struct input *in, const char **line, size_t *len)
{
	unsigned char *nl;
	size_t scanned = 0;
	int marked = 0;

	if (in->line_cut)
		skip_rest_of_line(in);
	in->line_cut = 0;
	in->line_marked = in->line_also = 1;   /* a cut line, the last one */
	for (;;) {
		nl = find_newline(in, in->buf + in->pos + scanned, in->end - in->pos - scanned,
				  &marked);
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
	in->line_marked = marked & 1;
	in->line_also = marked >> 1;
	in->line_offset = in->offset;
	in->offset += *len + 1;
	in->pos += *len + 1;
	in->lineno++;
strip:
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	return 1;
}

#ifdef INPUT_AVX2
/* The bytes of v that are marks of table (lo: v's low four bits), a bit
 * each; getline_wide() looks up the first kind only where there are
 * marks. */
__attribute__((target("avx2")))
static inline unsigned marks_in(__m256i table, __m256i lo, __m256i v)
{
	return (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, lo), v));
}

/* input_getline() for the common case, with marks told by their table
 * (in->mark_wide): the next line lies whole in the buffer, its newline
 * found 32 bytes a step with AVX2 (the line's marks in the same pass).
 * Other cases (a cut line's rest to skip, no newline in the buffer's
 * whole 32-byte steps) go to getline_any(). */
__attribute__((target("avx2")))
static int getline_wide(struct input *in, const char **line, size_t *len)
{
	const __m256i nl = _mm256_set1_epi8('\n'), low = _mm256_set1_epi8(15);
	const __m256i table = _mm256_broadcastsi128_si256(
		_mm_loadu_si128((const __m128i *)(const void *)in->mark_table));
	const __m256i first_table = _mm256_broadcastsi128_si256(
		_mm_loadu_si128((const __m128i *)(const void *)in->first_table));
	const unsigned char *p = in->buf + in->pos;
	size_t n = in->end - in->pos, i, k;
	unsigned seen_first = 0, seen_also = 0, at, mk, first, before;

	if (in->line_cut)
		return getline_any(in, line, len);
	for (i = 0; i + 32 <= n; i += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
		__m256i lo = _mm256_and_si256(v, low);
		at = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl));
		mk = marks_in(table, lo, v);
		if (at) {
			/* (at & -at) - 1: the bits before the first newline */
			before = (at & (0u - at)) - 1;
			first = mk & before ? marks_in(first_table, lo, v) : 0;
			k = i + (size_t)__builtin_ctz(at);
			in->line_marked = ((first & before) | seen_first) != 0;
			in->line_also = ((mk & ~first & before) | seen_also) != 0;
			in->line_offset = in->offset;
			in->offset += k + 1;
			in->pos += k + 1;
			in->lineno++;
			*line = (const char *)p;
			*len = k && p[k - 1] == '\r' ? k - 1 : k;
			return 1;
		}
		if (mk) {
			first = marks_in(first_table, lo, v);
			seen_first |= first;
			seen_also |= mk & ~first;
		}
	}
	return getline_any(in, line, len);
}
#endif

int input_getline(struct input *in, const char **line, size_t *len)
{
	return in->next_line(in, line, len);
}

/* pread n bytes at off into buf, whole (short only at the end of the
 * file). The count, or -1 with in->error set. */
static ssize_t pread_full(struct input *in, unsigned char *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(in->fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			in->error = errno;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* The hash of a plain file read afresh from offset 0, or (sampled) of its
 * size and INPUT_HASH_SAMPLES blocks spread over it, the last one ending
 * at its end. */
static int hash_file(struct input *in, int sampled, uint64_t *hash)
{
	const size_t block = 16u << 10;
	unsigned char size_le[8];
	struct hash64 h;
	uint64_t off = 0;
	ssize_t r;
	int i;

	hash64_init(&h);
	if (sampled && in->size >= block) {
		for (i = 0; i < 8; i++)
			size_le[i] = (unsigned char)(in->size >> (8 * i));
		hash64_update(&h, size_le, 8);
		for (i = 0; i < INPUT_HASH_SAMPLES; i++) {
			off = (in->size - block) / (INPUT_HASH_SAMPLES - 1) * (uint64_t)i;
			if ((r = pread_full(in, in->buf, block, off)) < 0)
				return -1;
			hash64_update(&h, in->buf, (size_t)r);
		}
	} else {
		while ((r = pread_full(in, in->buf, INPUT_BUFSZ, off)) > 0) {
			hash64_update(&h, in->buf, (size_t)r);
			off += (uint64_t)r;
		}
		if (r < 0)
			return -1;
	}
	*hash = hash64_final(&h);
	return 0;
}

int input_hash(struct input *in, enum input_hash_mode mode, uint64_t *hash, int *sampled)
{
	ssize_t r;

	*sampled = 0;
	if (in->ha)   /* every byte read so far in the hash, in->buf free */
		hash_async_wait(in->ha);
	if (in->error)
		return -1;   /* some bytes could not be read: no hash of the whole */
	if (!in->gz && !in->mem && !in->arc && in->fd >= 0) {
		off_t at = lseek(in->fd, 0, SEEK_CUR);
		uint64_t left = at >= 0 && (uint64_t)at < in->size ? in->size - (uint64_t)at : 0;
		if (mode == INPUT_HASH_SAMPLED ||
		    (mode == INPUT_HASH_AUTO && left > INPUT_HASH_READ_MAX)) {
			*sampled = 1;
			return hash_file(in, 1, hash);
		}
		if (in->hash_gap)
			return hash_file(in, 0, hash);
	}
	/* The buffered bytes were hashed when they came: drop them and hash
	 * what the parser left unread. */
	in->pos = in->end = 0;
	while (!in->eof) {
		r = raw_read(in, in->buf, INPUT_BUFSZ, 0);
		if (r < 0)
			return -1;
		if (r == 0)
			in->eof = 1;
	}
	*hash = hash64_final(&in->hash);
	return 0;
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

const unsigned char *input_unread(const struct input *in, size_t *n)
{
	*n = in->end - in->pos;
	return in->buf + in->pos;
}

void input_consume_lines(struct input *in, size_t n, uint64_t lines, size_t last_start)
{
	if (!lines)
		return;
	in->line_offset = in->offset + last_start;
	in->line_marked = in->line_also = 0;
	in->pos += n;
	in->offset += n;
	in->lineno += lines;
}
