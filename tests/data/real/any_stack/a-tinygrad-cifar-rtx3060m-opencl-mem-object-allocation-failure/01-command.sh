EVAL_BS=50 BS=128 python examples/hlb_cifar10.py
