curl http://localhost:8080/v1/completions -H "Content-Type: application/json" -d '{
  "model": "gpt-4",
  "prompt": "Why is the sky blue? Short and concise answer",
  "temperature": 0.1, "top_p": 0.1
}'

