import torch

device = torch.device("cuda")

while(True):
    data = torch.randn(32,1,32,32).to(device).requires_grad_(True);
