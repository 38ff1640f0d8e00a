CUDA_VISIBLE_DEVICES=7 python -m vllm.entrypoints.openai.api_server     --model qwen/Qwen1.5-7B-Chat-GPTQ-Int4     --served-model-name qwen/Qwen1.5-7B-Chat-GPTQ-Int4     --quantization gptq
