os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"]="false"
os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"]=".99"
os.environ["XLA_PYTHON_CLIENT_ALLOCATOR"]="platform"
