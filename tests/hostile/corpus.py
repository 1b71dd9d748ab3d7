"""The bad-input corpus: every hostile or broken page, feed, sitemap and server behaviour.

Generated, never copied from real sites. Each `Route` is what the loopback server answers
for one path; the feeds and sitemaps list the article paths so both spiders meet them all.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field

PARAGRAPH = (
    "The city council approved the new harbour budget on Tuesday after a long debate "
    "about ferries, bridges and the cost of dredging the old channel before winter. "
)
# A canary the XXE documents point at: the crawl must never request it.
CANARY_PATH = "/canary/xxe-was-resolved"
# Long enough to outlast the DOWNLOAD_TIMEOUT the tests set.
STALL_SECONDS = 8.0


@dataclass(frozen=True)
class Route:
    """One canned answer of the hostile server."""

    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    stall: float = 0.0


@dataclass(frozen=True)
class ArticleCase:
    """An article-page input: its path and whether a clean article must come out of it."""

    path: str
    expects_article: bool
    note: str = field(default="", compare=False)


def build_article_html(title: str, paragraphs: int = 6, charset_meta: str | None = None) -> str:
    """A plain, well-formed news page with a title and some paragraphs."""
    meta = f'<meta charset="{charset_meta}">' if charset_meta else ""
    body = "".join(f"<p>{PARAGRAPH}{title} paragraph {n}.</p>" for n in range(paragraphs))
    return (
        f"<!DOCTYPE html><html lang='en'><head>{meta}<title>{title}</title></head>"
        f"<body><nav><a href='/'>Home</a></nav><article><h1>{title}</h1>{body}</article>"
        "<footer>Copyright Hostile Times</footer></body></html>"
    )


def build_billion_laughs(root: str) -> bytes:
    """An XML document whose entities would expand to gigabytes."""
    lines = ['<?xml version="1.0"?>', "<!DOCTYPE lolz [", '<!ENTITY lol "lol">']
    for level in range(1, 10):
        previous = "lol" if level == 1 else f"lol{level - 1}"
        lines.append(f'<!ENTITY lol{level} "' + f"&{previous};" * 10 + '">')
    lines.append("]>")
    lines.append(root.replace("PAYLOAD", "&lol9;"))
    return "\n".join(lines).encode()


def build_xxe(root: str, base_url: str) -> bytes:
    """An XML document with external entities: a local file and a loopback URL."""
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE r [\n'
        '<!ENTITY file SYSTEM "file:///etc/passwd">\n'
        f'<!ENTITY web SYSTEM "{base_url}{CANARY_PATH}">\n]>\n'
        + root.replace("PAYLOAD", "&file;&web;")
    ).encode()


def build_gzip_bomb(uncompressed_mb: int = 64) -> bytes:
    """A gzip file posing as a sitemap that inflates far beyond the sitemap size cap."""
    header = b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    block = b" " * (1024 * 1024)
    return gzip.compress(header + block * uncompressed_mb, compresslevel=9, mtime=0)


XSS_PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">js link</a>',
    '<a href="jav&#x09;ascript:alert(1)">tab link</a>',
    '<a href=" JaVaScRiPt:alert(1)">spaced link</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data link</a>',
    '<a href="vbscript:msgbox(1)">vb link</a>',
    "<svg onload=alert(1)><circle r=1 /></svg>",
    '<math><mi xlink:href="javascript:alert(1)">m</mi></math>',
    '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    '<base href="javascript:alert(1)//">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<p style="width: expression(alert(1))">styled</p>',
    '<form action="javascript:alert(1)"><input name=q autofocus onfocus=alert(1)></form>',
    # Closed on purpose: libxml2 nests whatever follows an unclosed <embed> inside it.
    '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)"></embed>',
    '<div onmouseover="alert(1)">hover</div>',
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
)


def build_xss_page() -> bytes:
    """An article whose paragraphs are interleaved with XSS payloads."""
    parts = []
    for n, payload in enumerate(XSS_PAYLOADS):
        parts.append(f"<p>{PARAGRAPH}Security paragraph {n}.</p>{payload}")
    return (
        "<!DOCTYPE html><html><head><title>XSS</title></head><body><article><h1>XSS</h1>"
        + "".join(parts)
        + "</article></body></html>"
    ).encode()


def build_deep_dom(depth: int = 100_000) -> bytes:
    """A page whose DOM nests `depth` levels deep before the article text."""
    return (
        b"<html><head><title>Deep</title></head><body>"
        + b"<div>" * depth
        + f"<p>{PARAGRAPH}</p>".encode()
        + b"</div>" * depth
        + b"</body></html>"
    )


def build_huge_page(megabytes: int = 10) -> bytes:
    """A well-formed article page of about `megabytes` MB."""
    paragraph = f"<p>{PARAGRAPH}</p>".encode()
    count = megabytes * 1024 * 1024 // len(paragraph)
    return (
        b"<html><head><title>Huge page</title></head><body><article><h1>Huge page</h1>"
        + paragraph * count
        + b"</article></body></html>"
    )


def build_article_cases() -> list[ArticleCase]:
    """The article pages the feeds and sitemaps point at, with what must come of each."""
    return [
        ArticleCase("/news/good-one", True, "control page"),
        ArticleCase("/news/good-two", True, "control page"),
        ArticleCase("/news/empty", False, "empty body"),
        ArticleCase("/news/binary", False, "random bytes as text/html"),
        ArticleCase("/news/pdf", False, "a PDF served as text/html"),
        ArticleCase("/news/wrong-charset", True, "cp1251 text labelled utf-8"),
        ArticleCase("/news/no-charset", True, "latin-1 text, no charset anywhere"),
        ArticleCase("/news/mixed-charset", True, "utf-8 page with latin-1 bytes inside"),
        ArticleCase("/news/unknown-charset", True, "a charset no codec knows"),
        ArticleCase("/news/huge", False, "10 MB page, over DOWNLOAD_MAXSIZE"),
        ArticleCase("/news/deep", False, "DOM nested 100,000 deep"),
        ArticleCase("/news/unclosed", True, "unclosed tags"),
        ArticleCase("/news/no-body", True, "no <html>, <head> or <body>"),
        ArticleCase("/news/xss", True, "paragraphs interleaved with XSS payloads"),
        ArticleCase("/news/meta-refresh-self", True, "a meta refresh back to itself"),
    ]


def build_routes(base_url: str) -> dict[str, Route]:
    """Every path the hostile server answers, for a server listening at `base_url`."""
    wrong = build_article_html("Wrong charset").replace(
        PARAGRAPH, "Городской совет одобрил новый бюджет гавани во вторник. " * 3
    )
    mixed = build_article_html("Mixed charset").encode().replace(
        b"harbour", "Hafenbr\u00fccke".encode("latin-1")
    )
    routes: dict[str, Route] = {
        "/news/good-one": Route(body=build_article_html("Good one").encode()),
        "/news/good-two": Route(body=build_article_html("Good two").encode()),
        "/news/xss": Route(body=build_xss_page()),
        "/news/meta-refresh-self": Route(
            body=build_article_html("Live blog").replace(
                "<title>",
                '<meta http-equiv="refresh" content="5;url=/news/meta-refresh-self#top"><title>',
            ).encode()
        ),
        "/news/empty": Route(body=b""),
        "/news/binary": Route(body=bytes(range(256)) * 256),
        "/news/pdf": Route(
            body=b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj <</Type /Catalog>> endobj\n"
            + bytes(range(256)) * 64
            + b"\n%%EOF"
        ),
        "/news/wrong-charset": Route(body=wrong.encode("cp1251")),
        "/news/no-charset": Route(
            content_type="text/html",
            body=build_article_html("No charset").replace("harbour", "caf\u00e9").encode("latin-1"),
        ),
        "/news/mixed-charset": Route(body=mixed),
        "/news/unknown-charset": Route(
            content_type="text/html; charset=x-klingon",
            body=build_article_html("Unknown charset").replace("harbour", "Straße").encode(),
        ),
        "/news/huge": Route(body=build_huge_page()),
        "/news/deep": Route(body=build_deep_dom()),
        "/news/unclosed": Route(
            body=build_article_html("Unclosed tags")
            .replace("</p>", "")
            .replace("</article>", "<div><span><b>")
            .replace("</body></html>", "")
            .encode()
        ),
        "/news/no-body": Route(
            body=f"<title>No body</title><h1>No body</h1><p>{PARAGRAPH}</p>"
            f"<p>{PARAGRAPH}</p>".encode()
        ),
        "/news/redirect-loop-a": Route(status=302, headers=(("Location", "redirect-loop-b"),)),
        "/news/redirect-loop-b": Route(status=302, headers=(("Location", "redirect-loop-a"),)),
        "/news/redirect-to-metadata": Route(
            status=302, headers=(("Location", "http://169.254.169.254/latest/meta-data/"),)
        ),
        "/news/gone": Route(status=404, body=b"<html><body><h1>Not found</h1></body></html>"),
        "/news/broken": Route(status=500, body=b"<html><body><h1>Oops</h1></body></html>"),
        "/news/unavailable": Route(status=503, body=b"<html><body>Try later</body></html>"),
        "/news/stall": Route(stall=STALL_SECONDS, body=build_article_html("Stalled").encode()),
        CANARY_PATH: Route(content_type="text/plain", body=b"CANARY-RESOLVED"),
        "/robots.txt": Route(status=404, content_type="text/plain", body=b""),
    }
    routes.update(build_feed_routes(base_url))
    routes.update(build_sitemap_routes(base_url))
    return routes


def listed_article_links(base_url: str) -> list[str]:
    """The article links the feed and the urlset list, duplicates and hostile ones included."""
    links = [base_url + case.path for case in build_article_cases()]
    links += [
        base_url + "/news/good-one?utm_source=newsletter&utm_medium=email",
        base_url + "/news/good-one#comments",
        base_url + "/news/good-one?fbclid=IwAR0abc&gclid=xyz",
        base_url + "/news/redirect-loop-a",
        base_url + "/news/redirect-to-metadata",
        base_url + "/news/gone",
        base_url + "/news/broken",
        base_url + "/news/unavailable",
        base_url + "/news/stall",
        "http://10.0.0.1/news/private-network",
        "http://127.0.0.2/news/other-loopback",
        "http://[::1]/news/ipv6-loopback",
        # 10.0.0.1 spelled so that only name resolution reveals it.
        "http://167772161/news/decimal-ip",
        "http://0x0a000001/news/hex-ip",
        # Fails to resolve locally (an empty label), without a DNS query.
        "http://a..b/news/unresolvable",
    ]
    return links


def build_rss(items: list[str]) -> bytes:
    """An RSS 2.0 feed with the given <item> bodies."""
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        "<title>Hostile Times</title><link>/</link><description>bad input</description>"
        + "".join(f"<item>{item}</item>" for item in items)
        + "</channel></rss>"
    ).encode()


def build_feed_routes(base_url: str) -> dict[str, Route]:
    """Good and hostile feeds."""
    rss = "application/rss+xml"
    items = [f"<title>Item {n}</title><link>{link}</link>"
             for n, link in enumerate(listed_article_links(base_url))]
    items.append("<title>Entry without a link</title><description>none</description>")
    items.append("<title>Relative link</title><link>/news/relative-link</link>")
    item_root = "<rss version='2.0'><channel><title>PAYLOAD</title><item><title>x</title>" \
        "<link>/news/from-attack</link><description>PAYLOAD</description></item></channel></rss>"
    return {
        "/feeds/main.xml": Route(content_type=rss, body=build_rss(items)),
        "/feeds/error-page.xml": Route(
            content_type="text/html",
            body=b"<html><head><title>502 Bad Gateway</title></head>"
            b"<body><h1>502 Bad Gateway</h1></body></html>",
        ),
        "/feeds/malformed.xml": Route(
            content_type=rss,
            body=b'<?xml version="1.0"?><rss version="2.0"><channel><title>Broken'
            b"<item><title>Unclosed <b>item</title><link>/news/good-two</link>"
            b"<item><link>/news/good-one</link></channel>",
        ),
        "/feeds/billion-laughs.xml": Route(content_type=rss, body=build_billion_laughs(item_root)),
        "/feeds/xxe.xml": Route(content_type=rss, body=build_xxe(item_root, base_url)),
        "/feeds/gone.xml": Route(status=404, content_type="text/html", body=b"Not found"),
        "/feeds/broken.xml": Route(status=500, content_type="text/html", body=b"Oops"),
        "/feeds/stall.xml": Route(content_type=rss, stall=STALL_SECONDS, body=build_rss([])),
        "/feeds/redirect-loop.xml": Route(
            status=301, headers=(("Location", "/feeds/redirect-loop.xml"),)
        ),
        "/news/relative-link": Route(body=build_article_html("Relative link").encode()),
        "/news/from-attack": Route(body=build_article_html("From attack").encode()),
    }


def feed_paths() -> list[str]:
    """The feeds the rss spider is given."""
    return [
        "/feeds/main.xml", "/feeds/error-page.xml", "/feeds/malformed.xml",
        "/feeds/billion-laughs.xml", "/feeds/xxe.xml", "/feeds/gone.xml", "/feeds/broken.xml",
        "/feeds/stall.xml", "/feeds/redirect-loop.xml",
    ]


def build_urlset(links: list[str]) -> bytes:
    """A sitemap urlset listing the links."""
    urls = "".join(f"<url><loc>{link.replace('&', '&amp;')}</loc></url>" for link in links)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    ).encode()


def build_sitemap_routes(base_url: str) -> dict[str, Route]:
    """A sitemap index whose children are one good urlset and every hostile sitemap."""
    xml = "application/xml"
    children = [
        "/sitemaps/urls.xml", "/sitemaps/bomb.xml.gz", "/sitemaps/billion-laughs.xml",
        "/sitemaps/xxe.xml", "/sitemaps/error-page.xml", "/sitemaps/malformed.xml",
        "/sitemaps/gone.xml", "/sitemaps/stall.xml",
    ]
    index = "".join(f"<sitemap><loc>{base_url}{path}</loc></sitemap>" for path in children)
    url_root = (
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{base_url}/news/from-attack?PAYLOAD</loc></url></urlset>"
    )
    return {
        "/sitemaps/index.xml": Route(
            content_type=xml,
            body=(
                '<?xml version="1.0"?><sitemapindex '
                f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{index}</sitemapindex>'
            ).encode(),
        ),
        "/sitemaps/urls.xml": Route(
            content_type=xml, body=build_urlset(listed_article_links(base_url))
        ),
        "/sitemaps/bomb.xml.gz": Route(content_type="application/x-gzip", body=build_gzip_bomb()),
        "/sitemaps/billion-laughs.xml": Route(
            content_type=xml, body=build_billion_laughs(url_root)
        ),
        "/sitemaps/xxe.xml": Route(content_type=xml, body=build_xxe(url_root, base_url)),
        "/sitemaps/error-page.xml": Route(
            content_type="text/html", body=b"<html><body><h1>Internal error</h1></body></html>"
        ),
        "/sitemaps/malformed.xml": Route(
            content_type=xml,
            body=b'<?xml version="1.0"?><urlset><url><loc>' + base_url.encode()
            + b"/news/good-two</loc><url><loc>",
        ),
        "/sitemaps/gone.xml": Route(status=404, content_type="text/html", body=b"Not found"),
        "/sitemaps/stall.xml": Route(content_type=xml, stall=STALL_SECONDS, body=build_urlset([])),
    }
