import sys

from modal import Image, Stub, gpu, method


MODEL_DIR = "/model"
BASE_MODEL = "NousResearch/Nous-Hermes-2-Mixtral-8x7B-SFT"

GPU_CONFIG = gpu.A100(memory=80, count=2)
