python -m vllm.entrypoints.openai.api_server --model lmsys/vicuna-7b-v1.3 --gpu-memory-utilization 0.98 --dtype half
