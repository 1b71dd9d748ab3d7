"""Fetch one page for `newscrawl extract URL`, under the crawl's SSRF rules and user agent."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.client import HTTPMessage
from typing import IO, Any
from urllib.parse import urlsplit

from scrapy.settings import Settings

from newscrawl.middlewares.ssrf_guard import SsrfAllowlist, find_refusal, parse_ip_address


class PageFetchError(Exception):
    """The page could not be fetched; the message is one line for the user."""


@dataclass(frozen=True)
class FetchRules:
    """What the crawl's settings say about fetching: user agent, SSRF guard, size and time."""

    user_agent: str
    allowlist: SsrfAllowlist
    guard: bool
    max_bytes: int
    timeout: float

    @classmethod
    def from_settings(cls, settings: Settings, extra_allowed: list[str]) -> FetchRules:
        entries = [*settings.getlist("NEWSCRAWL_SSRF_ALLOWLIST"), *extra_allowed]
        return cls(
            user_agent=settings.get("USER_AGENT"),
            allowlist=SsrfAllowlist.parse(entries),
            guard=settings.getbool("NEWSCRAWL_SSRF_GUARD"),
            max_bytes=settings.getint("DOWNLOAD_MAXSIZE"),
            timeout=settings.getfloat("DOWNLOAD_TIMEOUT"),
        )


@dataclass(frozen=True)
class FetchedPage:
    """A page's body and the URL it finally came from (after redirects)."""

    url: str
    body: bytes


def check_url(url: str, rules: FetchRules) -> None:
    """Refuse the URL as the SSRF guard would, judging every address its host resolves to."""
    if not rules.guard:
        return
    refusal = find_refusal(url, rules.allowlist, None)
    if refusal is None:
        host = urlsplit(url).hostname or ""
        if parse_ip_address(host) is None and not rules.allowlist.allows_host(host):
            for address in _resolve(host, urlsplit(url).port):
                refusal = find_refusal(url, rules.allowlist, parse_ip_address(address))
                if refusal is not None:
                    break
    if refusal is not None:
        raise PageFetchError(
            f"refused {url}: {refusal} (allow it with --allow-host or NEWSCRAWL_SSRF_ALLOWLIST)"
        )


def fetch_page(url: str, rules: FetchRules) -> FetchedPage:
    """GET the page, checking the URL and every redirect before following it."""
    check_url(url, rules)
    opener = urllib.request.build_opener(_GuardedRedirects(rules))
    request = urllib.request.Request(url, headers={"User-Agent": rules.user_agent})
    try:
        with opener.open(request, timeout=rules.timeout) as response:
            body = _read_capped(response, rules.max_bytes, url)
            return FetchedPage(url=response.geturl(), body=body)
    except urllib.error.HTTPError as exc:
        exc.close()
        raise PageFetchError(f"{url} answered HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, PageFetchError):
            raise exc.reason from None
        raise PageFetchError(f"cannot fetch {url}: {exc.reason}") from None
    except (TimeoutError, OSError) as exc:
        raise PageFetchError(f"cannot fetch {url}: {exc}") from None


def _resolve(host: str, port: int | None) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port or 80, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        raise PageFetchError(f"cannot resolve {host}: {exc.strerror or exc}") from None
    return [str(info[4][0]) for info in infos]


def _read_capped(response: IO[bytes], max_bytes: int, url: str) -> bytes:
    body = response.read(max_bytes + 1) if max_bytes else response.read()
    if max_bytes and len(body) > max_bytes:
        raise PageFetchError(f"{url} is larger than DOWNLOAD_MAXSIZE ({max_bytes} bytes)")
    return body


class _GuardedRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to a URL the guard accepts."""

    def __init__(self, rules: FetchRules) -> None:
        self.rules = rules

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
        headers: HTTPMessage, newurl: str,
    ) -> Any:
        try:
            check_url(newurl, self.rules)
        except PageFetchError as exc:
            fp.close()  # the redirect's own response, which urllib closes only when following
            raise urllib.error.URLError(exc) from None
        return super().redirect_request(req, fp, code, msg, headers, newurl)
