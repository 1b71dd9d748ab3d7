"""Scrapy extensions: crawl bookkeeping and progress reporting."""
