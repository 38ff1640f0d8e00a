rapid-mlx serve qwen3.6-35b-dwq --host 127.0.0.1 --port 18080 \
  --served-model-name lavinia-brain --enable-prefix-cache \
  --prefix-cache-index radix --pflash auto --pflash-threshold 90000 \
  --gpu-memory-utilization 0.80 --cache-memory-percent 0.10 \
  --max-num-seqs 8 --default-temperature 0.4 --default-top-p 0.8 \
  --default-top-k 20 --default-min-p 0.03 --log-level INFO
