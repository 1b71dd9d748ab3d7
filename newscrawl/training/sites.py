"""One key per site across the dev sets, so that a model can be kept from a page's site.

The sets name sites differently: Big9 by brand ("bbc"), chaos and cleanportaleval by host
("bbc.co.uk"), fundus-dev by publisher ("BBC", with the page's URL). The key is the
registrable domain's name without its public suffix ("bbc" for all three), from the page's
URL when it has one.
"""

from __future__ import annotations

from functools import cache
from urllib.parse import urlsplit

import tldextract


@cache
def _extractor() -> tldextract.TLDExtract:
    # The public suffix list shipped with tldextract: no network, no cache directory.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def site_key(dataset: str, page_id: str, site: str, url: str | None) -> str:
    """The site's name ("bbc"); a page of unknown site gets a key of its own."""
    host = urlsplit(url).hostname if url else None
    if not host and "." in site:
        host = site
    if host:
        parts = _extractor()(host.lower())
        if parts.domain and parts.suffix:
            return parts.domain
        # No public suffix (an intranet or test host): the host itself is the site.
        return host.lower().removeprefix("www.")
    if site and site not in {dataset, "unknown"}:
        return site.lower()
    # dragnet and l3s-gn1 name the dataset where the page names no address.
    return f"{dataset}/{page_id}"
