/*
 * memfail_stack.c -- the training stack a failure's frames or lines name
 * (DeepSpeed, ZeRO-3, transformers' Trainer and accelerate, Lightning,
 * JAX, Keras), for memfail_stack_hint() (memfail.h). Split from memfail.c
 * to keep that file under the layout's limit; its phrases join the
 * recogniser's prefilter through memfail_stack_each_phrase().
 */
#include "parsers/serving/memfail.h"
#include "parsers/serving/engine_lines.h"
#include "parsers/common/seriesutil.h"

#include <stddef.h>

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* The training stack a frame or line names, in the order they win: a
 * DeepSpeed job run under transformers' Trainer answers to DeepSpeed's
 * knobs first; ZeRO stage 3 is named by its own partitioner's files. */
static const struct { const char *phrase; int stack; } train_stacks[] = {
	/* DeepSpeed's inference engine (init_inference, its injected
	 * kernels: deepspeed/__init__.py, inference/engine.py,
	 * ops/transformer/inference/ at v0.10.0..v0.18) trains nothing */
	{ "init_inference", MEMFAIL_STACK_INFERENCE },
	{ "deepspeed/inference/", MEMFAIL_STACK_INFERENCE },
	{ "transformer/inference/", MEMFAIL_STACK_INFERENCE },
	{ "deepspeed/module_inject/", MEMFAIL_STACK_INFERENCE },
	{ "model_implementations/", MEMFAIL_STACK_INFERENCE },
	{ "zero/stage3.py", VST_DEEPSPEED_ZERO3 },
	{ "DeepSpeedZeroOptimizer_Stage3", VST_DEEPSPEED_ZERO3 },
	{ "partition_parameters.py", VST_DEEPSPEED_ZERO3 },   /* zero.Init */
	{ "zero.Init", VST_DEEPSPEED_ZERO3 },
	{ "deepspeed/", VST_DEEPSPEED },
	{ "deepspeed.initialize", VST_DEEPSPEED },
	{ "in deepspeed_init", VST_DEEPSPEED },
	{ "pytorch_lightning/", VST_LIGHTNING },
	{ "lightning/pytorch/", VST_LIGHTNING },
	{ "lightning/fabric/", VST_LIGHTNING },
	{ "transformers/trainer", VST_HF_TRAINER },   /* trainer.py, trainer_pt_utils.py */
	{ "_inner_training_loop", VST_HF_TRAINER },
	{ "accelerate/", VST_HF_TRAINER },
	{ "accelerator.backward", VST_HF_TRAINER },
	{ "site-packages/jax/", VST_JAX },
	{ "jax/_src/", VST_JAX },
	{ "jaxlib", VST_JAX },
	{ "/flax/", VST_JAX },   /* site-packages/flax/: anchors are 6 bytes at least */
	{ "XlaRuntimeError", VST_JAX },
	{ "site-packages/keras/", VST_KERAS },
	{ "tensorflow/python/", VST_KERAS },
};

int memfail_stack_hint(const char *text, size_t n, int *rank)
{
	size_t i;

	for (i = 0; i < ARRAY_N(train_stacks); i++)
		if (mem_find(text, n, train_stacks[i].phrase)) {
			*rank = (int)i;
			return train_stacks[i].stack;
		}
	*rank = (int)ARRAY_N(train_stacks);
	return -1;
}

void memfail_stack_each_phrase(void (*fn)(const char *phrase, unsigned mark, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_N(train_stacks); i++)
		fn(train_stacks[i].phrase, MEMFAIL_MARK_PHASE, arg);
}
