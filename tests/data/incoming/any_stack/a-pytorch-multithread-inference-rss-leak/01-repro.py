import os
import threading
import psutil

import torch

from torchvision import models

batch_size = 120
image_w = 128
image_h = 128

def model_forward(model, input):
    return model(input)

if __name__=="__main__":
    model = models.resnet50()
    inputs = torch.randn(batch_size, 3, image_w, image_h)
    process = psutil.Process(os.getpid())
    for i in range(20):
        thread = threading.Thread(target=model_forward, args=(model, inputs))
        thread.start()
        thread.join()
        print(f"Round {i}: memory {process.memory_info().rss // 1000000} MB")
