rapid-mlx serve unsloth/Qwen3.6-35B-A3B-UD-MLX-4bit \
  --host 127.0.0.1 --port 8002 --served-model-name weave-classifier \
  --enable-prefix-cache --cache-memory-mb 40000 --max-num-seqs 4 --reasoning
