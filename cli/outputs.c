/*
 * outputs.c -- where oomlens writes, and how, so that the evidence stays
 * as it was found: an output is never one of the inputs nor inside an
 * input folder; a report is written under a temporary name beside its
 * destination and renamed when whole; analyze's default place moves out
 * of the current directory when that is an input folder; and what a
 * signal interrupts leaves no temporary behind.
 */
#include "cli/cli.h"
#include "lib/fileset.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- files to remove if a signal ends the run ---- */

#define CLEANUP_MAX 8
static char cleanup_paths[CLEANUP_MAX][PATH_MAX];
static volatile sig_atomic_t cleanup_used[CLEANUP_MAX];

/* Remove what a run in progress would leave, then die of the signal. */
static void on_signal(int sig)
{
	int i;

	for (i = 0; i < CLEANUP_MAX; i++)
		if (cleanup_used[i])
			unlink(cleanup_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void cleanup_add(const char *path)
{
	static int installed;
	int i;

	if (!path || strlen(path) >= PATH_MAX)
		return;
	if (!installed) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
		signal(SIGPIPE, on_signal);
		installed = 1;
	}
	for (i = 0; i < CLEANUP_MAX; i++)
		if (!cleanup_used[i]) {
			strcpy(cleanup_paths[i], path);
			cleanup_used[i] = 1;
			return;
		}
}

void cleanup_forget(const char *path)
{
	int i;

	for (i = 0; path && i < CLEANUP_MAX; i++)
		if (cleanup_used[i] && !strcmp(cleanup_paths[i], path))
			cleanup_used[i] = 0;
}

/* ---- outputs against the inputs ---- */

int note_inputs(struct fileset *set, char *const *paths, int n)
{
	struct stat sb;
	int i;

	for (i = 0; i < n; i++)
		if (stat(paths[i], &sb) == 0 &&
		    fileset_add(set, (uint64_t)sb.st_dev, (uint64_t)sb.st_ino,
				S_ISDIR(sb.st_mode) ? FILESET_DIR : FILESET_FILE, paths[i], NULL) < 0)
			return cli_error("out of memory");
	return 0;
}

/* The input folder that dir (a real path) is, or lies inside; NULL when
 * none. */
static const struct fileset_entry *folder_of(const struct fileset *inputs, const char *dir)
{
	char buf[PATH_MAX];
	const struct fileset_entry *e;
	struct stat sb;
	char *slash;

	if (strlen(dir) >= sizeof(buf))
		return NULL;
	strcpy(buf, dir);
	for (;;) {
		if (stat(buf[0] ? buf : "/", &sb) == 0 &&
		    (e = fileset_find(inputs, (uint64_t)sb.st_dev, (uint64_t)sb.st_ino)) &&
		    e->kind == FILESET_DIR)
			return e;
		slash = strrchr(buf, '/');
		if (!slash || !buf[0])
			return NULL;
		*slash = 0;
	}
}

/* The real path of the directory path would be created in, into out:
 * 0, or -1 when it does not resolve (the error comes when writing). */
static int real_dir_of(const char *path, char *out)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= sizeof(dir))
		return -1;
	if (!slash)
		strcpy(dir, ".");
	else if (n == 0)
		strcpy(dir, "/");
	else {
		memcpy(dir, path, n);
		dir[n] = 0;
	}
	return realpath(dir, out) ? 0 : -1;
}

int check_output(const char *path, const struct fileset *inputs, const char *what)
{
	const struct fileset_entry *e;
	char dir[PATH_MAX];
	struct stat sb;

	if (!path || !strcmp(path, "-") || !strcmp(path, ":memory:"))
		return 0;
	if (stat(path, &sb) == 0 &&
	    (e = fileset_find(inputs, (uint64_t)sb.st_dev, (uint64_t)sb.st_ino)))
		return cli_error("%s: the %s would replace the input %s: refused (oomlens never"
			     " writes over its inputs)", path, what, e->path);
	if (real_dir_of(path, dir) == 0 && (e = folder_of(inputs, dir)))
		return cli_error("%s: the %s would be written inside the input folder %s: refused"
			     " (oomlens writes nothing among the evidence; choose another place)",
			     path, what, e->path);
	return 0;
}

int default_output_dir(const struct fileset *inputs, struct strbuf *dir)
{
	const struct fileset_entry *e;
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char cwd[PATH_MAX], real[PATH_MAX];
	size_t i;

	if (!getcwd(cwd, sizeof(cwd)) || !(e = folder_of(inputs, cwd)))
		return 0;   /* the current directory, as always */
	if (state && state[0] == '/')
		strbuf_addf(dir, "%s/oomlens", state);
	else if (home && home[0] == '/')
		strbuf_addf(dir, "%s/.local/state/oomlens", home);
	else
		return cli_error("the current directory is inside the input folder %s, and neither"
			     " XDG_STATE_HOME nor HOME is set: give --db and -o", e->path);
	if (strbuf_failed(dir))
		return cli_error("out of memory");
	for (i = 1; i <= dir->len; i++)     /* mkdir -p, private: it holds incidents */
		if (dir->buf[i] == '/' || dir->buf[i] == 0) {
			char c = dir->buf[i];
			dir->buf[i] = 0;
			if (mkdir(dir->buf, 0700) < 0 && errno != EEXIST) {
				cli_error("%s: cannot create: %s", dir->buf, strerror(errno));
				dir->buf[i] = c;
				return -1;
			}
			dir->buf[i] = c;
		}
	if (realpath(dir->buf, real) && (e = folder_of(inputs, real)))
		return cli_error("%s is inside the input folder %s too: give --db and -o", dir->buf,
			     e->path);
	cli_error("the current directory is inside the input folder %s: the database and report"
	      " go to %s", folder_of(inputs, cwd)->path, dir->buf);
	return 1;
}

/* ---- files written whole or not at all ---- */

/* A report is written in many small pieces (jansson writes each token by
 * itself): a large buffer, and no locking, as one thread writes it. */
static void fast_stream(FILE *f)
{
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	__fsetlocking(f, FSETLOCKING_BYCALLER);
}

enum out_kind { OUT_FILE, OUT_STREAM, OUT_REFUSED };

/* What writing to path means, from what it is now (lstat, never stat
 * alone): nothing there or a regular file is replaced whole (a temporary
 * renamed over it); a character device, FIFO or socket, or a symbolic
 * link to one (/dev/stderr, /proc/self/fd/N), is written as a stream in
 * place; a symbolic link to anything else or a directory is refused (said
 * here), since a rename would replace the link itself by a file. */
static enum out_kind output_kind(const char *path)
{
	struct stat lsb, sb;

	if (lstat(path, &lsb) < 0)
		return OUT_FILE;
	if (S_ISREG(lsb.st_mode))
		return OUT_FILE;
	if (S_ISLNK(lsb.st_mode)) {
		if (stat(path, &sb) == 0 && (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode) ||
					      S_ISSOCK(sb.st_mode)))
			return OUT_STREAM;
		cli_error("%s: is a symbolic link: refused (oomlens would replace the link by a"
		      " file; give the path it points to)", path);
		return OUT_REFUSED;
	}
	if (S_ISCHR(lsb.st_mode) || S_ISFIFO(lsb.st_mode) || S_ISSOCK(lsb.st_mode))
		return OUT_STREAM;
	cli_error("%s: is %s, not a file: refused", path, S_ISDIR(lsb.st_mode) ? "a directory" :
	      "a block device or another special file");
	return OUT_REFUSED;
}

/* Open a device, FIFO or socket path for writing in place (no temporary,
 * no rename: the path stays what it is). 0, or -1 said. */
static int outfile_open_stream(struct outfile *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return cli_error("%s: cannot write: %s", path, strerror(errno));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	fast_stream(o->f);
	o->path = path;
	o->stream = 1;
	return 0;
}

int outfile_open(struct outfile *o, const char *path)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *slash;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout")) {
		o->f = stdout;
		__fsetlocking(stdout, FSETLOCKING_BYCALLER);
		return 0;
	}
	switch (output_kind(path)) {
	case OUT_STREAM:
		return outfile_open_stream(o, path);
	case OUT_REFUSED:
		return -1;
	default:
		break;
	}
	slash = strrchr(path, '/');
	strbuf_add(&tmp, path, slash ? (size_t)(slash - path) + 1 : 0);
	strbuf_addf(&tmp, ".%s.XXXXXX", slash ? slash + 1 : path);
	if (strbuf_failed(&tmp)) {
		strbuf_release(&tmp);
		return cli_error("out of memory");
	}
	fd = mkostemp(tmp.buf, O_CLOEXEC);
	if (fd < 0) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		strbuf_release(&tmp);
		return -1;
	}
	{
		mode_t mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) < 0)
			{ /* stays 0600 */ }
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		close(fd);
		unlink(tmp.buf);
		strbuf_release(&tmp);
		return -1;
	}
	fast_stream(o->f);
	o->path = path;
	o->tmp = strbuf_detach(&tmp, NULL);
	cleanup_add(o->tmp);
	return 0;
}

int outfile_finish(struct outfile *o)
{
	int r = 0;

	if (o->stream) {   /* a device or FIFO: written in place, closed */
		if (fflush(o->f) != 0)
			r = cli_error("%s: cannot write: %s", o->path, strerror(errno));
		if (fclose(o->f) != 0 && r == 0)
			r = cli_error("%s: cannot write: %s", o->path, strerror(errno));
		memset(o, 0, sizeof(*o));
		return r;
	}
	if (!o->tmp) {
		if (o->f && fflush(o->f) != 0)
			r = cli_error("standard output: %s", strerror(errno));
		o->f = NULL;
		return r;
	}
	if (!o->f)
		return 0;   /* finished before */
	if (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)
		r = cli_error("%s: cannot write: %s", o->path, strerror(errno));
	if (fclose(o->f) != 0 && r == 0)
		r = cli_error("%s: cannot write: %s", o->path, strerror(errno));
	o->f = NULL;
	if (r < 0)
		outfile_abort(o);
	return r;
}

int outfile_place(struct outfile *o)
{
	int r = 0;

	if (!o->tmp)
		return 0;   /* stdout or a stream: nothing to rename */
	if (rename(o->tmp, o->path) < 0) {
		r = cli_error("%s: cannot put in place: %s", o->path, strerror(errno));
		unlink(o->tmp);
	}
	cleanup_forget(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return r;
}

int outfile_commit(struct outfile *o)
{
	if (outfile_finish(o) < 0)
		return -1;
	return outfile_place(o);
}

void outfile_abort(struct outfile *o)
{
	if (o->stream && o->f)
		fclose(o->f);
	if (o->tmp) {
		if (o->f)
			fclose(o->f);
		unlink(o->tmp);
		cleanup_forget(o->tmp);
		free(o->tmp);
	}
	memset(o, 0, sizeof(*o));
}
