"""A demo network whose feeds keep publishing, for long re-polling crawls (bench/soak.py).

Every fetch of a category feed publishes `batch` new articles of that category and lists the
newest `window` ones, so a re-polling crawl finds new entries (and some known ones) at each
poll, at the pace it polls. Articles are generated from their index on request, as
`build_network` would generate them, so the server's memory does not grow with the crawl.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer

from newscrawl.demo.content import DemoArticle, DemoSite, build_article, build_network
from newscrawl.demo.layouts import render_article_page
from newscrawl.demo.serving import ServerGroup, TextRequestHandler
from newscrawl.demo.syndication import render_robots, render_rss

_ARTICLE_PATH = re.compile(r"^/(?P<category>[a-z]+)/(?P<slug>[a-z0-9-]+-(?P<index>\d+))\.html$")
_FEED_PATH = re.compile(r"^/(?P<category>[a-z]+)/rss\.xml$")


@dataclass(frozen=True)
class PublishingPlan:
    """How fast the feeds publish: per fetch of a feed, and in total per feed."""

    batch: int = 20
    window: int = 40
    # No feed publishes beyond this many articles (None: without end).
    limit_per_feed: int | None = None
    seed: int = 2026


@dataclass
class PublishingFeed:
    """The publication state of one category feed; shared by the server's threads."""

    published: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class PublishingSiteServer(ThreadingHTTPServer):
    """One demo site whose category feeds publish on every fetch."""

    daemon_threads = True

    def __init__(self, site: DemoSite, plan: PublishingPlan, host: str) -> None:
        super().__init__((host, 0), PublishingRequestHandler)
        # The static site lends its layout, name and related links to the generated pages.
        self.site = site
        self.plan = plan
        self.base_url = f"http://{host}:{self.server_address[1]}"
        self.feeds = {category: PublishingFeed() for category in site.categories}

    def publish(self, category: str) -> list[DemoArticle]:
        """Publish the next batch of a category; return the newest `window` articles."""
        feed = self.feeds[category]
        with feed.lock:
            published = feed.published + self.plan.batch
            if self.plan.limit_per_feed is not None:
                published = min(published, self.plan.limit_per_feed)
            feed.published = published
        first = max(0, published - self.plan.window)
        return [self.generate(category, index) for index in range(published - 1, first - 1, -1)]

    def generate(self, category: str, index: int) -> DemoArticle:
        """The article `index` of a category, exactly as `build_network` generates it."""
        rng = random.Random(f"{self.plan.seed}/{self.site.key}/{category}/{index}")
        return build_article(rng, self.site.key, category, index)

    def find_published(self, path: str) -> DemoArticle | None:
        """The published article served at `path`, if any."""
        match = _ARTICLE_PATH.match(path)
        if match is None or match["category"] not in self.feeds:
            return None
        index = int(match["index"])
        if index >= self.feeds[match["category"]].published:
            return None
        article = self.generate(match["category"], index)
        return article if article.path == path else None


class PublishingRequestHandler(TextRequestHandler):
    """Serve robots.txt, the publishing category feeds and their article pages."""

    server: PublishingSiteServer

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        server = self.server
        path = self.path.split("?", 1)[0]
        if path == "/robots.txt":
            self.send_text(200, "text/plain; charset=utf-8", render_robots(server.base_url))
            return
        feed = _FEED_PATH.match(path)
        if feed is not None and feed["category"] in server.feeds:
            newest = server.publish(feed["category"])
            site = DemoSite(
                server.site.key,
                server.site.name,
                server.site.layout,
                server.site.categories,
                tuple(newest),
            )
            rss = render_rss(site, server.base_url, feed["category"])
            self.send_text(200, "application/rss+xml; charset=utf-8", rss)
            return
        article = server.find_published(path)
        if article is None:
            self.send_text(404, "text/plain; charset=utf-8", "not found")
            return
        page = render_article_page(server.site, article, server.base_url)
        self.send_text(200, "text/html; charset=utf-8", page)


class PublishingNetworkServer(ServerGroup[PublishingSiteServer]):
    """The demo sites on loopback, each with category feeds that keep publishing."""

    def __init__(
        self,
        plan: PublishingPlan | None = None,
        sites: Sequence[DemoSite] | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.plan = plan or PublishingPlan()
        self.sites = tuple(sites) if sites is not None else build_network(self.plan.seed)
        super().__init__()
        self.host = host

    def start(self) -> None:
        """Bind every site to a free port and serve in daemon threads."""
        for site in self.sites:
            server = PublishingSiteServer(site, self.plan, self.host)
            self.serve(server, f"publishing-{site.key}")

    def feed_lines(self) -> list[str]:
        """Lines of a feeds file: every category feed of every site, category after a tab."""
        return [
            f"{server.base_url}/{category}/rss.xml\t{category}"
            for server in self._servers
            for category in server.site.categories
        ]

    def published_total(self) -> int:
        """Articles published so far across the network."""
        return sum(feed.published for server in self._servers for feed in server.feeds.values())

    def published_urls(self) -> set[str]:
        """The URL of every article published so far."""
        return {
            server.base_url + server.generate(category, index).path
            for server in self._servers
            for category, feed in server.feeds.items()
            for index in range(feed.published)
        }
