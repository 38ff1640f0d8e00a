model=TheBloke/Llama-2-70B-chat-GPTQ
num_shard=4
docker run --rm --gpus all --shm-size 4g -p 8080:80 --name $container_name --log-driver=local --log-opt max-size=10m --log-opt max-file=3 -v $volume:/data --env HUGGING_FACE_HUB_TOKEN=$HUGGING_FACE_HUB_TOKEN --env GPTQ_BITS=4 --env GPTQ_GROUPSIZE=1 ghcr.io/huggingface/text-generation-inference:latest --model-id $model --num-shard $num_shard --quantize "gptq" --max-best-of 1  --trust-remote-code > serving.log &
