"""Scrapy settings for newscrawl. Every newscrawl setting is named NEWSCRAWL_*."""

BOT_NAME = "newscrawl"
SPIDER_MODULES = ["spiders"]
NEWSPIDER_MODULE = "spiders"

ROBOTSTXT_OBEY = True
USER_AGENT = "newscrawl/0.1 (+https://github.com/newscrawl/newscrawl)"
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 8
DOWNLOAD_TIMEOUT = 30
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"

NEWSCRAWL_DATABASE_URL = "sqlite:///newscrawl.db"
NEWSCRAWL_NEIGHBOURS = 10
