taskQueue := queue.NewTaskQueue(2, unifiedProcessor, jobRepo) // 2 workers
