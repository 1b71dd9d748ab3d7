"""A loopback news site whose feed grows one entry per poll, plus a broken feed; logs requests."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer

from newscrawl.demo.serving import TextRequestHandler

WORDS = (
    "council", "harbour", "plan", "members", "report", "costs", "timing", "fishing", "fleet",
    "vote", "residents", "mayor", "budget", "school", "bridge", "river", "market", "traders",
    "weather", "storm", "festival", "museum", "library", "railway", "station", "hospital",
    "nurses", "teachers", "farmers", "prices", "housing", "tenants", "police",
)


class GrowingFeedServer(ThreadingHTTPServer):
    """/feed.xml lists `initial` articles, then one more each time it is fetched (no ETag,
    so every poll is a full 200); /broken.xml always fails with 500."""

    daemon_threads = True

    def __init__(self, initial: int = 3) -> None:
        super().__init__(("127.0.0.1", 0), LoggingFeedHandler)
        self.initial = initial
        self.feed_polls = 0
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def next_feed_size(self) -> int:
        """Entries in the feed for this poll: one more than the last time."""
        with self.lock:
            size = self.initial + self.feed_polls
            self.feed_polls += 1
            return size

    def article_requests(self) -> Counter[str]:
        """How often each article page was fetched."""
        with self.lock:
            return Counter({p: n for p, n in self.requests.items() if p.startswith("/news/")})


class LoggingFeedHandler(TextRequestHandler):
    """Serve the growing feed, its articles and the broken feed."""

    server: GrowingFeedServer

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        with self.server.lock:
            self.server.requests[self.path] += 1
        if self.path == "/feed.xml":
            self.send_text(200, "application/rss+xml", render_feed(self.server.next_feed_size()))
        elif self.path.startswith("/news/") and self.path.endswith(".html"):
            self.send_text(200, "text/html; charset=utf-8", render_article(self.path))
        elif self.path == "/broken.xml":
            self.send_text(500, "text/plain", "broken")
        else:
            self.send_text(404, "text/plain", "not found")


def render_feed(size: int) -> str:
    """An RSS feed of the `size` newest articles, newest first."""
    items = "".join(
        f"<item><title>Story {n}</title><link>/news/story-{n}.html</link></item>"
        for n in range(size, 0, -1)
    )
    channel = f"<channel><title>Loopback</title>{items}</channel>"
    return f'<?xml version="1.0"?><rss version="2.0">{channel}</rss>'


def render_article(path: str) -> str:
    """An article page whose paragraphs differ from story to story, as real ones do."""
    title = path.rsplit("/", 1)[-1].removesuffix(".html").replace("-", " ").title()
    rng = random.Random(path)
    paragraphs = "".join(
        "<p>" + " ".join(rng.choice(WORDS) for _ in range(40)).capitalize() + ".</p>"
        for _ in range(5)
    )
    return (
        f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<article><h1>{title}</h1>{paragraphs}</article>"
        "<footer>(c) Loopback</footer></body></html>"
    )


@contextmanager
def serve_growing_feed(initial: int = 3) -> Iterator[GrowingFeedServer]:
    """Run a GrowingFeedServer in a daemon thread."""
    server = GrowingFeedServer(initial)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
