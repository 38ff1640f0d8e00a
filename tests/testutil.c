/*
 * testutil.c -- helpers for the cmocka tests; see testutil.h.
 */
#include "testutil.h"
#include "analyzer/derive/oom.h"
#include "analyzer/ingest/formats.h"
#include "analyzer/ingest/ingest.h"
#include "lib/input.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct timeline *t_open(void)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	struct strbuf err = STRBUF_INIT;

	assert_non_null(tl);
	if (timeline_open(tl, ":memory:", TL_CREATE, &err) < 0)
		fail_msg("timeline_open: %s", err.buf);
	return tl;
}

void t_close(struct timeline *tl)
{
	timeline_close(tl);
	free(tl);
}

int t_parse_mem(struct timeline *tl, const char *kind, const char *name,
		const char *text, size_t n)
{
	const struct format *f = format_by_kind(kind);
	struct input in;
	int r;

	assert_non_null(f);
	if (!n)
		n = strlen(text);
	assert_int_equal(input_open_mem(&in, name, text, n), 0);
	assert_true(timeline_artifact_begin(tl, name, kind, n, 0) > 0);
	r = ingest_parse(tl, f, &in);
	assert_int_equal(timeline_artifact_end(tl, r >= 0, r >= 0 ? "ok" : "failed",
					       in.offset, 0), 0);
	input_close(&in);
	return r;
}

int t_parse_file_as(struct timeline *tl, const char *kind, const char *relpath)
{
	size_t n;
	char *text = t_slurp(relpath, &n);
	int r = t_parse_mem(tl, kind, relpath, text, n);

	free(text);
	return r;
}

const char *t_src(const char *relpath)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", SRCDIR, relpath);
	return buf;
}

int t_parse_file(struct timeline *tl, const char *relpath)
{
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = strdup(t_src(relpath));
	int r = ingest_paths(tl, &p, 1, &cfg, &st);

	free(p);
	return r;
}

int t_parse_text(struct timeline *tl, const char *text)
{
	char path[] = "/tmp/oomlens-test-XXXXXX";
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = path;
	int fd = mkstemp(path), r;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	r = ingest_paths(tl, &p, 1, &cfg, &st);
	unlink(path);
	return r == 0 && t_int(tl, "SELECT count(*) FROM artifact WHERE status = 'ok'") > 0;
}

static sqlite3_stmt *query(struct timeline *tl, const char *fmt, va_list ap)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;

	strbuf_vaddf(&sql, fmt, ap);
	if (sqlite3_prepare_v2(tl->db, sql.buf, -1, &st, NULL) != SQLITE_OK)
		fail_msg("bad test query %s: %s", sql.buf, sqlite3_errmsg(tl->db));
	strbuf_release(&sql);
	return st;
}

int64_t t_int(struct timeline *tl, const char *fmt, ...)
{
	va_list ap;
	sqlite3_stmt *st;
	int64_t v = OL_NULL;

	va_start(ap, fmt);
	st = query(tl, fmt, ap);
	va_end(ap);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

double t_real(struct timeline *tl, const char *fmt, ...)
{
	va_list ap;
	sqlite3_stmt *st;
	double v = -1e300;

	va_start(ap, fmt);
	st = query(tl, fmt, ap);
	va_end(ap);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

const char *t_text(struct timeline *tl, const char *fmt, ...)
{
	static char buf[8192];
	va_list ap;
	sqlite3_stmt *st;

	va_start(ap, fmt);
	st = query(tl, fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "(null)");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

const char *t_first_phase(struct timeline *tl)
{
	return t_text(tl, "SELECT json_extract(data, '$.phase') FROM event WHERE kind IN"
		      " ('torch_oom', 'mem_failure') ORDER BY id LIMIT 1");
}

char *t_slurp(const char *relpath, size_t *n)
{
	FILE *f = fopen(t_src(relpath), "rb");
	struct strbuf sb = STRBUF_INIT;
	char tmp[65536];
	size_t k;

	if (!f)
		fail_msg("cannot open %s", t_src(relpath));
	while ((k = fread(tmp, 1, sizeof(tmp), f)) > 0)
		strbuf_add(&sb, tmp, k);
	fclose(f);
	return strbuf_detach(&sb, n);
}

char *t_slurp_with_line(const char *rel, int at, const char *insert, size_t *n)
{
	size_t len, k = strlen(insert), off = 0;
	char *text = t_slurp(rel, &len), *out;
	int line = 1;

	while (off < len && line < at)
		if (text[off++] == '\n')
			line++;
	out = malloc(len + k + 1);
	assert_non_null(out);
	memcpy(out, text, off);
	memcpy(out + off, insert, k);
	memcpy(out + off + k, text + off, len - off);
	out[len + k] = '\0';
	*n = len + k;
	free(text);
	return out;
}

void t_expect_oom(struct timeline *tl, const char *phase, const char *src,
		  const char *from)
{
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), phase);
	assert_string_equal(t_text(tl, "SELECT phase_source FROM oom WHERE id = 1"), src);
	assert_string_equal(t_text(tl, "SELECT a.path FROM oom o LEFT JOIN artifact a"
				   " ON a.id = o.phase_artifact WHERE o.id = 1"), from);
}
