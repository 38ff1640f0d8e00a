/*
 * test_memsamples_counted.c -- leak evidence in the shapes it arrives
 * (issue 27, round 18, w-leak19): memory readings against a counted
 * x-axis (parsers/host/memsamples.c counted_at, memsamples_counted) and
 * a sawtooth whose last stretch climbs (analyzer/rules/samples_climb.c).
 *
 * Real pastes: tensorflow/tensorflow#38598's "Memory usage after N
 * prediction(s): X MiB" with the reporter's "[...]" lines (held-out set
 * 18, spent, moved to tests/data/real/any_stack), and LiteLLM's memory
 * every 100 requests before BerriAI/litellm PR #8551 (set 18, spent,
 * tests/data/incoming/any_stack). The short series below are written in
 * those real formats: three readings rising by a material amount are a
 * weaker reading, said so, never a verdict without a failure after them;
 * two readings, a warm-up plateau (the first reading after load, then
 * flat) and an unnumbered three are none.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/samples_climb.h"
#include "parsers/host/memsamples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *series(struct timeline *tl)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = 'samples.series.0'");
}

/* tf#38598 as pasted: read despite its "[...]" and version lines; four
 * readings per prediction still rising: a leak while serving. */
static void tf_predictions_after_elisions(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "tests/data/real/any_stack/"
				 "g-tf-2.1-keras-predict-varying-shapes-rss-306-to-349mib/"
				 "01-tf-memleak-output.txt") >= 0);
	assert_true(strncmp(series(tl), "memory|prediction|0,1,2,3|", 26) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT phase FROM finding WHERE rule = 'samples'"),
			    "serving");
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "per prediction") != NULL);
	t_close(tl);
}

/* Three readings against a counted x-axis, +300 MiB each: a reading
 * said as short, scored below a long series, and no verdict of a leak
 * with no failure after it. */
static void three_counted_readings(void **state)
{
	static const char *three = "Memory usage after 0 request(s): 2048.000 MiB\n"
		"Memory usage after 100 request(s): 2348.000 MiB\n"
		"Memory usage after 200 request(s): 2650.500 MiB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "memory_samples", "rss.txt", three, 0) > 0);
	assert_true(strncmp(series(tl), "memory|request|0,100,200|", 25) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "only 3 readings, a weaker sign") != NULL);
	assert_true(t_real(tl, "SELECT score FROM finding WHERE rule = 'samples'") < 0.7);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* The sniff takes three numbered readings; two, or three unnumbered,
 * are no series. */
static void sniff_counts_the_axis(void **state)
{
	static const char *three = "Memory usage after 1 prediction(s): 306.641 MiB\n"
		"Memory usage after 2 prediction(s): 344.785 MiB\n"
		"Memory usage after 3 prediction(s): 391.023 MiB\n";
	static const char *two = "Memory usage after 1 prediction(s): 306.641 MiB\n"
		"Memory usage after 2 prediction(s): 344.785 MiB\n";
	static const char *plain = "memory: 306.641 MiB\nmemory: 344.785 MiB\n"
		"memory: 391.023 MiB\n";
	(void)state;
	assert_int_equal(memsamples_sniff((const unsigned char *)three, strlen(three)), 30);
	assert_int_equal(memsamples_sniff((const unsigned char *)two, strlen(two)), 0);
	assert_int_equal(memsamples_sniff((const unsigned char *)plain, strlen(plain)), 0);
}

/* A warm-up plateau: idle, after the first batch of work (the model's
 * caches filled), then barely more: no finding. So is a short series
 * that falls, or whose growth is not material (DGL#1269's 3.15 -> 4.72
 * MiB of torch.cuda.memory_allocated per epoch). */
static void warmup_plateau_and_small(void **state)
{
	static const char *const clean[] = {
		"Memory usage after 0 request(s): 3670 MiB\n"
		"Memory usage after 1 request(s): 11100 MiB\n"
		"Memory usage after 5 request(s): 11200 MiB\n",
		"Memory usage after 0 request(s): 3670 MiB\n"
		"Memory usage after 1 request(s): 5100 MiB\n"
		"Memory usage after 2 request(s): 4900 MiB\n",
		"epoch 0. memory: 3.1528M\nepoch 1. memory: 3.9375M\nepoch 2. memory: 4.7222M\n",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
		struct timeline *tl = t_open();
		t_parse_mem(tl, "memory_samples", "mem.txt", clean[i], 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"),
				 0);
		t_close(tl);
	}
}

/* In a mixed log the count between label and figure is the step, not
 * part of the label: three requests' prints make one series. */
static void mixed_log_counted(void **state)
{
	static const char *log =
		"INFO:     Started server process [4121]\n"
		"INFO:     Application startup complete.\n"
		"RSS after 100 requests: 1.20 GiB\n"
		"INFO:     127.0.0.1:50412 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
		"RSS after 200 requests: 1.45 GiB\n"
		"INFO:     127.0.0.1:50413 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
		"RSS after 300 requests: 1.71 GiB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "text", "server.log", log, 0) >= 0);
	assert_true(strncmp(t_text(tl, "SELECT value FROM meta WHERE key ="
				   " 'samples.series.0'"), "rss|request|100,200,300|", 24) == 0);
	t_close(tl);
}

/* LiteLLM before PR #8551: a sawtooth, then eleven samples climbing to a
 * new high past every earlier tooth: a reading of a leak in progress,
 * never the verdict alone. */
static void litellm_trailing_climb(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "tests/data/incoming/any_stack/"
				 "g-litellm-completions-route-leak-request-2700-rss-303mb/"
				 "01-before-pr-memory-per-100-requests.txt") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "climbed over its last 11 samples") != NULL);
	assert_string_equal(t_text(tl, "SELECT phase FROM finding WHERE rule = 'samples'"),
			    "serving");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* A healthy collector's sawtooth: teeth of one height and length, the
 * last caught near its top: no climb past the earlier teeth. */
static void healthy_sawtooth_clean(void **state)
{
	static struct memsamples_series m;
	struct samples_climb k;
	static const double teeth[] = { 200, 230, 260, 290, 120, 150, 180, 210, 240, 270, 300,
					115, 145, 175, 205, 235, 265, 295, 330, 360 };
	const double mib = 1048576.0;
	int i;
	(void)state;
	memset(&m, 0, sizeof(m));
	m.n = 18;   /* up to 295: as tall and as long as the earlier teeth */
	for (i = 0; i < 20; i++)
		m.v[i] = teeth[i] * mib;
	assert_int_equal(samples_trailing_climb(&m, 0.05, 32 * mib, 0.10, &k), 0);
	/* two samples on, the last tooth is taller and longer than any: a
	 * climb (a reading only, as samples.c states it) */
	m.n = 20;
	assert_int_equal(samples_trailing_climb(&m, 0.05, 32 * mib, 0.10, &k), 1);
	assert_int_equal(k.trough, 11);
}

/* Each card printed per iteration is its own series: the nvidia-smi
 * lines of NVlabs/nvdiffrast#23 (verbatim) name GPU-0 and GPU-1, and a
 * paste alternating two cards keeps the first card's series alone. */
static void one_series_a_device(void **state)
{
	static const char *two_cards =
		"iter 1 GPU 0 memory: 2796 MiB\niter 1 GPU 1 memory: 1494 MiB\n"
		"iter 2 GPU 0 memory: 3310 MiB\niter 2 GPU 1 memory: 1495 MiB\n"
		"iter 3 GPU 0 memory: 3822 MiB\niter 3 GPU 1 memory: 1497 MiB\n"
		"iter 4 GPU 0 memory: 4340 MiB\niter 4 GPU 1 memory: 1496 MiB\n";
	static const char *l0 = "nvidia-smi GPU-0 memory (MB) 2796";
	static const char *l1 = "nvidia-smi GPU-1 memory (MB) 1495";
	struct memsamples_hit h;
	struct timeline *tl;
	(void)state;
	assert_int_equal(memsamples_line(l0, strlen(l0), &h), 1);
	assert_string_equal(h.label, "gpu0 memory");
	assert_true(h.bytes == 2796.0 * 1048576.0);
	assert_int_equal(memsamples_line(l1, strlen(l1), &h), 1);
	assert_string_equal(h.label, "gpu1 memory");
	tl = t_open();
	assert_true(t_parse_mem(tl, "memory_samples", "cards.txt", two_cards, 0) > 0);
	assert_true(strncmp(series(tl), "gpu0 memory|iteration|1,2,3,4|", 30) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* tensorflow/tensorflow#62839 (held-out set 19, spent): a Keras
 * callback's psutil RSS each epoch printed inside brackets, "Memory usage
 * after epoch 3 [mem_usage =  4.32 GB]": the unit token closes the
 * bracket and is still the figure's unit; eleven epochs rising 3.41 to
 * 7.36 GB are a leak while training. A bracketed token that is no unit
 * ("3.41 GBs]") stays no figure. */
static void bracketed_unit_per_epoch(void **state)
{
	static const char *glued = "Memory usage after epoch 0 [mem_usage=3.41GB]\n"
		"Memory usage after epoch 1 [mem_usage=3.88GB]\n"
		"Memory usage after epoch 2 [mem_usage=4.32GB]\n";
	static const char *not_unit = "Memory usage after epoch 0 [mem_usage =  3.41 GBs]\n"
		"Memory usage after epoch 1 [mem_usage =  3.88 GBs]\n"
		"Memory usage after epoch 2 [mem_usage =  4.32 GBs]\n";
	struct timeline *tl;
	(void)state;
	assert_int_equal(memsamples_sniff((const unsigned char *)glued, strlen(glued)), 30);
	assert_int_equal(memsamples_sniff((const unsigned char *)not_unit, strlen(not_unit)), 0);
	tl = t_open();
	assert_true(t_parse_mem(tl, "memory_samples", "rss.txt", glued, 0) > 0);
	assert_true(strncmp(series(tl), "memory|epoch|0,1,2|", 19) == 0);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_file(tl, "tests/data/real/any_stack/"
				 "f-tf2.13-keras-fit-host-memory-grows-per-epoch-a100/"
				 "01-memory-per-epoch.txt") >= 0);
	assert_true(strncmp(series(tl), "memory|epoch|0,1,2,3,", 21) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT phase FROM finding WHERE rule = 'samples'"),
			    "training_step");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tf_predictions_after_elisions),
		cmocka_unit_test(three_counted_readings),
		cmocka_unit_test(sniff_counts_the_axis),
		cmocka_unit_test(warmup_plateau_and_small),
		cmocka_unit_test(mixed_log_counted),
		cmocka_unit_test(litellm_trailing_climb),
		cmocka_unit_test(healthy_sawtooth_clean),
		cmocka_unit_test(one_series_a_device),
		cmocka_unit_test(bracketed_unit_per_epoch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
