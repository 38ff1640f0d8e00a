import os
os.environ['VLLM_WORKER_MULTIPROC_METHOD'] = 'spawn'
from PIL import Image
from transformers import AutoTokenizer
from vllm import LLM, ModelRegistry, SamplingParams
from vllm.model_executor.models import _MULTIMODAL_MODELS

from aria.vllm.aria import AriaForConditionalGeneration
import torch
torch.cuda.empty_cache()
ModelRegistry.register_model(
    "AriaForConditionalGeneration", AriaForConditionalGeneration
)
_MULTIMODAL_MODELS["AriaForConditionalGeneration"] = (
    "aria",
    "AriaForConditionalGeneration",
)


def main():
    llm = LLM(
        model="rhymes-ai/Aria",
        tokenizer="rhymes-ai/Aria",
        tokenizer_mode="slow",
        dtype="bfloat16",
        limit_mm_per_prompt={"image": 256},
        enforce_eager=True,
        trust_remote_code=True,
        gpu_memory_utilization=0.6,
        tensor_parallel_size=4,
        max_seq_len_to_capture=1024
    
    )
