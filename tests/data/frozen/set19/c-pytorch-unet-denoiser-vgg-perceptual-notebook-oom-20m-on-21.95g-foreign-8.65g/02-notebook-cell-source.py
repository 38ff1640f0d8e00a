batch_size = 32

train_loader = DataLoader(train_data, batch_size=batch_size, shuffle=True)
valid_loader = DataLoader(valid_data, batch_size=batch_size, shuffle=False)
test_loader = DataLoader(test_data, batch_size=batch_size, shuffle=False)

# ---- next cell ----

import torchvision.models as models

# Load pre-trained VGG-16 model
vgg = models.vgg16(pretrained=True).features

# Set to evaluation mode (important)
vgg.eval()

# Move the model to the same device as your neural network
vgg = vgg.to(device)

# Freeze VGG parameters so they aren't updated during training
for param in vgg.parameters():
    param.requires_grad = False


# ---- next cell ----

num_epochs = 10

# Assuming 'model' is your denoising model, and 'train_loader' is your DataLoader
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

# Perceptual Loss function
perceptual_criterion = PerceptualLoss(vgg)


# ---- next cell ----

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
print(f"Using device: {device}")

model = model_simple

model.to(device)

# criterion = nn.MSELoss()
perceptual_criterion = PerceptualLoss(vgg)

optimizer = torch.optim.Adam(model.parameters(), lr = 1e-3)

# ---- next cell ----

trainer = DenoisingTrainer(model, device, perceptual_criterion, optimizer, save_path="saved_models/best_denoising_model_unet.pth")

# ---- next cell ----

num_epochs = 10

trainer.train(train_loader, valid_loader, num_epochs=num_epochs)
