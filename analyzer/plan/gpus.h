/*
 * gpus.h -- common cards by name with their memory as the driver reports
 * it to CUDA (torch.cuda.mem_get_info's total, what vLLM prints as
 * total_gpu_memory), not the marketing figure: an "80 GB" H100 is 79.2
 * GiB. MIG profiles are named CARD/PROFILE ("h100-80gb/3g.40gb") with the
 * memory nvidia-smi mig -lgip lists for the instance. AMD cards are
 * named as rocm-smi does ("mi300x", "mi250x" per GCD), with the total
 * torch.cuda.mem_get_info reports under ROCm.
 */
#ifndef OOMLENS_PLAN_GPUS_H
#define OOMLENS_PLAN_GPUS_H

#include <stdint.h>
#include <stdio.h>

struct pl_gpu {
	const char *name;     /* lower case: "h100-80gb", "a100-40gb/1g.5gb" */
	const char *aliases;  /* other names, space separated: "h100 h100-sxm" */
	int64_t mib;          /* memory as reported, MiB */
	const char *source;   /* where the figure was seen */
	int rocm;             /* AMD (ROCm): 1 Instinct, 2 Radeon; 0 otherwise */
};

/* The card named (case-insensitive, a name or an alias), or NULL. */
const struct pl_gpu *pl_gpu_find(const char *name);
/* Every card, one per line ("name  79.2 GiB  aliases"), on f. */
void pl_gpu_list(FILE *f);

#endif
