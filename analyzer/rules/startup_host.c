/*
 * startup_host.c -- a start-up OOM of host memory while a model's weights
 * were loaded (see startup_phase.h): the failed allocation was the
 * host's RAM (oom.scope 'host': an ENOMEM, a host allocator's refusal, the
 * kernel's OOM killer), not a card's, so the card's knobs (quantize,
 * tensor parallelism) are not the first answer. Loaders read each
 * checkpoint shard through host memory before it reaches a device:
 *
 *  - safetensors' safe_open maps the whole shard (vLLM's and SGLang's
 *    safetensors_weights_iterator, model_loader/weight_utils.py; vllm#759
 *    set 6: "unable to mmap 16933256392 bytes ... Cannot allocate memory
 *    (12)"), and an address-space limit (ulimit -v, RLIMIT_AS) or a
 *    container's memory limit refuses it;
 *  - transformers' from_pretrained without low_cpu_mem_usage (or a
 *    device_map) builds the model in RAM and then loads the state dict
 *    beside it (src/transformers/modeling_utils.py, 4.x);
 *  - each process loads its own copy: every tensor-parallel rank, every
 *    data-parallel worker on one host.
 *
 * llama.cpp's and Ollama's host buffers are advised by startup_phase.c
 * (advise_host_ggml), whose knobs are their own.
 */
#include "analyzer/rules/startup_phase.h"

#include <string.h>

/* f's advice for p, a host-memory failure while the weights loaded, in
 * stack's words where it has its own (vLLM's --load-format); returns the
 * cause (static, lib/vocab.h). Never fails. */
const char *rl_phase_advise_host_load(const struct rl_phase *p, const char *stack,
				      struct rl_finding *f)
{
	char b[32];

	if (p->req > 0)
		rl_fig(f, "requested_bytes", p->req);
	rl_advice(f, "The memory that ran out%s%s%s was the host's (RAM), not a GPU's: the"
		  " loader reads each checkpoint shard through host memory before it reaches"
		  " the card, each process its own copy. Give the process more RAM (the host,"
		  " or the container's or cgroup's memory limit; an address-space limit,"
		  " ulimit -v, refuses the shard's memory map), add swap, load with fewer"
		  " processes on one host (tensor-parallel ranks, workers), or load lazily"
		  " (transformers: low_cpu_mem_usage=True or a device_map).",
		  p->req > 0 ? " (" : "", p->req > 0 ? rl_bytes(p->req, b, sizeof(b)) : "",
		  p->req > 0 ? ")" : "");
	if (!strcmp(stack, "vllm") || !strcmp(stack, "sglang"))
		rl_advice(f, "%s reads safetensors shards by memory-mapping each whole file"
			  " (safetensors_weights_iterator); its --load-format picks another"
			  " loader.", !strcmp(stack, "vllm") ? "vLLM" : "SGLang");
	return "weights_do_not_fit";
}
