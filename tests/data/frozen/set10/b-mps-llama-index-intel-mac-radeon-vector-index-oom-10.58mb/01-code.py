index = VectorStoreIndex.from_documents(
    documents, storage_context=storage_context, service_context=service_context, PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0
) 
