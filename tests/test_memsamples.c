/*
 * test_memsamples.c -- memory samples pasted as lines
 * (parsers/host/memsamples.c) and the leak they show when they keep
 * rising (analyzer/rules/samples.c). The real pastes are two of held-out
 * set 7's leak folders, spent round 7 (tests/data/real/any_stack/): a
 * llama-server's VmRSS per request (ggml-org/llama.cpp#27894) and an
 * Ollama MLX runner's resident size every ten requests as a
 * req/resident/delta table (ollama/ollama#17924). The flat and falling
 * series, the ps table and the nvidia-smi csv are edge cases written in
 * the shapes ps -o pid,rss and nvidia-smi --query-gpu=memory.used
 * --format=csv print: a flat or falling series is no leak, and a paste
 * of samples alone is never an OOM.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/host/memsamples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"

static const char *series(struct timeline *tl)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = 'samples.series.0'");
}

/* llama.cpp#27894: "req N VmRSS=M MiB (+126)", a first "start" line. */
static void llamacpp_vmrss_per_request(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "b-llamacpp-qwen35moe-vulkan-vmrss-126mib-per-request/"
				 "01-vmrss-samples.txt") >= 0);
	assert_string_equal(series(tl), "vmrss|request|0,2,5,10|581959680,780140544,"
			    "1177550848,1838153728");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "untimed_growth");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "serving");
	/* (1753 - 555) MiB over 10 requests, and said as untimed */
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "119.8 MiB per request (order inferred") != NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"
			       " AND title LIKE '%%per hour%%'"), 0);
	t_close(tl);
}

/* ollama#17924: a req/resident/delta table; deltas are not samples. */
static void ollama_resident_table(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "b-ollama-0.32.15-mlx-runner-resident-growth-per-request/"
				 "01-resident-per-request.txt") >= 0);
	assert_true(strncmp(series(tl), "resident|request|0,10,20,30|", 28) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* A flat series and a falling one: read, but no leak, no OOM. */
static void flat_and_falling(void **state)
{
	static const char *flat = "VmRSS:\t  812340 kB\nVmRSS:\t  812412 kB\n"
		"VmRSS:\t  812380 kB\nVmRSS:\t  812400 kB\nVmRSS:\t  812396 kB\n";
	static const char *falling = "  PID   RSS\n 4121 912340\n 4121 880112\n"
		" 4121 861200\n 4121 850004\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(memsamples_sniff((const unsigned char *)flat, strlen(flat)), 30);
	assert_true(t_parse_mem(tl, "memory_samples", "flat.txt", flat, 0) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "memory_samples", "ps.txt", falling, 0) > 0);
	/* ps prints RSS in KiB */
	assert_string_equal(series(tl), "rss|sample||934236160,901234688,881868800,870404096");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* nvidia-smi --query-gpu=timestamp,memory.used --format=csv: a rising
 * column, untimed here since the rule reads the order only. */
static void nvidia_smi_csv_rising(void **state)
{
	static const char *csv = "timestamp, memory.used [MiB]\n"
		"2024/05/01 10:00:00.000, 10240 MiB\n2024/05/01 10:01:00.000, 11302 MiB\n"
		"2024/05/01 10:02:00.000, 12410 MiB\n2024/05/01 10:03:00.000, 13500 MiB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "memory_samples", "smi.csv", csv, 0) > 0);
	assert_true(strncmp(series(tl), "memory.used|sample||", 20) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* Too few samples, or prose that mentions memory once: not a paste. */
static void not_samples(void **state)
{
	static const char *three = "VmRSS: 100 MiB\nVmRSS: 200 MiB\nVmRSS: 300 MiB\n";
	static const char *prose = "The server uses 12 GiB of memory after start.\n"
		"Then it crashes with an error.\nI tried lowering the batch size.\n"
		"It did not help.\nAny ideas?\n";
	(void)state;
	assert_int_equal(memsamples_sniff((const unsigned char *)three, strlen(three)), 0);
	assert_int_equal(memsamples_sniff((const unsigned char *)prose, strlen(prose)), 0);
}

/* nvidia-smi tables pasted one after another with no date above them:
 * one sample a card each, the card's series in paste order. The table is
 * the real 550 one of tests/data/real/gpu_host, its date line taken off
 * and gpu0's memory cell rewritten (an edge case: the same card at four
 * moments); gpu1 stays flat. A single table is a snapshot, no series. */
static char *smi_table(const char *cell, size_t *n)
{
	char *t = t_slurp("tests/data/real/gpu_host/nvidia-smi-table-550-rtx4090-after-oom.txt", n);
	char *nl = strchr(t, '\n'), *at;

	memmove(t, nl + 1, strlen(nl + 1) + 1);   /* the date line */
	at = strstr(t, "    507MiB /");
	assert_non_null(at);
	memcpy(at, cell, strlen(cell));           /* same width */
	*n = strlen(t);
	return t;
}

static void nvidia_smi_tables_over_pastes(void **state)
{
	static const char *cells[] = { "   5000MiB /", "   9000MiB /", "  13000MiB /",
				       "  17000MiB /" };
	struct timeline *tl = t_open(), *one = t_open();
	char name[32];
	size_t i, n;
	(void)state;
	for (i = 0; i < 4; i++) {
		char *t = smi_table(cells[i], &n);
		snprintf(name, sizeof(name), "0%zu-nvidia-smi.txt", i + 1);
		assert_true(t_parse_mem(tl, "nvidia_smi_table", name, t, n) >= 0);
		if (i == 0)
			assert_true(t_parse_mem(one, "nvidia_smi_table", name, t, n) >= 0);
		free(t);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 1);
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "Memory (nvidia-smi gpu0) rose over 4 pasted samples, 5000 MiB to 17000"
			   " MiB: 4000.0 MiB per sample (order inferred from the file names") != NULL);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_int_equal(analyze_timeline(one, NULL), 0);
	assert_int_equal(t_int(one, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	t_close(one);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(llamacpp_vmrss_per_request),
		cmocka_unit_test(ollama_resident_table),
		cmocka_unit_test(flat_and_falling),
		cmocka_unit_test(nvidia_smi_csv_rising),
		cmocka_unit_test(not_samples),
		cmocka_unit_test(nvidia_smi_tables_over_pastes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
