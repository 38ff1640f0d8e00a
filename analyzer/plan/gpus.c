/*
 * gpus.c -- the card table of gpus.h. Each figure is the total CUDA
 * reports for the card (cudaMemGetInfo's total: what torch.cuda.
 * mem_get_info returns, what vLLM prints as total_gpu_memory and PyTorch's
 * OOM message as "total capacity"), in MiB. It is nvidia-smi's memory
 * total less what the driver keeps, which varies by card and driver
 * (265 MiB on a T4, 438 on an H100, 475 on an L4, 510 on an A10G, 870 on
 * an A100-80GB among the pairs seen), so nvidia-smi's figure is never
 * converted by a fixed rule: each entry's source says where its total
 * was seen (an engine's log, a PyTorch OOM message), and the few seen
 * only in nvidia-smi (or the vendor's spec, as nvidia-smi prints it) say
 * so and take off the 470 MiB typical of the cards seen. AMD entries from
 * the vendor's spec take off the 0.02 GiB ROCm keeps on the cards seen. MIG instances from nvidia-smi mig -lgip as NVIDIA's MIG
 * user guide prints it. AMD cards carry rocm = 1 (Instinct) or 2
 * (Radeon) (pool.c: vLLM's ROCm rules).
 */
#include "analyzer/plan/gpus.h"

#include <string.h>
#include <strings.h>

#define GIB_MIB(g) ((int64_t)((g) * 1024.0 + 0.5))

static const struct pl_gpu gpus[] = {
	{ "h100-80gb", "h100 h100-sxm h100-pcie h800", GIB_MIB(79.22),
	  "vLLM total_gpu_memory 79.22GiB (vllm-project/vllm#10511)", 0 },
	{ "h100-94gb", "h100-nvl", GIB_MIB(93.1), "nvidia-smi 95830MiB less 470 MiB; not seen in a log", 0 },
	{ "h20", "h20-96gb", GIB_MIB(95.00), "vLLM total_gpu_memory 95.00GiB (LMCache/LMCache#503)", 0 },
	{ "h200", "h200-141gb h200-sxm", GIB_MIB(139.8), "vLLM 'Total memory 139.8 GiB' (vllm-project/vllm-omni#1842)", 0 },
	{ "gh200", "gh200-96gb", GIB_MIB(94.5), "nvidia-smi 97871MiB; 94.5 GiB not seen in a log", 0 },
	{ "b200", "b200-180gb", GIB_MIB(178.35), "nvidia-smi 183359MiB; 178.35 GiB not seen in a log", 0 },
	{ "a100-80gb", "a100-sxm4-80gb a100-pcie-80gb", GIB_MIB(79.15), "torch total 79.15 GiB", 0 },
	{ "a100-40gb", "a100 a100-sxm4-40gb a100-pcie-40gb", GIB_MIB(39.39),
	  "TensorRT-LLM total 39.39 GiB (NVIDIA/TensorRT-LLM#2268)", 0 },
	{ "l40s", "l40s-48gb", GIB_MIB(44.53), "vLLM total_gpu_memory 44.53GiB (vllm-project/vllm#15598)", 0 },
	{ "l40", "l40-48gb", GIB_MIB(44.53), "as L40S (same 46068MiB)", 0 },
	{ "a6000", "rtx-a6000", GIB_MIB(47.53),
	  "PyTorch OOM 'total capacity of 47.53 GiB' (47.54 on 2xA6000 runs); nvidia-smi 49140MiB", 0 },
	{ "rtx6000-ada", "rtx-6000-ada", GIB_MIB(47.50), "nvidia-smi 49140MiB less 500 MiB; not seen in a log", 0 },
	{ "a10g", "a10", GIB_MIB(21.99),
	  "PyTorch OOM 'total capacity of 21.99 GiB' (SageMaker g5, DJL serving); nvidia-smi "
	  "23028MiB (22.49 GiB) less 510 MiB; newer drivers report up to 22.06", 0 },
	{ "l4", "l4-24gb", GIB_MIB(22.03),
	  "PyTorch OOM on an L4 'total capacity of 22.03 GiB' ('22.03 GiB visible to PyTorch'); "
	  "nvidia-smi 23034MiB (22.49 GiB) less 475 MiB", 0 },
	{ "t4", "t4-16gb", GIB_MIB(14.74),
	  "PyTorch OOM on Colab T4s 'total capacity of 14.74 GiB' (14.75 in older messages); "
	  "nvidia-smi 15360MiB less 265 MiB", 0 },
	{ "v100-16gb", "v100", GIB_MIB(15.77), "vLLM total_gpu_memory 15.77GiB (vllm-project/vllm#11251)", 0 },
	{ "v100-32gb", "", GIB_MIB(31.74), "PyTorch OOM '31.74 GiB total capacity'", 0 },
	{ "rtx3060", "3060 rtx-3060 rtx3060-12gb", 12288 - 470,
	  "vendor spec RTX 3060 12 GB: nvidia-smi 12288MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx3070", "3070 rtx-3070", 8192 - 470,
	  "vendor spec RTX 3070 8 GB: nvidia-smi 8192MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx3080", "3080 rtx-3080", 10240 - 470,
	  "vendor spec RTX 3080 10 GB: nvidia-smi 10240MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx3080-12gb", "rtx-3080-12gb", 12288 - 470,
	  "vendor spec RTX 3080 12 GB: nvidia-smi 12288MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx4060", "4060 rtx-4060", 8188 - 470,
	  "vendor spec RTX 4060 8 GB: nvidia-smi 8188MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx4060ti", "4060ti rtx-4060-ti rtx4060ti-16gb", 16380 - 470,
	  "vendor spec RTX 4060 Ti 16 GB: nvidia-smi 16380MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx4060ti-8gb", "rtx-4060-ti-8gb", 8188 - 470,
	  "vendor spec RTX 4060 Ti 8 GB: nvidia-smi 8188MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx4070", "4070 rtx-4070 rtx4070-super rtx-4070-super", 12282 - 470,
	  "vendor spec RTX 4070 / 4070 SUPER 12 GB: nvidia-smi 12282MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx4070ti", "4070ti rtx-4070-ti", 12282 - 470,
	  "vendor spec RTX 4070 Ti 12 GB: nvidia-smi 12282MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx4080", "4080 rtx-4080 rtx4080-super rtx-4080-super rtx4070ti-super", 16376 - 470,
	  "vendor spec RTX 4080 / 4080 SUPER / 4070 Ti SUPER 16 GB: nvidia-smi 16376MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx-a2000", "a2000 rtx-a2000-12gb", 12282 - 470,
	  "vendor spec RTX A2000 12 GB: nvidia-smi 12282MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx-a4000", "a4000", 16376 - 470,
	  "vendor spec RTX A4000 16 GB: nvidia-smi 16376MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx-a4500", "a4500", 20470 - 470,
	  "vendor spec RTX A4500 20 GB: nvidia-smi 20470MiB less 470 MiB; not seen in a log", 0 },
	{ "rtx-a5000", "a5000", 24564 - 470,
	  "vendor spec RTX A5000 24 GB: nvidia-smi 24564MiB less 470 MiB; not seen in a log", 0 },
	{ "a30", "a30-24gb", 24576 - 470,
	  "vendor spec A30 24 GB: nvidia-smi 24576MiB less 470 MiB; not seen in a log", 0 },
	{ "l20", "l20-48gb", GIB_MIB(44.53), "as L40S (same 46068MiB in nvidia-smi); not seen in a log", 0 },
	{ "a40", "a40-48gb", GIB_MIB(44.53), "as L40S (same 46068MiB in nvidia-smi); not seen in a log", 0 },
	{ "rtx3090", "3090 rtx-3090", GIB_MIB(23.58), "vLLM total_gpu_memory 23.58GiB (vllm-project/vllm#10517)", 0 },
	{ "rtx4090", "4090 rtx-4090", GIB_MIB(23.55), "vLLM total_gpu_memory 23.55GiB (vllm-project/vllm#11550)", 0 },
	{ "rtx5090", "5090 rtx-5090", GIB_MIB(31.37), "vLLM total_gpu_memory 31.37GiB (vllm-project/vllm#14452)", 0 },
	/* AMD (ROCm): the total torch.cuda.mem_get_info reports, which vLLM
	 * prints as total_gpu_memory and SGLang's "avail mem" approaches */
	{ "mi300x", "mi300x-192gb mi308x", GIB_MIB(191.45),
	  "vLLM ROCm total_gpu_memory (191.45GiB), Azure ND MI300X "
	  "(xinyuwei-david/david-share@5e9a16d Deep-Learning/AMD-GPU-SFT-Inference/readme.md)", 1 },
	{ "mi325x", "", GIB_MIB(255.98), "256 GiB HBM3E; not seen in a log (the MI355X's reservation)", 1 },
	{ "mi355x", "mi350x", GIB_MIB(287.98),
	  "SGLang avail mem 230.20 + mem usage 56.98 GB before the pool, with the context "
	  "(sgl-project/sglang#18263)", 1 },
	{ "mi250x", "mi250 mi250x-gcd mi250-gcd", GIB_MIB(63.98),
	  "per GCD: 64 GiB HBM2e, each GCD a device; not seen in a log", 1 },
	{ "mi210", "", GIB_MIB(63.98), "64 GiB HBM2e; not seen in a log", 1 },
	{ "w7900", "radeon-pro-w7900", GIB_MIB(47.98), "48 GiB GDDR6; not seen in a log", 2 },
	{ "rx7900xtx", "7900xtx rx-7900-xtx", GIB_MIB(23.98),
	  "vLLM ROCm total_gpu_memory (23.98GiB), a 24 GiB gfx1100 card "
	  "(ServerlessLLM/ServerlessLLM@5cc10d3 docs/store/rocm_quickstart.md)", 2 },
	{ "mi50", "mi50-16gb", GIB_MIB(15.98),
	  "vendor spec 16 GiB HBM2 less 0.02 GiB as ROCm reports it (the RX 7900 XTX's 23.98, the MI355X's 287.98); not seen in a log", 1 },
	{ "mi50-32gb", "", GIB_MIB(31.98),
	  "vendor spec 32 GiB HBM2 less 0.02 GiB as ROCm reports it (the RX 7900 XTX's 23.98, the MI355X's 287.98); not seen in a log", 1 },
	{ "mi60", "", GIB_MIB(31.98),
	  "vendor spec 32 GiB HBM2 less 0.02 GiB as ROCm reports it (the RX 7900 XTX's 23.98, the MI355X's 287.98); not seen in a log", 1 },
	{ "mi100", "", GIB_MIB(31.98),
	  "vendor spec 32 GiB HBM2 less 0.02 GiB as ROCm reports it (the RX 7900 XTX's 23.98, the MI355X's 287.98); not seen in a log", 1 },
	{ "radeon-vii", "radeonvii", GIB_MIB(15.98),
	  "vendor spec 16 GiB HBM2 less 0.02 GiB as ROCm reports it (the RX 7900 XTX's 23.98, the MI355X's 287.98); not seen in a log", 2 },
	{ "rx6800", "rx-6800 6800 rx6800xt rx-6800-xt", GIB_MIB(15.98),
	  "vendor spec 16 GiB GDDR6 less 0.02 GiB as ROCm reports it (the RX 7900 XTX's 23.98, the MI355X's 287.98); not seen in a log", 2 },
	/* MIG instances (nvidia-smi mig -lgip) */
	{ "a100-40gb/1g.5gb", "", GIB_MIB(4.75), "nvidia-smi mig -lgip", 0 },
	{ "a100-40gb/2g.10gb", "", GIB_MIB(9.75), "nvidia-smi mig -lgip", 0 },
	{ "a100-40gb/3g.20gb", "", GIB_MIB(19.62), "nvidia-smi mig -lgip", 0 },
	{ "a100-40gb/4g.20gb", "", GIB_MIB(19.62), "nvidia-smi mig -lgip", 0 },
	{ "a100-40gb/7g.40gb", "", GIB_MIB(39.25), "nvidia-smi mig -lgip", 0 },
	{ "a100-80gb/1g.10gb", "", GIB_MIB(9.50), "nvidia-smi mig -lgip", 0 },
	{ "a100-80gb/2g.20gb", "", GIB_MIB(19.50), "nvidia-smi mig -lgip", 0 },
	{ "a100-80gb/3g.40gb", "", GIB_MIB(39.25), "nvidia-smi mig -lgip", 0 },
	{ "a100-80gb/4g.40gb", "", GIB_MIB(39.25), "nvidia-smi mig -lgip", 0 },
	{ "a100-80gb/7g.80gb", "", GIB_MIB(78.75), "nvidia-smi mig -lgip", 0 },
	{ "h100-80gb/1g.10gb", "", GIB_MIB(9.75), "nvidia-smi mig -lgip", 0 },
	{ "h100-80gb/1g.20gb", "", GIB_MIB(19.62), "nvidia-smi mig -lgip", 0 },
	{ "h100-80gb/2g.20gb", "", GIB_MIB(19.62), "nvidia-smi mig -lgip", 0 },
	{ "h100-80gb/3g.40gb", "", GIB_MIB(39.50), "nvidia-smi mig -lgip", 0 },
	{ "h100-80gb/4g.40gb", "", GIB_MIB(39.50), "nvidia-smi mig -lgip", 0 },
	{ "h100-80gb/7g.80gb", "", GIB_MIB(79.00), "nvidia-smi mig -lgip", 0 },
	{ NULL, NULL, 0, NULL, 0 }
};

/* Does the space-separated list hold word (case-insensitive)? */
static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, " ");
		if (k == n && !strncasecmp(p, word, n))
			return 1;
		p += k;
		p += strspn(p, " ");
	}
	return 0;
}

const struct pl_gpu *pl_gpu_find(const char *name)
{
	const struct pl_gpu *g;

	for (g = gpus; g->name; g++)
		if (!strcasecmp(g->name, name) || in_list(g->aliases, name))
			return g;
	return NULL;
}

void pl_gpu_list(FILE *f)
{
	const struct pl_gpu *g;

	for (g = gpus; g->name; g++)
		fprintf(f, "  %-20s %7.2f GiB  %s\n", g->name, g->mib / 1024.0, g->aliases);
}
