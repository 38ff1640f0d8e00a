/*
 * test_critic.c -- issue 26: the ledger adds up and the critic pass
 * (analyzer/rules/critic.c) withdraws or corrects advice and titles that
 * contradict the facts they rely on. Every case is a real excerpt
 * (tests/data/real/, fixtures/; tests/data/critic/ holds two written in
 * the engines' exact wording from the cases issue 26 describes, see its
 * README) run through the whole pipeline: ingest, then
 * analyze_timeline(), then the finding and ledger rows are asserted.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB_ (1024.0 * 1024.0 * 1024.0)
#define MIB_ (1024.0 * 1024.0)

/* The timeline of one real excerpt, analyzed. */
static struct timeline *analyzed(const char *relpath)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_file(tl, relpath) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

/* ---- the ledger ---- */

/* A container's PyTorch lists this process as "Process 2791 has 79.29
 * GiB": it is this process (its 8.6 GiB outside PyTorch included), not
 * another one as large as the card beside 69.6 GiB of tensors. */
static void self_listed_as_process_is_this_process(void **state)
{
	struct timeline *tl = analyzed("tests/data/critic/self-listed-as-process-h100.log");
	double cap, parts;
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger WHERE line = 'other_processes'"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger WHERE line = 'over_counted'"), 0);
	/* 79.29 - (69.60 + 1.12) GiB outside PyTorch, in this process */
	assert_true(fabs(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'non_pytorch'") -
			 8.57 * GIB_) < 0.02 * GIB_);
	cap = t_real(tl, "SELECT bytes FROM ledger WHERE line = 'capacity'");
	parts = t_real(tl, "SELECT sum(bytes) FROM ledger WHERE part = 1");
	assert_true(parts <= cap + 32 * MIB_);
	/* the capacity finding weighs the same process: nothing held outside it */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'other_process'"), 0);
	t_close(tl);
}

/* Every real PyTorch message of gpu_host: no slice larger than its card,
 * slices that add up within the card, and an over-count that names
 * different moments only when its lines have them. */
static void slices_never_exceed_the_card(void **state)
{
	FILE *f = fopen(t_src("tests/data/real/gpu_host/MANIFEST.tsv"), "r");
	char line[4096], path[512];
	int n = 0;
	(void)state;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *file = strtok(line, "\t"), *kind;
		struct timeline *tl;
		if (!file || !strtok(NULL, "\t") || !(kind = strtok(NULL, "\t")) ||
		    strcmp(kind, "torch_oom"))
			continue;
		snprintf(path, sizeof(path), "tests/data/real/gpu_host/%s", file);
		tl = analyzed(path);
		if (t_int(tl, "SELECT count(*) FROM ledger l JOIN ledger c ON c.entity = l.entity AND"
			  " c.line = 'capacity' WHERE l.part = 1 AND l.line <> 'free' AND"
			  " l.bytes > c.bytes * 1.001 + 16777216") != 0)
			fail_msg("%s: a slice exceeds its card", file);
		if (t_int(tl, "SELECT count(*) FROM ledger WHERE line = 'over_counted' AND source LIKE"
			  " '%%different moments%%'") > 0 &&
		    t_int(tl, "SELECT count(DISTINCT moment) FROM ledger WHERE part = 1 AND line NOT IN"
			  " ('free', 'over_counted')") < 2)
			fail_msg("%s: over-counted blamed on moments that do not differ", file);
		n++;
		t_close(tl);
	}
	fclose(f);
	assert_true(n >= 30);
}

/* The message's "299.88 MiB allocated in private pools (e.g., CUDA
 * Graphs)" is a named line of the ledger, apart from the other tensors. */
static void private_pools_are_a_named_line(void **state)
{
	struct timeline *tl = analyzed("tests/data/real/gpu_host/"
				       "torch-oom-private-pools-cuda-graphs-wrapped.log");
	(void)state;

	assert_true(fabs(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'cuda_graphs'") -
			 299.88 * MIB_) < MIB_);
	assert_non_null(strstr(t_text(tl, "SELECT label FROM ledger WHERE line = 'cuda_graphs'"),
			       "private pools"));
	t_close(tl);
}

/* ---- the critic ---- */

/* "A card of at least 11.0 GiB" for an OOM on an 11.66 GiB card is
 * withdrawn, with the reason; a card above the one that failed stays. */
static void card_size_must_exceed_the_failed_card(void **state)
{
	struct timeline *tl = analyzed("tests/data/real/gpu_host/torch-oom-two-other-processes.log");
	(void)state;

	assert_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'capacity'"),
			   "card of at least"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE json_extract(figures,"
			       " '$.suggested_card_bytes') <= 11.66 * 1073741824"), 0);
	assert_non_null(strstr(t_text(tl, "SELECT json_extract(figures, '$.critic') FROM finding"
				      " WHERE cause = 'capacity'"), "11.7 GiB"));
	t_close(tl);

	tl = analyzed("tests/data/real/any_stack/runpod-worker-torch-oom-task-queue-escaped-newline.log");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'capacity'"),
			       "a card of at least 87.0 GiB"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE json_extract(figures,"
			       " '$.critic') IS NOT NULL"), 0);
	t_close(tl);
}

/* 9.08 GiB of live tensors and a 22.8 GiB request on a 31.5 GiB card:
 * the request, not the tensors, filled the reach; the title says so. A
 * card truly full of tensors keeps its title. */
static void full_of_tensors_only_when_they_fill_the_reach(void **state)
{
	struct timeline *tl = analyzed("tests/data/real/gpu_host/torch-oom-large-reserved-unallocated.log");
	const char *title;
	(void)state;

	title = t_text(tl, "SELECT title FROM finding WHERE cause = 'capacity'");
	assert_null(strstr(title, "full of live tensors"));
	assert_non_null(strstr(title, "A request of 22.8 GiB"));
	t_close(tl);

	tl = analyzed("tests/data/real/any_stack/runpod-worker-torch-oom-task-queue-escaped-newline.log");
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'capacity'"),
			       "full of live tensors"));
	t_close(tl);
}

/* SGLang's decode ran out with 167 requests running: the cap is derived
 * from them (116), not declared missing, and becomes the finding's knob.
 * The excerpt's count lines are left out: with them (3200 tokens
 * available for 168 asked) the pool was not full and no cap is advised
 * (test_sglang_counts.c); without them the message is a pool that ran out
 * as the engine's first line alone says. */
static void concurrency_cap_derived_from_what_ran(void **state)
{
	struct timeline *tl = t_open();
	size_t n, i, k = 0;
	char *text = t_slurp("tests/data/real/serving/"
			     "sglang-jax-decode-out-of-memory-scheduler-exception.log", &n);
	(void)state;

	for (i = 0; i < n; ) {   /* drop the lines the counts are on */
		size_t e = i;
		while (e < n && text[e] != '\n')
			e++;
		if (e < n)
			e++;
		if (strncmp(text + i, "Try to allocate ", 16) && strncmp(text + i, "Available tokens: ", 18)) {
			memmove(text + k, text + i, e - i);
			k += e - i;
		}
		i = e;
	}
	assert_true(t_parse_mem(tl, "server_log", "sgljax.log", text, k) > 0);
	free(text);
	assert_int_equal(analyze_timeline(tl, NULL), 0);

	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.advice_value') FROM finding"
			       " WHERE cause = 'kv_pool'"), 116);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'kv_pool'"),
			       "--max-running-requests to 116"));
	assert_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'kv_pool'"),
			   "does not give their values"));
	t_close(tl);
}

/* A cap at or above what was running is no fix: withdrawn, the reason
 * kept; no finding advises --max-num-seqs at or above the running count. */
static void concurrency_cap_above_what_ran_is_withdrawn(void **state)
{
	struct timeline *tl = analyzed("fixtures/leak_gpu_per_request/");
	double running;
	(void)state;

	running = t_real(tl, "SELECT p.value FROM sample p JOIN series s ON s.id = p.series_id"
			 " WHERE s.name = 'server.running' ORDER BY p.time_ns DESC LIMIT 1");
	assert_true(running > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE json_extract(figures,"
			       " '$.advice_knob') = 'max_num_seqs' AND json_extract(figures,"
			       " '$.advice_value') >= %g", running), 0);
	assert_non_null(strstr(t_text(tl, "SELECT json_extract(figures, '$.critic') FROM finding"
				      " WHERE cause = 'max_num_seqs'"), "were running at the OOM"));
	t_close(tl);
}

/* A finding as startup.c writes it for a card too small to load on: two
 * cards. The log is from rank 5, so the group has six or more cards:
 * "--tensor-parallel-size 2" is withdrawn, the multiple kept. */
static int startup_tp2(struct rule_ctx *c)
{
	struct rl_finding f;

	rl_finding_init(&f, "startup", "misconfig", "startup_oom");
	f.score = 0.8;
	snprintf(f.title, sizeof(f.title), "The start-up ran out of memory");
	rl_fig(&f, "suggested_card_bytes", 91.0 * GIB_);
	rl_knob(&f, "tensor_parallel_size", "--tensor-parallel-size", 2, "The start-up needs"
		" 81.0 GiB of a 79.3 GiB card: shard it over 2 cards (--tensor-parallel-size 2), or"
		" use a card of 91.0 GiB, or quantize the weights.");
	if (rl_finding_write(c, &f) < 0)
		return -1;
	return rule_critic(c);
}

static void parallelism_agrees_with_the_ranks_seen(void **state)
{
	struct timeline *tl = analyzed("tests/data/critic/vllm-rank5-load-weights-tp.log");
	const char *advice;
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE instance = 'rank 5'"), 1);
	assert_int_equal(dctx_pass(tl->db, NULL, startup_tp2), 0);
	advice = t_text(tl, "SELECT advice FROM finding WHERE cause = 'startup_oom'");
	assert_null(strstr(advice, "--tensor-parallel-size 2"));
	assert_non_null(strstr(advice, "rank 5"));
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.advice_value') IS NULL FROM"
			       " finding WHERE cause = 'startup_oom'"), 1);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_listed_as_process_is_this_process),
		cmocka_unit_test(slices_never_exceed_the_card),
		cmocka_unit_test(private_pools_are_a_named_line),
		cmocka_unit_test(card_size_must_exceed_the_failed_card),
		cmocka_unit_test(full_of_tensors_only_when_they_fill_the_reach),
		cmocka_unit_test(concurrency_cap_derived_from_what_ran),
		cmocka_unit_test(concurrency_cap_above_what_ran_is_withdrawn),
		cmocka_unit_test(parallelism_agrees_with_the_ranks_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
