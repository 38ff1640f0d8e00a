/*
 * weights.c -- the parameter count of a decoder model from its
 * dimensions, and the bytes one GPU holds under tensor and pipeline
 * parallelism and a quantisation. Counted per part: embeddings (split by
 * vocabulary across TP ranks), attention (MHA/GQA/MQA with KV heads
 * replicated when fewer than the ranks; MLA as DeepSeek-V2/V3 build it),
 * the dense MLP, routed and shared experts with their router, the norms,
 * and the LM head unless tied. Quantisation applies to the linear layers
 * of attention and the MLP/experts only; embeddings, head, norms and
 * routers stay in 16 bits, as the engines load them (GGUF aside: its
 * bits per weight are the whole file's, embeddings included). The bytes
 * per quantised weight, scales and zeros included, are quant.c's.
 * docs/plan.md says
 * where this is approximate (linear-attention and SSM layers are counted
 * as attention layers). A vision tower (config.c's vision_params) is
 * counted in 16 bits on the first stage, split over the TP ranks: the
 * engines shard its linear layers and leave it unquantised.
 */
#include "analyzer/plan/plan.h"

#include <math.h>

/* Parameters of one layer, split into what is quantised (attn: the
 * attention linears; lin: the dense MLP and shared experts; experts: the
 * routed experts) and what is not (other), on one of tp ranks. moe: the
 * layer's MLP is experts. */
static void layer_params(const struct pl_arch *a, int tp, int moe, double *attn, double *lin,
			 double *other, double *experts)
{
	double H = a->hidden, hd = a->head_dim, nh = a->heads;
	double kvr = pl_kv_heads_per_rank(a, tp);
	double l = 0, o = 0, e = 0;

	if (a->mla) {
		double qk = a->qk_nope_head_dim + a->qk_rope_head_dim;
		if (a->q_lora_rank) {
			l += H * a->q_lora_rank + (double)a->q_lora_rank * nh * qk / tp;
			o += a->q_lora_rank;
		} else {
			l += H * nh * qk / tp;
		}
		l += H * (a->kv_lora_rank + a->qk_rope_head_dim);          /* kv_a, replicated */
		o += a->kv_lora_rank;
		l += (double)a->kv_lora_rank * nh * (a->qk_nope_head_dim + a->v_head_dim) / tp;
		l += nh * a->v_head_dim * H / tp;
	} else {
		l += H * nh * hd / tp + 2.0 * H * kvr * hd + nh * hd * H / tp;
		if (a->qkv_bias)
			o += nh * hd / tp + 2.0 * kvr * hd;
		if (a->qk_norm)
			o += 2.0 * hd;
	}
	*attn = l;
	l = 0;
	if (moe) {
		e += (double)a->experts * 3.0 * H * a->moe_intermediate / tp;
		o += H * a->experts;                                       /* router */
		if (a->shared_experts)
			l += a->shared_experts * 3.0 * H * a->moe_intermediate / tp;
		if (a->shared_intermediate) {
			l += 3.0 * H * a->shared_intermediate / tp;
			o += H;                                            /* shared gate */
		}
	} else {
		l += (a->gated ? 3.0 : 2.0) * H * a->intermediate / tp;
	}
	o += 2.0 * H;                                                      /* two norms */
	*lin = l;
	*other = o;
	*experts = e;
}

/* Is layer i an expert layer? */
static int is_moe(const struct pl_arch *a, int i)
{
	return a->experts > 0 && i >= a->first_dense && (i + 1) % a->moe_every == 0;
}

double pl_param_count(const struct pl_arch *a)
{
	double at, lin, other, e, n = 0;
	int i;

	for (i = 0; i < a->layers; i++) {
		layer_params(a, 1, is_moe(a, i), &at, &lin, &other, &e);
		n += at + lin + other + e;
	}
	n += (double)a->vocab * a->hidden * (a->tie ? 1 : 2) + a->hidden;
	return n + a->vision_params;
}

/* The copies vLLM V0's MLA backends of 0.7.x keep per layer beside the
 * checkpoint's weights (MLACommonImpl.process_weights_after_loading with
 * VLLM_MLA_PERFORM_MATRIX_ABSORPTION, the default then): W_QR (q input x
 * heads x rope dim) in 16 bits, W_Q_UK (q input x heads x kv_lora_rank)
 * and W_UV_O (heads x kv_lora_rank x hidden) in 16 bits, or FP8 with
 * their scales when the checkpoint is FP8; and, for a quantised
 * checkpoint, kv_b_proj dequantised to 16 bits (W_UK and W_UV are views
 * of it). Bytes on one of tp ranks. */
static double mla_absorbed_bytes(const struct pl_arch *a, int tp, enum pl_quant q, int dtype_bytes)
{
	double nh = (double)a->heads / tp, qin = a->q_lora_rank ? a->q_lora_rank : a->hidden;
	double big = qin * nh * a->kv_lora_rank + nh * a->kv_lora_rank * a->hidden;
	double b = qin * nh * a->qk_rope_head_dim * dtype_bytes;

	b += big * (q == PL_Q_FP8 ? pl_quant_bytes(a, q, dtype_bytes) : dtype_bytes);
	if (q != PL_Q_NONE)
		b += (double)a->kv_lora_rank * nh * (a->qk_nope_head_dim + a->v_head_dim) *
		     dtype_bytes;
	return b;
}

/* n rounded up to a multiple of m (m >= 1). */
static double round_up(double n, int m)
{
	return m > 1 ? ceil(n / m) * m : n;
}

int64_t pl_stage_weights_bytes(const struct pl_arch *a, int tp, int first, int n, enum pl_quant q,
				int dtype_bytes, int pad_i, int pad_h, int embed, int head)
{
	double at, lin, other, e, bytes = 0, qb = pl_quant_bytes(a, q, dtype_bytes), eb, epad = 1;
	int i;

	if (tp < 1)
		tp = 1;
	/* MXFP4 (gpt-oss) quantises the experts only: 4 bits + an 8-bit scale
	 * per 32, over dimensions the kernels pad */
	eb = q == PL_Q_MXFP4 ? 0.5 + 1.0 / 32 : qb;
	if (q == PL_Q_MXFP4) {
		double ip = (double)a->moe_intermediate / tp;
		qb = dtype_bytes;
		if (ip > 0 && a->hidden > 0)
			epad = round_up(ip, pad_i) / ip * round_up(a->hidden, pad_h) / a->hidden;
	}
	for (i = first; i < first + n && i < a->layers; i++) {
		layer_params(a, tp, is_moe(a, i), &at, &lin, &other, &e);
		/* modules_to_not_convert: those stay in 16 bits */
		bytes += at * (PL_KEEP(a->keep_attn, i) ? dtype_bytes : qb);
		if (PL_KEEP(a->keep_mlp, i))
			bytes += (lin + e) * dtype_bytes;
		else
			bytes += lin * qb + e * eb * epad;
		bytes += other * dtype_bytes;
		if (a->mla && a->mla_absorbed)
			bytes += mla_absorbed_bytes(a, tp, q, dtype_bytes);
	}
	/* the embedding on the first stage, the head on the last (one matrix
	 * when tied and both are here), split by vocabulary; the final norm.
	 * GGUF's bits per weight are the whole file's: embeddings included */
	eb = q == PL_Q_GGUF ? qb : dtype_bytes;
	if (embed)
		bytes += (double)a->vocab * a->hidden / tp * eb + a->vision_params / tp * dtype_bytes;
	if (head && !(embed && a->tie))
		bytes += (double)a->vocab * a->hidden / tp * eb;
	bytes += (double)a->hidden * dtype_bytes;
	return (int64_t)bytes;
}

int pl_pp_stage_layers(int layers, int pp, int rank)
{
	int base, rem;

	if (pp < 1)
		pp = 1;
	base = layers / pp;
	rem = layers % pp;
	/* vLLM's get_pp_indices: the remainder one each to the stages before
	 * the last, from the second-to-last backwards */
	return base + (rem && rank >= pp - 1 - rem && rank <= pp - 2);
}

int64_t pl_weights_bytes_padded(const struct pl_arch *a, int tp, int pp, enum pl_quant q,
				int dtype_bytes, int pad_i, int pad_h)
{
	if (pp < 1)
		pp = 1;
	/* one stage holds everything; with several, the first (the
	 * embedding and the most layers) is the one reported */
	return pl_stage_weights_bytes(a, tp, 0, pl_pp_stage_layers(a->layers, pp, 0), q, dtype_bytes,
				      pad_i, pad_h, 1, pp == 1);
}

int64_t pl_weights_bytes(const struct pl_arch *a, int tp, int pp, enum pl_quant q, int dtype_bytes)
{
	return pl_weights_bytes_padded(a, tp, pp, q, dtype_bytes, 1, 1);
}
