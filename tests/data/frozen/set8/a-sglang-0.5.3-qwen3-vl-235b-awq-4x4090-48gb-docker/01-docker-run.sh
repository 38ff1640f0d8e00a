`docker run -d --gpus all \
  --shm-size 32g \
  -p 30000:30000 \
  -v /mnt/nvme/models:/root/.cache/hub/models \
  --ipc=host \
  lmsysorg/sglang:v0.5.3.post1 \
  python3 -m sglang.launch_server \
    --model-path /root/.cache/hub/models/Qwen3-VL-235B-A22B-Thinking-AWQ  \
    --host 0.0.0.0 --port 30000 --tp 4 --enable-multimodal --mem-fraction-static 0.9
`
