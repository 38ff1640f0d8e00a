/*
 * labels.c -- finding figures for people: the words and unit a reader
 * sees for a figure's key ("cut_bytes" is "to free", "r2" is "fit (R²)"),
 * and the keys that are machinery, never shown (advice_value,
 * advice_knob). Every people format (text, Markdown, HTML) names a figure
 * through figure_label(); the JSON keeps the keys.
 *
 * A key not in the table is still shown as words: its unit suffix
 * (_bytes, _ns, _s, _ratio, _percent, _mb_per_hour) dropped and its
 * underscores made spaces, so no raw name reaches a reader.
 */
#include "reports/summary.h"
#include "lib/series_words.h"

#include <string.h>

static const char *const labels[][2] = {
	{ "slope_mb_per_hour", "growth rate" },
	{ "r2", "fit of the growth line (R²)" },
	{ "peak_over_baseline_ratio", "peak over baseline" },
	{ "headroom_bytes", "headroom" },
	{ "contexts_per_device", "CUDA contexts per card" },
	{ "largest_free_block_bytes", "largest free block" },
	{ "rise_top_bytes", "top of the rise" },
	{ "needed_bytes", "needed" },
	{ "fill_ratio", "share of the card filled" },
	{ "largest_other_bytes", "largest other process" },
	{ "non_pytorch_share", "share outside PyTorch" },
	{ "memcg_usage_bytes", "memory cgroup usage" },
	{ "memcg_limit_bytes", "memory cgroup limit" },
	{ "victim_rss_bytes", "killed process's resident memory" },
	{ "request_over_card_ratio", "request over card" },
	{ "cut_bytes", "to free" },
	{ "would_hold_request", "would then hold the failed request" },
	{ "total_bytes", "card size" },
	{ "requested_bytes", "requested" },
	{ "request_bytes", "requested" },
	{ "allocated_bytes", "allocated by PyTorch" },
	{ "reserved_bytes", "reserved by PyTorch" },
	{ "reserved_unallocated_bytes", "reserved but unallocated" },
	{ "free_bytes", "free" },
	{ "free_at_start_bytes", "free at start-up" },
	{ "other_processes_bytes", "other processes" },
	{ "non_pytorch_bytes", "outside PyTorch" },
	{ "non_torch_bytes", "outside PyTorch" },
	{ "weights_bytes", "model weights" },
	{ "kv_cache_bytes", "KV cache" },
	{ "cuda_graph_bytes", "CUDA graphs" },
	{ "activation_peak_bytes", "activation peak" },
	{ "baseline_bytes", "baseline" },
	{ "per_request_bytes", "per request" },
	{ "safe_concurrency", "safe concurrency" },
	{ "running_peak", "most requests running" },
	{ "running_at_oom", "requests running at the OOM" },
	{ "running_before", "requests running before" },
	{ "waiting_peak", "most requests waiting" },
	{ "max_num_seqs", "max_num_seqs (setting)" },
	{ "max_model_len", "max_model_len (setting)" },
	{ "gpu_memory_utilization", "gpu_memory_utilization (setting)" },
	{ "suggested_gpu_memory_utilization", "suggested gpu_memory_utilization" },
	{ "suggested_card_bytes", "card size that would fit" },
	{ "suggested_limit_bytes", "limit that would fit" },
	{ "suggested_ram_bytes", "RAM that would fit" },
	{ "suggested_request_bytes", "memory request that would fit" },
	{ "tensor_parallel_size", "tensor parallel size" },
	{ "limit_bytes", "limit" },
	{ "usage_bytes", "usage" },
	{ "victim_pid", "killed process id" },
	{ "victim_oom_score_adj", "killed process's oom_score_adj" },
	{ "chosen_pid", "process the kernel chose (its child was killed)" },
	{ "chosen_rss_bytes", "chosen process's resident memory" },
	{ "chosen_oom_score_adj", "chosen process's oom_score_adj" },
	{ "memsw_usage_bytes", "memory+swap usage (cgroup v1)" },
	{ "memsw_limit_bytes", "memory+swap limit (cgroup v1)" },
	{ "memsw_failcnt", "memory+swap failcnt (cgroup v1)" },
	{ "largest_rss_bytes", "largest resident process" },
	{ "largest_pid", "largest process id" },
	{ "fragmentation_ratio", "reserved over allocated" },
	{ "shortfall_bytes", "shortfall" },
	{ "over_bytes", "over by" },
	{ "room_bytes", "room left" },
	{ "kv_usage_peak", "KV-cache usage at its peak" },
	{ "kv_usage_before", "KV-cache usage before" },
	{ "kv_cache_tokens", "KV-cache tokens" },
	{ "kv_bytes_per_token", "KV cache per token" },
	{ "growth_bytes", "growth" },
	{ "growth_times", "growth, times the first figure" },
	{ "first_figure_unit_not_stated", "first figure (unit not stated)" },
	{ "last_figure_unit_not_stated", "last figure (unit not stated)" },
	{ "span_hours", "time span (hours)" },
	{ "requests_served", "requests served" },
	{ "retained_fraction", "share retained" },
	{ "num_ooms", "OOMs counted" },
	{ "oom_kills", "OOM kills" },
	{ "outside_bytes", "outside the processes listed" },
	{ "outside_share", "share outside the processes listed" },
	{ "budget_bytes", "engine's budget" },
	{ "startup_peak_bytes", "start-up peak" },
	{ "torch_peak_bytes", "PyTorch's peak" },
	{ "live_bytes", "live" },
	{ "retracted_requests", "requests retracted" },
	{ "mps_allocated_bytes", "MPS allocated (live tensors)" },
	{ "mps_other_allocations_bytes", "MPS other allocations" },
	{ "mps_max_allowed_bytes", "MPS max allowed (the cap)" },
	{ "mps_recommended_working_set_bytes", "recommended working set (at ratio 1.7)" },
	{ "retract_events", "retractions" },
	{ "new_token_ratio_set", "new_token_ratio it set (admits fewer)" },
	{ "projected_bytes", "projected use (the engine's start-up estimate)" },
	{ "projected_ram_bytes", "the machine's RAM (as the engine saw it)" },
	{ "projected_share", "projected share of the RAM (the engine's)" },
	{ "try_knobs", "knobs to try first (not a finding)" },
	/* what a launch paste states (analyzer/rules/launch.c), told apart
	 * from what the engine's log says */
	{ "launched_gpu_memory_utilization", "gpu_memory_utilization (as launched)" },
	{ "launched_max_num_seqs", "max_num_seqs (as launched)" },
	{ "launched_max_num_batched_tokens", "max_num_batched_tokens (as launched)" },
	{ "launched_max_model_len", "max_model_len (as launched)" },
	{ "launched_gpu_layers", "GPU layers (as launched)" },
	{ "default_gpu_memory_utilization", "gpu_memory_utilization (the engine's default, inferred)" },
	{ "budget_bytes", "engine's budget" },
	{ "outside_pool_bytes", "outside the engine's pool" },
	/* a llama.cpp/Ollama plan's room (analyzer/rules/offload.c): every
	 * one computed from the engine's printed estimate */
	{ "gpu_room_bytes", "room on the GPU (the engine's free figure, else the card's size)" },
	{ "plan_layer_bytes", "a layer, weights and KV (inferred from the estimate)" },
	{ "plan_planned_bytes", "planned on the GPU" },
	{ "plan_headroom_bytes", "left beside the plan (inferred)" },
	{ "plan_reserve_bytes", "to keep free beside the plan" },
	{ "plan_gpu_layers_fit", "GPU layers that fit (inferred)" },
};

/* Keys that are machinery for the critic and the what-if, never shown. */
static const char *const hidden[] = { "advice_value", "advice_knob", "stack_id",
				      "process_unseen", "reserve_unstated", NULL };

static const char *const suffixes[] = {
	"_mb_per_hour", "_bytes", "_ns", "_seconds", "_s", "_ratio", "_percent",
	"_fraction", NULL
};

const char *series_label(const char *name, const char *entity, char *buf, size_t n)
{
	return series_words(name, entity, buf, n);
}

int figure_hidden(const char *key)
{
	int i;

	for (i = 0; hidden[i]; i++)
		if (!strcmp(key, hidden[i]))
			return 1;
	return 0;
}

void figure_label(struct strbuf *out, const char *key)
{
	size_t i, n = strlen(key), k;

	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i][0], key)) {
			strbuf_addstr(out, labels[i][1]);
			return;
		}
	for (i = 0; suffixes[i]; i++) {
		k = strlen(suffixes[i]);
		if (n > k && !strcmp(key + n - k, suffixes[i])) {
			n -= k;
			break;
		}
	}
	for (i = 0; i < n; i++)
		strbuf_addch(out, key[i] == '_' || key[i] == '.' ? ' ' : key[i]);
}
