"""Scrapy commands of the project (COMMANDS_MODULE): they replace Scrapy's own of the same name."""
