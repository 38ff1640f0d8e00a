var data = torch.randn(32,1,32,32).requires_grad_(true).to(device);
