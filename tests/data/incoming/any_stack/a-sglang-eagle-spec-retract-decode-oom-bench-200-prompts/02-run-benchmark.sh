python -m sglang.bench_serving --dataset-name random --backend sglang --random-range-ratio 0.9 --random-input 32 --random-output 256 --num-prompts 200
