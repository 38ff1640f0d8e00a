import torch
import torch.nn as nn

class MeanOnlyBatchNorm(nn.Module):
    def __init__(self, module, momentum=0.1):
        super(MeanOnlyBatchNorm, self).__init__()
        if isinstance(module, nn.Linear):
            self.num_features = module.out_features
        else:
            self.num_features = module.out_channels
        self.do_init = False
        self.momentum = momentum
        self.weight = nn.Parameter(torch.Tensor(self.num_features))
        self.bias = nn.Parameter(torch.Tensor(self.num_features))
        self.register_buffer('running_mean', torch.zeros(self.num_features))
        self.reset_parameters()

    def reset_running_stats(self):
        self.running_mean.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        nn.init.ones_(self.weight)
        nn.init.zeros_(self.bias)
        self.do_init = False
