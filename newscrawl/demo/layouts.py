"""HTML of the demo sites: three distinct templates wrapping the gold text in realistic noise."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from html import escape

from newscrawl.demo.content import DemoArticle, DemoSite, build_comments

ADS = (
    "Save 40% on your first year of premium membership. Subscribe today.",
    "Holiday deals on flights to the coast. Book before Friday.",
    "Upgrade your kitchen: the spring catalogue is out now.",
)


def render_article_page(site: DemoSite, article: DemoArticle, base_url: str) -> str:
    """Return the article page of `article` in its site's template."""
    renderers: dict[str, Callable[[DemoSite, DemoArticle, str], str]] = {
        "ledger": render_ledger_article,
        "metro": render_metro_article,
        "courier": render_courier_article,
    }
    return renderers[site.layout](site, article, base_url)


def render_index_page(site: DemoSite, base_url: str, category: str | None = None) -> str:
    """Return the home page (or a section page) listing teasers, announcing the feeds."""
    articles = site.articles_in(category) if category else site.articles
    heading = category.title() if category else site.name
    feed_path = f"/{category}/rss.xml" if category else "/rss.xml"
    teasers = "".join(
        f'<div class="teaser"><h3><a href="{a.path}">{escape(a.title)}</a></h3>'
        f"<p>{escape(a.summary)}</p></div>"
        for a in articles[:20]
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(heading)} | {escape(site.name)}</title>"
        f'<link rel="alternate" type="application/rss+xml" title="RSS" href="{feed_path}">'
        f'<link rel="alternate" type="application/atom+xml" title="Atom" href="/atom.xml">'
        f"</head><body>{_plain_nav(site)}<h1>{escape(heading)}</h1>{teasers}</body></html>"
    )


def _plain_nav(site: DemoSite) -> str:
    items = "".join(f'<li><a href="/{c}/">{c.title()}</a></li>' for c in site.categories)
    return f'<nav><ul><li><a href="/">Home</a></li>{items}</ul></nav>'


def _slugify(text: str) -> str:
    return text.lower().replace(" ", "-")


def _page_rng(article: DemoArticle) -> random.Random:
    return random.Random(f"page/{article.site_key}/{article.path}")


def _related(site: DemoSite, article: DemoArticle, count: int) -> list[DemoArticle]:
    same = [a for a in site.articles_in(article.category) if a is not article]
    return _page_rng(article).sample(same, min(count, len(same)))


def _elsewhere(site: DemoSite, article: DemoArticle, count: int) -> list[DemoArticle]:
    others = [a for a in site.articles if a.category != article.category]
    return random.Random(f"elsewhere/{article.path}").sample(others, min(count, len(others)))


def _date_human(article: DemoArticle) -> str:
    return article.published.strftime("%d %B %Y, %H:%M")


def _authors_text(article: DemoArticle) -> str:
    return " and ".join(article.authors)


def render_ledger_article(site: DemoSite, article: DemoArticle, base_url: str) -> str:
    """Classic broadsheet: masthead nav, share bar, inline ad and read-more, sidebar, comments."""
    rng = _page_rng(article)
    url = base_url + article.path
    nav = "".join(
        f'<li class="nav-item"><a href="/{c}/">{c.title()}</a></li>' for c in site.categories
    )
    body_parts: list[str] = []
    related = _related(site, article, 4)
    for number, paragraph in enumerate(article.paragraphs, start=1):
        body_parts.append(f"<p>{escape(paragraph)}</p>")
        if number == 2:
            body_parts.append(
                f'<div class="ad ad-inline"><span class="ad-label">Advertisement</span>'
                f"<p>{escape(rng.choice(ADS))}</p></div>"
            )
        if number == 3 and related:
            body_parts.append(
                f'<p class="read-more"><strong>Read more:</strong> '
                f'<a href="{related[0].path}">{escape(related[0].title)}</a></p>'
            )
    most_read = "".join(
        f'<li><a href="{a.path}">{escape(a.title)}</a></li>' for a in _elsewhere(site, article, 5)
    )
    more = "".join(
        f'<div class="teaser"><h3><a href="{a.path}">{escape(a.title)}</a></h3>'
        f'<p class="teaser-summary">{escape(a.summary)}</p></div>'
        for a in related[1:]
    )
    comments = "".join(
        f'<div class="comment"><p class="comment-author">{escape(name)}</p>'
        f'<p class="comment-text">{escape(text)}</p></div>'
        for name, text in build_comments(rng, rng.randint(0, 4))
    )
    tags = "".join(f'<a href="/tag/{_slugify(k)}">{escape(k)}</a> ' for k in article.keywords)
    authors = ", ".join(
        f'<a rel="author" href="/authors/{_slugify(a)}">{escape(a)}</a>'
        for a in article.authors
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{escape(article.title)} | {escape(site.name)}</title>
<meta name="description" content="{escape(article.summary)}">
<meta property="og:title" content="{escape(article.title)}">
<meta property="og:type" content="article">
<meta property="article:published_time" content="{article.published.isoformat()}">
<link rel="canonical" href="{escape(url)}">
<link rel="alternate" type="application/rss+xml" href="/{article.category}/rss.xml">
<style>body{{font-family:Georgia,serif}} .ad{{background:#eee}}</style>
</head><body>
<div id="page">
<header class="masthead"><a class="logo" href="/">{escape(site.name)}</a>
<nav class="main-nav"><ul><li class="nav-item"><a href="/">Home</a></li>{nav}</ul></nav>
<div class="ticker">Markets close mixed as traders await the central bank decision.</div>
</header>
<div class="ad ad-leaderboard"><span class="ad-label">Advertisement</span></div>
<div class="content-wrap">
<main>
<article class="story">
<p class="kicker"><a href="/{article.category}/">{article.category.title()}</a></p>
<h1 class="headline">{escape(article.title)}</h1>
<div class="byline">By {authors} &middot;
<time datetime="{article.published.isoformat()}">{_date_human(article)}</time></div>
<div class="share-bar"><a href="#">Share on Facebook</a> <a href="#">Share on X</a>
<a href="#">Email this story</a> <a href="#">Print</a></div>
<div class="story-body">
{"".join(body_parts)}
</div>
<div class="tags">Topics: {tags}</div>
</article>
<section class="comments"><h3>Comments</h3>{comments}
<p class="comments-note">Comments are moderated and may take a while to appear.</p></section>
</main>
<aside class="sidebar"><div class="most-read"><h3>Most read</h3><ol>{most_read}</ol></div>
<div class="ad ad-mpu"><span class="ad-label">Advertisement</span><p>{escape(ADS[0])}</p></div>
</aside>
</div>
<section class="more-stories"><h2>More from {article.category.title()}</h2>{more}</section>
<footer class="site-footer"><ul><li><a href="/about">About us</a></li>
<li><a href="/contact">Contact</a></li><li><a href="/privacy">Privacy policy</a></li>
<li><a href="/terms">Terms of use</a></li></ul>
<p>&copy; 2026 {escape(site.name)}. All rights reserved. Reproduction without permission is
prohibited. Our journalism is funded by readers like you.</p></footer>
</div></body></html>"""


def render_metro_article(site: DemoSite, article: DemoArticle, base_url: str) -> str:
    """Tabloid div soup: teaser column first, lead figure, no <time>, plain-text byline."""
    rng = _page_rng(article)
    nav = " | ".join(
        f'<a class="mw-nav-link" href="/{c}/">{c.upper()}</a>' for c in site.categories
    )
    teasers = "".join(
        f'<div class="mw-card"><a class="mw-card-title" href="{a.path}">{escape(a.title)}</a>'
        f'<div class="mw-card-sum">{escape(a.summary)}</div></div>'
        for a in _elsewhere(site, article, 3)
    )
    paragraphs = []
    for number, paragraph in enumerate(article.paragraphs):
        text = escape(paragraph)
        if number == 1:
            # An inline link inside the article text, as real copy has.
            word = article.keywords[2]
            text = text.replace(word, f'<a href="/tag/{_slugify(word)}">{word}</a>', 1)
        paragraphs.append(f'<p class="mw-p">{text}</p>')
    related = "".join(
        f'<li><a href="{a.path}">{escape(a.title)}</a></li>' for a in _related(site, article, 5)
    )
    comments = "".join(
        f'<div class="mw-cmt"><b>{escape(name)}</b> wrote:<div class="mw-cmt-body">'
        f"{escape(text)}</div></div>"
        for name, text in build_comments(rng, rng.randint(1, 5))
    )
    return f"""<!DOCTYPE html>
<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>{escape(site.name)} - {escape(article.title)}</title>
<meta name="author" content="{escape(_authors_text(article))}">
<meta name="date" content="{article.published.isoformat()}">
</head><body class="mw">
<div class="mw-top"><div class="mw-brand">{escape(site.name.upper())}</div>
<div class="mw-nav"><a class="mw-nav-link" href="/">HOME</a> | {nav}</div>
<div class="mw-weather">Today: 14&deg;C, light rain. Tomorrow: sunny spells.</div></div>
<div class="mw-promo">Subscribe to Metro Wire for just 1 euro a week!</div>
<div class="mw-wrap">
<div class="mw-left"><div class="mw-left-title">TRENDING NOW</div>{teasers}
<div class="mw-ad">{escape(ADS[1])}</div></div>
<div class="mw-main">
<div class="mw-crumbs"><a href="/">Home</a> &gt; <a href="/{article.category}/">
{article.category.title()}</a></div>
<h1 class="mw-title">{escape(article.title)}</h1>
<div class="mw-meta"><span class="mw-auth">By {escape(_authors_text(article))}</span>
<span class="mw-dt">Published {_date_human(article)}</span></div>
<div class="mw-fig"><img src="/img/{article.slug}.jpg" alt="">
<div class="mw-cap">Photo: Metro Wire archive</div></div>
<div class="mw-txt">{"".join(paragraphs)}</div>
<div class="mw-share">SHARE: Facebook | X | WhatsApp | Copy link</div>
<div class="mw-related"><div class="mw-related-title">RELATED STORIES</div><ul>{related}</ul></div>
<div class="mw-comments"><div class="mw-comments-title">READER COMMENTS</div>{comments}</div>
</div></div>
<div class="mw-foot">Metro Wire is published by Metro Media Group. Registered office: 12 Harbour
Street, Port Elena. Editor: Nadia Petrova. <a href="/advertise">Advertise with us</a> |
<a href="/jobs">Jobs</a> | <a href="/privacy">Privacy</a></div>
</body></html>"""


def render_courier_article(site: DemoSite, article: DemoArticle, base_url: str) -> str:
    """Modern HTML5: JSON-LD and og meta, cookie banner, newsletter box, related cards."""
    rng = _page_rng(article)
    url = base_url + article.path
    json_ld = json.dumps(
        {
            "@context": "https://schema.org",
            "@type": "NewsArticle",
            "headline": article.title,
            "datePublished": article.published.isoformat(),
            "author": [{"@type": "Person", "name": a} for a in article.authors],
            "publisher": {"@type": "Organization", "name": site.name},
            "mainEntityOfPage": url,
        }
    )
    nav = "".join(
        f'<li><a class="nav__link" href="/{c}/">{c.title()}</a></li>' for c in site.categories
    )
    body = "".join(f"<p>{escape(p)}</p>" for p in article.paragraphs)
    cards = "".join(
        f'<li class="card"><a class="card__link" href="{a.path}"><h3 class="card__title">'
        f'{escape(a.title)}</h3><p class="card__dek">{escape(a.summary)}</p></a></li>'
        for a in _related(site, article, 3)
    )
    comments = "".join(
        f'<li class="reply"><header class="reply__who">{escape(name)}</header>'
        f'<p class="reply__text">{escape(text)}</p></li>'
        for name, text in build_comments(rng, rng.randint(0, 3))
    )
    return f"""<!DOCTYPE html>
<html lang="en-GB"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(article.title)} &mdash; {escape(site.name)}</title>
<meta property="og:title" content="{escape(article.title)}">
<meta property="og:url" content="{escape(url)}">
<meta property="og:site_name" content="{escape(site.name)}">
<meta property="og:image" content="{escape(base_url)}/img/{article.slug}.jpg">
<script type="application/ld+json">{json_ld}</script>
<script>window.dataLayer = window.dataLayer || [];
dataLayer.push({{"section": "{article.category}"}});</script>
</head><body>
<div class="cookie-banner" role="dialog"><p>We use cookies to improve your experience, to
measure audiences and to show you relevant advertising. You can change your choices at any time
in the privacy centre.</p><button>Accept all</button><button>Manage choices</button></div>
<header class="site-header"><a class="brand" href="/">{escape(site.name)}</a>
<nav class="nav" aria-label="Sections"><ul class="nav__list">{nav}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search"></form></header>
<main id="content">
<article class="article">
<header class="article__header">
<a class="article__section" href="/{article.category}/">{article.category.title()}</a>
<h1 class="article__title">{escape(article.title)}</h1>
<p class="article__meta"><span class="article__authors">{escape(_authors_text(article))}</span>
<time class="article__date" datetime="{article.published.isoformat()}">
{_date_human(article)}</time></p>
</header>
<figure class="article__image"><img src="/img/{article.slug}.jpg" alt="">
<figcaption>Illustration: {escape(site.name)}</figcaption></figure>
<section class="article__body">{body}</section>
<aside class="newsletter"><h2>Get the Courier briefing</h2><p>The week in science and gadgets,
every Friday in your inbox. No spam, unsubscribe at any time.</p>
<form><input type="email" placeholder="you@example.com"><button>Sign up</button></form></aside>
</article>
<section class="related"><h2>Related</h2><ul class="cards">{cards}</ul></section>
<section class="discussion"><h2>Discussion</h2><ol class="replies">{comments}</ol></section>
</main>
<footer class="site-footer"><p>{escape(site.name)} &middot; Independent science journalism since
1998.</p><ul><li><a href="/about">About</a></li><li><a href="/ethics">Ethics policy</a></li>
<li><a href="/corrections">Corrections</a></li></ul></footer>
</body></html>"""
