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
int cmd_diff(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_watch(int argc, char **argv);

/* "oomlens: <msg>" on stderr, made safe for a terminal (see
 * cli_printf); returns -1 (git's cli_error()). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* printf to f with the bytes a terminal would act on written as \xHH:
 * control characters but tab and newline, invalid UTF-8, C1 controls and
 * the bidirectional overrides. For every message or line that may hold
 * text from an input (file names, log text). */
int cli_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s[0..n) to f made safe the same way. */
void cli_write_safe(FILE *f, const char *s, size_t n);
/* Print usage text on stderr and return EXIT_USAGE. */
int cli_usage(const char *text);

/* ---- options (after curl's tool_getparam.c: one table per command) ---- */

/* The options the commands know; each command lists those it takes. */
enum cli_opt_id {
	OPT_APPEND = 1, OPT_BOOT_TIME, OPT_DB, OPT_FORMAT, OPT_JSON, OPT_KIND,
	OPT_ORACLE, OPT_OUTPUT, OPT_QUIET, OPT_TZ, OPT_YEAR, OPT_FOLLOW_OUTSIDE,
	OPT_MAX_UNPACKED, OPT_MAX_MEMBERS, OPT_MAX_MEMORY,
};

struct cli_opt {
	const char *name;       /* "--db" */
	char alias;             /* 'o' for -o, or 0 */
	int takes_value;        /* 1: "--db X" or "--db=X" */
	enum cli_opt_id id;
};

/* --max-memory SIZE: the run's memory budget (lib/budget.h); cli_next
 * reads it itself, so a command only lists it. */
#define CLI_MEMORY_OPT { "--max-memory", 0, 1, OPT_MAX_MEMORY }

/* The options of every command that ingests (cli_ingest_option reads them). */
#define CLI_INGEST_OPTS \
	CLI_MEMORY_OPT, \
	{ "--boot-time", 0, 1, OPT_BOOT_TIME }, { "--tz", 0, 1, OPT_TZ }, \
	{ "--year", 0, 1, OPT_YEAR }, { "--follow-outside", 0, 0, OPT_FOLLOW_OUTSIDE }, \
	{ "--max-unpacked", 0, 1, OPT_MAX_UNPACKED }, { "--max-members", 0, 1, OPT_MAX_MEMBERS }

/* What cli_next found, when not an option. */
enum { CLI_DONE = 0, CLI_BAD = -1, CLI_HELP = -2 };

/* A walk over a command's argv (argv[0] is the command's name). The
 * arguments that are not options are gathered, in order, at the front of
 * argv: once the walk is done they are args[0..nargs). */
struct cli_args {
	int argc;
	char **argv;
	const struct cli_opt *opts; /* ends with a { NULL } row */
	int i;                      /* next argv index */
	int only_args;              /* after "--": everything is an argument */
	const char *value;          /* the option's value */
	char **args;                /* = argv: the arguments gathered so far */
	int nargs;
};
#define CLI_ARGS_INIT(argc, argv, opts) { (argc), (argv), (opts), 1, 0, NULL, (argv), 0 }

/* The next option's id (its value, if it takes one, in a->value;
 * --max-memory is read here: it sets the run's budget, not returned),
 * CLI_HELP for -h/--help, CLI_DONE at the end, or CLI_BAD after saying
 * what is wrong (unknown option, missing value). Arguments met on the way
 * are gathered (see struct cli_args). */
int cli_next(struct cli_args *a);
/* Read --format FMT (value) or --json into *fmt: 0, or -1 after saying
 * why (an unknown FMT). */
int cli_format_option(enum cli_opt_id id, const char *value, enum report_format *fmt);
/* Read one of CLI_INGEST_OPTS into o (the parsers' settings) or cfg (the
 * walk's): 0, or -1 after saying why. */
struct ingest_opts;
struct ingest_cfg;
int cli_ingest_option(enum cli_opt_id id, const char *value, struct ingest_opts *o,
		      struct ingest_cfg *cfg);
/* "80GiB", "79.2G", "512MiB", "85899345920" -> bytes; -1 if not a size. */
int64_t cli_parse_size(const char *s);
/* The command's help on stdout; returns EXIT_OK. */
int cli_help(const char *text);

struct ingest_cfg;
struct timeline;
struct fileset;
struct strbuf;
enum timeline_mode;
/* Open an existing incident database for a command (TL_READ, or TL_WRITE
 * for those that write findings), saying why not (and returning -1) when
 * it cannot be. */
int open_db(struct timeline *tl, const char *path, enum timeline_mode mode);
/* Print each store error of an open timeline as it happens
 * ("oomlens: sqlite: <message>"). */
void watch_store_errors(struct timeline *tl);
/* Open db (built new unless append: then written in place, in one
 * transaction) and ingest paths into tl; prints the summary. The
 * database is not committed (timeline_commit) unless commit is set.
 * Returns an exit code. tl stays open for the caller, who closes it (an
 * uncommitted new database is then removed). */
int run_ingest(const char *db, int append, int commit, char **paths, int npaths,
	       const struct ingest_opts *opts, struct ingest_cfg *cfg,
	       struct timeline *tl);
/* Close tl (an uncommitted new database is removed, the lock let go). */
void close_db(struct timeline *tl);
/* Commit tl (see timeline_commit), saying why not. 0 or -1. */
int commit_db(struct timeline *tl);
/* Write the report of an open database to path ("-" or NULL: stdout),
 * whole or not at all. 0, or -1 after saying why. */
int write_report(sqlite3 *db, enum report_format format, const char *path);

/* 0 when kind (--kind; NULL: not given) names a format, else -1 after
 * saying so and listing the formats (cmd_ingest.c). */
int cli_check_format(const char *kind);

struct outfile;
/* Write the report of an open database into out (see outfile_open) and
 * commit it, or abort it on failure. 0, or -1 after saying why. */
int report_into(sqlite3 *db, enum report_format format, struct outfile *out);
/* Write the report into out and finish it (outfile_finish: synced, not
 * yet in place; outfile_place puts it there), or abort it on failure. 0,
 * or -1 after saying why. */
int report_render(sqlite3 *db, enum report_format format, struct outfile *out);

/* ---- outputs (outputs.c) ---- */

/* Remove path should a signal (INT, TERM, HUP, PIPE) end the run; forget
 * it once it is renamed or removed. */
void cleanup_add(const char *path);
void cleanup_forget(const char *path);
/* Add the identities of paths (the inputs named on the command line) to
 * set. 0, or -1 after saying why. */
int note_inputs(struct fileset *set, char *const *paths, int n);
/* Refuse (-1, after saying why) an output path that is one of inputs or
 * lies inside one of its folders; what: "database", "report"... */
int check_output(const char *path, const struct fileset *inputs, const char *what);
/* Where analyze's default outputs go: 0 the current directory; 1 the
 * state directory (${XDG_STATE_HOME:-$HOME/.local/state}/oomlens, made if
 * need be, its path in dir), said on stderr, when the current directory
 * is an input folder or inside one; -1 after saying why neither will do. */
int default_output_dir(const struct fileset *inputs, struct strbuf *dir);

/* A file written under a temporary name beside it and renamed over it
 * when complete; a device, FIFO or socket written in place; or stdout.
 * Only a regular file (or nothing) at the path is ever replaced. */
struct outfile {
	const char *path;   /* the destination (borrowed); NULL for stdout */
	char *tmp;          /* the temporary, owned; NULL for stdout and streams */
	FILE *f;            /* write here */
	int stream;         /* 1: a device, FIFO or socket, written in place */
};
/* Open path ("-", "/dev/stdout" or NULL: stdout). A symbolic link to
 * anything but a device, FIFO or socket, a directory or a block device is
 * refused. 0, or -1 after saying why (the path and the reason). */
int outfile_open(struct outfile *o, const char *path);
/* Flush, sync and rename into place (outfile_finish, then outfile_place).
 * 0, or -1 after saying why (the temporary is removed). */
int outfile_commit(struct outfile *o);
/* Flush, sync and close the temporary, not yet in place (a stream or
 * stdout: flushed, and done). 0, or -1 after saying why (the temporary
 * removed, the destination untouched). */
int outfile_finish(struct outfile *o);
/* Rename the finished temporary over the destination. 0, or -1 after
 * saying why (the temporary removed, the destination untouched). */
int outfile_place(struct outfile *o);
/* Give up: the temporary is removed, the destination untouched. */
void outfile_abort(struct outfile *o);

#define INGEST_OPTIONS_HELP \
	"  --boot-time ISO    when the machine booted (places dmesg times on UTC)\n" \
	"  --tz +HH:MM        zone of year-less local log times (default: UTC, marked)\n" \
	"  --year YYYY        year of syslog lines that carry none (default: inferred\n" \
	"                     from the file's mtime: no line after the file was written)\n" \
	"  --follow-outside   follow symbolic links that leave the folders given (by\n" \
	"                     default they are listed, not read; /proc, /sys and /dev never)\n" \
	"  --max-unpacked SIZE the bytes one archive may unpack, every level counted\n" \
	"                     (default: 512MiB, or 200 times its size on disk; at most 64GiB)\n" \
	"  --max-members N    archive members read in the run (default 100000)\n" \
	MEMORY_OPTION_HELP

#define MEMORY_OPTION_HELP \
	"  --max-memory SIZE  the run's memory budget: what the snapshot decoders and\n" \
	"                     core readers may hold (default 1GiB, at least 1M)\n"

#endif
