#!/bin/bash 
export TF_FORCE_UNIFIED_MEMORY=1 
export XLA_PYTHON_CLIENT_MEM_FRACTION=4.0 
colabfold-conda/bin/python3.7 runner.py
