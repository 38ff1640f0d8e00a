mlx_lm.evaluate --model mlx-community/Qwen3-4B-Instruct-2507-4bit \
  --task mmlu_pro --limit 2 --batch-size 1
