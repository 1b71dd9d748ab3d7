"""Scrapy add-ons that switch on optional newscrawl features from NEWSCRAWL_* settings."""
