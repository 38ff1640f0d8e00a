CUDA_VISIBLE_DEVICES=0,1,2,3
vllm serve /root/Qwen/Qwen3-30B-A3B
--tensor-parallel-size 4
--max-model-len 8192
--gpu-memory-utilization 0.7
--host 0.0.0.0
--port 8081
//--enable-reasoning --reasoning-parser deepseek_r1
--served-model-name Qwen3-30B-A3B-vllm
