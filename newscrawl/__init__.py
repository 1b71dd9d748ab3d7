"""newscrawl: news feeds and sitemaps into a clean SQL article corpus."""
