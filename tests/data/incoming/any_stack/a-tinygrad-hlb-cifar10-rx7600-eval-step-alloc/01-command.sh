$ python examples/hlb_cifar10.py
