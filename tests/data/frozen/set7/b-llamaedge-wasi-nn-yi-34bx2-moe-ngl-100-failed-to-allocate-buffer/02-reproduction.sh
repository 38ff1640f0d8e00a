bash run-llm.sh --model yi-34bx2-moe-60b
