export MASTER_HOST="$VC_WORKER_HOSTS"
export MASTER_ADDR="${VC_WORKER_HOSTS%%,*}"
export MASTER_ADDR=$(ping "$MASTER_ADDR" -c 1 | sed '1{s/[^(]*(//;s/).*//;q}')
export NNODES="$MA_NUM_HOSTS"
export RANK="$VC_TASK_INDEX"
export NODE_RANK="$VC_TASK_INDEX"
export MASTER_PORT=30008
export NGPUS_PER_NODE="$MA_NUM_GPUS"

llamafactory-cli env
llamafactory-cli train -h
llamafactory-cli train examples/lora_multi_npu/llama3_lora_sft_ds_8_wph.yaml
