llm = VLLM(
        model='meta-llama/Llama-2-70b-chat-hf,
        trust_remote_code=True, 
        max_new_tokens=512,
        top_k=10,
        top_p=0.95,
        temperature=0,
        dtype="float16",
        tensor_parallel_size=8,
        gpu_memory_utilization=1,
        disable_log_stats=True,
        enforce_eager=True,
        max_model_len=1024
)

