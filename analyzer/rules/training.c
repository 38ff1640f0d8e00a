/*
 * training.c -- the knobs a training or evaluation step answers to (issue
 * 27: the phase decides with the evidence and names its knob). A single
 * OOM in a training step or an evaluation says, with the failure's own
 * figures, how much was asked and what the card held, but not why the
 * step outgrew the card (a batch too large from the start, a long
 * sequence, a leak across steps): the class stays with the rules that
 * judge the figures (capacity: the request alone larger than the card;
 * fragmentation; other processes), inconclusive otherwise. What this
 * rule adds is a reading (class "reading", cause training_knobs, never a
 * verdict): the knobs that phase answers to on the stack that ran it,
 * which the answer shows as what to try first, labelled as such.
 *
 * The stack is the one the parsers read from the frames and lines around
 * the failure (event data "stack": DeepSpeed, transformers' Trainer and
 * accelerate, Lightning, JAX, Keras), else the wording family's (XLA:
 * JAX; TensorFlow's BFC allocator: Keras), else plain PyTorch. A DeepSpeed
 * OOM in its set-up is a start-up one (startup_phase.c), not this rule's.
 *
 * The knob names are the projects' own:
 *  - transformers' TrainingArguments (huggingface.co/docs/transformers,
 *    main_classes/trainer): per_device_train_batch_size,
 *    gradient_accumulation_steps, gradient_checkpointing, bf16/fp16,
 *    optim="adamw_bnb_8bit", per_device_eval_batch_size,
 *    eval_accumulation_steps, Trainer(preprocess_logits_for_metrics=...);
 *  - DeepSpeed's config (deepspeed.ai/docs/config-json):
 *    train_micro_batch_size_per_gpu, gradient_accumulation_steps,
 *    zero_optimization.stage, offload_optimizer/offload_param "device":
 *    "cpu", reduce_bucket_size;
 *  - Lightning's Trainer (lightning.ai/docs/pytorch, trainer API):
 *    accumulate_grad_batches, precision="bf16-mixed", strategy;
 *  - JAX (docs.jax.dev, GPU memory allocation): XLA_PYTHON_CLIENT_MEM_FRACTION
 *    (default .75), XLA_PYTHON_CLIENT_PREALLOCATE=false, jax.checkpoint;
 *  - PyTorch's MPS environment variables (docs.pytorch.org,
 *    mps_environment_variables): PYTORCH_MPS_HIGH_WATERMARK_RATIO, a hard
 *    limit on what the MPS allocator may take (0.0 lifts it);
 *  - TensorFlow: tf.config.experimental.set_memory_growth,
 *    TF_FORCE_GPU_ALLOW_GROWTH, tf.keras.mixed_precision.
 *  - JAX on a TPU (oom.scope tpu, pseudo-stack "tpu"): XLA's client
 *    variables are its GPU client's (docs.jax.dev "GPU memory
 *    allocation"), a TPU's HBM is the program's: a smaller per-device
 *    batch, jax.checkpoint (remat), sharding the parameters and optimizer
 *    states over more chips (jax.sharding / FSDP), bf16 (docs.jax.dev
 *    "Distributed arrays and automatic parallelization", cloud.google.com
 *    TPU troubleshooting "out of memory"); torch_xla's per-step
 *    xm.get_memory_info().
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/startup_phase.h"

#include <stdio.h>
#include <string.h>

#define TRAINING_SCORE 0.2     /* a reading: never counted in the verdict */

/* The knobs of one (phase, stack): the lead knobs' names (the figure
 * try_knobs, comma-separated, most effective first) and the sentence. */
struct knobs {
	const char *phase, *stack;
	const char *names;
	const char *advice;
};

static const struct knobs table[] = {
	{ "training_step", "hf_trainer",
	  "per_device_train_batch_size,gradient_accumulation_steps,gradient_checkpointing,bf16,optim",
	  "lower per_device_train_batch_size and raise gradient_accumulation_steps by the same"
	  " factor (the effective batch stays); gradient_checkpointing=True; bf16=True (fp16 on"
	  " cards without bf16); a shorter maximum sequence length; 8-bit optimizer states"
	  " (optim=\"adamw_bnb_8bit\"), or DeepSpeed ZeRO stage 2/3 to shard them" },
	{ "training_step", "deepspeed_zero3",
	  "train_micro_batch_size_per_gpu,gradient_accumulation_steps,offload_optimizer,offload_param",
	  "lower train_micro_batch_size_per_gpu and raise gradient_accumulation_steps by the same"
	  " factor; activation checkpointing; move the optimizer states, then the parameters, to"
	  " the host (zero_optimization.offload_optimizer / offload_param: {\"device\": \"cpu\"});"
	  " lower stage3_max_live_parameters and stage3_prefetch_bucket_size" },
	{ "training_step", "deepspeed",
	  "train_micro_batch_size_per_gpu,gradient_accumulation_steps,zero_optimization.stage,"
	  "offload_optimizer",
	  "lower train_micro_batch_size_per_gpu and raise gradient_accumulation_steps by the same"
	  " factor; activation checkpointing; bf16; ZeRO stage 3 (zero_optimization.stage: 3)"
	  " to shard the parameters too, and offload_optimizer: {\"device\": \"cpu\"}; a smaller"
	  " reduce_bucket_size and allgather_bucket_size (ZeRO 1/2 buffers)" },
	{ "training_step", "lightning",
	  "batch_size,accumulate_grad_batches,precision,strategy",
	  "a smaller DataLoader batch_size with Trainer(accumulate_grad_batches=k) to keep the"
	  " effective batch; precision=\"bf16-mixed\" (or \"16-mixed\"); activation checkpointing"
	  " (torch.utils.checkpoint) in the model; a sharding strategy (\"fsdp\","
	  " \"deepspeed_stage_2\") for the optimizer states" },
	{ "training_step", "jax",
	  "batch_size,XLA_PYTHON_CLIENT_MEM_FRACTION,XLA_PYTHON_CLIENT_PREALLOCATE,jax.checkpoint",
	  "a smaller per-device batch; jax.checkpoint (remat) around the layers; bf16 activations;"
	  " when several processes share the card, XLA_PYTHON_CLIENT_MEM_FRACTION (each process"
	  " preallocates .75 of the card by default) or XLA_PYTHON_CLIENT_PREALLOCATE=false" },
	{ "training_step", "keras",
	  "batch_size,mixed_precision,set_memory_growth",
	  "a smaller batch_size to fit(); mixed precision"
	  " (tf.keras.mixed_precision.set_global_policy(\"mixed_float16\")); when another process"
	  " shares the card, tf.config.experimental.set_memory_growth (TF_FORCE_GPU_ALLOW_GROWTH=true)" },
	{ "training_step", "",
	  "batch_size,gradient_accumulation,activation_checkpointing,autocast,optimizer_states",
	  "a smaller batch per step with gradient accumulation (optimizer.step() every k batches,"
	  " the loss divided by k) to keep the effective batch; activation checkpointing"
	  " (torch.utils.checkpoint); mixed precision (torch.autocast with bfloat16 or float16);"
	  " shorter sequences or smaller crops; 8-bit optimizer states (bitsandbytes) or a sharded"
	  " optimizer (ZeRO, FSDP)" },
	{ "eval", "hf_trainer",
	  "per_device_eval_batch_size,eval_accumulation_steps,preprocess_logits_for_metrics",
	  "lower per_device_eval_batch_size; eval_accumulation_steps=k moves the gathered"
	  " predictions to the host every k steps instead of keeping them all on the card;"
	  " Trainer(preprocess_logits_for_metrics=...) to keep the argmax, not the logits" },
	{ "eval", "lightning",
	  "batch_size,inference_mode,limit_val_batches",
	  "a smaller batch_size for the validation/test DataLoader; keep Trainer(inference_mode=True)"
	  " (no activations kept for backward); collect each step's outputs on the host (.cpu())" },
	{ "eval", "jax",
	  "batch_size,XLA_PYTHON_CLIENT_MEM_FRACTION,XLA_PYTHON_CLIENT_PREALLOCATE",
	  "a smaller evaluation batch; collect the outputs on the host (jax.device_get); when"
	  " several processes share the card, XLA_PYTHON_CLIENT_MEM_FRACTION or"
	  " XLA_PYTHON_CLIENT_PREALLOCATE=false" },
	/* the phase unknown: only the allocator's own knobs, which hold in
	 * any phase (an MPS or XLA failure may be inference's as well) */
	{ "unknown", "jax",
	  "XLA_PYTHON_CLIENT_MEM_FRACTION,XLA_PYTHON_CLIENT_PREALLOCATE,batch_size",
	  "XLA's client preallocates .75 of the card by default: when several processes share"
	  " it, lower XLA_PYTHON_CLIENT_MEM_FRACTION for each; XLA_PYTHON_CLIENT_PREALLOCATE=false"
	  " allocates on demand (more prone to fragmentation); then a smaller batch" },
	{ "unknown", "mps",
	  "PYTORCH_MPS_HIGH_WATERMARK_RATIO,batch_size",
	  "a smaller batch or image size first" },
	/* a TPU's HBM: the program's size decides, not a client's fraction */
	{ "training_step", "tpu",
	  "batch_size,jax.checkpoint,sharding,bf16",
	  "a smaller per-device batch (or a shorter sequence); jax.checkpoint (remat) around the"
	  " layers; shard the parameters and optimizer states over more chips (FSDP with"
	  " jax.sharding, or a larger TPU slice); bf16 parameters and activations" },
	{ "eval", "tpu",
	  "batch_size,sharding",
	  "a smaller evaluation batch (or a shorter sequence); shard the model over more chips;"
	  " collect the outputs on the host (jax.device_get)" },
	{ "unknown", "tpu",
	  "batch_size,jax.checkpoint,sharding",
	  "the program needs more HBM than each TPU chip has: a smaller per-device batch or"
	  " sequence, jax.checkpoint (remat), the model sharded over more chips (a larger slice);"
	  " torch_xla: xm.get_memory_info() each step shows how close it runs" },
	{ "eval", "",
	  "eval_batch_size,no_grad,outputs_on_host",
	  "a smaller evaluation batch; run it under torch.no_grad() or torch.inference_mode() so"
	  " that no activations are kept for a backward pass; move each batch's outputs to the host"
	  " (.cpu()) before collecting them" },
};

#define NKNOBS (sizeof(table) / sizeof(table[0]))

/* The stack whose knobs apply: a TPU's ("tpu": its HBM), the parsers'
 * (DeepSpeed's stage 3 falls back to DeepSpeed's, DeepSpeed's to the
 * Trainer's in evaluation), else the wording family's, else "" (plain
 * PyTorch). */
static const char *stack_for(const struct rl_phase *p)
{
	/* a TPU's HBM answers to the program's size, whatever the stack */
	if (!strcmp(p->scope, "tpu"))
		return "tpu";
	if (p->stack[0])
		return p->stack;
	if (!strcmp(p->family, "xla"))
		return "jax";
	if (!strcmp(p->family, "tf_bfc") || !strcmp(p->family, "tensorflow"))
		return "keras";
	return "";
}

static const struct knobs *knobs_for(const char *phase, const char *stack)
{
	size_t i;

	for (i = 0; i < NKNOBS; i++)
		if (!strcmp(table[i].phase, phase) && !strcmp(table[i].stack, stack))
			return &table[i];
	if (!strncmp(stack, "deepspeed", 9) && !strcmp(phase, "eval"))
		return knobs_for(phase, "hf_trainer");
	return stack[0] && strcmp(phase, "unknown") ? knobs_for(phase, "") : NULL;
}

int rule_training(struct rule_ctx *c)
{
	struct rl_phase ph;
	struct rl_finding f;
	const struct knobs *k;
	const char *phase, *stack, *what;
	int64_t fid;
	int r = rl_oom_phase(c, &ph);

	if (r <= 0)
		return r;
	/* a training stack's OOM whose frames name no phase is a step's (the
	 * stack's frames are the training loop's); otherwise only an
	 * allocator's own knobs (MPS, XLA) are named */
	phase = ph.phase;
	stack = stack_for(&ph);
	if (!strcmp(phase, "unknown") && (!strncmp(ph.stack, "deepspeed", 9) ||
					  !strcmp(ph.stack, "hf_trainer") || !strcmp(ph.stack, "lightning")))
		phase = "training_step";   /* stacks that only train (JAX, Keras also infer) */
	else if (!strcmp(phase, "unknown") && !strcmp(ph.family, "mps"))
		stack = "mps";
	if (strcmp(phase, "training_step") && strcmp(phase, "eval") && strcmp(phase, "unknown"))
		return 0;
	if (!(k = knobs_for(phase, stack)))
		return 0;
	rl_finding_init(&f, "training", "reading", "training_knobs");
	f.score = TRAINING_SCORE;
	f.phase = strcmp(ph.phase, "unknown") ? ph.phase : NULL;
	what = !strcmp(phase, "eval") ? "an evaluation step" : !strcmp(phase, "training_step")
	       ? "a training step" : !strcmp(stack, "tpu") ? "the program" : "the allocator";
	snprintf(f.title, sizeof(f.title), "What %s answers to%s%s: the knobs to try first", what,
		 stack[0] ? " on " : "", !strcmp(stack, "tpu") ? "a TPU" : stack);
	json_object_set_new(f.figures, "try_knobs", json_string(k->names));
	rl_advice(&f, "To try first (the knobs %s answers to; not a finding): %s.", what,
		  k->advice);
	if (!strcmp(ph.family, "mps"))
		rl_advice(&f, "On Apple's MPS backend the allocator stops at"
			  " PYTORCH_MPS_HIGH_WATERMARK_RATIO times the recommended working set"
			  " (1.7 by default); 0.0 lifts the limit at the risk of a system-wide"
			  " failure: shrink the step first.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (ph.event_id > 0 && rl_evidence(c, fid, "event", ph.event_id, phase) < 0))
		return -1;
	return 1;
}
