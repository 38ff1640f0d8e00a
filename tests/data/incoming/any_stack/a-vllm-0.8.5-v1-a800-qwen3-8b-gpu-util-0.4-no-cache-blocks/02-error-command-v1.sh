/home/python_vllm_env_085/bin/python -m vllm.entrypoints.openai.api_server     --model /root/yjpzmodel/basemodel/Qwen3-8B     --served-model-name Qwen3-8B --gpu-memory-utilization 0.4 --port 8001
