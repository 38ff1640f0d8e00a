/*
 * cmd_convert.c -- `oomlens convert SNAPSHOT.pickle [-o OUT]`: a PyTorch
 * memory snapshot pickle to the flat JSON Lines form (docs/flat-format.md),
 * streamed, without a database. Problems go to stderr with their offset.
 */
#include "cli/cli.h"
#include "parsers/torch/torch_snapshot.h"
#include "lib/fileset.h"
#include "lib/input.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <string.h>

static const char convert_usage[] =
	"usage: oomlens convert SNAPSHOT.pickle [-o OUT]\n"
	"  Writes the PyTorch memory snapshot SNAPSHOT (pickle, maybe .gz) in the\n"
	"  flat JSON Lines form to OUT (default: standard output).\n"
	MEMORY_OPTION_HELP
	"exit: 0 converted, 1 errors (what could be read is written), 2 usage\n";

static int64_t print_diag(struct sink *s, uint64_t line, uint64_t offset,
			  enum ol_severity sev, const char *msg)
{
	(void)offset;
	if (line)
		cli_error("%s:%llu: %s: %s", s->path, (unsigned long long)line,
		      sev == OL_ERROR ? "error" : sev == OL_WARN ? "warning" : "info", msg);
	else
		cli_error("%s: %s: %s", s->path,
		      sev == OL_ERROR ? "error" : sev == OL_WARN ? "warning" : "info", msg);
	return 1;
}

static const struct cli_opt convert_opts[] = {
	{ "--output", 'o', 1, OPT_OUTPUT }, CLI_MEMORY_OPT, { NULL, 0, 0, 0 }
};

int cmd_convert(int argc, char **argv)
{
	const char *src = NULL, *out = NULL;
	struct strbuf err = STRBUF_INIT;
	struct sink s;
	struct input in;
	struct ts_ops ops;
	struct ts_writer *w;
	struct outfile of;
	struct cli_args a = CLI_ARGS_INIT(argc, argv, convert_opts);
	int o, r;
	int64_t lines;

	while ((o = cli_next(&a)) != CLI_DONE) {
		if (o == CLI_HELP)
			return cli_help(convert_usage);
		if (o != OPT_OUTPUT)
			return cli_usage(convert_usage);
		out = a.value;
	}
	if (a.nargs != 1)
		return cli_usage(convert_usage);
	src = a.args[0];
	{
		struct fileset inputs = FILESET_INIT;
		r = note_inputs(&inputs, a.args, 1) < 0 || check_output(out, &inputs, "output") < 0;
		fileset_release(&inputs);
		if (r)
			return EXIT_ERROR;
	}
	if (input_open(&in, src, &err) < 0) {
		cli_error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
		strbuf_release(&err);
		return EXIT_ERROR;
	}
	{
		size_t n;
		const unsigned char *head = input_peek(&in, 64 * 1024, &n);
		if (!torch_snapshot_sniff(head, n))
			cli_error("%s: warning: does not look like a memory snapshot pickle;"
			      " trying anyway", src);
	}
	if (outfile_open(&of, out) < 0) {
		input_close(&in);
		return EXIT_ERROR;
	}
	memset(&s, 0, sizeof(s));
	s.path = src;
	s.diag = print_diag;
	w = ts_writer_new(of.f, &s, &ops);
	r = w ? torch_snapshot_decode(&in, &s, &ops) : -1;
	lines = w ? ts_writer_free(w) : -1;
	input_close(&in);
	if (r < 0 || lines < 0) {
		/* what was written is kept: the flat form of what could be read */
		cli_error("%s: the flat form is incomplete", of.path ? of.path : "standard output");
	}
	if (ferror(of.f)) {
		cli_error("%s: cannot write", of.path ? of.path : "standard output");
		outfile_abort(&of);
		return EXIT_ERROR;
	}
	if (outfile_commit(&of) < 0 || r < 0 || lines < 0)
		return EXIT_ERROR;
	return s.n_errors ? EXIT_ERROR : EXIT_OK;
}
