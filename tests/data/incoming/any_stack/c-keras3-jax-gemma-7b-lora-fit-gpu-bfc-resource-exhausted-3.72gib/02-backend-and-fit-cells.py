import os

os.environ["KERAS_BACKEND"] = "jax"  # Or "tensorflow" or "torch".
os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"]="1.00" # XLA를 사용할 때 GPU 혹은 TPU 메모리를 얼마나 사용할 수 있는지를 설정 → "1.00"은 사용 가능한 GPU 혹은 TPU 메모리의 100%를 python 클라이언트가 사용
import tensorflow.keras as keras
import keras_nlp
# Enable LoRA for the model and set the LoRA rank to 4.
gemma_lm_7b.backbone.enable_lora(rank=4)
gemma_lm_7b.summary()
# Limit the input sequence length to 512 (to control memory usage).
gemma_lm_7b.preprocessor.sequence_length = 16
# Use AdamW (a common optimizer for transformer models).
optimizer = keras.optimizers.AdamW(
    learning_rate=5e-5,
    weight_decay=0.01, # 모델이 가중치를 감소시키는 정도
)
# Exclude layernorm and bias terms from decay.
optimizer.exclude_from_weight_decay(var_names=["bias", "scale"]) # 가중치를 감소시킬 때 'bias'와 'scale'은 감소

gemma_lm_7b.compile(
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer=optimizer,
    weighted_metrics=[keras.metrics.SparseCategoricalAccuracy()],
)
gemma_lm_7b.fit(data, epochs=10, batch_size=8)

# save model path
model_dir = './model/gemma-7b'
os.makedirs(model_dir, exist_ok=True)
model_save_path_g7_r4 = os.path.join(model_dir, 'gemma_model_g7_r4_100_240415.keras')

# save the mode
gemma_lm_7b.save(model_save_path_g7_r4)
