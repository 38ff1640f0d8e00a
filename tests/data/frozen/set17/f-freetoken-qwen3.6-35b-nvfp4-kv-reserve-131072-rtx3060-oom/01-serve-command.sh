ft serve --model nvidia/Qwen3.6-35B-A3B-NVFP4 --kv-reserve-tokens 131072
