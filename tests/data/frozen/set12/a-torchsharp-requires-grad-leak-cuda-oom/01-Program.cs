using System;
using TorchSharp;

namespace MemoryLeak
{
    class Program
    {
        static void Main(string[] args)
        {
            var device = torch.CUDA;

            while(true) {
	        using (var _ = torch.NewDisposeScope()) {
                    var data = torch.randn(32,1,32,32).to(device).requires_grad_(true);
	        }
	    }
        }
    }
}
