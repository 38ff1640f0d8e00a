python3 profile_restful_api.py --backend lmdeploy --dataset-path ShareGPT_V3_unfiltered_cleaned_split.json \
    --host 127.0.0.1 --port 8000 --model pkumlm_txt --tokenizer /root/hf_model/Qwen/Qwen3-32B/ \
    --request-rate 10 --num-prompts 1000 --disable-stream
