docker run -it -e LLAMA_CPP_PARALLELISM=1 --gpus all -p 9694:8080 -v $HOME/.tabby:/data tabbyml/tabby serve --model TabbyML/DeepseekCoder-6.7B --device cuda
