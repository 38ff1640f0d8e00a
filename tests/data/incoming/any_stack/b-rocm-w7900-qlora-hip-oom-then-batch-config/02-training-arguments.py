from transformers import TrainingArguments

train_params = TrainingArguments(
    output_dir="./results_qlora",
    num_train_epochs=1,

    per_device_train_batch_size=2,                 # Slightly increased batch size (you have 48 GB)
    gradient_accumulation_steps=2,                 # Effective batch size = 4 (2x2)

    optim="paged_adamw_32bit",                     # Recommended for QLoRA
    save_steps=50,
    logging_steps=50,
    learning_rate=4e-5,
    weight_decay=0.001,

    fp16=False,                                    # Disabled because ROCm prefers bf16 on W7900
    bf16=True,                                     # ✅ Enable BF16 for ROCm + RDNA3 (W7900)

    max_grad_norm=0.3,
    max_steps=-1,
    warmup_ratio=0.03,
    group_by_length=True,
    lr_scheduler_type="constant",
    report_to="tensorboard"
)
