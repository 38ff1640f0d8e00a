lmdeploy serve api_server /root/hf_model/Qwen/Qwen3-32B \
    --model-name Qwen3-32B--backend turbomind --server-port 8000 --tool-call-parser qwen \
    --log-level INFO \
    --enable-prefix-caching \
    --tp 4 --session-len 32000 --cache-max-entry-count 0.7
