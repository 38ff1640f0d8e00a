deepspeed --num_gpus 8 test_deepspeed.py
