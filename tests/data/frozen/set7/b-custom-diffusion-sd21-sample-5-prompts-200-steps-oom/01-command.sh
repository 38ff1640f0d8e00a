! python src/sample_diffuser.py --delta_ckpt /content/drive/MyDrive/logs/cat/delta.bin --ckpt "stabilityai/stable-diffusion-2-1" --prompt "female face in the style of <new1>"
