pip uninstall diffusers
pip install git+https://github.com/huggingface/diffusers
