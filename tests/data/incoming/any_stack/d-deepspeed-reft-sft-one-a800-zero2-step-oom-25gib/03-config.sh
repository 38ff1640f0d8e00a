batch_size="1"
eval_batch_size="1"
