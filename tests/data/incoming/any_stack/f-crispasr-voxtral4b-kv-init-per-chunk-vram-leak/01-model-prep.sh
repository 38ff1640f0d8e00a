hf download mistralai/Voxtral-Mini-4B-Realtime-2602
python models/convert-voxtral4b-to-gguf.py --input ~/.cache/huggingface/hub/models--mistralai--Voxtral-Mini-4B-Realtime-2602/snapshots/[id] --output voxtral-mini-4b-realtime.gguf
bin/crispasr-quantize ./voxtral-mini-4b-realtime.gguf ./voxtral-mini-4b-realtime_Q2_K.gguf  q2_k
