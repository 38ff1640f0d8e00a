args = SFTConfig(
    per_device_train_batch_size=8,
    
    save_strategy = 'epoch',
    
    learning_rate = 5e-5,
    lr_scheduler_type = 'cosine',
    
    num_train_epochs=1,
    
    warmup_steps = 100,
    
    output_dir=next_model_name,
    optim="adamw_torch",

    bf16=True,
    
    report_to="wandb",
    run_name=next_model_name,
    
    logging_steps=100,

    max_seq_length = 1024,
    dataset_text_field = 'prompt',

    seed=42,
)
trainer = SFTTrainer(
    model = model,
    train_dataset = dataset['train'],
    peft_config = Lora_config,
    args = args
)
train_output = trainer.train()
