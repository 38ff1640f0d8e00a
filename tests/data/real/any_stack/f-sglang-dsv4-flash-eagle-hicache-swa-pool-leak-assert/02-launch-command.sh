SGLANG_ENABLE_UNIFIED_RADIX_TREE=1 SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_BUSY=1 \
sglang serve \
  --model-path deepseek-ai/DeepSeek-V4-Flash --trust-remote-code --tp 4 \
  --speculative-algo EAGLE --speculative-num-steps 1 \
  --speculative-eagle-topk 1 --speculative-num-draft-tokens 2 \
  --enable-hierarchical-cache --hicache-ratio 2 --hicache-size 0 \
  --hicache-write-policy write_through --hicache-io-backend direct \
  --hicache-mem-layout page_first_direct \
  --swa-full-tokens-ratio 0.3 --max-running-requests 100 \
  --chunked-prefill-size 4096 --mem-fraction-static 0.85
