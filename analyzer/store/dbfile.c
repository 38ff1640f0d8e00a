/*
 * dbfile.c -- the incident database as a file: recognising oomlens's own
 * databases by their header, the lock a writer holds, and the temporary
 * a new database is built under until it is renamed over its
 * destination. See timeline.h for the promises; timeline.c opens and
 * closes through these.
 *
 * Files beside the destination DIR/NAME, both hidden so that no walk
 * reads them: DIR/.NAME.XXXXXX (the temporary, mkstemp-unique, in the
 * same directory so that rename(2) is atomic) and DIR/.NAME.lock (the
 * writer's lock: flock(2), with the holder's pid in it for the message
 * a second writer gets). A kill can leave either behind; neither is ever
 * mistaken for a database, and a stale lock file holds no lock.
 */
#include "analyzer/store/schema_image.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int timeline_header_is_ours(const unsigned char *h, size_t n)
{
	uint32_t id;

	if (n < 72 || memcmp(h, "SQLite format 3", 16) != 0)
		return 0;
	id = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
	return id == TIMELINE_APPLICATION_ID;
}

int timeline_file_is_ours(const char *path, struct strbuf *err)
{
	unsigned char h[100];
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		strbuf_addf(err, "%s: not an oomlens database (not a regular file)", path);
		return -1;
	}
	if (st.st_size == 0)
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n > 0 && timeline_header_is_ours(h, (size_t)n))
		return 1;
	if (n < 72 || memcmp(h, "SQLite format 3", 16) != 0)
		strbuf_addf(err, "%s: not an oomlens database", path);
	else if (!memcmp(h + 60, "\0\0\0\1", 4) && !memcmp(h + 68, "\0\0\0\0", 4))
		/* schema 1 carried no application id */
		strbuf_addf(err, "%s: not an oomlens database (a SQLite file of another"
			    " program, or of an oomlens older than schema 2: remove it to"
			    " write a new one there)", path);
	else
		strbuf_addf(err, "%s: not an oomlens database (a SQLite file of another"
			    " program)", path);
	return -1;
}

/* DIR/.NAME<suffix> for path DIR/NAME; NULL when out of memory. */
static char *sibling(const char *path, const char *suffix)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, path, dirlen);
	strbuf_addf(&sb, ".%s%s", path + dirlen, suffix);
	if (strbuf_failed(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* The pid written in a held lock file, or 0. */
static long lock_holder(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* Take the lock file fd (open on lp): 1 held, 0 held by another (why in
 * err), -1 error (why in err). */
static int take_lock(int fd, const char *path, const char *lp, struct strbuf *err)
{
	struct stat a, b;

	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		long pid = errno == EWOULDBLOCK ? lock_holder(fd) : 0;
		if (errno != EWOULDBLOCK)
			strbuf_addf(err, "%s: cannot lock %s: %s", path, lp, strerror(errno));
		else if (pid > 0)
			strbuf_addf(err, "%s: another oomlens (pid %ld) is writing this database:"
				    " refused; run again when it is done", path, pid);
		else
			strbuf_addf(err, "%s: another oomlens is writing this database: refused;"
				    " run again when it is done", path);
		return errno == EWOULDBLOCK ? 0 : -1;
	}
	/* The holder before us removes the file before it lets go: ours must
	 * still be the one at lp, or we locked a file no one else can see. */
	if (fstat(fd, &a) < 0 || stat(lp, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return 2;
	return 1;
}

int dbfile_lock(struct timeline *tl, const char *path, struct strbuf *err)
{
	char *lp = sibling(path, ".lock");
	char pid[24];
	int tries, fd, r;

	if (!lp) {
		strbuf_addf(err, "%s: out of memory", path);
		return -1;
	}
	for (tries = 0; tries < 100; tries++) {
		fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0) {
			strbuf_addf(err, "%s: cannot be written: %s", path, strerror(errno));
			break;
		}
		r = take_lock(fd, path, lp, err);
		if (r == 1) {
			snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
			if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, strlen(pid), 0) < 0)
				{ /* the pid is only for the message; the lock holds */ }
			tl->lock_fd = fd;
			tl->lock_path = lp;
			return 0;
		}
		close(fd);
		if (r <= 0)
			break;
	}
	if (tries == 100)
		strbuf_addf(err, "%s: cannot lock %s: it keeps changing", path, lp);
	free(lp);
	return -1;
}

void dbfile_unlock(struct timeline *tl)
{
	if (!tl->lock_path)
		return;
	unlink(tl->lock_path);   /* before letting go: see take_lock */
	close(tl->lock_fd);
	free(tl->lock_path);
	tl->lock_path = NULL;
	tl->lock_fd = -1;
}

int dbfile_make_temp(struct timeline *tl, const char *path, struct strbuf *err)
{
	char *tp = sibling(path, ".XXXXXX");
	mode_t mask;
	int fd;

	if (!tp) {
		strbuf_addf(err, "%s: out of memory", path);
		return -1;
	}
	fd = mkostemp(tp, O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "%s: cannot be written: %s", path, strerror(errno));
		free(tp);
		return -1;
	}
	/* mkstemp makes it 0600; the database gets what any new file would */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0)
		{ /* keep 0600: safe, if less convenient */ }
	tl->tmp_fd = fd;
	tl->tmp_path = tp;
	return 0;
}

static const struct schema_image *image;   /* NULL: create the schema */

void timeline_use_schema_image(const struct schema_image *img)
{
	image = img && img->schema_version == TIMELINE_SCHEMA_VERSION ? img : NULL;
}

int dbfile_write_image(struct timeline *tl, struct strbuf *err)
{
	size_t i;

	if (!image || tl->tmp_fd < 0)
		return 0;
	if (ftruncate(tl->tmp_fd, (off_t)image->size) < 0)
		goto fail;
	for (i = 0; i < image->nruns; i++) {
		const struct schema_run *r = &image->runs[i];
		size_t done = 0;
		ssize_t w;

		while (done < r->len) {
			w = pwrite(tl->tmp_fd, r->bytes + done, r->len - done,
				   (off_t)(r->offset + done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				if (w == 0)
					errno = EIO;   /* no progress: a full disk */
				goto fail;
			}
			done += (size_t)w;
		}
	}
	return 1;
fail:
	strbuf_addf(err, "%s: cannot be written: %s", tl->path, strerror(errno));
	return -1;
}

/* Sync the directory holding path, so that a rename in it is durable. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : NULL;
	int fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* The database at path is about to be replaced: a rollback journal left
 * beside it (a write killed mid-transaction, e.g. `ingest --append`) would
 * be taken by SQLite for the new file's and played into it, which leaves
 * the new database malformed. Roll it back into the old file first (an
 * open and a read do), so that from every moment on the file at path and
 * any journal beside it belong together; a journal that cannot be rolled
 * back is removed (its database is being replaced anyway). */
static void settle_journal(const char *path)
{
	char *j = malloc(strlen(path) + sizeof("-journal"));
	sqlite3 *db = NULL;

	if (!j)
		return;
	strcpy(j, path);
	strcat(j, "-journal");
	if (access(j, F_OK) == 0) {
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK)
			sqlite3_exec(db, "PRAGMA schema_version", NULL, NULL, NULL);
		sqlite3_close(db);
		unlink(j);      /* gone already when rolled back */
	}
	free(j);
}

int dbfile_commit(struct timeline *tl, struct strbuf *err)
{
	if (fsync(tl->tmp_fd) < 0) {
		strbuf_addf(err, "%s: cannot be written: %s", tl->path, strerror(errno));
		return -1;
	}
	settle_journal(tl->path);
	if (rename(tl->tmp_path, tl->path) < 0) {
		strbuf_addf(err, "%s: cannot be put in place: %s", tl->path, strerror(errno));
		return -1;
	}
	sync_dir(tl->path);
	free(tl->tmp_path);
	tl->tmp_path = NULL;
	return 0;
}

void dbfile_discard(struct timeline *tl)
{
	if (tl->tmp_path)
		unlink(tl->tmp_path);
	free(tl->tmp_path);
	tl->tmp_path = NULL;
}
