"""Peer extractors measured beside ours: optional benchmark dependencies, imported lazily."""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import lxml.etree
import lxml.html

from newscrawl.evaluation.errors import PeerUnavailableError

PEER_NAMES = ("trafilatura", "readability")
_BLOCK_TAGS = frozenset(
    {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "td", "th",
     "tr", "section", "article", "figcaption", "dd", "dt"}
)


@dataclass(frozen=True)
class PeerExtractor:
    """A named peer: `extract_text(html, url, title)` returns the article's plain text."""

    name: str
    extract_text: Callable[[bytes, str | None, str | None], str]
    version: str = ""


def _import(module: str, peer: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise PeerUnavailableError(
            f"peer {peer!r} needs the {module!r} package: pip install 'newscrawl[bench]'"
        ) from exc


def _package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return ""


def _trafilatura_peer() -> PeerExtractor:
    trafilatura = _import("trafilatura", "trafilatura")

    def extract_text(html: bytes, url: str | None, title: str | None) -> str:
        # Comments are never part of the gold texts; leaving them in would handicap the peer.
        return trafilatura.extract(html, url=url, include_comments=False) or ""

    return PeerExtractor("trafilatura", extract_text, _package_version("trafilatura"))


def html_to_text(html: str) -> str:
    """Turn a peer's HTML output into text with one blank line between blocks."""
    if not html.strip():
        return ""
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    blocks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = " ".join("".join(current).split())
        if text:
            blocks.append(text)
        current.clear()

    for event, element in lxml.etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in _BLOCK_TAGS:
                flush()
            if tag not in {"script", "style"} and element.text:
                current.append(element.text)
        else:
            if tag in _BLOCK_TAGS or tag == "br":
                flush()
            if element.tail and element is not root:
                current.append(element.tail)
    flush()
    return "\n\n".join(blocks)


def _readability_peer() -> PeerExtractor:
    readability = _import("readability", "readability")

    def extract_text(html: bytes, url: str | None, title: str | None) -> str:
        summary = readability.Document(html, url=url).summary(html_partial=True)
        return html_to_text(summary)

    return PeerExtractor("readability", extract_text, _package_version("readability-lxml"))


_FACTORIES: dict[str, Callable[[], PeerExtractor]] = {
    "trafilatura": _trafilatura_peer,
    "readability": _readability_peer,
}


def load_peers(names: list[str]) -> list[PeerExtractor]:
    """Load the named peers; raise PeerUnavailableError for unknown or missing ones."""
    peers: list[PeerExtractor] = []
    for name in names:
        factory = _FACTORIES.get(name.strip().lower())
        if factory is None:
            raise PeerUnavailableError(f"unknown peer {name!r}; known: {', '.join(PEER_NAMES)}")
        peers.append(factory())
    return peers
