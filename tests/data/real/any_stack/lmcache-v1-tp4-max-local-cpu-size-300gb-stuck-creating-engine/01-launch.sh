export LMCACHE_LOCAL_CPU="True"
export LMCACHE_MAX_LOCAL_CPU_SIZE="300"
export LMCACHE_USE_EXPERIMENTAL="True"
export VLLM_RPC_TIMEOUT="1000000"
. /opt/venv/bin/activate
vllm serve meta-llama/Llama-3.3-70B-Instruct \
  --port 8000 \
  --tensor-parallel-size 4 \
  --pipeline-parallel-size 1 \
  --distributed-executor-backend mp \
  --enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
