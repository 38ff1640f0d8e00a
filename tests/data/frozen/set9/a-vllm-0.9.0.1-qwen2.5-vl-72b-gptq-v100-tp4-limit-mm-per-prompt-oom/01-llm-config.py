 llm = LLM(
        model=MODEL_PATH,
        tokenizer=MODEL_PATH,
        limit_mm_per_prompt={"image": 10, "video": 1}, 
        dtype="float16",
        gpu_memory_utilization=0.9,
        quantization="gptq",  # awq, gptq
        tensor_parallel_size=4,
        max_model_len=4096*2,  #4096*2
        kv_cache_dtype="fp8_e5m2",
        # max_num_batched_tokens=8192,  # 扩大序列池
        # enforce_eager=True,           # V100需禁用算子融合
        trust_remote_code=True
    )
