"""Small generated feed, page and sitemap documents for the spider tests."""

from __future__ import annotations

import gzip

RSS_091 = b"""<?xml version="1.0"?>
<rss version="0.91"><channel><title>Old Times</title><link>http://old.example/</link>
<description>d</description>
<item><title>Harbour reopens</title><link>http://old.example/local/harbour.html</link>
<description>The harbour reopened.</description></item>
</channel></rss>"""

RSS_10 = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://rdf.example/"><title>RDF News</title><link>http://rdf.example/</link>
<description>d</description></channel>
<item rdf:about="http://rdf.example/science/comet.html"><title>Comet seen</title>
<link>http://rdf.example/science/comet.html</link><dc:creator>Ada Byron</dc:creator>
<dc:date>2026-11-02T08:30:00Z</dc:date><dc:subject>Astronomy</dc:subject></item>
</rdf:RDF>"""

RSS_20 = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
<title>Daily</title><link>https://www.daily.example/</link><description>d</description>
<category>Front Page</category>
<item><title>  Budget   passes </title><link>/politics/budget.html</link>
<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate><dc:creator>Jo Smith</dc:creator>
<dc:creator>Ann Lee</dc:creator><category>Politics</category><category>Money</category></item>
<item><title>Untagged story</title><link>https://www.daily.example/world/2026/11/story.html</link>
</item>
<item><title>Live blog</title><description>no link here</description></item>
</channel></rss>"""

RSS_20_UNTAGGED = b"""<?xml version="1.0"?>
<rss version="2.0"><channel><title>Plain</title><link>https://plain.example/</link>
<description>d</description>
<item><title>Ferry strike</title><link>https://plain.example/transport/2026/ferry.html</link></item>
</channel></rss>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom Wire</title><id>urn:x</id>
<updated>2026-11-03T09:00:00Z</updated>
<entry><title>Chip plant opens</title>
<link rel="alternate" type="text/html" href="https://atom.example/tech/chip.html"/>
<id>urn:1</id><published>2026-11-03T09:00:00+01:00</published><updated>2026-11-03T09:00:00Z</updated>
<author><name>Mo Chen</name></author><category term="Technology"/></entry>
<entry><title>No link entry</title><id>urn:2</id><updated>2026-11-03T09:00:00Z</updated></entry>
</feed>"""

HTML_WITH_FEEDS = b"""<!DOCTYPE html><html><head><title>Home</title>
<link rel="alternate" type="application/rss+xml" title="RSS" href="/rss.xml">
<link rel="alternate" type="application/atom+xml" href="https://cdn.example/atom.xml">
<link rel="stylesheet" href="/site.css">
<link rel="alternate" hreflang="de" href="/de/">
</head><body><p>Welcome</p></body></html>"""

HTML_WITHOUT_FEEDS = b"<!DOCTYPE html><html><head><title>x</title></head><body>hi</body></html>"

URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://site.example/world/old.html</loc><lastmod>2026-10-01</lastmod></url>
<url><loc>https://site.example/world/new.html</loc><lastmod>2026-11-10T12:00:00Z</lastmod></url>
<url><loc>https://site.example/tag/world</loc></url>
<url><loc>https://site.example/sport/match.html</loc><lastmod>2026-11-12</lastmod></url>
</urlset>"""

NEWS_SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
 xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
 xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>https://site.example/business/merger.html</loc>
<image:image><image:loc>https://site.example/i.jpg</image:loc><image:title>A photo</image:title>
</image:image>
<news:news><news:publication><news:name>Site</news:name><news:language>en</news:language>
</news:publication><news:publication_date>2026-11-15T07:45:00+00:00</news:publication_date>
<news:title>Merger agreed</news:title><news:keywords>merger, banks ,finance</news:keywords>
</news:news></url>
</urlset>"""

SITEMAP_INDEX = b"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://site.example/sitemaps/2026-09.xml.gz</loc><lastmod>2026-09-30</lastmod></sitemap>
<sitemap><loc>https://site.example/sitemaps/2026-11.xml.gz</loc><lastmod>2026-11-20</lastmod></sitemap>
<sitemap><loc>/news-sitemap.xml</loc></sitemap>
</sitemapindex>"""

ENTITY_SITEMAP = b"""<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://site.example/a&secret;.html</loc></url></urlset>"""

ROBOTS = b"""User-agent: *
Disallow: /private
Sitemap: https://site.example/sitemap_index.xml
sitemap: /news-sitemap.xml   # relative, resolved against robots.txt
"""


def gzip_bytes(data: bytes) -> bytes:
    """Compress deterministically."""
    return gzip.compress(data, mtime=0)
