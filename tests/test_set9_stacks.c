/*
 * test_set9_stacks.c -- issue 27, held-out set 9 spent (branch
 * w-spent9a): the wordings and placements tinygrad's CUDA runtime (as
 * exo ran it) and cuTAGI's CUDA check taught. Lines are the excerpts'
 * own, the bars' blocks drawn in ASCII (tests/data/real/any_stack and
 * tests/data/incoming/any_stack, MANIFEST.tsv gives each thread); the
 * near misses are lines that hold the same phrases and must name
 * nothing.
 */
#include "testutil.h"
#include "parsers/serving/memfail.h"

#include <string.h>

#define TINYGRAD "tests/data/real/any_stack/b-tinygrad-exo-llama31-8b-shard-load-cuda-error-2-oom/"
#define CUTAGI "tests/data/incoming/any_stack/b-cutagi-resnet18-cifar10-leak-epoch4-cudamalloc-oom/"
#define FAILURE_PHASE "SELECT json_extract(data, '$.phase') FROM event WHERE kind = 'mem_failure'"

static int line(const char *l, struct memfail *f)
{
	return memfail_line(l, strlen(l), f);
}

static enum oom_phase phase_line(const char *l)
{
	return memfail_phase_line(l, strlen(l));
}

/* tinygrad's check() of a driver call ("CUDA Error 2, out of memory",
 * exo 140) and the CHECK_CUDA_ERROR idiom's second line (cuTAGI 71) are
 * CUDA's own failures, not unknown wordings. */
static void wordings(void **state)
{
	struct memfail f;

	(void)state;
	assert_true(line("Error processing tensor for shard Shard(model_id='mlabonne/Meta-Llama-3.1-"
			 "8B-Instruct-abliterated', start_layer=0, end_layer=31, n_layers=32): CUDA "
			 "Error 2, out of memory", &f));
	assert_int_equal(f.family, MF_CUDA);
	assert_true(line("out of memory cudaMalloc(&this->d_jcb, size * sizeof(float))`", &f));
	assert_int_equal(f.family, MF_CUDA);
	/* the check's first line says where, not what: no failure */
	assert_false(line("CUDA Runtime Error at: /home/mf/Documents/RESNET/cuTAGI/src/"
			  "data_struct_cuda.cu:83", &f));
}

/* A tqdm bar drawn above the failure names the phase when its phrase
 * opens the bar (memfail_bar.c): tinygrad's load_state_dict bar is the
 * weights' load, a training script's "Epoch N/M | ..." bar a training
 * step; the same phrases elsewhere on a line name nothing. */
static void bars(void **state)
{
	(void)state;
	assert_int_equal(phase_line("ram used: 11.98 GB, layers.27.feed_forward.w2.weight          "
				    "        :  85%|######5     | 249/292 [00:05<00:00, 45.44it/s]"),
			 OOM_PHASE_LOAD_WEIGHTS);
	assert_int_equal(phase_line("`Epoch 4/10 | training error: 43.58% | test error: 48.08%:  "
				    "40%|######      | 4/10 [25:27<38:13, 382.20s/it]CUDA Runtime "
				    "Error at: /home/mf/Documents/RESNET/cuTAGI/src/data_struct_cuda.cu:83"),
			 OOM_PHASE_TRAINING_STEP);
	/* Lightning's bar, as before */
	assert_int_equal(phase_line("Epoch 0:   4%|4         | 5/125 [00:03<01:20,  1.49it/s]"),
			 OOM_PHASE_TRAINING_STEP);
	/* near misses: no bar, or a percentage not the bar's */
	assert_int_equal(phase_line("Epoch 3 finished, ram used: 4.2 GB"), OOM_PHASE_UNKNOWN);
	assert_int_equal(phase_line("Epoch 4/10 | training error: 43.58% | test error: 48.08%"),
			 OOM_PHASE_UNKNOWN);
	assert_int_equal(phase_line("host ram used: 12 GB (85%|swap 0%)"), OOM_PHASE_UNKNOWN);
}

/* The excerpts whole, through the server-log parser: tinygrad's load
 * failed in the weights' load, and its load bar is no training loop's
 * (server_log.c: a bar on a line naming a start-up stage); cuTAGI's
 * failure is a training step's, its bar a training loop's. */
static void excerpts(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", TINYGRAD "01-load.log") > 0);
	assert_string_equal(t_text(tl, FAILURE_PHASE), "load_weights");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'train_progress'"), 0);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_file_as(tl, "server_log", CUTAGI "01-epoch4-error.txt") > 0);
	assert_string_equal(t_text(tl, FAILURE_PHASE), "training_step");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'train_progress'"), 1);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wordings),
		cmocka_unit_test(bars),
		cmocka_unit_test(excerpts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
