import oneflow as flow
import oneflow.nn as nn


class SimpleNet(nn.Module):

    def __init__(self, num_classes=10):
        super(SimpleNet, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=3, stride=8, padding=2),
            nn.BatchNorm2d(64),
        )


    def forward(self, x):
        conv_features = self.features(x)
        return conv_features

if __name__ == "__main__":
    net = SimpleNet().to("cuda:0")
    for _ in range(500):
        for _ in range(500):
            x = flow.randn(1, 3, 32, 32, requires_grad=True).to("cuda")
            y = net(x).sum()
            y.backward()
