CUDA_VISIBLE_DEVICES=0 \
swift sft \
    --sft_type full \
    --model_type openbuddy-mistral-7b-chat \
    --model_cache_dir models/mistral-7b \
    --custom_train_dataset_path dataset/guanaco_belle_merge_v1.0/merge.json \
    --eval_steps 5000 \
    --save_steps 5000 \
    --train_dataset_sample -1 \
    --output_dir output_a100_full_all \
    --max_length 4096 \
    --save_only_model true \
    --use_flash_attn true \
    --learning_rate 1e-5 \
    --preprocess_num_proc 4 \
    --dataloader_pin_memory false \
    --lazy_tokenize true \
