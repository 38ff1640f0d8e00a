python server.py --model vicuna-13B-1.1-GPTQ-4bit-128g --wbits 4 --groupsize 128 --model_type Llama --gpu-memory 7500MiB --cpu-memory 25000MiB --chat --threads 12 --pre_layer 32
