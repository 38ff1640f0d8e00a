/*
 * cmd_replay.c -- `oomlens replay DIR...`: the regression harness of the
 * rules. Each DIR is one incident case (fixtures/<case>/): its artifacts
 * and an expected.json (docs/fixtures.md). The case is ingested into an
 * in-memory timeline, classified, and compared: class, cause, the causes
 * that must contribute, figures within tolerances, missing evidence.
 * One line per case, then "N passed, N failed"; exit 3 on any mismatch.
 */
#include "analyzer/cli/cli.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/rules/rules.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char replay_usage[] =
	"usage: oomlens replay [--oracle DBDIR] DIR...\n"
	"  Ingests each case directory (artifacts + expected.json), classifies it and\n"
	"  compares the verdict with expected.json. Directories without expected.json\n"
	"  are skipped.\n"
	"  --oracle DBDIR  classify DBDIR/<case>.db (a timeline written by\n"
	"                  fixtures/gen_fixtures.py --oracle) instead of ingesting\n"
	"exit: 0 all cases passed, 3 a case did not give its expected verdict, 2 usage\n";

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The case's artifacts: every non-hidden entry but expected.json and
 * notes (*.md), in name order. Returns the count or -1. */
static int case_paths(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char **nv;
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "expected.json") ||
		    (len > 3 && !strcmp(e->d_name + len - 3, ".md")))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (asprintf(&v[n], "%s/%s", dir, e->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	qsort(v, (size_t)n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

/* The best finding's figure for cause (or any finding when cause is
 * NULL); 0 found, -1 not. */
static int figure(sqlite3 *db, const char *cause, const char *key, double *out)
{
	sqlite3_stmt *st;
	char path[140];
	int r = -1;

	snprintf(path, sizeof(path), "$.%s", key);
	if (sqlite3_prepare_v2(db, "SELECT json_extract(figures, ?2) FROM finding WHERE"
			       " (?1 IS NULL OR cause = ?1) AND json_extract(figures, ?2) IS NOT NULL"
			       " ORDER BY score DESC, id LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (cause)
		sqlite3_bind_text(st, 1, cause, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_double(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

static int has_finding(sqlite3 *db, const char *what)
{
	sqlite3_stmt *st;
	int r = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM finding WHERE score >= ?2 AND (cause = ?1 OR"
			       " class = ?1 OR class || '/' || cause = ?1) LIMIT 1", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, what, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, VERDICT_MIN_SCORE);
	r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return r;
}

static void add_mismatch(struct strbuf *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_mismatch(struct strbuf *why, const char *fmt, ...)
{
	va_list ap;
	char buf[600];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strbuf_addf(why, "%s%s", why->len ? "; " : "", buf);
}

/* 1 if cause matches the expected "cause" (a string or an array of them). */
static int cause_ok(json_t *want, const char *got)
{
	size_t i;
	json_t *v;

	if (json_is_string(want))
		return got && !strcmp(json_string_value(want), got);
	json_array_foreach(want, i, v)
		if (json_is_string(v) && got && !strcmp(json_string_value(v), got))
			return 1;
	return 0;
}

/* Compare the classified timeline with expected; mismatches into why. */
static void compare(sqlite3 *db, json_t *exp, struct strbuf *why)
{
	const char *cls = NULL, *cause = NULL, *missing = NULL, *key;
	json_t *v, *figs;
	sqlite3_stmt *st;
	double conf = 0;
	size_t i;

	if (sqlite3_prepare_v2(db, "SELECT class, cause, confidence, missing FROM verdict"
			       " ORDER BY id LIMIT 1", -1, &st, NULL) != SQLITE_OK) {
		add_mismatch(why, "no verdict table");
		return;
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		cls = (const char *)sqlite3_column_text(st, 0);
		cause = (const char *)sqlite3_column_text(st, 1);
		conf = sqlite3_column_double(st, 2);
		missing = (const char *)sqlite3_column_text(st, 3);
		cls = cls ? strdup(cls) : NULL;
		cause = cause ? strdup(cause) : NULL;
		missing = missing ? strdup(missing) : NULL;
	}
	sqlite3_finalize(st);
	v = json_object_get(exp, "class");
	if (json_is_string(v) && (!cls || strcmp(json_string_value(v), cls)))
		add_mismatch(why, "expected class %s, got %s (%s)", json_string_value(v),
			     cls ? cls : "no verdict", cause ? cause : "no cause");
	v = json_object_get(exp, "cause");
	if (v && !json_is_null(v) && !cause_ok(v, cause)) {
		char *w = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		add_mismatch(why, "expected cause %s, got %s", w ? w : "?", cause ? cause : "null");
		free(w);
	}
	v = json_object_get(exp, "min_confidence");
	if (json_is_number(v) && conf < json_number_value(v))
		add_mismatch(why, "expected confidence >= %.2f, got %.2f", json_number_value(v), conf);
	json_array_foreach(json_object_get(exp, "contributing"), i, v)
		if (json_is_string(v) && !has_finding(db, json_string_value(v)))
			add_mismatch(why, "expected a %s finding, got none", json_string_value(v));
	json_array_foreach(json_object_get(exp, "missing"), i, v)
		if (json_is_string(v) && (!missing || !strcasestr(missing, json_string_value(v))))
			add_mismatch(why, "expected '%s' in missing, got '%s'", json_string_value(v),
				     missing ? missing : "");
	figs = json_object_get(exp, "figures");
	json_object_foreach(figs, key, v) {
		/* "cause.figure" or "figure" */
		char c[64] = "";
		const char *dot = strchr(key, '.'), *fk = key;
		double got, want = json_number_value(json_object_get(v, "value"));
		json_t *rel = json_object_get(v, "rel"), *abs_ = json_object_get(v, "abs");
		json_t *mn = json_object_get(v, "min"), *mx = json_object_get(v, "max");
		if (dot && (size_t)(dot - key) < sizeof(c)) {
			memcpy(c, key, (size_t)(dot - key));
			c[dot - key] = 0;
			fk = dot + 1;
		}
		if (figure(db, c[0] ? c : NULL, fk, &got) < 0) {
			add_mismatch(why, "expected figure %s, got none", key);
			continue;
		}
		if ((json_is_number(mn) && got < json_number_value(mn)) ||
		    (json_is_number(mx) && got > json_number_value(mx)) ||
		    (json_is_number(rel) && fabs(got - want) > fabs(want) * json_number_value(rel)) ||
		    (json_is_number(abs_) && fabs(got - want) > json_number_value(abs_)))
			add_mismatch(why, "expected %s %s%g, got %g", key,
				     json_is_number(mn) || json_is_number(mx) ? "in range near " : "",
				     json_is_number(json_object_get(v, "value")) ? want :
				     json_is_number(mn) ? json_number_value(mn) : json_number_value(mx),
				     got);
	}
	free((void *)cls);
	free((void *)cause);
	free((void *)missing);
}

/* Ingest options a case may need: {"boot_time": ISO, "tz": "+HH:MM", "year": N}. */
static void case_options(json_t *o, struct ingest_opts *opts)
{
	json_t *v;
	int off;
	int64_t ns;

	if ((v = json_object_get(o, "boot_time")) && json_is_string(v) &&
	    parse_iso8601(json_string_value(v), strlen(json_string_value(v)), &ns, &off) == 0)
		opts->boot_time_ns = ns;
	if ((v = json_object_get(o, "tz")) && json_is_string(v) &&
	    parse_tz_offset(json_string_value(v), strlen(json_string_value(v)), &off) == 0) {
		opts->tz_known = 1;
		opts->tz_offset_s = off;
	}
	if ((v = json_object_get(o, "year")) && json_is_integer(v))
		opts->year = (int)json_integer_value(v);
}

/* Run one case: 1 passed, 0 failed, -1 skipped. oracle: directory of
 * prepared timelines to classify instead of ingesting (NULL: ingest). */
static int replay_case(const char *dir, const char *oracle)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT, why = STRBUF_INIT, name = STRBUF_INIT;
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	struct timeline *tl = NULL;
	json_error_t jerr;
	json_t *exp = NULL;
	char **paths = NULL;
	struct stat sb;
	int n = 0, i, r = -1;

	strbuf_addstr(&name, dir);
	while (name.len > 1 && name.buf[name.len - 1] == '/')
		strbuf_setlen(&name, name.len - 1);
	strbuf_addf(&path, "%s/expected.json", name.buf);
	if (stat(path.buf, &sb) < 0) {
		fprintf(stderr, "oomlens: %s: no expected.json, skipped\n", name.buf);
		goto done;
	}
	{
		const char *slash = strrchr(name.buf, '/');
		if (slash) {
			struct strbuf tmp = STRBUF_INIT;
			strbuf_addstr(&tmp, slash + 1);
			strbuf_setlen(&name, 0);
			strbuf_addstr(&name, tmp.buf);
			strbuf_release(&tmp);
		}
	}
	r = 0;
	exp = json_load_file(path.buf, 0, &jerr);
	if (!exp || !json_is_object(exp)) {
		printf("FAIL %s: expected.json:%d: %s\n", name.buf, jerr.line, jerr.text);
		goto done;
	}
	tl = calloc(1, sizeof(*tl));
	if (tl && oracle) {
		struct strbuf db = STRBUF_INIT;
		strbuf_addf(&db, "%s/%s.db", oracle, name.buf);
		i = timeline_open(tl, db.buf, 0, &err);
		strbuf_release(&db);
		if (i < 0) {
			printf("FAIL %s: %s\n", name.buf, err.buf);
			goto done;
		}
		watch_store_errors(tl);
		goto analyze;
	}
	if (!tl || timeline_open(tl, ":memory:", 1, &err) < 0) {
		printf("FAIL %s: %s\n", name.buf, err.len ? err.buf : "out of memory");
		goto done;
	}
	watch_store_errors(tl);
	case_options(json_object_get(exp, "options"), &tl->opts);
	memset(&st, 0, sizeof(st));
	strbuf_setlen(&path, path.len - strlen("/expected.json"));
	n = case_paths(path.buf, &paths);
	if (n < 0 || (n > 0 && ingest_paths(tl, paths, n, &cfg, &st) < 0)) {
		printf("FAIL %s: cannot ingest the case\n", name.buf);
		goto done;
	}
analyze:
	strbuf_reset(&err);
	if (analyze_timeline(tl, &err) < 0) {
		error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
		printf("FAIL %s: the rules failed\n", name.buf);
		goto done;
	}
	compare(tl->db, exp, &why);
	if (why.len) {
		printf("FAIL %s: %s\n", name.buf, why.buf);
	} else {
		printf("PASS %s\n", name.buf);
		r = 1;
	}
done:
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	if (tl)
		timeline_close(tl);
	free(tl);
	json_decref(exp);
	strbuf_release(&path);
	strbuf_release(&err);
	strbuf_release(&why);
	strbuf_release(&name);
	fflush(stdout);
	return r;
}

int cmd_replay(int argc, char **argv)
{
	int i, pass = 0, fail = 0, ndirs = 0;
	const char *oracle = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--oracle") && i + 1 < argc) {
			oracle = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(replay_usage, stdout);
			return EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			error("unknown option '%s'", argv[i]);
			return usage(replay_usage);
		}
		ndirs++;
	}
	if (!ndirs)
		return usage(replay_usage);
	for (i = 1; i < argc; i++) {
		int r;
		if (!strcmp(argv[i], "--oracle")) {
			i++;
			continue;
		}
		r = replay_case(argv[i], oracle);
		if (r > 0)
			pass++;
		else if (r == 0)
			fail++;
	}
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? EXIT_MISMATCH : EXIT_OK;
}
