export ASCEND_RT_VISIBLE_DEVICES=0,1
export VLLM_DP_SIZE=2
export VLLM_DP_RANK=0
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True

vllm serve /root/autodl-tmp/model/ZhipuAI/GLM-4-32B-0414 \
  -tp 2\
  --trust-remote-code \
  --dtype bfloat16 \
  --max-model-len 1024 \
  --swap-space 16 \
  --gpu-memory-utilization 0.6 \
  --served-model-name "glm4" \
  --host 0.0.0.0 \
  --port 8001
