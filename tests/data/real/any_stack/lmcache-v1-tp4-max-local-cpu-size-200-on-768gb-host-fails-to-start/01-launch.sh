LMCACHE_CONFIG_FILE=lmcache_config.yaml \
VLLM_USE_V1=1 \
LMCACHE_USE_EXPERIMENTAL=True \
VLLM_ENABLE_V1_MULTIPROCESSING=1 \
VLLM_WORKER_MULTIPROC_METHOD=spawn \
vllm serve /root/model-path/Qwen \
--served-model-name Qwen2.5-72B-Instruct \
--port 8100 \
--disable-log-requests \
--max-model-len 20000 \
--gpu-memory-utilization 0.9 \
--tensor-parallel-size 4 \
--kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both","kv_connector_extra_config": {}}'
