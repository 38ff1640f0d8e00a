/*
 * test_ollama_ps.c -- `ollama ps` read as Ollama offload records
 * (parsers/tools/ollama_ps.c): each model's size (planned_total_bytes)
 * and the GPU share of it (requested_bytes), its split in the instance
 * the reports show. The tables are real (tests/data/real/healthy,
 * MANIFEST.tsv: the FAQ's tab-separated copy, the CLI docs' split row,
 * a user's two models with the CONTEXT column).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/tools/ollama_ps.h"

#include <stdio.h>
#include <string.h>

#define HEALTHY "tests/data/real/healthy/"

/* The three real tables: a row a model, decimal units, the split. */
static void tables_read(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, HEALTHY "ollama-ps-0.6-faq-tabs-100-gpu.txt") >= 0);
	assert_true(t_parse_file(tl, HEALTHY "ollama-ps-cli-docs-context-split-45-55.txt") >= 0);
	assert_true(t_parse_file(tl, HEALTHY "ollama-ps-bash-lib-demo-two-models-context.txt") >= 0);
	assert_string_equal(t_text(tl, "SELECT group_concat(instance || '=' ||"
				   " CAST(planned_total_bytes AS INTEGER) || '/' ||"
				   " CAST(requested_bytes AS INTEGER), ';') FROM engine"
				   " WHERE engine = 'ollama' ORDER BY id"),
			    "ollama ps llama3:70b (100% GPU)=42000000000/42000000000;"
			    "ollama ps llama3.2:latest (100% GPU)=4700000000/4700000000;"
			    "ollama ps mistral:7b (45%/55% CPU/GPU)=4100000000/2255000000;"
			    "ollama ps qwen2.5-coder:7b (100% GPU)=5600000000/5600000000;"
			    "ollama ps mistral:7b-instruct (100% GPU)=5600000000/5600000000");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* A model all in host memory is 0 bytes on the GPUs; "Unknown" states
 * no share; a header alone, or words that only look like one, no row
 * (the CLI's own shapes, cmd/cmd.go ListRunningHandler@v0.9.6). */
static void cpu_unknown_and_not_a_table(void **state)
{
	static const char ps[] = "$ ollama ps\n"
		"NAME           ID              SIZE      PROCESSOR    UNTIL\n"
		"qwen2.5:32b    9f13ba1299af    23 GB     100% CPU     4 minutes from now\n"
		"llama3:8b      365c0bd3c000    6.7 GB    Unknown      Stopping...\n";
	static const char empty[] = "NAME    ID    SIZE    PROCESSOR    CONTEXT    UNTIL\n";
	static const char prose[] = "The NAME, ID, SIZE, PROCESSOR and UNTIL columns say where"
		" a model sits.\nllama3 is 42 GB 100% GPU here.\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(ollama_ps_sniff((const unsigned char *)ps, strlen(ps)), 40);
	assert_int_equal(ollama_ps_sniff((const unsigned char *)prose, strlen(prose)), 0);
	assert_true(t_parse_mem(tl, "ollama_ps", "ps.txt", ps, strlen(ps)) >= 0);
	assert_true(t_parse_mem(tl, "ollama_ps", "empty.txt", empty, strlen(empty)) >= 0);
	assert_true(t_parse_mem(tl, "ollama_ps", "prose.txt", prose, strlen(prose)) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine"), 2);
	assert_int_equal(t_int(tl, "SELECT requested_bytes FROM engine WHERE instance LIKE"
			       " '%%qwen2.5:32b%%'"), 0);
	assert_int_equal(t_int(tl, "SELECT planned_total_bytes FROM engine WHERE instance LIKE"
			       " '%%llama3:8b (Unknown)'"), 6700000000LL);
	assert_int_equal(t_int(tl, "SELECT requested_bytes IS NULL FROM engine WHERE instance"
			       " LIKE '%%Unknown%%'"), 1);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_read),
		cmocka_unit_test(cpu_unknown_and_not_a_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
