"""A deterministic local news network to crawl: generated sites, feeds, sitemaps and gold text."""

from newscrawl.demo.content import DemoArticle, DemoSite, build_network
from newscrawl.demo.server import DemoNetworkServer

__all__ = ["DemoArticle", "DemoNetworkServer", "DemoSite", "build_network"]
