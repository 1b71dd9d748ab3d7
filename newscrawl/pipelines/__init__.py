"""Scrapy item pipelines: thin adapters from PageItems to the extraction core and the store.

Order: NeighbourBufferPipeline -> StaticNoisePipeline -> DynamicNoisePipeline
-> TitleRelevancePipeline -> SqlStoragePipeline.
"""
