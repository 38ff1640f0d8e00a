llama-server \
  -m gemma-4-31B-it-UD-Q4_K_XL.gguf \
  --mmproj gemma-4-31b-it-mmproj.gguf \
  -c 4096 -ngl 999 --flash-attn on \
  --cache-type-k turbo3 --cache-type-v turbo3 \
  --ctx-checkpoints 0 --cache-ram 0
