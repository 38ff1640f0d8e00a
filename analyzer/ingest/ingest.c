/*
 * ingest.c -- walk the artifacts, detect each, run its parser into the
 * timeline, one transaction per artifact. A failed artifact leaves its
 * row and diagnostics; the others go on. What the user should hear goes
 * to the callbacks of struct ingest_cfg (ingest.h); nothing is printed.
 *
 * The walk is bounded whatever the folder holds: only regular files are
 * opened (checked before opening: a FIFO or a device never blocks it),
 * each directory and file is met once by device and inode (links to "."
 * do not multiply artifacts, a cycle ends), and content already in the
 * database, or oomlens's own outputs, are not read again. An archive
 * (tar, zip, compressed or nested) is walked member by member from a
 * stream (archive.c): each member goes through the same detection and
 * parsers as a file on disk and is stored with its container.
 */
#include "analyzer/ingest/ingest.h"
#include "analyzer/ingest/archive.h"
#include "analyzer/ingest/formats.h"
#include "analyzer/ingest/own_outputs.h"
#include "analyzer/store/correlate.h"
#include "analyzer/derive/holders.h"
#include "parsers/common/sink_tee.h"
#include "lib/strbuf.h"
#include "parsers/host/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_DEPTH 16

/* One ingest run: what every step needs. */
struct run {
	struct timeline *tl;
	const struct ingest_cfg *cfg;
	struct ingest_stats *st;
	struct fileset *seen;
	double t0, last_progress;
	int progress_shown;
	const char *root;           /* the real path of the path given now */
	/* While an archive's member is read: the member, its container
	 * (artifact.container) and its path inside (artifact.path); the
	 * path the messages name is "container!/inner". NULL otherwise. */
	struct ar_member *member;
	const char *container, *inner;
	struct ar_budget budget;
};

/* The artifact's row, in its container when a member is read. */
static int64_t art_begin(struct run *r, const char *path, const char *kind, uint64_t size,
			 int compressed)
{
	return timeline_artifact_begin_in(r->tl, r->container, r->container ? r->inner : path,
					  kind, size, compressed);
}

static int64_t art_find(struct run *r, const char *path, const char *kind, uint64_t size,
			char hash[TIMELINE_HASH_LEN])
{
	return timeline_find_artifact_in(r->tl, r->container, r->container ? r->inner : path,
					 kind, size, hash);
}

/* Open the artifact at path again from its start: the file, or the
 * member held in memory (a streamed member is read once: -1). */
static int open_again(struct run *r, const char *path, struct input *in, struct strbuf *err)
{
	if (!r->member)
		return input_open(in, path, err);
	if (ar_member_reopen(r->member, in) == 0)
		return 0;
	strbuf_addf(err, "%s: a member over %u MiB is read once, by its first format", path,
		    AR_SPOOL_MAX >> 20);
	return -1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Tell cfg->message one line, printf-style, unless quiet. */
static void say(const struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct run *r, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (r->cfg->quiet || !r->cfg->message)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (!strbuf_failed(&sb))
		r->cfg->message(r->cfg->arg, sb.buf);
	strbuf_release(&sb);
}

/* ---- progress ---- */

/* Tell on_progress where the run stands, when the run has lasted a
 * second and a tenth of one has passed since the last time. in: the
 * artifact being read, or NULL between artifacts. */
static void progress(struct run *r, const struct input *in)
{
	struct ingest_progress p = { NULL, 0, 0, 0, r->st->files,
				     r->st->bytes + (in ? in->offset : 0), 0, 0 };
	double t;

	if (r->cfg->progress <= 0 || !r->cfg->on_progress)
		return;
	t = now_s();
	if (t - r->t0 < 1.0 || t - r->last_progress < 0.1)
		return;
	if (in) {
		p.path = in->path;
		p.offset = in->offset;
		p.size = in->size;
		p.compressed = in->compressed;
	}
	p.seconds = t - r->t0;
	r->last_progress = t;
	r->progress_shown = 1;
	r->cfg->on_progress(r->cfg->arg, &p);
}

/* The input's refill hook, every few MiB read of an artifact. */
static void input_progress(struct input *in, void *arg)
{
	progress(arg, in);
}

/* ---- artifacts noted without a parse ---- */

/* Note an artifact that is not read: its row with status (and kind NULL)
 * and, when msg is given, one diagnostic; counted in st. Returns 0, or
 * -1 when the store failed. */
static int note_artifact(struct run *r, const char *path, const char *status,
			 enum ol_severity sev, const char *msg, uint64_t size)
{
	int64_t id;

	r->st->files++;
	if (!strcmp(status, "failed"))
		r->st->failed++;
	else
		r->st->skipped++;
	id = art_begin(r, path, NULL, size, 0);
	if (id < 0)
		return -1;
	if (msg)
		sink_diagf(&r->tl->sink, 0, 0, sev, "%s", msg);
	return timeline_artifact_end(r->tl, 1, status, 0, 0);
}

/* Note a skipped artifact and say why: "path: skipped: why". One noted
 * so by an earlier run (ingest --append) is counted, not noted again. */
static int skip_artifact(struct run *r, const char *path, const char *why, uint64_t size)
{
	int64_t seen = art_find(r, path, NULL, size, NULL);

	if (seen < 0)
		return -1;
	if (seen > 0) {
		r->st->files++;
		r->st->skipped++;
		r->st->duplicates++;
		say(r, "%s: skipped: %s (noted before: artifact %lld)", path, why, (long long)seen);
		return 0;
	}
	say(r, "%s: skipped: %s", path, why);
	return note_artifact(r, path, "skipped", OL_INFO, why, size);
}

/* Count an artifact of kind that is artifact dup already (same path,
 * format and content), and say so. Returns 0. */
static int count_duplicate(struct run *r, const char *path, const char *kind, int64_t dup)
{
	r->st->files++;
	r->st->skipped++;
	r->st->duplicates++;
	say(r, "%s: %s: skipped: already in the database (artifact %lld, same content)",
	    path, kind, (long long)dup);
	return 0;
}

/* ---- one artifact: one file read by one format ---- */

/* Count the outcome of a parse that returned n, and its status. */
static const char *outcome(struct run *r, int n)
{
	struct ingest_stats *st = r->st;

	st->files++;
	if (n < 0) {
		st->failed++;
		return "failed";
	}
	st->records += (uint64_t)n;
	if (r->tl->sink.n_errors) {
		st->partial++;
		return "partial";
	}
	st->ok++;
	if (n)
		return "ok";
	st->no_records++;
	sink_diagf(&r->tl->sink, 0, 0, OL_INFO, "read without error, but nothing in it is a"
		   " record oomlens keeps (no OOM report, sample, snapshot or core data)");
	return "no_records";
}

/* Is this artifact (path, format, content) in the database already? An
 * earlier one of the same path, format and size says it may be: then the
 * file is hashed first, in the form of that one's hash (read once more,
 * only in that case), and compared. The id of the artifact holding it, 0
 * when none (the input is then ready for the parse, reopened if it was
 * hashed), -1 when the store failed, -2 when the file could not be opened
 * again. */
static int64_t already_there(struct run *r, const char *path, struct input *in,
			     const struct format *f)
{
	char stored[TIMELINE_HASH_LEN], now[TIMELINE_HASH_LEN];
	struct strbuf err = STRBUF_INIT;
	int64_t id = art_find(r, path, f->kind, in->size, stored);
	uint64_t h;
	int sampled;

	if (id <= 0)
		return id;
	if (r->member && !r->member->data)
		return id;  /* streamed, read once: the same container, path, format and size */
	if (input_hash(in, stored[0] == 's' ? INPUT_HASH_SAMPLED : INPUT_HASH_WHOLE, &h,
		       &sampled) < 0) {
		id = 0;
	} else {
		timeline_hash_text(h, sampled, now);
		if (strcmp(now, stored))
			id = 0;
	}
	input_close(in);
	if (id == 0 && open_again(r, path, in, &err) < 0)
		id = -2;
	strbuf_release(&err);
	return id;
}

int ingest_parse(struct timeline *tl, const struct format *f, struct input *in)
{
	struct sink_tee tee;
	struct holders_sink holders;
	int n;

	sink_tee_init(&tee, &tl->sink, &holders.sink);
	holders_sink_init(&holders, tl, &tee.id);
	n = f->parse(in, &tee.sink);
	holders_sink_release(&holders);
	return n;
}

/* Run format f over the open input as one artifact (one transaction),
 * count the outcome and tell cfg about a failed, partial or empty one.
 * An artifact whose path, format and content are in the database already
 * (ingest --append of the same files) is counted as skipped and leaves
 * no row. Returns 0, or -1 when the store failed; a parser that fails
 * only makes the artifact 'failed'. */
static int parse_artifact(struct run *r, const char *path, struct input *in,
			  const struct format *f)
{
	struct timeline *tl = r->tl;
	double t0 = now_s();
	const char *status;
	int64_t dup;
	uint64_t h;
	int n, sampled;

	dup = already_there(r, path, in, f);
	if (dup == -1)
		return -1;
	if (dup > 0)
		return count_duplicate(r, path, f->kind, dup);
	if (dup == -2)
		return note_artifact(r, path, "failed", OL_ERROR, "the file went away", 0);
	if (r->cfg->progress > 0 && r->cfg->on_progress) {
		in->progress = input_progress;
		in->progress_arg = r;
		in->progress_every = 4u << 20;
		in->progress_next = in->progress_every;
	}
	if (art_begin(r, path, f->kind, in->size, in->compressed) < 0)
		return -1;
	n = ingest_parse(tl, f, in);
	if (in->error && r->member)
		sink_diagf(&tl->sink, 0, in->offset, OL_ERROR, "the archive's read stopped after %llu"
			   " bytes of this member: %s", (unsigned long long)in->offset,
			   r->budget.why[0] ? r->budget.why : "the archive is cut short or corrupt");
	else if (in->error)
		sink_diagf(&tl->sink, 0, in->offset, OL_ERROR,
			   "read error after %llu bytes (%s): the rest of the file is lost",
			   (unsigned long long)in->offset,
			   in->compressed ? "corrupt or truncated compressed stream" : strerror(in->error));
	if (input_hash(in, INPUT_HASH_AUTO, &h, &sampled) == 0)  /* for a later --append */
		timeline_artifact_hash(tl, h, sampled);
	{
		char why[300];
		int lost;
		if (input_changed(in, why, sizeof(why), &lost))
			sink_diagf(&tl->sink, 0, in->offset, lost ? OL_ERROR : OL_WARN, "%s", why);
	}
	status = outcome(r, n);
	r->st->bytes += in->offset;
	if (tl->sink.n_errors) {
		char where[48] = "";
		if (tl->sink.first_error_line)
			snprintf(where, sizeof(where), "line %llu: ",
				 (unsigned long long)tl->sink.first_error_line);
		else if (tl->sink.first_error_offset)
			snprintf(where, sizeof(where), "byte %llu: ",
				 (unsigned long long)tl->sink.first_error_offset);
		say(r, "%s: %s: %s: %s%s (%u errors, %u warnings in all)", path, f->kind, status,
		    where, tl->sink.first_error, tl->sink.n_errors, tl->sink.n_warnings);
	} else if (n < 0) {
		say(r, "%s: %s: %s (%u warnings)", path, f->kind, status, tl->sink.n_warnings);
	}
	else if (n == 0 && !strcmp(f->kind, "text"))
		say(r, "%s: read: no memory failure, no record oomlens knows", path);
	else if (n == 0)
		say(r, "%s: %s: read, but nothing in it is a record oomlens keeps", path, f->kind);
	return timeline_artifact_end(tl, n >= 0, status, in->offset, now_s() - t0);
}

/* The formats that read this input, best first (at most max); 0 when
 * none does. */
static int formats_of(const struct run *r, const char *path, struct input *in,
		      const struct format **fs, int max, const char **why)
{
	const unsigned char *head;
	size_t hn;
	int nf;

	if (r->cfg->force_kind) {
		fs[0] = format_by_kind(r->cfg->force_kind);
		return fs[0] ? 1 : 0;
	}
	nf = detect_formats(in, fs, max);
	if (nf)
		return nf;
	/* one-value cgroup files (memory.max: "max") have no content
	 * signature; their name is the only clue. */
	head = input_peek(in, DETECT_HEAD, &hn);
	if (cgroup_name_sniff(path, head, hn) && (fs[0] = format_by_kind("cgroup")))
		return 1;
	/* no format claims it: a text file is still read whole for memory
	 * failures in any wording (format_fallback); a binary is not */
	return (fs[0] = format_fallback(in, why)) ? 1 : 0;
}

/* A file read before by another path (a link), an oomlens output or an
 * empty file: the reason to skip it, in why; NULL to read it. Returns
 * "" when memory ran out. */
static const char *reason_to_skip(struct run *r, struct input *in, char *why, size_t n)
{
	const struct fileset_entry *first;
	const unsigned char *head;
	const char *own;
	size_t hn;
	int added = r->member ? 1 :   /* a member has no identity on disk */
		fileset_add(r->seen, in->dev, in->ino, FILESET_FILE, in->path, &first);

	if (added < 0)
		return "";
	if (added == 0) {
		snprintf(why, n, "the same file as %s, read once", first->path);
		return why;
	}
	head = input_peek(in, DETECT_HEAD, &hn);
	if (!hn && !in->error)
		return "an empty file";
	if ((own = own_output_kind(head, hn))) {
		snprintf(why, n, "an oomlens output (%s), not evidence", own);
		return why;
	}
	return NULL;
}

/* The open artifact in (a file, or an archive's member): detect its
 * format(s), then parse it once per format (a syslog with kernel and
 * server lines is read by both line-log parsers). One that is skipped, or
 * of no known format, is noted as such. in is closed after. Returns 0, or
 * -1 when the store failed or memory ran out. */
static int read_artifact(struct run *r, const char *path, struct input *in)
{
	struct strbuf err = STRBUF_INIT;
	const struct format *fs[FORMATS_PER_FILE];
	const char *skip, *unread = "not a format oomlens reads";
	char why[512];
	int i, nf, rc = 0;

	skip = reason_to_skip(r, in, why, sizeof(why));
	if (skip) {
		input_close(in);
		return *skip ? skip_artifact(r, path, skip, in->size) : -1;
	}
	nf = formats_of(r, r->member ? r->inner : path, in, fs, FORMATS_PER_FILE, &unread);
	if (!nf) {
		input_close(in);
		return skip_artifact(r, path, unread, in->size);
	}
	for (i = 0; i < nf && rc == 0; i++) {
		if (i > 0) {
			input_close(in);
			if (open_again(r, path, in, &err) < 0) {
				const char *msg = strbuf_failed(&err) ? "out of memory" : err.buf;
				say(r, "%s", msg);
				rc = note_artifact(r, path, "failed", OL_ERROR, msg, 0);
				strbuf_release(&err);
				return rc;
			}
		}
		rc = parse_artifact(r, path, in, fs[i]);
		progress(r, NULL);
	}
	input_close(in);
	return rc;
}

/* archive.c's callback: one member of an archive, read as a file is. */
static int ingest_member(void *arg, struct ar_member *m)
{
	struct run *r = arg;
	struct strbuf shown = STRBUF_INIT;
	int rc;

	strbuf_addf(&shown, "%s!/%s", m->container, m->path);
	if (strbuf_failed(&shown))
		return -1;
	r->member = m;
	r->container = m->container;
	r->inner = m->path;
	rc = read_artifact(r, shown.buf, m->in);
	r->member = NULL;
	r->container = r->inner = NULL;
	strbuf_release(&shown);
	return rc;
}

/* The archive at path (open in in): its members read, then its own row
 * (kind "archive": status ok, or partial with why when the walk stopped
 * early: cut short, corrupt, past a bound), once per content (--append
 * of the same archive adds no second row). Returns 0, or -1 when the
 * store failed or memory ran out. */
static int ingest_archive(struct run *r, const char *path, struct input *in)
{
	char stored[TIMELINE_HASH_LEN], now[TIMELINE_HASH_LEN];
	double t0 = now_s();
	uint64_t h = 0;
	int64_t dup;
	int rc, sampled = 0, hashed;

	r->budget.limit = r->cfg->max_unpacked ? r->cfg->max_unpacked : ar_default_limit(in->size);
	r->budget.max_members = r->cfg->max_members;
	rc = ar_walk(in, path, &r->budget, ingest_member, r);
	if (rc < 0)
		return -1;
	if (rc)
		say(r, "%s: %s", path, r->budget.why);
	hashed = input_hash(in, INPUT_HASH_AUTO, &h, &sampled) == 0;
	dup = timeline_find_artifact(r->tl, path, "archive", in->size, stored);
	if (dup < 0)
		return -1;
	if (dup > 0 && hashed) {
		timeline_hash_text(h, sampled, now);
		if (!strcmp(now, stored))
			return 0;
	}
	if (timeline_artifact_begin(r->tl, path, "archive", in->size, in->compressed) < 0)
		return -1;
	if (rc)
		sink_diagf(&r->tl->sink, 0, 0, OL_ERROR, "%s", r->budget.why);
	if (hashed)
		timeline_artifact_hash(r->tl, h, sampled);
	return timeline_artifact_end(r->tl, 1, rc ? "partial" : "ok", in->offset, now_s() - t0);
}

/* One regular file: an archive walked, or an artifact read (see
 * read_artifact). A file that cannot be opened is noted as such. Returns
 * 0, or -1 when the store failed or memory ran out. */
static int ingest_file(struct run *r, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	const unsigned char *head;
	struct input in;
	size_t hn;
	int rc;

	if (input_open(&in, path, &err) < 0) {
		const char *why = strbuf_failed(&err) ? "out of memory" : err.buf;
		say(r, "%s%s%s", why == err.buf ? "" : path, why == err.buf ? "" : ": ", why);
		rc = note_artifact(r, path, "failed", OL_ERROR, why, 0);
		strbuf_release(&err);
		return rc;
	}
	head = input_peek(&in, 512, &hn);
	if (!r->cfg->force_kind && ar_sniff(head, hn)) {
		char why[512];
		const char *skip = reason_to_skip(r, &in, why, sizeof(why));
		if (skip) {
			input_close(&in);
			return *skip ? skip_artifact(r, path, skip, in.size) : -1;
		}
		rc = ingest_archive(r, path, &in);
		input_close(&in);
		return rc;
	}
	return read_artifact(r, path, &in);
}

/* ---- the walk ---- */

/* qsort order of file names: bytewise, so that a walk is reproducible. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of directory path (hidden names left out), as paths, in
 * name order, into *names (caller frees each and the array). Returns the
 * count, or -1 with errno set. */
static long list_dir(const char *path, char ***names)
{
	size_t n = 0, cap = 0, plen = strlen(path);
	DIR *d = opendir(path);
	struct dirent *de;
	char **v = NULL;
	int e = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct strbuf sb = STRBUF_INIT;
		if (de->d_name[0] == '.')
			continue;  /* ., .., and hidden files */
		if (n == cap) {
			char **p = realloc(v, (cap = cap ? cap * 2 : 32) * sizeof(*v));
			if (!p) {
				e = ENOMEM;
				break;
			}
			v = p;
		}
		strbuf_addf(&sb, "%s%s%s", path, plen && path[plen - 1] == '/' ? "" : "/",
			    de->d_name);
		if (strbuf_failed(&sb)) {
			e = ENOMEM;
			break;
		}
		v[n++] = strbuf_detach(&sb, NULL);
	}
	closedir(d);
	if (e) {
		while (n)
			free(v[--n]);
		free(v);
		errno = e;
		return -1;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	return (long)n;
}

static int ingest_path(struct run *r, const char *path, int depth);

/* A directory, walked in name order, once. Returns 0, or -1 when the
 * store failed or memory ran out. */
static int ingest_dir(struct run *r, const char *path, const struct stat *sb, int depth)
{
	const struct fileset_entry *first;
	char **names = NULL;
	long n, i;
	int added, rc = 0;

	if (depth > MAX_DEPTH) {
		say(r, "%s: skipped: more than %d directory levels deep", path, MAX_DEPTH);
		return 0;
	}
	added = fileset_add(r->seen, (uint64_t)sb->st_dev, (uint64_t)sb->st_ino, FILESET_DIR,
			    path, &first);
	if (added < 0)
		return -1;
	if (added == 0) {
		say(r, "%s: skipped: the directory %s again (a link to it, or a cycle)", path,
		    first->path);
		return 0;
	}
	n = list_dir(path, &names);
	if (n < 0) {
		char msg[512];
		if (errno == ENOMEM)
			return -1;
		snprintf(msg, sizeof(msg), "%s: cannot read the directory: %s", path, strerror(errno));
		say(r, "%s", msg);
		return note_artifact(r, path, "failed", OL_ERROR, msg, 0);
	}
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = ingest_path(r, names[i], depth + 1);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Whether path (a real path) is root or lies inside it. */
static int inside(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return 1;
	return !strncmp(root, path, n) && (path[n] == 0 || path[n] == '/');
}

/* A symbolic link met inside a folder given (depth > 0): why it is not
 * followed into msg (n bytes) and 1, or 0 to follow it. Where it leads
 * is resolved whole (realpath); a link out of the folder given is not
 * followed without --follow-outside (an environ -> /proc/self/environ in
 * a bundle would be the analyst's own environment), and one into /proc,
 * /sys or /dev never is. */
static int link_refused(const struct run *r, const char *path, char *msg, size_t n)
{
	char target[PATH_MAX];

	if (!realpath(path, target))
		return 0;   /* dangling or a loop: stat() says so next */
	if (inside("/proc", target) || inside("/sys", target) || inside("/dev", target)) {
		snprintf(msg, n, "a symbolic link to %.300s, the running kernel's state, not"
			 " evidence: not followed", target);
		return 1;
	}
	if (!r->cfg->follow_outside && r->root && !inside(r->root, target)) {
		snprintf(msg, n, "a symbolic link out of the folder given (to %.300s): not followed"
			 " (--follow-outside reads it)", target);
		return 1;
	}
	return 0;
}

/* A file or a directory. Returns 0, or -1 when the store failed or
 * memory ran out. */
static int ingest_path(struct run *r, const char *path, int depth)
{
	struct stat sb;
	char msg[512];

	if (depth > 0 && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) &&
	    link_refused(r, path, msg, sizeof(msg)))
		return skip_artifact(r, path, msg, 0);
	if (stat(path, &sb) < 0) {
		snprintf(msg, sizeof(msg), "%s: %s", path, strerror(errno));
		say(r, "%s", msg);
		return note_artifact(r, path, "failed", OL_ERROR, msg, 0);
	}
	if (S_ISDIR(sb.st_mode))
		return ingest_dir(r, path, &sb, depth);
	if (!S_ISREG(sb.st_mode)) {
		snprintf(msg, sizeof(msg), "%s, not a regular file: not read",
			 input_file_type(sb.st_mode));
		return skip_artifact(r, path, msg, 0);
	}
	return ingest_file(r, path);
}

int ingest_paths(struct timeline *tl, char *const *paths, int npaths,
		 const struct ingest_cfg *cfg, struct ingest_stats *st)
{
	struct fileset own = FILESET_INIT;
	struct run r = { tl, cfg, st, cfg->seen ? cfg->seen : &own, now_s(), 0, 0, NULL,
			 NULL, NULL, NULL, { 0 } };
	int i, rc = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < npaths && rc == 0; i++) {
		char root[PATH_MAX];
		r.root = realpath(paths[i], root) ? root : NULL;
		rc = ingest_path(&r, paths[i], 0);
	}
	r.root = NULL;
	if (rc == 0 && (timeline_align_clocks(tl) < 0 ||
			correlate_events(tl) < 0))
		rc = -1;
	if (r.progress_shown) {
		struct ingest_progress done = { NULL, 0, 0, 0, st->files, st->bytes,
						now_s() - r.t0, 1 };
		cfg->on_progress(cfg->arg, &done);
	}
	fileset_release(&own);
	if (rc < 0)
		return -1;
	return st->records ? 0 : 1;
}
