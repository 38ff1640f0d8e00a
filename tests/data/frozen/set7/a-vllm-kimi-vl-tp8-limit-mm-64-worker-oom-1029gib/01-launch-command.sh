vllm serve /root/model/kimi --served-model-name kimi-vl-thinking-2506 --trust-remote-code --tensor-parallel-size 8 --max-num-batched-tokens 32768 --max-model-len 32768 --limit-mm-per-prompt image=64
