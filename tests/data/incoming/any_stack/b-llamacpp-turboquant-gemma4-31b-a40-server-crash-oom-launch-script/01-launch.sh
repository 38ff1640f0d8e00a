#!/bin/bash
GGUF=/home/swei/.cache/huggingface/hub/models--unsloth--gemma-4-31B-it-GGUF/snapshots/43e80d41a220ac7c83023daacd6a0d1fd8559251/gemma-4-31B-it-UD-Q8_K_XL.gguf
CHAT=chat_template.jinja

~/llama-cpp-turboquant/build/bin/llama-server -m $GGUF \
        --cache-type-k q8_0 \
        --cache-type-v q8_0 \
        --host 0.0.0.0 \
        --port 8000 \
        --jinja \
        --chat-template-file $CHAT
