/*
 * test_vocab.c -- the one vocabulary (lib/vocab.h, issue 25): that
 * docs/schema.md "Vocabulary" lists exactly what the declaration holds,
 * name, unit and meaning, in both directions; that a family matches its
 * variable names and nothing shorter; and that the store refuses a kind,
 * a series or a meta key nobody declared while keeping a metric's own
 * name, which the input decides.
 */
#include "testutil.h"
#include "lib/vocab.h"
#include "parsers/common/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row of a docs table: `name` | [unit |] meaning. */
struct doc_row {
	int set;
	char name[128], unit[32], meaning[200];
	int seen;
};

/* Copy the cell [s, e) trimmed of spaces into out (n bytes). */
static void cell(const char *s, const char *e, char *out, size_t n)
{
	while (s < e && *s == ' ')
		s++;
	while (e > s && e[-1] == ' ')
		e--;
	snprintf(out, n, "%.*s", (int)(e - s), s);
}

/* The rows of every table under "## Vocabulary" in docs/schema.md, by
 * the set whose title heads them ("### Event kinds"); *n rows. Fails the
 * test on a heading that names no set. */
static struct doc_row *doc_rows(size_t *n)
{
	size_t len, cap = 512;
	char *text = t_slurp("docs/schema.md", &len);
	struct doc_row *rows = calloc(cap, sizeof(*rows));
	char *p, *line, *next;
	int set = -1, in_section = 0;

	assert_non_null(text);
	assert_non_null(rows);
	*n = 0;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "## ", 3)) {
			in_section = !strcmp(line, "## Vocabulary");
			set = -1;
			continue;
		}
		if (!in_section)
			continue;
		if (!strncmp(line, "### ", 4)) {
			for (set = 0; set < VOCAB__SETS; set++)
				if (!strcmp(line + 4, vocab_set_title((enum vocab_set)set)))
					break;
			if (set == VOCAB__SETS)
				fail_msg("docs/schema.md: \"%s\" is no set of lib/vocab.h", line);
			continue;
		}
		if (set < 0 || strncmp(line, "| `", 3))
			continue;
		{
			struct doc_row *r = &rows[*n];
			char *c1 = strchr(line + 3, '`'), *c2, *c3;

			assert_non_null(c1);
			assert_true(*n < cap);
			r->set = set;
			snprintf(r->name, sizeof(r->name), "%.*s", (int)(c1 - line - 3), line + 3);
			c2 = strchr(c1, '|');
			assert_non_null(c2);
			c3 = strchr(c2 + 1, '|');
			assert_non_null(c3);
			p = strchr(c3 + 1, '|');
			if (p) {  /* name | unit | meaning */
				cell(c2 + 1, c3, r->unit, sizeof(r->unit));
				cell(c3 + 1, p, r->meaning, sizeof(r->meaning));
			} else {
				cell(c2 + 1, c3, r->meaning, sizeof(r->meaning));
			}
			(*n)++;
		}
	}
	free(text);
	return rows;
}

/* Each declared entry is one row of its set's table with its unit and
 * meaning; each row of the tables is declared. */
static void test_schema_md_matches_declaration(void **state)
{
	size_t n, i, k, m;
	struct doc_row *rows = doc_rows(&n);
	int set, bad = 0;
	char full[160];

	(void)state;
	assert_true(n > 100);
	for (set = 0; set < VOCAB__SETS; set++) {
		const struct vocab_entry *e = vocab_set_entries((enum vocab_set)set, &m);

		for (k = 0; k < m; k++) {
			snprintf(full, sizeof(full), "%s%s", e[k].name, e[k].var ? e[k].var : "");
			for (i = 0; i < n; i++)
				if (rows[i].set == set && !strcmp(rows[i].name, full))
					break;
			if (i == n) {
				print_message("declared, not in docs/schema.md: %s `%s`\n",
					      vocab_set_title((enum vocab_set)set), full);
				bad++;
				continue;
			}
			rows[i].seen++;
			if (strcmp(rows[i].meaning, e[k].meaning) ||
			    (rows[i].unit[0] && strcmp(rows[i].unit, e[k].unit ? e[k].unit : "-"))) {
				print_message("docs/schema.md differs for `%s`: \"%s\" %s, declared \"%s\" %s\n",
					      full, rows[i].meaning, rows[i].unit, e[k].meaning,
					      e[k].unit ? e[k].unit : "-");
				bad++;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (rows[i].seen != 1) {
			print_message("docs/schema.md lists `%s` (%s) %s\n", rows[i].name,
				      vocab_set_title((enum vocab_set)rows[i].set),
				      rows[i].seen ? "twice" : "but lib/vocab.h does not declare it");
			bad++;
		}
	free(rows);
	assert_int_equal(bad, 0);
}

/* Names are unique within a set, and every entry has a meaning. */
static void test_declaration_well_formed(void **state)
{
	size_t m, i, j;
	int set;

	(void)state;
	for (set = 0; set < VOCAB__SETS; set++) {
		const struct vocab_entry *e = vocab_set_entries((enum vocab_set)set, &m);

		assert_true(m > 0);
		for (i = 0; i < m; i++) {
			assert_true(e[i].meaning && e[i].meaning[0]);
			for (j = i + 1; j < m; j++)
				if (!strcmp(e[i].name, e[j].name))
					fail_msg("%s declared twice", e[i].name);
			/* a family's name is its prefix: ends where the variable part starts */
			if (e[i].var)
				assert_int_equal(e[i].name[strlen(e[i].name) - 1], '.');
		}
	}
	/* the classes the verdict and the coming oom and peak tables write */
	assert_non_null(vocab_lookup(VOCAB_CLASS, "no_oom"));
	assert_non_null(vocab_lookup(VOCAB_CLASS, "inconclusive"));
	assert_non_null(vocab_lookup(VOCAB_PHASE, "graph_capture"));
	assert_non_null(vocab_lookup(VOCAB_MEASURE, "card_used"));
	assert_string_equal(vocab_series_name(VS_SERVER_RUNNING), "server.running");
	assert_string_equal(engine_stat_series(ES_RUNNING), "server.running");
	assert_string_equal(engine_stat_unit(ES_GEN_TPS), "tokens/s");
}

static void test_families_and_input_driven_names(void **state)
{
	(void)state;
	assert_non_null(vocab_lookup(VOCAB_META, "gpu.total_bytes.gpu3"));
	assert_null(vocab_lookup(VOCAB_META, "gpu.total_bytes."));     /* no variable part */
	assert_null(vocab_lookup(VOCAB_META, "gpu.total_bytes"));
	assert_non_null(vocab_lookup(VOCAB_META, "env.PYTORCH_CUDA_ALLOC_CONF"));
	assert_null(vocab_lookup(VOCAB_SERIES_NAME, "gpu.used_byte"));  /* a typo */
	assert_true(vocab_writable(VOCAB_SERIES_NAME, "vllm:num_requests_running"));
	assert_false(vocab_writable(VOCAB_SERIES_NAME, "torch.alocated_bytes"));
	assert_false(vocab_writable(VOCAB_EVENT, "vllm:num_requests_running"));
	assert_false(vocab_writable(VOCAB_SERIES_NAME, ""));
	assert_false(vocab_writable(VOCAB_META, NULL));
}

/* The store's check at write time: a typo'd kind, series or meta key
 * fails the write; declared and input-driven names are kept. */
static void test_store_refuses_undeclared(void **state)
{
	struct timeline *tl = t_open();
	struct sink *s = &tl->sink;
	struct ol_event e = { .kind = "oom_kil", .t = ol_time_none(), .pid = OL_NULL,
			      .bytes = OL_NULL };

	(void)state;
	assert_non_null(s);
	assert_true(timeline_artifact_begin(tl, "x.log", "kernel_log", 1, 0) > 0);
	assert_int_equal(sink_event(s, &e), -1);
	assert_int_equal(sink_series(s, "gpu.usedbytes", "bytes", "gpu0"), -1);
	assert_int_equal(sink_meta(s, "cgroup.max_byte", "1"), -1);
	e.kind = vocab_event_kind(VE_OOM_KILL);
	assert_true(sink_event(s, &e) > 0);
	assert_true(sink_series(s, vocab_series_name(VS_GPU_USED_BYTES), "bytes", "gpu0") > 0);
	assert_true(sink_series(s, "vllm:num_requests_running", NULL, "") > 0);
	assert_true(sink_meta(s, "gpu.total_bytes.gpu0", "1024") > 0);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_kill'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series"), 2);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_md_matches_declaration),
		cmocka_unit_test(test_declaration_well_formed),
		cmocka_unit_test(test_families_and_input_driven_names),
		cmocka_unit_test(test_store_refuses_undeclared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
