model=TheBloke/falcon-40b-instruct-GPTQ
volume=$PWD/weights
docker run --gpus '"device=0,1,2,3,4,5,6,7"' --shm-size 512g -p 53334:80 -v $volume:/data ghcr.io/huggingface/text-generation-inference:1.0.2 --model-id $model --quantize gptq
