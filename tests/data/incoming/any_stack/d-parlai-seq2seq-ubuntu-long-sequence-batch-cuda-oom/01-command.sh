python train_model.py -m seq2seq -t ubuntu -bs 8 -e 1 -mf /tmp/model_s2s
