docker run  --gpus all \
    -v /data/hf_cache/ \
    --env "HUGGING_FACE_HUB_TOKEN=<token>" \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai:latest \
    --model meta-llama/Llama-3.2-11B-Vision-Instruct \
    --tensor-parallel-size 4 \
    --max-num-seqs 16 \
    --max-model-len 4096 \
    --download_dir /data/vllm_cache \
    --enforce-eager
