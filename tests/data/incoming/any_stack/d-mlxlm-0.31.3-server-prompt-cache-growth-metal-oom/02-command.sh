mlx_lm.server --model mlx-community/Qwen3.5-4B-MLX-8bit
