python train.py --use-cuda True --dropout 0.25 --batch-size 7 --num-iterations 2000000
