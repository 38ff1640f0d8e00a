ollama run yarn-mistral:7b-128k
