/*
 * kv.c -- KV cache bytes per token on one GPU. Standard attention (MHA,
 * GQA, MQA) keeps a key and a value of head_dim per KV head per layer,
 * the KV heads split across TP ranks and replicated when there are fewer
 * heads than ranks (vLLM's get_num_kv_heads); MLA (DeepSeek-V2/V3) keeps
 * one latent of kv_lora_rank + qk_rope_head_dim per layer, the same on
 * every rank (vLLM's MLAAttentionSpec, SGLang's MLATokenToKVPool). Only
 * the layers whose cache grows with the context count: full and sliding
 * window attention (a sliding layer grows up to its window, which
 * pool.c does not bound: the engines size their pool per token the same
 * way); linear-attention and SSM layers keep a fixed state per request
 * and are not counted. vLLM V0 lays MLA out its own way (pool.c picks
 * by version): before 0.7.1 DeepSeek-V2/V3 ran as MHA, every head's K and
 * V padded to 256 (deepseek_v2.py pads q, k and v to 256 and builds its
 * Attention with head size 256); from 0.7.1 the latent is cached but
 * CacheEngine pads each token's entry to 256 bytes of the model's dtype
 * on CUDA (align_to_256bytes, VLLM_CUDA_MEM_ALIGN_KV_CACHE): 576 values
 * take 640.
 */
#include "analyzer/plan/plan.h"

int pl_kv_heads_per_rank(const struct pl_arch *a, int tp)
{
	if (tp < 1)
		tp = 1;
	return a->kv_heads >= tp ? a->kv_heads / tp : 1;
}

int64_t pl_kv_bytes_per_token(const struct pl_arch *a, int tp, int pp, int kv_bytes)
{
	int64_t per_layer;
	int attn = a->n_full + a->n_swa;

	if (pp < 1)
		pp = 1;
	if (!attn && !a->n_linear)
		attn = a->layers;
	if (a->mla && a->mla_mha_head > 0) {
		int h = a->heads / (tp < 1 ? 1 : tp);
		per_layer = 2 * (int64_t)(h > 0 ? h : 1) * a->mla_mha_head * kv_bytes;
	} else if (a->mla) {
		int64_t e = a->kv_lora_rank + a->qk_rope_head_dim, m;
		m = a->kv_align_bytes > 0 && a->dtype_bytes > 0 ? a->kv_align_bytes / a->dtype_bytes : 0;
		if (m > 1)
			e = (e + m - 1) / m * m;
		per_layer = e * kv_bytes;
	} else
		per_layer = 2 * (int64_t)pl_kv_heads_per_rank(a, tp) * a->head_dim * kv_bytes;
	return per_layer * ((attn + pp - 1) / pp);
}
