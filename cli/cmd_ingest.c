/*
 * cmd_ingest.c -- `oomlens ingest --db DB PATH...`: artifacts into a
 * fresh incident database, nothing else.
 */
#include "cli/cli.h"
#include "analyzer/ingest/formats.h"
#include "analyzer/ingest/ingest.h"
#include "lib/fileset.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char ingest_usage[] =
	"usage: oomlens ingest --db DB [options] PATH...\n"
	"  Reads every artifact (files, directories, archives, compressed files)\n"
	"  into a new database DB.\n"
	"  --db DB            the incident database to create (an oomlens database\n"
	"                     there is replaced; any other file is refused)\n"
	"  --append           add to DB instead of replacing it (artifacts whose\n"
	"                     content DB holds already are skipped)\n"
	"  --kind KIND        skip detection, read every file as KIND\n"
	"  -q, --quiet        no messages about individual artifacts\n"
	INGEST_OPTIONS_HELP
	"exit: 0 something was read, 1 nothing usable (or DB refused), 2 usage\n";

static const struct cli_opt ingest_opts[] = {
	{ "--db", 0, 1, OPT_DB }, { "--kind", 0, 1, OPT_KIND }, { "--append", 0, 0, OPT_APPEND },
	{ "--quiet", 'q', 0, OPT_QUIET }, CLI_INGEST_OPTS, { NULL, 0, 0, 0 }
};

int cli_check_format(const char *kind)
{
	const struct format *f;

	if (!kind || format_by_kind(kind))
		return 0;
	cli_error("--kind: unknown format '%s'; the formats are:", kind);
	for (f = format_table; f->kind; f++)
		fprintf(stderr, "  %-16s %s\n", f->kind, f->what);
	return -1;
}

int cmd_ingest(int argc, char **argv)
{
	struct ingest_opts opts = { OL_NULL, 0, 0, 0 };
	struct ingest_cfg cfg = { .progress = -1 };
	struct cli_args a = CLI_ARGS_INIT(argc, argv, ingest_opts);
	struct timeline *tl;
	const char *db = NULL;
	int o, append = 0, r;

	while ((o = cli_next(&a)) != CLI_DONE) {
		switch (o) {
		case CLI_HELP:
			return cli_help(ingest_usage);
		case CLI_BAD:
			return cli_usage(ingest_usage);
		case OPT_DB:
			db = a.value;
			break;
		case OPT_KIND:
			cfg.force_kind = a.value;
			break;
		case OPT_APPEND:
			append = 1;
			break;
		case OPT_QUIET:
			cfg.quiet = 1;
			break;
		default:
			if (cli_ingest_option(o, a.value, &opts, &cfg) < 0)
				return EXIT_USAGE;
		}
	}
	if (!db || !a.nargs)
		return cli_usage(ingest_usage);
	if (cli_check_format(cfg.force_kind) < 0)
		return EXIT_USAGE;
	{
		struct fileset inputs = FILESET_INIT;
		r = note_inputs(&inputs, a.args, a.nargs) < 0 ||
		    check_output(db, &inputs, "database") < 0 ? -1 : 0;
		fileset_release(&inputs);
		if (r < 0)
			return EXIT_ERROR;
	}
	tl = calloc(1, sizeof(*tl));
	if (!tl) {
		cli_error("out of memory");
		return EXIT_ERROR;
	}
	r = run_ingest(db, append, 1, a.args, a.nargs, &opts, &cfg, tl);
	close_db(tl);
	free(tl);
	return r;
}
