docker run -it \
  --gpus all -p 8080:8080 -v /data1/docker_main:/data \
  tabbyml/tabby \
  serve --model TabbyML/CodeLlama-7B --device cuda
