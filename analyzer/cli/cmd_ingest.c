/*
 * cmd_ingest.c -- `oomlens ingest --db DB PATH...`: artifacts into a
 * fresh incident database, nothing else.
 */
#include "analyzer/cli/cli.h"
#include "analyzer/ingest/formats.h"
#include "analyzer/ingest/ingest.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char ingest_usage[] =
	"usage: oomlens ingest --db DB [options] PATH...\n"
	"  Reads every artifact (files, directories, .gz) into a new database DB.\n"
	"  --db DB            the incident database to create (replaced if it exists)\n"
	"  --append           add to DB instead of replacing it\n"
	"  --kind KIND        skip detection, read every file as KIND\n"
	"  -q, --quiet        no messages about individual artifacts\n"
	INGEST_OPTIONS_HELP
	"exit: 0 something was read, 1 nothing usable, 2 usage\n";



int cmd_ingest(int argc, char **argv)
{
	struct ingest_opts opts = { OL_NULL, 0, 0, 0 };
	struct ingest_cfg cfg = { .progress = -1 };
	struct timeline *tl;
	const char *db = NULL;
	int i, np = 0, append = 0, r;
	char **paths = calloc((size_t)argc + 1, sizeof(*paths));

	if (!paths)
		return EXIT_ERROR;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(ingest_usage, stdout);
			free(paths);
			return EXIT_OK;
		} else if (!strcmp(a, "--db") && i + 1 < argc) {
			db = argv[++i];
		} else if (!strcmp(a, "--kind") && i + 1 < argc) {
			cfg.force_kind = argv[++i];
		} else if (!strcmp(a, "--append")) {
			append = 1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			cfg.quiet = 1;
		} else if ((r = parse_ingest_option(argc, argv, &i, &opts)) != 0) {
			if (r < 0) {
				free(paths);
				return EXIT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			error("unknown option '%s'", a);
			free(paths);
			return usage(ingest_usage);
		} else {
			paths[np++] = argv[i];
		}
	}
	if (!db || !np) {
		free(paths);
		return usage(ingest_usage);
	}
	if (cfg.force_kind && !format_by_kind(cfg.force_kind)) {
		const struct format *f;
		error("--kind: unknown format '%s'; the formats are:", cfg.force_kind);
		for (f = formats; f->kind; f++)
			fprintf(stderr, "  %-16s %s\n", f->kind, f->what);
		free(paths);
		return EXIT_USAGE;
	}
	tl = calloc(1, sizeof(*tl));
	r = tl ? run_ingest(db, append, paths, np, &opts, &cfg, tl) : EXIT_ERROR;
	if (tl)
		timeline_close(tl);
	free(tl);
	free(paths);
	return r;
}
