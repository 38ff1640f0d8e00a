/*
 * test_ps_table.c -- memory shown in pasted tool tables over several
 * pastes: ps and top process tables (parsers/host/ps_table.c) and free
 * outputs (parsers/host/procmem.c), one untimed sample an entity a
 * table, judged as one series a pid or host by the samples rule
 * (analyzer/rules/samples.c untimed_series).
 *
 * The real pastes are held-out set 8's two leak folders, spent round 8
 * (w-spent8c): a vLLM 0.2.7 Ray worker's `ps aux` at start, two and
 * three hours later (vllm-project/vllm#2345: pid 1166 grows, pid 1071 is
 * flat), and a TensorFlow EfficientDet training's `free --giga -s 1800`
 * (google/automl#224: used 1, 6, 8, 10), and the healthy one-table pastes
 * of tests/data/real/healthy. The flat and too-short series are edge
 * cases made of the same real pastes: a flat series is no leak, two
 * snapshots are no trend, and processes are never mixed.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/host/ps_table.h"
#include "parsers/host/procmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VPS "tests/data/real/any_stack/a-vllm-0.2.7-ray-worker-rss-grows-over-hours/"
#define TFFREE "tests/data/real/any_stack/" \
	"b-tensorflow-automl-efficientdet-host-ram-grows-free-giga-until-killed/01-free-giga-s-1800.txt"
#define HEALTHY "tests/data/real/healthy/"

static const char *const ps_pastes[] = {
	VPS "01-ps.txt", VPS "02-ps-two-hours-later.txt", VPS "03-ps-three-hours-later.txt"
};

/* vllm#2345: three ps pastes; pid 1166 rises, pid 1071 is flat. */
static void ray_worker_rss_over_pastes(void **state)
{
	struct timeline *tl = t_open();
	size_t i;
	(void)state;
	for (i = 0; i < 3; i++)
		assert_true(t_parse_file(tl, ps_pastes[i]) >= 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact LIMIT 1"), "ps_table");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE name = 'proc.rss_bytes'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 1);
	/* 5179612 KiB to 6919976 KiB, said per sample and untimed */
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "Memory (RSS pid:1166) rose over 3 pasted samples, 5058 MiB to 6758 MiB:"
			   " 849.8 MiB per sample (order inferred from the file names") != NULL);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "untimed_growth");
	t_close(tl);
}

/* The same first paste three times: flat, no leak; two pastes: no trend. */
static void flat_or_short_ps_series(void **state)
{
	struct timeline *tl = t_open();
	size_t i, n;
	char *first = t_slurp(ps_pastes[0], &n), name[16];
	(void)state;
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "0%zu-ps.txt", i + 1);
		assert_int_equal(t_parse_mem(tl, "ps_table", name, first, n), 2);
	}
	free(first);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
	tl = t_open();
	for (i = 0; i < 2; i++)
		assert_true(t_parse_file(tl, ps_pastes[i]) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	t_close(tl);
}

/* What the sniffer takes: a header first (after top's summary or a
 * prompt running ps), never a header under another log's line. */
static void sniff(void **state)
{
	/* ollama#10288's top line under a systemd line (any_stack corpus) */
	size_t n;
	char *ol = t_slurp("tests/data/real/any_stack/ls-ollama-runner-swap-growth-oom-killer.log", &n);
	char *top = strchr(ol, '\n') + 1;
	size_t ps_n;
	char *ps = t_slurp(HEALTHY "ps-aux-docs-three-processes.txt", &ps_n);
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(ps_table_sniff((const unsigned char *)ol, n), 0);
	assert_int_equal(ps_table_sniff((const unsigned char *)ps, ps_n), 55);
	/* its top header and row alone: RES 9.6g is top's scaled KiB */
	assert_int_equal(ps_table_sniff((const unsigned char *)top, strlen(top)), 55);
	assert_int_equal(t_parse_mem(tl, "ps_table", "top.txt", top, 0), 1);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_real(tl, "SELECT bytes FROM peak WHERE measure = 'rss'") ==
		    9.6 * 1073741824.0);
	free(ps);
	free(ol);
	t_close(tl);
}

/* automl#224: free --giga -s 1800, four tables: the host's series. */
static void free_tables_over_time(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, TFFREE) >= 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "free");
	/* the repeated headers are tables, not rows warned about */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%expected a row%%'"), 2);   /* the two "..." lines */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%read as GiB (free -g)%%'"), 1);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "Memory (free Mem used host) rose over 4 pasted samples, 1024 MiB to"
			   " 10240 MiB") != NULL);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* One free table (free -m, -g, -h) is a snapshot: no series, no OOM. */
static void one_free_table_is_healthy(void **state)
{
	static const char *const files[] = {
		HEALTHY "free-m-proxmox-host-31966-one-table.txt",
		HEALTHY "free-g-firemotd-host-31g-one-table.txt",
		HEALTHY "free-h-linuxgsm-992m-one-table.txt",
	};
	size_t i;
	(void)state;
	for (i = 0; i < 3; i++) {
		struct timeline *tl = t_open();
		assert_true(t_parse_file(tl, files[i]) >= 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE name ="
				       " 'host.mem_used_bytes'"), 1);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
		t_close(tl);
	}
	/* free -h's "490M" is 490 MiB; free -m's 10870 is MiB */
	{
		struct timeline *tl = t_open();
		assert_true(t_parse_file(tl, files[2]) >= 0);
		assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.free.Mem.used'"),
				 490ll << 20);
		t_close(tl);
		tl = t_open();
		assert_true(t_parse_file(tl, files[0]) >= 0);
		assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.free.Mem.used'"),
				 10870ll << 20);
		t_close(tl);
	}
}

/* kineticadb/benchmarks' README: "$ free -g" echoed above the table of a
 * 503 GiB host. The command states the unit, so 503 is GiB; without the
 * command line (the same table cut below it) the size guess reads 503
 * as MiB and says it is a guess. */
#define KINETICA HEALTHY "free-g-kinetica-503g-prompt-echoed.txt"
static void free_command_states_the_unit(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(KINETICA, &n), *table = strchr(text, '\n') + 1;
	(void)state;
	assert_true(t_parse_file(tl, KINETICA) >= 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "free");
	assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.mem_total_bytes'"),
			 503ll << 30);
	assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.free.Mem.used'"),
			 184ll << 30);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%its command line states (free -g)%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%guess%%'"), 0);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "free", "free.txt", table, n - (size_t)(table - text)) > 0);
	assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.mem_total_bytes'"),
			 503ll << 20);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%read as MiB (free -m)%%a guess%%'"), 1);
	t_close(tl);
	free(text);
}

/* A command line is free's only with options after it: a sentence or a
 * pipe is not (free_out_sniff on the real line and two edits of it). */
static void free_command_lines(void **state)
{
	static const char tab[] = "              total        used        free      shared  buff/cache"
		"   available\nMem:            503         184         298           0          20"
		"         317\n";
	static const char *const heads[] = {
		"[kinuser@g-300-301-u21-k80 ~]$ free -g\n",
		"[kinuser@g-300-301-u21-k80 ~]$ free -g | tail -2\n",
		"the memory is free now\n",
	};
	static const int want[] = { 90, 0, 0 };
	char buf[512];
	size_t i;
	(void)state;
	for (i = 0; i < 3; i++) {
		snprintf(buf, sizeof(buf), "%s%s", heads[i], tab);
		assert_int_equal(free_out_sniff((const unsigned char *)buf, strlen(buf)), want[i]);
	}
}

/* A line whose first word is empty (a NUL byte starts it) and that names
 * top: fuzz_ps_table found the prompt check reading before the word
 * (w[0][strlen - 1] with strlen 0). Not a table, and read safely. */
static void nul_word_before_top(void **state)
{
	static const unsigned char line[] = { 0, 0, 0, 0, 0x9d, 0xdc, ' ', 't', 'o', 'p' };

	(void)state;
	assert_int_equal(ps_table_sniff(line, sizeof(line)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ray_worker_rss_over_pastes),
		cmocka_unit_test(flat_or_short_ps_series),
		cmocka_unit_test(sniff),
		cmocka_unit_test(free_tables_over_time),
		cmocka_unit_test(one_free_table_is_healthy),
		cmocka_unit_test(nul_word_before_top),
		cmocka_unit_test(free_command_states_the_unit),
		cmocka_unit_test(free_command_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
