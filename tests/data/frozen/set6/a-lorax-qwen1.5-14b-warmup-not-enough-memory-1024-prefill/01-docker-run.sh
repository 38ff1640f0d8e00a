> docker run --gpus '"device=1"'  \
    --shm-size 1g \
    -p 8081:80 \
    -v /home/Model/qwen:/data ghcr.io/predibase/lorax:latest \
    --model-id /data/Qwen1_5-14B-Chat \
    --trust-remote-code \
    --max-batch-prefill-tokens 1024 \
