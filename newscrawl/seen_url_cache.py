"""A bounded LRU of article URLs known to be fetched or scheduled, in front of the database."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable


class SeenUrlCache:
    """Remembers at most `capacity` URLs; the least recently seen are forgotten first.

    Forgetting is safe: the database still knows every fetched URL. The cache only spares
    it queries for the entries a feed repeats poll after poll, and covers URLs that are
    scheduled but not stored yet.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError("capacity must be >= 0")
        self.capacity = capacity
        self._urls: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._urls)

    def __contains__(self, url: object) -> bool:
        return url in self._urls

    def split_unknown(self, urls: Iterable[str]) -> list[str]:
        """The URLs not in the cache, in order and once each; cached ones count as recent."""
        unknown: list[str] = []
        for url in dict.fromkeys(urls):
            if url in self._urls:
                self._urls.move_to_end(url)
            else:
                unknown.append(url)
        return unknown

    def add(self, urls: Iterable[str]) -> None:
        """Remember URLs, forgetting the oldest beyond the capacity."""
        for url in urls:
            self._urls[url] = None
            self._urls.move_to_end(url)
        while len(self._urls) > self.capacity:
            self._urls.popitem(last=False)

    def discard(self, urls: Iterable[str]) -> None:
        """Forget URLs, e.g. when checking them failed and they must be checked again."""
        for url in urls:
            self._urls.pop(url, None)
