/*
 * phase_table_apps.h -- rows of phase_table.c's one table for the
 * programs around the engines: the desktop and workflow applications
 * (ComfyUI's model management and its custom loader nodes, LM Studio's
 * server) and the RL frameworks that start workers on Ray (verl, SkyRL).
 * Included inside phase_marks[] (phase_table.c), in the same F/L/W row
 * macros and with the same rule: each row names the source, at a tag or
 * an indexed copy, where the phrase is printed or called. Not a header
 * of its own: it has no guard and declares nothing.
 *
 * Round 7 (w-worldf), learnt on tests/data/real/any_stack's round-7 rows:
 *   - ComfyUI loads models per prompt (comfy/model_management.py
 *     load_models_gpu logs "Requested to load <class>", then
 *     "Loading N new model(s)"); the load ends in comfy/model_patcher.py
 *     ModelPatcher.load's "loaded completely ..." or "loaded partially
 *     ...", after which the node runs: the prompt is being served.
 *     ComfyUI #11331 (2025-12) failed in the second prompt's load.
 *   - ComfyUI-nunchaku's DiT loaders (nodes/models/flux.py
 *     NunchakuFluxDiTLoader, nodes/models/qwenimage.py
 *     NunchakuQwenImageDiTLoader, FUNCTION load_model), named as the
 *     failing node the way ComfyUI's own loaders are (phase_table.c).
 *   - verl's trainer starts each worker group with wg.init_model()
 *     (verl/trainer/ppo/ray_trainer.py init_workers: critic, ref, rm,
 *     actor_rollout), SkyRL its FSDP workers the same way
 *     (skyrl_train workers/fsdp/fsdp_worker.py init_model); Ray names
 *     the task "ray::<Worker>.init_model()" when it fails. The model's
 *     build and sharding run there; an engine's own frame inside it
 *     (vLLM's KV cache) decides first.
 *   - LM Studio's server (0.3.15-0.4.x) logs "Running chat completion
 *     on conversation with N messages." and "Streaming response..."
 *     when a request is taken (lmstudio-bug-tracker #597, #1504;
 *     obsidian-copilot #2045 quotes the same lines).
 */
	L("Requested to load ", LOAD_WEIGHTS, "comfyui", "2023-2026",
	  "comfy/model_management.py load_models_gpu (ComfyUI indexed copies)"),
	L("loaded completely", SERVING, "comfyui", "2024-2026",
	  "comfy/model_patcher.py ModelPatcher.load (ComfyUI indexed copies)"),
	L("loaded partially", SERVING, "comfyui", "2024-2026",
	  "comfy/model_patcher.py ModelPatcher.load (ComfyUI indexed copies)"),
	W("DiTLoader", LOAD_WEIGHTS, "comfyui-nunchaku", "2025-2026",
	  "nunchaku-tech/ComfyUI-nunchaku nodes/models/flux.py, qwenimage.py (indexed copies)"),
	F("init_model()", LOAD_WEIGHTS, "verl, skyrl", "2025-2026",
	  "volcengine/verl verl/trainer/ppo/ray_trainer.py init_workers; NovaSky-AI/SkyRL fsdp_worker.py (indexed copies)"),
	L("Running chat completion on conversation", SERVING, "lmstudio", "0.3.15-0.4.x",
	  THREAD),
	L("Streaming response...", SERVING, "lmstudio", "0.3.15-0.4.x", THREAD),
	/* set 6 spent (w-spent6c): a request's own lines, read in each
	 * program's source.
	 *   - KoboldCpp prints "Processing Prompt[ [BLAS]] (n / N tokens)" in
	 *     its generation loop while it evaluates a request's prompt, and
	 *     "Generating (n / N tokens)" after (gpttype_adapter.cpp
	 *     gpttype_generate, LostRuins/koboldcpp@0027a47): a failure
	 *     there is a request's.
	 *   - vllm-omni's AsyncOmni logs "[AsyncOmni] Orchestrator error for
	 *     req=<id> stage-<n>: <error>" when a request's queue receives an
	 *     error (vllm_omni/entrypoints/async_omni.py
	 *     _process_orchestrator_results, indexed copies 2025-2026): the
	 *     failure above it was a request's. */
	L("Processing Prompt", SERVING, "koboldcpp", "1.x",
	  "LostRuins/koboldcpp@0027a47 gpttype_adapter.cpp gpttype_generate"),
	A("Orchestrator error for req=", SERVING, "vllm-omni", "2025-2026",
	  "vllm_omni/entrypoints/async_omni.py _process_orchestrator_results (indexed copies)"),
