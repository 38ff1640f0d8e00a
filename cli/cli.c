/*
 * cli.c -- what the commands share: messages on stderr and help on
 * stdout (this is the only layer that prints), the option walk over each
 * command's table and the options of every command that ingests, opening
 * a database, the ingest run with its summary, and writing a report to a
 * file or stdout.
 */
#include "cli/cli.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/store/timeline.h"
#include "lib/budget.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The length of the UTF-8 sequence at p (at most n bytes) and its code
 * point in *cp; 0 when it is not valid UTF-8 (overlong, surrogate, cut). */
static size_t utf8_seq(const unsigned char *p, size_t n, unsigned *cp)
{
	size_t k, i;
	unsigned c = p[0], min;

	if (c >= 0xc2 && c <= 0xdf)
		k = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return k;
}

/* Code points a terminal acts on or that reorder what it shows: C1
 * controls (U+0080-U+009F: CSI among them) and the bidi overrides. */
static int unsafe_cp(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* s[0..n) to f, what a terminal would act on as \xHH (newlines kept
 * when keep_nl). */
static void write_safe(FILE *f, const char *s, size_t n, int keep_nl)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	unsigned cp;
	size_t k;

	while (p < end) {
		if (*p < 0x80) {
			if ((*p < 0x20 && *p != '\t' && !(keep_nl && *p == '\n')) || *p == 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
			p++;
			continue;
		}
		k = utf8_seq(p, (size_t)(end - p), &cp);
		if (!k || unsafe_cp(cp)) {
			for (k = k ? k : 1; k--; p++)
				fprintf(f, "\\x%02x", *p);
			continue;
		}
		fwrite(p, 1, k, f);
		p += k;
	}
}

void cli_write_safe(FILE *f, const char *s, size_t n)
{
	write_safe(f, s, n, 1);
}

/* vprintf to f, made safe (newlines kept when keep_nl). */
static int vprintf_safe(FILE *f, int keep_nl, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	if (strbuf_failed(&sb)) {
		strbuf_release(&sb);
		fputs("(out of memory)", f);
		return -1;
	}
	write_safe(f, sb.buf, sb.len, keep_nl);
	strbuf_release(&sb);
	return 0;
}

int cli_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vprintf_safe(f, 1, fmt, ap);
	va_end(ap);
	return r;
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("oomlens: ", stderr);
	va_start(ap, fmt);
	vprintf_safe(stderr, 0, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int cli_usage(const char *text)
{
	fputs(text, stderr);
	return EXIT_USAGE;
}

static void store_error(void *arg, const char *msg)
{
	(void)arg;
	cli_error("sqlite: %s", msg);
}

void watch_store_errors(struct timeline *tl)
{
	tl->on_error = store_error;
	tl->on_error_arg = NULL;
}

int cli_help(const char *text)
{
	fputs(text, stdout);
	return EXIT_OK;
}

/* The row of a's table for argument arg ("--db", "--db=X", "-o"), with
 * the length of its name in *len; NULL when none matches. */
static const struct cli_opt *find_opt(const struct cli_args *a, const char *arg, size_t *len)
{
	const struct cli_opt *o;

	for (o = a->opts; o->name; o++) {
		size_t n = strlen(o->name);
		if (!strncmp(arg, o->name, n) && (arg[n] == 0 || (arg[n] == '=' && o->takes_value))) {
			*len = n;
			return o;
		}
		if (o->alias && arg[0] == '-' && arg[1] == o->alias && arg[2] == 0) {
			*len = 2;
			return o;
		}
	}
	return NULL;
}

/* The next option of a (cli_next, less the options it handles itself). */
static int next_opt(struct cli_args *a)
{
	const struct cli_opt *o;
	const char *arg;
	size_t len;

	for (;;) {
		if (a->i >= a->argc)
			return CLI_DONE;
		arg = a->argv[a->i++];
		if (!strcmp(arg, "--") && !a->only_args)
			a->only_args = 1;
		else if (a->only_args || arg[0] != '-' || arg[1] == 0)
			a->args[a->nargs++] = (char *)arg;  /* nargs < i: nothing unread is lost */
		else
			break;
	}
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		return CLI_HELP;
	o = find_opt(a, arg, &len);
	if (!o) {
		cli_error("unknown option '%s'", arg);
		return CLI_BAD;
	}
	a->value = NULL;
	if (!o->takes_value)
		return (int)o->id;
	if (arg[len] == '=') {
		a->value = arg + len + 1;
	} else if (a->i < a->argc) {
		a->value = a->argv[a->i++];
	} else {
		cli_error("%s needs a value", o->name);
		return CLI_BAD;
	}
	return (int)o->id;
}

int cli_next(struct cli_args *a)
{
	int o;

	while ((o = next_opt(a)) == OPT_MAX_MEMORY) {
		int64_t b = cli_parse_size(a->value);
		if (b < (int64_t)OL_BUDGET_MIN)
			return cli_error("--max-memory: expected a size of at least 1 MiB such as"
					 " 1GiB or 512M, got '%s'", a->value), CLI_BAD;
		ol_budget_set((uint64_t)b);
	}
	return o;
}

int cli_format_option(enum cli_opt_id id, const char *v, enum report_format *fmt)
{
	if (id == OPT_JSON) {
		*fmt = REPORT_JSON;
		return 0;
	}
	if (report_format_parse(v, fmt) == 0)
		return 0;
	return cli_error("--format: expected html, md, json or text, got '%s'", v);
}

/* "80GiB", "79.2G", "512MiB", "85899345920" -> bytes (K, M, G, T and
 * KiB... binary; KB, MB... decimal); -1 if not a size. */
int64_t cli_parse_size(const char *s)
{
	static const double gib = 1073741824.0;
	static const struct { const char *suf; double mul; } units[] = {
		{ "", 1 }, { "b", 1 }, { "k", 1024.0 }, { "kib", 1024.0 }, { "kb", 1e3 },
		{ "m", 1048576.0 }, { "mib", 1048576.0 }, { "mb", 1e6 },
		{ "g", gib }, { "gib", gib }, { "gb", 1e9 },
		{ "t", gib * 1024 }, { "tib", gib * 1024 }, { "tb", 1e12 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v >= 0) || v > 1e15)
		return -1;
	while (*end == ' ')
		end++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].suf))
			return (int64_t)(v * units[i].mul);
	return -1;
}

int cli_ingest_option(enum cli_opt_id id, const char *v, struct ingest_opts *o,
		      struct ingest_cfg *cfg)
{
	int off;

	if (id == OPT_FOLLOW_OUTSIDE) {
		cfg->follow_outside = 1;
	} else if (id == OPT_MAX_UNPACKED) {
		int64_t b = cli_parse_size(v);
		if (b < 4096)
			return cli_error("--max-unpacked: expected a size of at least 4 KiB such as"
					 " 2GiB or 512M, got '%s'", v);
		cfg->max_unpacked = (uint64_t)b;
	} else if (id == OPT_MAX_MEMBERS) {
		char *end;
		long long m;
		errno = 0;
		m = strtoll(v, &end, 10);
		if (end == v || *end || errno || m < 1 || m > 100000000)
			return cli_error("--max-members: expected a count from 1 to 100000000,"
					 " got '%s'", v);
		cfg->max_members = (unsigned)m;
	} else if (id == OPT_BOOT_TIME) {
		int64_t ns;
		if (parse_iso8601(v, strlen(v), &ns, &off) < 0)
			return cli_error("--boot-time: expected an ISO 8601 time, got '%s'", v);
		o->boot_time_ns = ns;
	} else if (id == OPT_TZ) {
		if (parse_tz_offset(v, strlen(v), &off) < 0)
			return cli_error("--tz: expected +HH:MM or -HH:MM, got '%s'", v);
		o->tz_known = 1;
		o->tz_offset_s = off;
	} else if (id == OPT_YEAR) {
		char *end;
		long y = strtol(v, &end, 10);
		if (end == v || *end || y < 1970 || y > 9999)
			return cli_error("--year: expected a year, got '%s'", v);
		o->year = (int)y;
	} else {
		return cli_error("internal: option %d is not an ingest option", (int)id);
	}
	return 0;
}

int open_db(struct timeline *tl, const char *path, enum timeline_mode mode)
{
	struct strbuf err = STRBUF_INIT;

	if (timeline_open(tl, path, mode, &err) < 0) {
		cli_error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
		strbuf_release(&err);
		return -1;
	}
	watch_store_errors(tl);
	cleanup_add(tl->tmp_path);
	cleanup_add(tl->lock_path);
	return 0;
}

int commit_db(struct timeline *tl)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	cleanup_forget(tl->tmp_path);   /* renamed now, or removed at close */
	r = timeline_commit(tl, &err);
	if (r < 0)
		cli_error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
	strbuf_release(&err);
	return r;
}

void close_db(struct timeline *tl)
{
	cleanup_forget(tl->tmp_path);
	cleanup_forget(tl->lock_path);
	timeline_close(tl);
}

/* Say which artifacts gave wall-clock times without a zone: they were read
 * as UTC, which misplaces them against the UTC sources unless the host ran
 * on UTC. Nothing is guessed; the user can give --tz. */
static void warn_local_clock(struct timeline *tl)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(tl->db, "SELECT path FROM artifact WHERE id IN"
			       " (SELECT artifact_id FROM meta WHERE key = 'time.clock' AND"
			       " value = 'local' UNION SELECT artifact_id FROM event WHERE"
			       " clock = 'local') ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n++ < 5)
			cli_printf(stderr, "%s%s", n == 1 ? "oomlens: local times without a zone,"
				" read as UTC (give --tz if the host was not on UTC): " : ", ",
				(const char *)sqlite3_column_text(st, 0));
	}
	if (n > 5)
		fprintf(stderr, " and %d more", n - 5);
	if (n)
		fputc('\n', stderr);
	sqlite3_finalize(st);
}

/* Ingest's messages: one "oomlens: ..." line each. */
static void ingest_message(void *arg, const char *line)
{
	(void)arg;
	cli_error("%s", line);
}

/* The tail of path that fits in max bytes ("...tail"), into buf. */
static const char *path_tail(const char *path, char *buf, size_t max)
{
	size_t n = strlen(path);

	if (n <= max)
		return path;
	snprintf(buf, max + 1, "...%s", path + n - (max - 3));
	return buf;
}

/* Ingest's progress on a terminal: one line rewritten in place, cleared
 * when the run is done (the summary follows). */
static void ingest_progress(void *arg, const struct ingest_progress *p)
{
	char tail[48];

	(void)arg;
	fputs("\r\033[K", stderr);
	if (p->done) {
		fflush(stderr);
		return;
	}
	fprintf(stderr, "oomlens: %u artifacts, %llu MB read in %.0f s", p->files,
		(unsigned long long)(p->bytes / 1000000), p->seconds);
	if (p->path) {
		fputs("; ", stderr);
		cli_printf(stderr, "%s", path_tail(p->path, tail, sizeof(tail) - 1));
		if (p->compressed)
			fprintf(stderr, " %llu MB", (unsigned long long)(p->offset / 1000000));
		else if (p->size >= 64000000)
			fprintf(stderr, " %.0f%%", 100.0 * (double)p->offset / (double)p->size);
	}
	fflush(stderr);
}

/* The summary of a run: every artifact counted once, the counts adding up. */
static void print_summary(const struct ingest_stats *st, const char *db)
{
	cli_printf(stderr, "oomlens: %u artifacts: %u read, %u with errors, %u failed, %u skipped",
		   st->files, st->ok, st->partial, st->failed, st->skipped);
	if (st->no_records)
		fprintf(stderr, " (%u read gave no record", st->no_records);
	if (st->duplicates)
		fprintf(stderr, "%s%u already in the database", st->no_records ? "; " : " (",
			st->duplicates);
	if (st->no_records || st->duplicates)
		fputc(')', stderr);
	cli_printf(stderr, "; %llu records into %s\n", (unsigned long long)st->records, db);
}

/* Open db for run_ingest: new (built aside), or in place for an append,
 * in one transaction. 0 or -1. */
static int open_for_ingest(struct timeline *tl, const char *db, int append)
{
	if (open_db(tl, db, append ? TL_WRITE : TL_CREATE) < 0)
		return -1;
	if (append && timeline_begin(tl) < 0)
		return cli_error("%s: cannot start the append: %s", db, tl->errmsg);
	return 0;
}

int run_ingest(const char *db, int append, int commit, char **paths, int npaths,
	       const struct ingest_opts *opts, struct ingest_cfg *cfg,
	       struct timeline *tl)
{
	struct ingest_stats st;
	int r;

	if (open_for_ingest(tl, db, append) < 0)
		return EXIT_ERROR;
	tl->opts = *opts;
	if (cfg->progress < 0)
		cfg->progress = isatty(2);
	cfg->message = ingest_message;
	cfg->on_progress = ingest_progress;
	r = ingest_paths(tl, paths, npaths, cfg, &st);
	if (r < 0) {
		cli_error("%s: the database failed while ingesting%s%s", db, tl->errmsg[0] ? ": " : "",
		      tl->errmsg);
		return EXIT_ERROR;
	}
	if (!cfg->quiet)
		print_summary(&st, db);
	/* new artifacts: the stored verdict no longer covers them */
	if (append && st.files > st.duplicates && timeline_forget_verdict(tl) < 0) {
		cli_error("%s: %s", db, tl->errmsg);
		return EXIT_ERROR;
	}
	if (r == 1 && !(append && st.duplicates && st.duplicates == st.skipped &&
			st.files == st.skipped)) {
		cli_error("nothing usable in the artifacts given%s", append ? "" : "; no database written");
		if (append)
			commit_db(tl);   /* what was noted of them is kept */
		return EXIT_ERROR;
	}
	if (r == 1)
		cli_error("nothing new: every artifact is already in %s", db);
	if (!cfg->quiet && !opts->tz_known)
		warn_local_clock(tl);
	if (commit && commit_db(tl) < 0)
		return EXIT_ERROR;
	return EXIT_OK;
}

int report_into(sqlite3 *db, enum report_format format, struct outfile *out)
{
	if (report_render(db, format, out) < 0)
		return -1;
	return outfile_place(out);
}

int report_render(sqlite3 *db, enum report_format format, struct outfile *out)
{
	struct strbuf err = STRBUF_INIT;
	int r = report_write(db, format, out->f, &err);

	if (err.len)     /* the reason it failed, or a query whose part is missing */
		cli_error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
	strbuf_release(&err);
	if (r < 0) {
		cli_error("%s: the report could not be written", out->path ? out->path
		      : "standard output");
		outfile_abort(out);
		return -1;
	}
	return outfile_finish(out);
}

int write_report(sqlite3 *db, enum report_format format, const char *path)
{
	struct outfile out;

	if (outfile_open(&out, path) < 0)
		return -1;
	return report_into(db, format, &out);
}
