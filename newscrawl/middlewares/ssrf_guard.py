"""SsrfGuardMiddleware: refuse requests to private, loopback, link-local or reserved addresses."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.statscollectors import StatsCollector
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.web.client import URI

from newscrawl import settings as project_settings
from newscrawl.stats_keys import SSRF_GUARD_REFUSED, SSRF_GUARD_UNRESOLVED, count_event

logger = logging.getLogger(__name__)

ALLOWED_SCHEMES = frozenset({"http", "https"})

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class SsrfRefused(IgnoreRequest):
    """A request was refused because of where it would have gone."""


@dataclass(frozen=True)
class SsrfAllowlist:
    """Host names (exact, case-insensitive) and IP networks that may be fetched anyway."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IpNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> Self:
        """Build an allowlist from entries such as "127.0.0.1", "10.0.0.0/8" or "intranet.local"."""
        hosts: set[str] = set()
        networks: list[IpNetwork] = []
        for raw in entries:
            entry = raw.strip().strip("[]")
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(frozenset(hosts), tuple(networks))

    def allows_host(self, host: str) -> bool:
        """True when the host name itself is allowlisted."""
        return host.lower().rstrip(".") in self.hosts

    def allows_address(self, address: IpAddress) -> bool:
        """True when the address falls in an allowlisted network."""
        return any(address.version == n.version and address in n for n in self.networks)


def parse_ip_address(text: str) -> IpAddress | None:
    """The IP address a host string spells, or None for a host name."""
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


# IPv6 forms that carry an IPv4 address in their last 32 bits: IPv4-translated (RFC 2765),
# IPv4-compatible (deprecated; also holds :: and ::1) and the well-known NAT64 prefix, which
# a NAT64 gateway forwards to that IPv4 address (RFC 6052).
IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
NAT64_WELL_KNOWN = ipaddress.IPv6Network("64:ff9b::/96")
# Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the network's own
# prefix length, so none of it counts as public.
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
LOW_32_BITS = 0xFFFFFFFF


def find_embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to: mapped, translated, compatible, NAT64,
    6to4 (2002::/16) and both ends of Teredo (2001::/32)."""
    embedded: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        embedded.append(address.ipv4_mapped)
    if any(address in network for network in (IPV4_TRANSLATED, IPV4_COMPATIBLE, NAT64_WELL_KNOWN)):
        embedded.append(ipaddress.IPv4Address(int(address) & LOW_32_BITS))
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)
    return embedded


def is_public_address(address: IpAddress) -> bool:
    """True for a globally routable unicast address.

    An IPv6 address that carries an IPv4 address (mapped ::ffff:a.b.c.d, translated
    ::ffff:0:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4, Teredo) is public
    only when every IPv4 address it leads to is: on a NAT64 network 64:ff9b::127.0.0.1
    reaches 127.0.0.1.
    """
    if isinstance(address, ipaddress.IPv6Address):
        if address in NAT64_LOCAL:
            return False
        embedded = find_embedded_ipv4(address)
        if embedded:
            if not all(is_public_address(ipv4) for ipv4 in embedded):
                return False
            if address.ipv4_mapped is not None or address in IPV4_TRANSLATED:
                # An IPv4 address in IPv6 notation: the IPv4 verdict is the whole verdict.
                return True
    return address.is_global and not address.is_multicast


def read_twisted_host(url: str) -> str | None:
    """The host Twisted's HTTP client connects to for `url` (as `URI.fromBytes` reads it),
    brackets of an IPv6 literal removed, lower case; None when Twisted cannot read it."""
    try:
        host = URI.fromBytes(url.encode("ascii")).host.decode("ascii")
    except (UnicodeError, ValueError):
        return None
    return host.strip("[]").lower()


def find_refusal(url: str, allowlist: SsrfAllowlist, resolved: IpAddress | None) -> str | None:
    """Why the URL must not be fetched, or None when it may be.

    `resolved` is the address the host name resolves to (None for an IP literal, or when
    the name was not resolved).
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError as exc:  # a malformed IPv6 literal, say
        return f"unparsable URL ({exc})"
    if parts.scheme not in ALLOWED_SCHEMES:
        return f"scheme {parts.scheme!r} is not http(s)"
    if not host:
        return "no host"
    # The downloader does not parse netlocs as urllib does: it keeps userinfo in the host,
    # so http://127.0.0.2:80@127.0.0.1:80/ is one host here and another there. Judge only
    # URLs both read alike.
    twisted_host = read_twisted_host(url)
    if twisted_host != host.lower():
        return f"the downloader reads host {twisted_host!r}, not {host!r}"
    if allowlist.allows_host(host):
        return None
    literal = parse_ip_address(host)
    # Browsers decode %31%32%37.0.0.1 to 127.0.0.1; no legitimate news site needs that.
    if literal is None and "%" in host:
        return f"percent-encoded host {host}"
    address = literal or resolved
    if address is None or allowlist.allows_address(address) or is_public_address(address):
        return None
    return f"{host} resolves to non-public address {address}"


class SsrfGuardMiddleware:
    """Refuse feed, sitemap, article and redirect URLs that point inside the network.

    Redirected requests come back through process_request, so every hop is checked. Host
    names are resolved through the reactor's resolver: with Scrapy's default caching
    resolver the download then connects to the very address that was checked.
    """

    def __init__(self, allowlist: SsrfAllowlist, stats: StatsCollector) -> None:
        self.allowlist = allowlist
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool("NEWSCRAWL_SSRF_GUARD", project_settings.NEWSCRAWL_SSRF_GUARD):
            raise NotConfigured("the SSRF guard is off (NEWSCRAWL_SSRF_GUARD)")
        assert crawler.stats is not None
        allowlist = SsrfAllowlist.parse(settings.getlist(
            "NEWSCRAWL_SSRF_ALLOWLIST", project_settings.NEWSCRAWL_SSRF_ALLOWLIST
        ))
        return cls(allowlist, crawler.stats)

    async def process_request(self, request: Request) -> None:
        try:
            resolved = await self.resolve_host(request.url)
        except Exception as exc:
            # Fail closed: the download would look the name up again, and a second answer
            # may differ from the first (DNS rebinding). The lookup error goes on to the
            # retry middleware, which retries DNS failures as it would have anyway. Not
            # logged here: the spider names the DNS failure once, after the last retry.
            logger.debug("SSRF guard: %s does not resolve (%s)", request.url, exc)
            count_event(self.stats, SSRF_GUARD_UNRESOLVED)
            raise
        reason = find_refusal(request.url, self.allowlist, resolved)
        if reason is None:
            return None
        logger.warning(
            "SSRF guard refused %s: %s (allow it with NEWSCRAWL_SSRF_ALLOWLIST)",
            request.url, reason,
        )
        count_event(self.stats, SSRF_GUARD_REFUSED)
        raise SsrfRefused(f"SSRF guard refused {request.url}: {reason}")

    async def resolve_host(self, url: str) -> IpAddress | None:
        """The address the URL's host name resolves to; None when there is no name to resolve.

        Raises what the resolver raises when the name does not resolve.
        """
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError:
            return None  # find_refusal refuses it
        if (
            parts.scheme not in ALLOWED_SCHEMES
            or not host
            or self.allowlist.allows_host(host)
            or parse_ip_address(host) is not None
            or read_twisted_host(url) != host.lower()
        ):
            return None
        from twisted.internet import reactor

        installed: Any = reactor  # zope interfaces do not type-check as methods
        answer = await maybe_deferred_to_future(installed.resolve(host))
        return parse_ip_address(str(answer))
