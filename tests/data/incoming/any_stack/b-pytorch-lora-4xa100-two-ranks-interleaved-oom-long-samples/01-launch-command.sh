bash FastChat/lora_train.sh
