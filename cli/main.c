/*
 * main.c -- the oomlens command: a table of subcommands, each a cmd_*
 * function in its own file (after git.c).
 */
#include "analyzer/store/schema_image.h"
#include "cli/cli.h"
#include "lib/budget.h"
#include "lib/timeutil.h"
#include "parsers/common/sink.h"

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
	{ "diff", cmd_diff, "compare two memory snapshots by what held the memory" },
	{ "plan", cmd_plan, "capacity of a model on a card under an engine's rules" },
	{ "watch", cmd_watch, "collect the evidence of the next OOM into a folder analyze reads" },
	{ NULL, NULL, NULL }
};



/* The command list: on stdout when asked for (--help), else on stderr. */
static void main_usage(FILE *out)
{
	const struct command *c;

	fprintf(out, "usage: oomlens <command> [options] [args]\n\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->help);
	fprintf(out, "\n'oomlens <command> --help' for a command's options; --version.\n"
		"exit codes: 0 ok, 1 nothing usable / error, 2 usage, 3 replay mismatch\n");
}

int main(int argc, char **argv)
{
	const struct command *c;

	ol_budget_json_install();      /* every JSON value draws on the budget */
	timeline_use_schema_image(&oomlens_schema_image);   /* new databases start from it */
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("oomlens %s\n", OOMLENS_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return EXIT_OK;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	cli_error("'%s' is not a command", argv[1]);
	main_usage(stderr);
	return EXIT_USAGE;
}
