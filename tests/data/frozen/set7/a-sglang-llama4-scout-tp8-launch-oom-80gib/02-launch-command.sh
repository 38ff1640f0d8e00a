python3 -m sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct --trust-remote-code --tp 8 --disable-cuda-graph
