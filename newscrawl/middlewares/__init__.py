"""Scrapy downloader middlewares that protect the crawl from hostile or broken input."""
