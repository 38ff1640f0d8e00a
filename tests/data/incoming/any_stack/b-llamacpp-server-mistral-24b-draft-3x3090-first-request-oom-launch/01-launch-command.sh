/models/llama.cpp/llama-server -m /models/Mistral-Small-3.1-24B-Instruct-2503-Q8_0.gguf \
-md /models/Mistral-Small-3.1-DRAFT-0.5B.Q8_0.gguf \
-fa -sm row --no-mmap \
-ngl 99 -ngld 99 --port 9009 -c 65536 \
--draft-max 16 --draft-min 5 --draft-p-min 0.5 \
--device CUDA2,CUDA1 --device-draft CUDA1 --tensor-split 0,1,1 \
--slots --metrics --numa distribute -t 40 --no-warmup
