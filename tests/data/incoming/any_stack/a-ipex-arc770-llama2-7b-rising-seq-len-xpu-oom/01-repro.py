import torch
import intel_extension_for_pytorch as ipex
from transformers import AutoModelForCausalLM

pretrained = "/mnt/disk1/models/Llama-2-7b-chat-hf/"
device = 'xpu'

model = AutoModelForCausalLM.from_pretrained(pretrained,
                                          trust_remote_code=True,
                                          use_cache=True)
model = model.half().to(device)

with torch.inference_mode():
    for seq_len in range(1200, 1301, 5):
        input_ids = torch.randint(5, 2000, (1, seq_len)).to(device)
        attention_mask = torch.ones_like(input_ids).to(device)
        print(input_ids.shape)
        generations = model.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                max_new_tokens=256,
                do_sample=False,
            )
        torch.xpu.synchronize()

