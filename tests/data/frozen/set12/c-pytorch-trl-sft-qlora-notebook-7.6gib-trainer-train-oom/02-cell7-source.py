# Initialize trainer
trainer = SFTTrainer(
    model=model,
    args=training_args,
    train_dataset=prepare_dataset()["train"],
    eval_dataset=prepare_dataset()["validation"],
    peft_config=lora_config,
    processing_class=tokenizer,
)

# Start training
trainer.train()

# Save final model
trainer.save_model()
