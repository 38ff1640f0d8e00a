/*
 * cli.h -- what the command files share: the cmd_* entry points, exit
 * codes and message helpers (after git's usage.c).
 */
#ifndef OOMLENS_CLI_H
#define OOMLENS_CLI_H

#include <sqlite3.h>
#include <stdio.h>

#include "reports/report.h"

#include "lib/common.h"

/* Exit codes (docs/cli.md). */
enum {
	EXIT_OK = 0,        /* done; diagnostics may have been printed */
	EXIT_ERROR = 1,     /* nothing usable came out, or a store/report failed */
	EXIT_USAGE = 2,     /* bad command line */
	EXIT_MISMATCH = 3,  /* replay: a case did not give its expected verdict */
};

int cmd_analyze(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_classify(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* "oomlens: <msg>" on stderr; returns -1 (git's error()). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print usage text and return EXIT_USAGE. */
int usage(const char *text);

/* Shared options of the commands that ingest, parsed from argv[i]; returns
 * 1 if it consumed the option (and maybe its value), 0 if not ours, -1 on
 * a bad value. */
struct ingest_opts;
struct ingest_cfg;
struct timeline;
int parse_ingest_option(int argc, char **argv, int *i, struct ingest_opts *o);
/* Print each store error of an open timeline as it happens
 * ("oomlens: sqlite: <message>"). */
void watch_store_errors(struct timeline *tl);
/* Open db (fresh unless append) and ingest paths into tl; prints the
 * summary. Returns an exit code. tl stays open for the caller. */
int run_ingest(const char *db, int append, char **paths, int npaths,
	       const struct ingest_opts *opts, struct ingest_cfg *cfg,
	       struct timeline *tl);
/* Write the report of an open database to path ("-" or NULL: stdout). */
int write_report(sqlite3 *db, enum report_format format, const char *path);

#define INGEST_OPTIONS_HELP \
	"  --boot-time ISO    when the machine booted (places dmesg times on UTC)\n" \
	"  --tz +HH:MM        zone of year-less local log times (default: UTC, marked)\n" \
	"  --year YYYY        year of syslog lines that carry none (default: file mtime)\n"

#endif
