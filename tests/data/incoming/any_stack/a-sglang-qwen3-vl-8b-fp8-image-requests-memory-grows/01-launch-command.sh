python -m sglang.launch_server \
  --model-path Qwen/Qwen3-VL-8B-Instruct-FP8 \
  --tp-size 1 \
  --mem-fraction-static 0.7 \
  --context-length 8192 \
  --max-running-requests 128 \
  --host 0.0.0.0 \
  --port 7860 \
  --enable-metrics
