"""Scrapy item pipelines: thin adapters from PageItems to the extraction core and the store.

Order: NeighbourBufferPipeline -> StaticNoisePipeline -> DynamicNoisePipeline
-> TitleRelevancePipeline -> ArticleExtractionPipeline (process pool, NEWSCRAWL_EXTRACTION_WORKERS
> 0) -> SqlStoragePipeline.
"""
