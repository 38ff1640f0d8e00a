/*
 * main.c -- the oomlens command: a table of subcommands, each a cmd_*
 * function in its own file (after git.c).
 */
#include "cli.h"
#include "../lib/timeutil.h"
#include "../parsers/sink.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "analyze", cmd_analyze, "ingest artifacts, classify the incident, write a report" },
	{ "ingest", cmd_ingest, "ingest artifacts into an incident database" },
	{ "report", cmd_report, "write the report of an incident database" },
	{ "timeline", cmd_timeline, "print an incident's events in time order" },
	{ "classify", cmd_classify, "re-run the rules on an incident database, print the verdict" },
	{ "replay", cmd_replay, "classify fixture cases and compare with their expected.json" },
	{ "convert", cmd_convert, "write a PyTorch memory snapshot pickle as flat JSON Lines" },
	{ NULL, NULL, NULL }
};

int error(const char *fmt, ...)
{
	va_list ap;

	fputs("oomlens: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int usage(const char *text)
{
	fputs(text, stderr);
	return EXIT_USAGE;
}

int parse_ingest_option(int argc, char **argv, int *i, struct ingest_opts *o)
{
	const char *a = argv[*i];
	const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;

	if (strcmp(a, "--boot-time") && strcmp(a, "--tz") && strcmp(a, "--year"))
		return 0;
	if (!v)
		return error("%s needs a value", a);
	(*i)++;
	if (!strcmp(a, "--boot-time")) {
		int off;
		int64_t ns;
		if (parse_iso8601(v, strlen(v), &ns, &off) < 0)
			return error("--boot-time: expected an ISO 8601 time, got '%s'", v);
		o->boot_time_ns = ns;
	} else if (!strcmp(a, "--tz")) {
		int off;
		if (parse_tz_offset(v, strlen(v), &off) < 0)
			return error("--tz: expected +HH:MM or -HH:MM, got '%s'", v);
		o->tz_known = 1;
		o->tz_offset_s = off;
	} else {
		char *end;
		long y = strtol(v, &end, 10);
		if (*end || y < 1970 || y > 9999)
			return error("--year: expected a year, got '%s'", v);
		o->year = (int)y;
	}
	return 1;
}

static int main_usage(void)
{
	const struct command *c;

	fprintf(stderr, "usage: oomlens <command> [options] [args]\n\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(stderr, "  %-10s %s\n", c->name, c->help);
	fprintf(stderr, "\n'oomlens <command> --help' for a command's options; --version.\n"
		"exit codes: 0 ok, 1 nothing usable / error, 2 usage, 3 replay mismatch\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2)
		return main_usage();
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("oomlens %s\n", OOMLENS_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h")) {
		main_usage();
		return EXIT_OK;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	error("'%s' is not a command", argv[1]);
	return main_usage();
}
