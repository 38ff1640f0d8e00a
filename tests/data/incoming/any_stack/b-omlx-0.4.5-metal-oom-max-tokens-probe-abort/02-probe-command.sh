`uv run find_max_tokens.py \
  --base-url http://localhost:8000/v1/ \
  --api-key <api_key> \
  --model <model_name> \
  --low 90000 --high 100000 --verbose`
