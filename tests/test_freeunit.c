/*
 * test_freeunit.c -- a free(1) paste's guessed unit checked against a RAM
 * total another artifact of the incident states (analyzer/derive/
 * freeunit.c): confirmed, corrected once by a power of 1024, or left a
 * guess that the report owns up to.
 *
 * The real pair is the sosreport fixture's `sos_commands/memory/free`
 * (a VM's free in KiB, no command line: the unit is the reader's guess)
 * and its `proc/meminfo` (MemTotal 24683784 kB): the same host, the same
 * moment. The corrected case is an edge case made from that pair, and
 * says so: the same table as `free -b` prints it (every figure x 1024),
 * its command line not pasted, so the reader reads bytes as KiB; the
 * meminfo beside it must bring it back. The table that stays a guess is
 * kineticadb/benchmarks' 503 GiB host (tests/data/real/healthy) cut below
 * its `$ free -g` line, as test_ps_table.c cuts it, beside nothing, and
 * beside a kernel report of another host (fixtures/demo/kern.log, 16751234
 * pages RAM) that must not correct it: the two totals are no power of
 * 1024 apart.
 */
#include "testutil_report.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOS "fixtures/real_sosreport_memcg_kill/sosreport-vm-2026-12-06-sojnyyk/"
#define PS_AUX "tests/data/real/healthy/ps-aux-docs-three-processes.txt"
#define KINETICA "tests/data/real/healthy/free-g-kinetica-503g-prompt-echoed.txt"

static const char *meta(struct timeline *tl, const char *key)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = '%s'"
		      " AND artifact_id = (SELECT min(id) FROM artifact)", key);
}

/* The sosreport's free (KiB, guessed) beside its meminfo: the guess is
 * confirmed, nothing rescaled, the unit's source recorded. */
static void meminfo_confirms_the_guess(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file_as(tl, "free", SOS "sos_commands/memory/free") > 0);
	assert_string_equal(meta(tl, "host.free_unit"), "KiB");
	assert_string_equal(meta(tl, "host.free_unit_by"), "guess");
	assert_true(t_parse_file_as(tl, "meminfo", SOS "proc/meminfo") > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(meta(tl, "host.free_unit_by"), "artifact");
	assert_string_equal(meta(tl, "host.free_unit_from"), "meminfo");
	assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.free.Mem.used'"
			       " AND artifact_id = 1"), 546184ll * 1024);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%guessed unit KiB agrees%%(unit from meminfo)'"), 1);
	t_close(tl);
}

/* The same table in bytes (free -b, an edit the test makes: x 1024), no
 * command line: read as KiB, 1024 times too large; the meminfo rescales
 * its figures and its sample once, and a second analysis changes
 * nothing. */
static void meminfo_corrects_bytes_read_as_kib(void **state)
{
	static const long long kib[] = { 24683784, 546184, 21580512, 10220, 2866704, 24137600 };
	char tab[512];
	size_t o, i;
	struct timeline *tl = t_open();
	int pass;
	(void)state;
	o = (size_t)snprintf(tab, sizeof(tab), "               total        used        free"
			     "      shared  buff/cache   available\nMem:");
	for (i = 0; i < 6; i++)
		o += (size_t)snprintf(tab + o, sizeof(tab) - o, " %12lld", kib[i] * 1024);
	snprintf(tab + o, sizeof(tab) - o, "\nSwap:            0           0           0\n");
	assert_true(t_parse_mem(tl, "free", "01-free-b.txt", tab, 0) > 0);
	assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.free.Mem.total'"),
			 24683784ll * 1024 * 1024);
	assert_true(t_parse_file_as(tl, "meminfo", SOS "proc/meminfo") > 0);
	for (pass = 0; pass < 2; pass++) {
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_string_equal(meta(tl, "host.free_unit"), "B");
		assert_string_equal(meta(tl, "host.free_unit_by"), "artifact");
		assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.free.Mem.total'"
				       " AND artifact_id = 1"), 24683784ll * 1024);
		assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key ="
				       " 'host.mem_total_bytes' AND artifact_id = 1"),
				 24683784ll * 1024);
		assert_int_equal(t_int(tl, "SELECT value FROM sample WHERE series_id = (SELECT id"
				       " FROM series WHERE name = 'host.mem_used_bytes')"),
				 546184ll * 1024);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
				       " '%%in B, not KiB as guessed%%1024^-1 (unit from meminfo)'"), 1);
	}
	t_close(tl);
}

/* The 503 GiB host's table with no command line: 503 is read as MiB, a
 * guess nothing corrects, alone or beside another host's kernel report
 * (16751234 pages RAM = 63.9 GiB, no power of 1024 from 503 MiB). */
static void nothing_corrects_a_lone_guess(void **state)
{
	size_t n;
	char *text = t_slurp(KINETICA, &n), *table = strchr(text, '\n') + 1;
	int with;
	(void)state;
	for (with = 0; with < 2; with++) {
		struct timeline *tl = t_open();
		assert_true(t_parse_mem(tl, "free", "free.txt", table, n - (size_t)(table - text)) > 0);
		if (with)
			assert_true(t_parse_file(tl, "fixtures/demo/kern.log") >= 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_string_equal(meta(tl, "host.free_unit"), "MiB");
		assert_string_equal(meta(tl, "host.free_unit_by"), "guess");
		assert_string_equal(meta(tl, "host.free_unit_from"), "(null)");
		assert_int_equal(t_int(tl, "SELECT value FROM meta WHERE key = 'host.free.Mem.total'"),
				 503ll << 20);
		t_close(tl);
	}
	free(text);
}

/* Three free tables rising, in the unit a meminfo gave: the finding's
 * title says where the unit came from; without the meminfo it says the
 * unit is guessed. The tables are the sosreport's, used edited upward
 * (an edge case: one real table, three samples). */
static void the_finding_names_the_unit_source(void **state)
{
	static const long long used[] = { 546184, 6546184, 12546184 };
	int with;
	(void)state;
	for (with = 0; with < 2; with++) {
		struct timeline *tl = t_open();
		size_t i;
		for (i = 0; i < 3; i++) {
			char tab[400], name[32];
			snprintf(tab, sizeof(tab), "               total        used        free\n"
				 "Mem:        24683784 %11lld     1000000\n", used[i]);
			snprintf(name, sizeof(name), "0%zu-free.txt", i + 1);
			assert_true(t_parse_mem(tl, "free", name, tab, 0) > 0);
		}
		if (with)
			assert_true(t_parse_file_as(tl, "meminfo", SOS "proc/meminfo") > 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"
				       " AND title LIKE '%%MiB%s:%%'", with ? " (unit from meminfo)"
				       : " (unit guessed)"), 1);
		t_close(tl);
	}
}

/* The host's limit in the peak table, when the free paste gave it, says
 * where its unit came from in every report format, as the free finding
 * does: guessed (the sosreport's free beside a real ps paste of
 * tests/data/real/healthy), or from the meminfo read before the paste
 * (so that the paste's total is the latest, the one the peak takes). */
static void the_peak_limit_names_the_unit_source(void **state)
{
	static const enum report_format fmts[] = { REPORT_HTML, REPORT_MD, REPORT_JSON,
						   REPORT_TEXT };
	int with;
	size_t i, n;
	(void)state;
	for (with = 0; with < 2; with++) {
		struct timeline *tl = t_open();
		const char *label = with ? "(unit from meminfo)" : "(unit guessed)";
		if (with)
			assert_true(t_parse_file_as(tl, "meminfo", SOS "proc/meminfo") > 0);
		assert_true(t_parse_file_as(tl, "free", SOS "sos_commands/memory/free") > 0);
		assert_true(t_parse_file_as(tl, "ps_table", PS_AUX) > 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_string_equal(t_text(tl, "SELECT limit_source FROM peak WHERE scope = 'host'"
					   " AND headline = 1"), with
				    ? "host.mem_total_bytes (unit from meminfo)"
				    : "host.mem_total_bytes (unit guessed)");
		assert_int_equal(t_int(tl, "SELECT limit_bytes FROM peak WHERE scope = 'host'"
				       " AND headline = 1"), 24683784ll * 1024);
		for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
			char *out = t_render(tl, fmts[i], &n);
			t_contains(out, label);
			/* the peak's limit says its source once, not in brackets
			 * inside brackets ("of 23.5 GiB (host.mem_total_bytes
			 * (unit guessed))", round 12) */
			t_lacks(out, with ? "meminfo))" : "guessed))");
			free(out);
		}
		t_close(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(meminfo_confirms_the_guess),
		cmocka_unit_test(meminfo_corrects_bytes_read_as_kib),
		cmocka_unit_test(nothing_corrects_a_lone_guess),
		cmocka_unit_test(the_finding_names_the_unit_source),
		cmocka_unit_test(the_peak_limit_names_the_unit_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
