from unsloth import FastModel
import torch
import torch.nn as nn
# from transformers.models.gemma3.modeling_gemma3 import Gemma3TextScaledWordEmbedding

model, tokenizer = FastModel.from_pretrained(
    model_name = "unsloth/gemma-3-4b-it-unsloth-bnb-4bit",
    # model_name="unsloth/gemma-3-12b-pt",
    # model_name="unsloth/gemma-3-4b-pt",
    max_seq_length = 8192, # Choose any for long context!
    load_in_4bit = True,
    resize_model_vocab=16,
)
from transformers import Gemma3ForCausalLM, AutoConfig
import torch
import os
# Define the directory where the model was saved
save_directory = "./gemma_12b_text_only"

# Load the configuration
config = AutoConfig.from_pretrained(save_directory)

# Initialize a GemmaForCausalLM model with the loaded configuration
text_model = Gemma3ForCausalLM(config)

# Load the saved state dictionary (weights)
state_dict = torch.load(os.path.join(save_directory, "pytorch_model.bin"))

# Load the weights into the model
text_model.load_state_dict(state_dict)
model = FastModel.get_peft_model(
    model,
    finetune_vision_layers     = False, # Turn off for just text!
    finetune_language_layers   = True,  # Should leave on!
    finetune_attention_modules = True,  # Attention good for GRPO
    finetune_mlp_modules       = True,  # SHould leave on always!

    r = 64,           # Larger = higher accuracy, but might overfit
    lora_alpha = 64,  # Recommended alpha == r at least
    lora_dropout = 0,
    bias = "none",
    random_state = 3407,
)
model = model.base_model.model.language_model
x = torch.randint(0, 1000, (1, 2048)) # Random input
x = x.to(model.device)
# Forward pass
with torch.autocast("cuda",dtype=torch.bfloat16):  
    y = model(x)
