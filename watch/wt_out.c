/*
 * wt_out.c -- the watcher's output folder (wt_out.h): safe opens, one
 * write(2) per record, the byte bound and the thinning of old samples.
 *
 * Thinning works on moments, not records: a moment is the run of records
 * that share a time (the separator's time token in a capture log, the
 * first field of a CSV row), so a sample of the cgroup keeps its
 * usage, stat and events together. Every other moment of the oldest half
 * of the largest thinnable file is dropped, unless one of its records is
 * an OOM moment; the file is rewritten under a temporary name in the
 * folder and renamed over the old one, so a kill during thinning leaves
 * the old file or the new one, whole.
 */

#include "watch/wt_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const wt_names[WT_NFILES] = {
	"cgroup.log", "smaps.log", "kmsg.log", "gpu.csv", "gpu-apps.csv", "metrics.prom"
};
#define WT_TMP ".oomlens-thin.tmp"

int wt_out_open(struct wt_out *o, const char *dir, int64_t max_bytes)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < WT_NFILES; i++)
		o->fd[i] = -1;
	o->max_bytes = max_bytes;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		fprintf(stderr, "oomlens: watch: cannot make %s: %s\n", dir, strerror(errno));
		return -1;
	}
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (o->dirfd < 0) {
		fprintf(stderr, "oomlens: watch: cannot open %s as a folder (a symbolic link is"
			" refused): %s\n", dir, strerror(errno));
		return -1;
	}
	(void)unlinkat(o->dirfd, WT_TMP, 0);
	return 0;
}

/* Open file f of the folder for appending: made with O_EXCL, or, when
 * there, opened without following a link and kept only if it is a plain
 * file with one link (not a way out of the folder). 0 or -1 (said). */
static int open_file(struct wt_out *o, enum wt_file f)
{
	struct stat st;
	int fd;

	fd = openat(o->dirfd, wt_names[f], O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0640);
	if (fd < 0 && errno == EEXIST)
		fd = openat(o->dirfd, wt_names[f], O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "oomlens: watch: cannot open %s: %s\n", wt_names[f], strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		fprintf(stderr, "oomlens: watch: %s is not a plain file of its own; not written\n",
			wt_names[f]);
		close(fd);
		return -1;
	}
	o->fd[f] = fd;
	o->size[f] = st.st_size;
	return 0;
}

int wt_out_empty(const struct wt_out *o, enum wt_file f)
{
	struct stat st;

	if (o->fd[f] >= 0)
		return o->size[f] == 0;
	return fstatat(o->dirfd, wt_names[f], &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_size == 0;
}

static int64_t total(const struct wt_out *o)
{
	int64_t t = 0;
	int i;

	for (i = 0; i < WT_NFILES; i++)
		t += o->size[i];
	return t;
}

/* The end of the record that starts at p in [p, e): a capture log's
 * record runs to the next line starting "### ", a CSV's is one line. */
static const char *record_end(const char *p, const char *e, int csv)
{
	const char *q = p;

	for (;;) {
		q = memchr(q, '\n', (size_t)(e - q));
		if (!q)
			return e;
		q++;
		if (csv || q >= e || (e - q >= 4 && !memcmp(q, "### ", 4)))
			return q;
	}
}

/* The moment key of the record at p: the separator's time token, or the
 * CSV row's first field. */
static size_t record_key(const char *p, const char *e, int csv, const char **k)
{
	const char *s = csv ? p : p + 4, *q = s;

	if (!csv && (e - p < 4 || memcmp(p, "### ", 4))) {
		*k = p;
		return 0;
	}
	while (q < e && *q != (csv ? ',' : ' ') && *q != '\n')
		q++;
	*k = s;
	return (size_t)(q - s);
}

/* Whether the record [p, e) is an OOM moment: " trigger=" in its first line. */
static int record_kept(const char *p, const char *e)
{
	const char *nl = memchr(p, '\n', (size_t)(e - p));

	return memmem(p, (size_t)((nl ? nl : e) - p), " trigger=", 9) != NULL;
}

/* Write all of buf to fd. 0 or -1. */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Thin file f: every other moment of its oldest half, OOM moments kept.
 * Returns the bytes freed (0: nothing left to thin), or -1 (said). */
static int64_t thin(struct wt_out *o, enum wt_file f)
{
	int csv = f == WT_GPU || f == WT_GPU_APPS, fd, in, odd = 0, r = -1;
	const char *map, *p, *e, *run = NULL;
	int64_t size = o->size[f], half;
	struct stat st;

	in = openat(o->dirfd, wt_names[f], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0 || st.st_size == 0) {
		if (in >= 0)
			close(in);
		return 0;
	}
	size = st.st_size;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, in, 0);
	close(in);
	if (map == MAP_FAILED)
		return 0;
	(void)unlinkat(o->dirfd, WT_TMP, 0);
	fd = openat(o->dirfd, WT_TMP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND |
		    O_CLOEXEC, 0640);
	if (fd < 0) {
		fprintf(stderr, "oomlens: watch: cannot thin %s: %s\n", wt_names[f], strerror(errno));
		munmap((void *)map, (size_t)size);
		return -1;
	}
	e = map + size;
	half = size / 2;
	p = map;
	if (csv || (e - p >= 4 && memcmp(p, "### ", 4))) /* the CSV header, text before a record */
		p = record_end(p, e, csv);
	if (write_all(fd, map, (size_t)(p - map)) < 0)
		goto fail;
	while (p < e) {
		const char *k, *q = p, *k2;
		size_t kl = record_key(p, e, csv, &k), kl2;
		int keep = 0;

		/* the moment: records with the same key */
		do {
			const char *re = record_end(q, e, csv);
			keep |= !csv && record_kept(q, re);
			q = re;
			kl2 = q < e ? record_key(q, e, csv, &k2) : 0;
		} while (q < e && kl && kl2 == kl && !memcmp(k, k2, kl));
		if (p - map >= half || keep || !(odd++ & 1)) {
			if (!run)
				run = p;
		} else if (run) {
			if (write_all(fd, run, (size_t)(p - run)) < 0)
				goto fail;
			run = NULL;
		}
		p = q;
	}
	if (run && write_all(fd, run, (size_t)(e - run)) < 0)
		goto fail;
	if (fstat(fd, &st) < 0 || fdatasync(fd) < 0 ||
	    renameat(o->dirfd, WT_TMP, o->dirfd, wt_names[f]) < 0)
		goto fail;
	if (o->fd[f] >= 0)
		close(o->fd[f]);
	o->fd[f] = fd;
	o->size[f] = st.st_size;
	r = 0;
	munmap((void *)map, (size_t)size);
	return size - st.st_size;
fail:
	fprintf(stderr, "oomlens: watch: thinning %s failed: %s\n", wt_names[f], strerror(errno));
	close(fd);
	(void)unlinkat(o->dirfd, WT_TMP, 0);
	munmap((void *)map, (size_t)size);
	return r;
}

/* Bring the folder to 3/4 of the bound, the largest thinnable file first.
 * 0, or -1 when thinning failed. */
static int make_room(struct wt_out *o)
{
	int tries;

	for (tries = 0; tries < 16 && total(o) > o->max_bytes * 3 / 4; tries++) {
		enum wt_file f, best = WT_NFILES;
		int64_t freed;

		for (f = 0; f < WT_NFILES; f++)
			if (f != WT_KMSG && o->size[f] > 0 &&
			    (best == WT_NFILES || o->size[f] > o->size[best]))
				best = f;
		if (best == WT_NFILES)
			break;
		freed = thin(o, best);
		if (freed < 0)
			return -1;
		if (freed == 0)
			break;
	}
	o->full = total(o) > o->max_bytes * 3 / 4;
	return 0;
}

int wt_out_put(struct wt_out *o, enum wt_file f, const char *buf, size_t n, int keep)
{
	ssize_t w;

	if (o->fd[f] < 0 && open_file(o, f) < 0)
		return -1;
	if (o->max_bytes > 0 && !keep && total(o) + (int64_t)n > o->max_bytes) {
		if (make_room(o) < 0)
			return -1;
		if (total(o) + (int64_t)n > o->max_bytes) {
			o->dropped++;
			return 0;
		}
	}
	do
		w = write(o->fd[f], buf, n);
	while (w < 0 && errno == EINTR);
	if (w < 0 || (size_t)w != n) {
		fprintf(stderr, "oomlens: watch: writing %s: %s\n", wt_names[f],
			w < 0 ? strerror(errno) : "short write (disk full?)");
		return -1;
	}
	o->size[f] += (int64_t)n;
	return 0;
}

void wt_out_close(struct wt_out *o)
{
	int i;

	for (i = 0; i < WT_NFILES; i++)
		if (o->fd[i] >= 0)
			close(o->fd[i]);
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
}
