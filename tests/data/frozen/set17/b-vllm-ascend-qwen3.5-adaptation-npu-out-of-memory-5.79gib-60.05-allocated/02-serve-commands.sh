vllm serve /root/.cache/modelscope/hub/models/Qwen/Qwen3___5-4B \
-tp 2 \
--reasoning-parser qwen3 \
--max_model_len 4096 \
--language-model-only \
--enforce-eager \
--gpu-memory-utilization 0.5

vllm serve /root/.cache/modelscope/hub/models/Qwen/Qwen3___5-4B \
-tp 2 \
--reasoning-parser qwen3 \
--max_model_len 4096 \
--mm-encoder-tp-mode data \
--mm-processor-cache-type shm \
--enforce-eager \
--gpu-memory-utilization 0.5
