import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig

# Clear cache and reset memory to avoid fragmentation
torch.cuda.empty_cache()
torch.cuda.reset_max_memory_allocated()  # Clear any previous memory state

# Set the memory fraction to limit the GPU memory usage
torch.cuda.set_per_process_memory_fraction(0.5)  # Limit GPU memory usage to 50%

# Define model path
output_dir = "deepseek_q2"

# Choose quantization level: 8-bit or 4-bit
use_4bit = False  # Set to False for 8-bit precision

# Configure quantization and memory management
bnb_config = BitsAndBytesConfig(
    load_in_4bit=use_4bit,
    load_in_8bit=not use_4bit,  # Use 8-bit if not using 4-bit
    bnb_4bit_compute_dtype=torch.float16 if use_4bit else None,
    bnb_4bit_use_double_quant=True if use_4bit else False,
    llm_int8_enable_fp32_cpu_offload=True  # Offload FP32 to CPU if needed
)

# Try loading the model with quantization
try:
    model = AutoModelForCausalLM.from_pretrained(output_dir, quantization_config=bnb_config).to("cuda")
except RuntimeError as e:
    print("Error loading model: ", e)
    # Handle memory error, e.g., reduce model size or use CPU offloading

tokenizer = AutoTokenizer.from_pretrained(output_dir)

# Set model max sequence length manually if needed
model.max_seq_length = 1024  # Reduce sequence length to fit model in memory

# Example inference function
def generate_text(prompt, max_tokens=50):
    inputs = tokenizer(prompt, return_tensors="pt").to("cuda")

    with torch.no_grad():
        outputs = model.generate(
            inputs.input_ids,
            attention_mask=inputs.attention_mask,
            max_new_tokens=max_tokens,  # Limit token generation to save memory
            do_sample=True,  # Set to False for deterministic output
            temperature=0.3  # Adjust creativity
        )

    return tokenizer.decode(outputs[0], skip_special_tokens=True)

# Test inference with a new prompt
prompt = "A meme claiming that the square root of 25 equals -5"
print(generate_text(prompt, max_tokens=100))
