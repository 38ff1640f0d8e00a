unexplained_var = vis.get_unexplained_variance(
            OUTPUT, dataset_path=TRAIN_DATASET_PATH, variance_name='eucl')
print(unexplained_var)
