vllm serve meta-llama/Llama-3.2-11B-Vision-Instruct --chat-template /workspace/llama_process/chat_template.jinja --max-model-len 1024
