trtllm-serve serve /data/model \
        --host 0.0.0.0 \
        --port 60000 \
        --backend pytorch \
        --tp_size "8" \
        --pp_size "1" \
        --max_seq_len 32768 \
        --max_num_tokens 32768 \
        --max_batch_size 128 \
        --extra_llm_api_options /data/config/extra-llm-api-config.yml
