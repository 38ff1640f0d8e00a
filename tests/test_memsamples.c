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
 *
 * Round 8 (w-samplespeak): the peak is derived from the samples, once,
 * untimed (analyzer/derive/peak.c), and a timed series wins over them;
 * a series whose unit is not stated (TensorFlow's "current: 0.18" per
 * iteration, tensorflow/tensorflow#73457, held-out set 7, spent) is a
 * leak by its ratio, never in bytes; mmdetection's "memory: 6814" every
 * 50 iterations (open-mmlab/mmdetection#1956, healthy) is flat: no leak;
 * a line that states its unit as a word ("Mem memory (MB) | allocated:
 * 20.4", pytorch/pytorch#115255, its first five lines) is in bytes.
 *
 * Round 11 (w-spend12b): a series that rose once and then holds flat
 * over its last samples has stopped growing: IPEX's "Epoch N, Memory
 * Usage: 1.89 GB" after its fix (intel/intel-extension-for-pytorch#615,
 * held-out set 12's healthy log, spent) is no leak.
 *
 * Round 16 (w-leak17): a leak in progress with no failure, as set 16's
 * part f brought it: free -h's IEC units without the B ("6.9Gi") after
 * a shell loop's "N.mem:" ordinal (kaldi-asr/kaldi#4814, 40 runs,
 * moved from incoming), and torch.cuda.memory_allocated() printed under
 * its own name with no unit (pytorch/pytorch#31497's shape).
 *
 * Round 17 (w-spend18f): a CSV column named with its label and unit
 * joined ("iteration,memory_usage_in_MiB", sentence-transformers#1795's
 * memleak.py output, held-out set 18, spent) is a series in that unit;
 * a "max_rss_mb" column is a running maximum, not memory held.
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

/* The peak of pasted samples: the highest sample, which one, untimed. */
static void peak_of_pasted_samples(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "b-llamacpp-qwen35moe-vulkan-vmrss-126mib-per-request/"
				 "01-vmrss-samples.txt") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak"), 1);
	assert_float_equal(t_real(tl, "SELECT bytes FROM peak WHERE account = 'host'"
			       " AND measure = 'rss' AND headline = 1"), 1838153728.0, 0.5);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak WHERE time_ns IS NULL"
			       " AND boot_ns IS NULL"), 1);
	assert_string_equal(t_text(tl, "SELECT source FROM peak"), "vmrss, pasted samples: the"
			    " highest of 4, sample 4 (request 10; untimed, order from the paste)");
	/* the profile reads the same one figure */
	assert_float_equal(t_real(tl, "SELECT bytes FROM profile WHERE account = 'host'"),
			   1838153728.0, 0.5);
	t_close(tl);
}

/* A timed series (nvidia-smi's csv with its timestamps) wins: the pasted
 * samples give no peak row beside it. */
static void timed_series_wins(void **state)
{
	static const char *smi = "timestamp, index, memory.used [MiB], memory.total [MiB]\n"
		"2024/05/01 10:00:00.000, 0, 10240 MiB, 81559 MiB\n"
		"2024/05/01 10:01:00.000, 0, 11302 MiB, 81559 MiB\n";
	static const char *rss = "VmRSS:\t  812340 kB\nVmRSS:\t  912412 kB\n"
		"VmRSS:\t  1012380 kB\nVmRSS:\t  1112400 kB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "nvidia_smi", "smi.csv", smi, 0) > 0);
	assert_true(t_parse_mem(tl, "memory_samples", "rss.txt", rss, 0) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_int(tl, "SELECT count(*) FROM peak WHERE time_ns IS NOT NULL") >= 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak WHERE source LIKE '%%pasted%%'"), 0);
	t_close(tl);
}

/* tensorflow#73457: "current: 0.18, peak: 2.55" a line, no unit, the
 * iteration on the line before: a leak by ratio, no bytes, no peak. */
static void tensorflow_unit_not_stated(void **state)
{
	struct timeline *tl = t_open();
	const char *title;
	(void)state;
	assert_true(t_parse_file(tl, ANY "b-tensorflow-2.17-training-gpu-cpu-memory-growing-"
				 "per-iteration/01-training-log.log") >= 0);
	assert_string_equal(series(tl), "current|iteration|6,7,8,9,10,11,12|0.18,0.21,0.24,0.27,"
			    "0.29,0.32,0.35|unit-not-stated");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "training_step");
	title = t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'");
	assert_non_null(strstr(title, "x1.9, unit not stated"));
	assert_null(strstr(title, "MiB"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"
			       " AND figures LIKE '%%bytes%%'"), 0);
	/* figures with no unit are not bytes: no peak */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak"), 0);
	t_close(tl);
}

/* mmdetection#1956: "memory: 6814" every 50 iterations, flat: read, no
 * leak; a falling or sawtooth series of bare figures neither. */
static void unit_not_stated_flat_or_sawtooth(void **state)
{
	static const char *saw = "it 1 allocated: 2.10\nit 2 allocated: 3.40\nit 3 allocated: 2.12\n"
		"it 4 allocated: 3.41\nit 5 allocated: 2.11\nit 6 allocated: 3.42\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "tests/data/real/healthy/mmdet-1.x-train-log-memory-per-50-"
				 "iterations-flat.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "memory_samples", "saw.txt", saw, 0) > 0);
	assert_string_equal(series(tl), "allocated|iteration|1,2,3,4,5,6|2.1,3.4,2.12,3.41,2.11,"
			    "3.42|unit-not-stated");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* pytorch#115255: "Mem memory (MB) | allocated: 20.4 | ..." each step:
 * the line states its unit as a word of its own, so the figures are
 * bytes (MB read as MiB, as every pasted MB); +0.6 MiB over 14 steps is
 * below the material growth: no leak. */
static void unit_in_the_line(void **state)
{
	static const char *log =
		"Mem memory (MB) | allocated: 20.4 | max allocated: 21.8 | reserved: 26.0 | max reserved: 26.0\n"
		"Mem memory (MB) | allocated: 20.5 | max allocated: 21.9 | reserved: 26.0 | max reserved: 26.0\n"
		"Mem memory (MB) | allocated: 20.5 | max allocated: 21.9 | reserved: 26.0 | max reserved: 26.0\n"
		"Mem memory (MB) | allocated: 20.6 | max allocated: 22.0 | reserved: 26.0 | max reserved: 26.0\n"
		"Mem memory (MB) | allocated: 20.6 | max allocated: 22.0 | reserved: 26.0 | max reserved: 26.0\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "memory_samples", "mem.log", log, 0) > 0);
	assert_string_equal(series(tl), "allocated|sample||21390950,21495808,21495808,21600666,"
			    "21600666");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
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

/* IPEX#615 after the fix: 1.44 GB, then 1.89 GB three epochs running. */
static void rose_once_then_flat(void **state)
{
	static const char *still_rising = "Epoch 1, Memory Usage: 1.44 GB\n"
		"Epoch 2, Memory Usage: 1.89 GB\nEpoch 3, Memory Usage: 1.89 GB\n"
		"Epoch 4, Memory Usage: 2.31 GB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "tests/data/real/healthy/"
				 "a-ipex-2.1.30-epoch-memory-usage-flat-after-fix.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	t_close(tl);
	/* the same series still rising at its last sample: a leak */
	tl = t_open();
	assert_true(t_parse_mem(tl, "memory_samples", "epochs.log", still_rising, 0) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* kaldi#4814: "N.mem: 6.9Gi" per run, 6.9 -> 27 Gi, no failure line. */
static void iec_units_after_an_ordinal(void **state)
{
	static const char *flat = "1.mem: 6.9Gi\n2.mem: 7.0Gi\n3.mem: 6.9Gi\n"
		"4.mem: 6.9Gi\n5.mem: 7.0Gi\n6.mem: 6.9Gi\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "f-kaldi-triton-cudadecoder-host-ram-6.9-to-27gi-"
				 "over-40-requests/01-memory-per-run.txt") >= 0);
	assert_true(strncmp(series(tl), "mem|", 4) == 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "over 40 pasted samples, 7066 MiB to 27648 MiB") != NULL);
	t_close(tl);
	/* the same prints holding their level: no finding */
	tl = t_open();
	t_parse_mem(tl, "memory_samples", "runs.txt", flat, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	t_close(tl);
}

/* torch.cuda.memory_allocated() printed under its name, no unit. */
static void memory_allocated_by_name(void **state)
{
	static const char *creep = "memory_allocated 1.2 memory_cached 4.0\n"
		"memory_allocated 1.6 memory_cached 4.0\nmemory_allocated 2.0 memory_cached 4.0\n"
		"memory_allocated 2.5 memory_cached 4.0\nmemory_allocated 2.9 memory_cached 6.0\n"
		"memory_allocated 3.4 memory_cached 6.0\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "memory_samples", "prints.txt", creep, 0) > 0);
	assert_true(strncmp(series(tl), "memory_allocated|", 17) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* A script's CSV whose column names carry the label and the unit. */
static void compound_column_name(void **state)
{
	static const char *csv = "iteration,memory_usage_in_MiB\n0,1329.22265625\n"
		"1,1431.140625\n[...]\n10,2250.69921875\n20,3121.921875\n30,4033.1875\n";
	static const char *maxcol = "step,max_rss_mb\n0,100\n1,200\n2,300\n3,400\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(memsamples_sniff((const unsigned char *)csv, strlen(csv)), 30);
	assert_true(t_parse_mem(tl, "memory_samples", "memleak.csv", csv, 0) > 0);
	assert_true(strncmp(series(tl), "memory|iteration|0,1,10,20,30|", 30) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
	assert_int_equal(memsamples_sniff((const unsigned char *)maxcol, strlen(maxcol)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(llamacpp_vmrss_per_request),
		cmocka_unit_test(ollama_resident_table),
		cmocka_unit_test(flat_and_falling),
		cmocka_unit_test(nvidia_smi_csv_rising),
		cmocka_unit_test(not_samples),
		cmocka_unit_test(peak_of_pasted_samples),
		cmocka_unit_test(timed_series_wins),
		cmocka_unit_test(tensorflow_unit_not_stated),
		cmocka_unit_test(unit_not_stated_flat_or_sawtooth),
		cmocka_unit_test(unit_in_the_line),
		cmocka_unit_test(nvidia_smi_tables_over_pastes),
		cmocka_unit_test(rose_once_then_flat),
		cmocka_unit_test(iec_units_after_an_ordinal),
		cmocka_unit_test(memory_allocated_by_name),
		cmocka_unit_test(compound_column_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
