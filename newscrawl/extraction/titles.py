"""A title given by the caller (a feed, a news sitemap) as plain text."""

from __future__ import annotations

import html

from w3lib.html import remove_tags


def plain_title(title: str) -> str:
    """Unescape the title's entities once, strip its markup and collapse its whitespace.

    Feeds carry titles as HTML (`Q&amp;A`, `It&#8217;s`, `&lt;i&gt;Italic&lt;/i&gt;`), and
    a title must be what a reader sees. Markup is stripped before and after unescaping, so
    escaped tags go as well.
    """
    text = remove_tags(html.unescape(remove_tags(title))) if "<" in title or "&" in title else title
    return " ".join(text.split())
