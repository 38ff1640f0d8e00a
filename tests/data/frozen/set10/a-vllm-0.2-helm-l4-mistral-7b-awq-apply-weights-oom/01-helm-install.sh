helm repo add substratusai https://substratusai.github.io/helm
# Note by default the resource limit is set to 1 GPU
helm upgrade --install mistral-7b-awq substratusai/vllm  -f - << EOF
model: TheBloke/Mistral-7B-Instruct-v0.1-AWQ
image:
  tag: pr-5
env:
- name: QUANTIZATION
  value: awq
- name: DTYPE
  value: half
EOF
