python3 ./src/train.py \
--model "cmu" \
--datapath "/media/lyy/dataset/coco-data/coco2017/annotations_trainval2017/annotations" \
--imgpath "/media/lyy/dataset/coco-data/coco2017/imgs/" \
--batchsize 16 \
--modelpath "./train_model" \
--logpath "./logs"
