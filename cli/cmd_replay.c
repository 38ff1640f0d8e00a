/*
 * cmd_replay.c -- `oomlens replay DIR...`: the regression harness of the
 * rules. Each DIR is one incident case (fixtures/<case>/): its artifacts
 * and an expected.json (docs/fixtures.md). The case is ingested into an
 * in-memory timeline, classified, and compared: class, cause, the causes
 * that must contribute, figures within tolerances, missing evidence.
 * One line per case, then "N passed, N failed"; exit 3 on any mismatch.
 */
#include "cli/cli.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/rules/rules.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char replay_usage[] =
	"usage: oomlens replay [--oracle DBDIR] DIR...\n"
	"  Ingests each case directory (artifacts + expected.json), classifies it and\n"
	"  compares the verdict with expected.json. Directories without expected.json\n"
	"  are skipped.\n"
	"  --oracle DBDIR  classify DBDIR/<case>.db (a timeline written by\n"
	"                  fixtures/gen_fixtures.py --oracle) instead of ingesting\n"
	"exit: 0 all cases passed, 3 a case did not give its expected verdict, 2 usage\n"
	"      (also: a DIR that does not exist, or no DIR holding an expected.json)\n";

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

/* The first verdict row's class, cause, confidence and missing list,
 * copied (the caller frees the strings); 0, or -1 when there is none. */
struct verdict_row {
	char *cls, *cause, *missing;
	double conf;
};

static int read_verdict(sqlite3 *db, struct verdict_row *v)
{
	sqlite3_stmt *st;
	int r = -1;

	memset(v, 0, sizeof(*v));
	if (sqlite3_prepare_v2(db, "SELECT class, cause, confidence, missing FROM verdict"
			       " ORDER BY id LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		const char *k = (const char *)sqlite3_column_text(st, 1);
		const char *m = (const char *)sqlite3_column_text(st, 3);
		v->cls = c ? strdup(c) : NULL;
		v->cause = k ? strdup(k) : NULL;
		v->missing = m ? strdup(m) : NULL;
		v->conf = sqlite3_column_double(st, 2);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

/* The title of the verdict's strongest finding of its cause contains
 * want; a mismatch into why. */
static void compare_title(sqlite3 *db, const char *want, struct strbuf *why)
{
	sqlite3_stmt *st;
	const char *t = NULL;

	if (sqlite3_prepare_v2(db, "SELECT title FROM finding WHERE cause = (SELECT cause FROM"
			       " verdict ORDER BY id LIMIT 1) ORDER BY score DESC, id LIMIT 1", -1,
			       &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		t = (const char *)sqlite3_column_text(st, 0);
	if (!t || !strstr(t, want))
		add_mismatch(why, "expected a title with '%s', got '%s'", want, t ? t : "none");
	sqlite3_finalize(st);
}

/* The verdict against expected's class, cause, min_confidence,
 * max_confidence, contributing, missing and title; mismatches into why. */
static void compare_verdict(sqlite3 *db, json_t *exp, struct strbuf *why)
{
	struct verdict_row vr;
	json_t *v;
	size_t i;

	read_verdict(db, &vr);
	v = json_object_get(exp, "class");
	if (json_is_string(v) && (!vr.cls || strcmp(json_string_value(v), vr.cls)))
		add_mismatch(why, "expected class %s, got %s (%s)", json_string_value(v),
			     vr.cls ? vr.cls : "no verdict", vr.cause ? vr.cause : "no cause");
	v = json_object_get(exp, "cause");
	if (v && !json_is_null(v) && !cause_ok(v, vr.cause)) {
		char *w = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		add_mismatch(why, "expected cause %s, got %s", w ? w : "?",
			     vr.cause ? vr.cause : "null");
		free(w);
	}
	v = json_object_get(exp, "min_confidence");
	if (json_is_number(v) && vr.conf < json_number_value(v))
		add_mismatch(why, "expected confidence >= %.2f, got %.2f", json_number_value(v),
			     vr.conf);
	/* what one artifact cannot prove must not be claimed with confidence */
	v = json_object_get(exp, "max_confidence");
	if (json_is_number(v) && vr.conf > json_number_value(v))
		add_mismatch(why, "expected confidence <= %.2f, got %.2f", json_number_value(v),
			     vr.conf);
	json_array_foreach(json_object_get(exp, "contributing"), i, v)
		if (json_is_string(v) && !has_finding(db, json_string_value(v)))
			add_mismatch(why, "expected a %s finding, got none", json_string_value(v));
	json_array_foreach(json_object_get(exp, "missing"), i, v)
		if (json_is_string(v) && (!vr.missing || !strcasestr(vr.missing, json_string_value(v))))
			add_mismatch(why, "expected '%s' in missing, got '%s'", json_string_value(v),
				     vr.missing ? vr.missing : "");
	v = json_object_get(exp, "title");
	if (json_is_string(v))
		compare_title(db, json_string_value(v), why);
	free(vr.cls);
	free(vr.cause);
	free(vr.missing);
}

/* One expected figure: key "cause.figure" or "figure", spec {value, rel,
 * abs, min, max}; a mismatch into why. */
static void compare_figure(sqlite3 *db, const char *key, json_t *spec, struct strbuf *why)
{
	char c[64] = "";
	const char *dot = strchr(key, '.'), *fk = key;
	double got, want = json_number_value(json_object_get(spec, "value"));
	json_t *rel = json_object_get(spec, "rel"), *abs_ = json_object_get(spec, "abs");
	json_t *mn = json_object_get(spec, "min"), *mx = json_object_get(spec, "max");

	if (dot && (size_t)(dot - key) < sizeof(c)) {
		memcpy(c, key, (size_t)(dot - key));
		c[dot - key] = 0;
		fk = dot + 1;
	}
	if (figure(db, c[0] ? c : NULL, fk, &got) < 0) {
		add_mismatch(why, "expected figure %s, got none", key);
		return;
	}
	if ((json_is_number(mn) && got < json_number_value(mn)) ||
	    (json_is_number(mx) && got > json_number_value(mx)) ||
	    (json_is_number(rel) && fabs(got - want) > fabs(want) * json_number_value(rel)) ||
	    (json_is_number(abs_) && fabs(got - want) > json_number_value(abs_)))
		add_mismatch(why, "expected %s %s%g, got %g", key,
			     json_is_number(mn) || json_is_number(mx) ? "in range near " : "",
			     json_is_number(json_object_get(spec, "value")) ? want :
			     json_is_number(mn) ? json_number_value(mn) : json_number_value(mx),
			     got);
}

/* Compare the classified timeline with expected; mismatches into why. */
static void compare(sqlite3 *db, json_t *exp, struct strbuf *why)
{
	const char *key;
	json_t *v;

	compare_verdict(db, exp, why);
	json_object_foreach(json_object_get(exp, "figures"), key, v)
		compare_figure(db, key, v, why);
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

/* The case's name: the last component of dir, without trailing '/'. */
static void case_name(const char *dir, struct strbuf *name)
{
	const char *end = dir + strlen(dir), *start;

	while (end > dir + 1 && end[-1] == '/')
		end--;
	start = end;
	while (start > dir && start[-1] != '/')
		start--;
	strbuf_add(name, start, (size_t)(end - start));
}

/* The case's timeline in tl: the oracle's prepared database for it, or
 * its artifacts ingested into memory with its options. 0, or -1 with why. */
static int case_timeline(struct timeline *tl, const char *dir, const char *name,
			 json_t *exp, const char *oracle, struct strbuf *why)
{
	struct ingest_cfg cfg = { .quiet = 1 };
	struct strbuf db = STRBUF_INIT;
	struct ingest_stats st;
	char **paths = NULL;
	int n = 0, i, r;

	if (oracle)
		strbuf_addf(&db, "%s/%s.db", oracle, name);
	if (strbuf_failed(&db)) {
		strbuf_release(&db);
		strbuf_addstr(why, "out of memory");
		return -1;
	}
	r = timeline_open(tl, oracle ? db.buf : ":memory:", oracle ? TL_WRITE : TL_CREATE, why);
	strbuf_release(&db);
	if (r < 0)
		return -1;
	watch_store_errors(tl);
	if (oracle)
		return 0;
	case_options(json_object_get(exp, "options"), &tl->opts);
	n = case_paths(dir, &paths);
	if (n < 0 || (n > 0 && ingest_paths(tl, paths, n, &cfg, &st) < 0)) {
		strbuf_addstr(why, "cannot ingest the case");
		r = -1;
	}
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return r;
}

/* Run one case: 1 passed, 0 failed, -1 skipped (no expected.json).
 * oracle: directory of prepared timelines to classify instead of
 * ingesting (NULL: ingest). */
static int replay_case(const char *dir, const char *oracle)
{
	struct strbuf path = STRBUF_INIT, why = STRBUF_INIT, name = STRBUF_INIT;
	struct timeline *tl = NULL;
	json_error_t jerr;
	json_t *exp = NULL;
	int r = -1;

	case_name(dir, &name);
	strbuf_addf(&path, "%s/expected.json", dir);
	if (strbuf_failed(&name) || strbuf_failed(&path)) {
		r = 0;
		cli_printf(stdout, "FAIL %s: out of memory\n", dir);
		goto done;
	}
	if (access(path.buf, F_OK) < 0) {
		cli_error("%s: no expected.json, skipped", dir);
		goto done;
	}
	r = 0;
	exp = json_load_file(path.buf, 0, &jerr);
	if (!exp || !json_is_object(exp))
		strbuf_addf(&why, "expected.json:%d: %s", jerr.line, jerr.text);
	else if (!(tl = calloc(1, sizeof(*tl))))
		strbuf_addstr(&why, "out of memory");
	else if (case_timeline(tl, dir, name.buf, exp, oracle, &why) == 0 &&
		 analyze_timeline(tl, &why) == 0)
		compare(tl->db, exp, &why);
	else if (!why.len)
		strbuf_addstr(&why, "the rules failed");
	if (why.len) {
		cli_printf(stdout, "FAIL %s: %s\n", name.buf,
			   strbuf_failed(&why) ? "out of memory" : why.buf);
	} else {
		cli_printf(stdout, "PASS %s\n", name.buf);
		r = 1;
	}
done:
	if (tl)
		timeline_close(tl);
	free(tl);
	json_decref(exp);
	strbuf_release(&path);
	strbuf_release(&why);
	strbuf_release(&name);
	fflush(stdout);
	return r;
}

static const struct cli_opt replay_opts[] = {
	{ "--oracle", 0, 1, OPT_ORACLE }, { NULL, 0, 0, 0 }
};

int cmd_replay(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, replay_opts);
	int i, o, pass = 0, fail = 0;
	const char *oracle = NULL;
	struct stat sb;

	while ((o = cli_next(&a)) != CLI_DONE) {
		if (o == CLI_HELP)
			return cli_help(replay_usage);
		if (o != OPT_ORACLE)
			return cli_usage(replay_usage);
		oracle = a.value;
	}
	if (!a.nargs)
		return cli_usage(replay_usage);
	/* a case that is not there is a mistake, not a pass: say it first */
	for (i = 0; i < a.nargs; i++)
		if (stat(a.args[i], &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			cli_error("%s: %s", a.args[i], stat(a.args[i], &sb) < 0 ? strerror(errno)
			      : "not a case directory");
			return EXIT_USAGE;
		}
	for (i = 0; i < a.nargs; i++) {
		int r = replay_case(a.args[i], oracle);
		if (r > 0)
			pass++;
		else if (r == 0)
			fail++;
	}
	printf("%d passed, %d failed\n", pass, fail);
	if (!pass && !fail) {
		cli_error("no case to replay: none of the directories holds an expected.json");
		return EXIT_USAGE;
	}
	return fail ? EXIT_MISMATCH : EXIT_OK;
}
