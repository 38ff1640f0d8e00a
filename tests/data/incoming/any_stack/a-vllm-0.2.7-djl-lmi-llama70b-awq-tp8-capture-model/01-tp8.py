llm = LLM(model="TheBloke/Llama-2-70B-AWQ, quantization='awq', dtype='half', tensor_parallel_size=8)
