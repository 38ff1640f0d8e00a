/*
 * test_rank_twins.c -- torchrun ranks that fail in lockstep print one
 * traceback each through the "[rankN]:" carrier, line by line interleaved
 * (round 17, w-phase18: server_log.c lockstep_twin). Made from a real
 * excerpt (tests/data/real/any_stack/trl-fsdp-sft-rtx3080-trainer-
 * training-step.log, rank 0's traceback of a Trainer's training_step):
 * each of its "[rank0]:" lines followed, or preceded, by rank 1's copy of
 * it. The traceback's frames still place the failure in training_step,
 * as the one rank's paste does.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define TRL "tests/data/real/any_stack/trl-fsdp-sft-rtx3080-trainer-training-step.log"

/* The excerpt with each "[rank0]:" line twinned by a "[rank1]:" copy,
 * after it (first = 0) or before it (first = 1); malloc'd, *n its length. */
static char *twinned(int first, size_t *n)
{
	size_t len, i = 0, j = 0, e;
	char *text = t_slurp(TRL, &len), *out = malloc(len * 2 + 1);

	assert_non_null(text);
	assert_non_null(out);
	while (i < len) {
		for (e = i; e < len && text[e] != '\n'; e++)
			;
		if (e < len)
			e++;
		if (e - i > 8 && !memcmp(text + i, "[rank0]:", 8)) {
			size_t at = j + (first ? 0 : e - i);
			if (first) {
				memcpy(out + j + (e - i), text + i, e - i);
			} else {
				memcpy(out + j, text + i, e - i);
			}
			memcpy(out + at, text + i, e - i);
			out[at + 5] = '1';
			j += 2 * (e - i);
		} else {
			memcpy(out + j, text + i, e - i);
			j += e - i;
		}
		i = e;
	}
	out[j] = 0;
	*n = j;
	free(text);
	return out;
}

static void one_rank_is_training(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", TRL) > 0);
	assert_string_equal(t_first_phase(tl), "training_step");
	t_close(tl);
}

/* The twinned log (rank 1's traceback line after rank 0's, or before it)
 * holds the pair in the order given and still reads as training. */
static void twins_read_once(int rank1_first, const char *pair, const char *name)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = twinned(rank1_first, &n);

	assert_non_null(strstr(text, pair));
	assert_true(t_parse_mem(tl, "server_log", name, text, n) > 0);
	assert_string_equal(t_first_phase(tl), "training_step");
	free(text);
	t_close(tl);
}

static void twins_after(void **state)
{
	(void)state;
	twins_read_once(0, "[rank0]: Traceback (most recent call last):\n"
			"[rank1]: Traceback (most recent call last):\n", "twins-after.log");
}

static void twins_before(void **state)
{
	(void)state;
	twins_read_once(1, "[rank1]: Traceback (most recent call last):\n"
			"[rank0]: Traceback (most recent call last):\n", "twins-before.log");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_rank_is_training),
		cmocka_unit_test(twins_after),
		cmocka_unit_test(twins_before),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
