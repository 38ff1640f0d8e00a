/*
 * ingest.c -- walk the artifacts, detect each, run its parser into the
 * timeline, one transaction per artifact. A failed artifact leaves its
 * row and diagnostics; the others go on. What the user should hear goes
 * to the callbacks of struct ingest_cfg (ingest.h); nothing is printed.
 */
#include "analyzer/ingest/ingest.h"
#include "analyzer/store/correlate.h"
#include "analyzer/ingest/formats.h"
#include "lib/strbuf.h"
#include "parsers/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Note an artifact we could not open or do not read: its row with status
 * and, when msg is given, one diagnostic. Returns 0, or -1 when the store
 * failed. */
static int note_artifact(struct timeline *tl, const char *path, const char *status,
			 enum ol_severity sev, const char *msg, uint64_t size)
{
	int64_t id = timeline_artifact_begin(tl, path, NULL, size, 0);
	if (id < 0)
		return -1;
	if (msg)
		sink_diagf(&tl->sink, 0, 0, sev, "%s", msg);
	return timeline_artifact_end(tl, 1, status, 0, 0);
}

/* Tell cfg->message one line, printf-style, unless quiet. */
static void say(const struct ingest_cfg *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct ingest_cfg *cfg, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (cfg->quiet || !cfg->message)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (!strbuf_failed(&sb))
		cfg->message(cfg->arg, sb.buf);
	strbuf_release(&sb);
}

/* Progress: only when asked for, only for large files. */
#define PROGRESS_MIN_SIZE (64u << 20)

struct progress {
	const struct ingest_cfg *cfg;
	double t0;
};

/* The input's refill hook: where reading stands, to cfg->on_progress. */
static void tell_progress(struct input *in, void *arg)
{
	const struct progress *pr = arg;
	struct ingest_progress p = { in->path, in->offset, in->size, in->compressed,
				     now_s() - pr->t0, 0 };

	pr->cfg->on_progress(pr->cfg->arg, &p);
}

/* Run format f over the open input as one artifact (one transaction),
 * count the outcome in st and tell cfg about a failed or partial one.
 * Returns 0, or -1 when the store failed; a parser that fails only makes
 * the artifact 'failed'. */
static int parse_artifact(struct timeline *tl, const char *path, struct input *in,
			  const struct format *f, const struct ingest_cfg *cfg,
			  struct ingest_stats *st)
{
	struct progress pr = { cfg, now_s() };
	const char *status;
	int n;

	if (cfg->progress > 0 && cfg->on_progress && in->size >= PROGRESS_MIN_SIZE) {
		in->progress = tell_progress;
		in->progress_arg = &pr;
		in->progress_every = 16u << 20;
		in->progress_next = in->progress_every;
	}
	if (timeline_artifact_begin(tl, path, f->kind, in->size, in->compressed) < 0)
		return -1;
	n = f->parse(in, &tl->sink);
	if (in->progress && in->progress_next > in->progress_every) {
		struct ingest_progress done = { path, 0, in->size, in->compressed,
						now_s() - pr.t0, 1 };
		cfg->on_progress(cfg->arg, &done);
	}
	if (in->error)
		sink_diagf(&tl->sink, 0, in->offset, OL_ERROR,
			   "read error after %llu bytes (%s): the rest of the file is lost",
			   (unsigned long long)in->offset,
			   in->compressed ? "corrupt or truncated gzip stream" : strerror(in->error));
	if (n < 0) {
		status = "failed";
		st->failed++;
	} else if (tl->sink.n_errors) {
		status = "partial";
		st->partial++;
		st->records += (uint64_t)n;
	} else {
		status = n ? "ok" : "empty";
		st->ok += n ? 1 : 0;
		st->records += (uint64_t)n;
	}
	st->bytes += in->offset;
	if (tl->sink.n_errors || n < 0)
		say(cfg, "%s: %s: %s (%u errors, %u warnings; see the report)",
		    path, f->kind, status, tl->sink.n_errors, tl->sink.n_warnings);
	return timeline_artifact_end(tl, n >= 0, status, in->offset, now_s() - pr.t0);
}

/* One file: detect its format(s), then parse it once per format (a syslog
 * with kernel and server lines is read by both line-log parsers). A file
 * that cannot be opened or is of no known format is noted as such.
 * Returns 0, or -1 when the store failed. */
static int ingest_file(struct timeline *tl, const char *path, const struct ingest_cfg *cfg,
		       struct ingest_stats *st)
{
	struct strbuf err = STRBUF_INIT;
	const struct format *fs[4];
	struct input in;
	int i, nf, r = 0;

	st->files++;
	if (input_open(&in, path, &err) < 0) {
		say(cfg, "%s", err.buf);
		st->failed++;
		r = note_artifact(tl, path, "failed", OL_ERROR, err.buf, 0);
		strbuf_release(&err);
		return r;
	}
	if (cfg->force_kind) {
		fs[0] = format_by_kind(cfg->force_kind);
		nf = fs[0] ? 1 : 0;
	} else {
		nf = detect_formats(&in, fs, 4);
	}
	if (!nf && !cfg->force_kind) {
		/* one-value cgroup files (memory.max: "max") have no
		 * content signature; their name is the only clue. */
		size_t hn;
		const unsigned char *head = input_peek(&in, DETECT_HEAD, &hn);
		if (cgroup_name_sniff(path, head, hn) && (fs[0] = format_by_kind("cgroup")))
			nf = 1;
	}
	if (!nf) {
		st->skipped++;
		say(cfg, "%s: skipped: not a format oomlens reads", path);
		input_close(&in);
		return note_artifact(tl, path, "skipped", OL_INFO,
				     "not a format oomlens reads", in.size);
	}
	for (i = 0; i < nf && r == 0; i++) {
		if (i > 0) {
			input_close(&in);
			if (input_open(&in, path, &err) < 0) {
				strbuf_release(&err);
				return -1;
			}
		}
		r = parse_artifact(tl, path, &in, fs[i], cfg, st);
	}
	input_close(&in);
	return r;
}

/* qsort order of file names: bytewise, so that a walk is reproducible. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or a directory walked in name order (hidden names skipped, at
 * most 16 levels deep). Returns 0, or -1 when the store failed or memory
 * ran out. */
static int ingest_path(struct timeline *tl, const char *path, const struct ingest_cfg *cfg,
		       struct ingest_stats *st, int depth)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int r = 0;

	if (stat(path, &sb) < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s: %s", path, strerror(errno));
		say(cfg, "%s", msg);
		st->files++;
		st->failed++;
		return note_artifact(tl, path, "failed", OL_ERROR, msg, 0);
	}
	if (!S_ISDIR(sb.st_mode))
		return ingest_file(tl, path, cfg, st);
	if (depth > 16)
		return 0;
	d = opendir(path);
	if (!d) {
		st->failed++;
		return note_artifact(tl, path, "failed", OL_ERROR, strerror(errno), 0);
	}
	while ((de = readdir(d))) {
		struct strbuf sbp = STRBUF_INIT;
		if (de->d_name[0] == '.')
			continue;  /* ., .., and hidden files */
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof(*names));
			if (!p) {
				r = -1;
				break;
			}
			names = p;
		}
		strbuf_addf(&sbp, "%s%s%s", path,
			    path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
		names[n++] = strbuf_detach(&sbp, NULL);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (r == 0)
			r = ingest_path(tl, names[i], cfg, st, depth + 1);
		free(names[i]);
	}
	free(names);
	return r;
}

int ingest_paths(struct timeline *tl, char *const *paths, int npaths,
		 const struct ingest_cfg *cfg, struct ingest_stats *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < npaths; i++)
		if (ingest_path(tl, paths[i], cfg, st, 0) < 0)
			return -1;
	if (timeline_align_clocks(tl) < 0 || correlate_events(tl) < 0)
		return -1;
	return st->records ? 0 : 1;
}
