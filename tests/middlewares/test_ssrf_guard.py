"""The SSRF guard's decisions, and the middleware on IP-literal URLs (no DNS needed)."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest
from scrapy import Request
from scrapy.exceptions import NotConfigured

from newscrawl.middlewares.ssrf_guard import (
    SsrfAllowlist,
    SsrfGuardMiddleware,
    SsrfRefused,
    find_refusal,
    is_public_address,
)
from tests.middlewares.building import build_middleware, stat

NOBODY = SsrfAllowlist()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/", "http://127.1.2.3:8080/x", "http://10.1.2.3/", "http://172.16.0.1/",
        "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/", "http://0.0.0.0/",
        "http://100.64.0.1/", "http://[::1]/", "http://[fe80::1]/", "http://[fc00::1]/",
        "http://[::ffff:127.0.0.1]/", "http://224.0.0.1/", "http://255.255.255.255/",
    ],
)
def test_private_loopback_link_local_and_reserved_literals_are_refused(url: str) -> None:
    assert find_refusal(url, NOBODY, None) is not None


@pytest.mark.parametrize("url", ["http://93.184.216.34/", "https://[2606:4700::1111]/a"])
def test_public_literals_pass(url: str) -> None:
    assert find_refusal(url, NOBODY, None) is None


def test_a_host_name_is_judged_by_the_address_it_resolves_to() -> None:
    loopback = ipaddress.ip_address("127.0.0.1")
    public = ipaddress.ip_address("93.184.216.34")
    assert find_refusal("http://news.example/", NOBODY, loopback) == (
        "news.example resolves to non-public address 127.0.0.1"
    )
    assert find_refusal("http://news.example/", NOBODY, public) is None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://[::1/", "unparsable URL"),
        ("http://%31%32%37.0.0.1/", "percent-encoded host"),
        ("http:///no-host", "no host"),
    ],
)
def test_malformed_and_disguised_hosts_are_refused(url: str, reason: str) -> None:
    assert reason in (find_refusal(url, NOBODY, None) or "")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://10.0.0.1/x", "gopher://x/"])
def test_other_schemes_are_refused(url: str) -> None:
    assert "is not http(s)" in (find_refusal(url, NOBODY, None) or "")


def test_allowlist_takes_networks_and_host_names() -> None:
    allowlist = SsrfAllowlist.parse(["127.0.0.1", "10.0.0.0/8", "Intranet.Example.", " "])
    assert find_refusal("http://127.0.0.1:8000/", allowlist, None) is None
    assert find_refusal("http://10.9.9.9/", allowlist, None) is None
    assert find_refusal("http://intranet.example/", allowlist, None) is None
    assert find_refusal("http://127.0.0.2/", allowlist, None) is not None
    resolved = ipaddress.ip_address("127.0.0.1")
    assert find_refusal("http://localhost/", allowlist, resolved) is None


def test_mapped_ipv4_is_judged_as_ipv4() -> None:
    assert not is_public_address(ipaddress.ip_address("::ffff:10.0.0.1"))
    assert is_public_address(ipaddress.ip_address("::ffff:93.184.216.34"))


@pytest.mark.parametrize(
    "url",
    [
        "http://[::127.0.0.2]/",  # IPv4-compatible
        "http://[::ffff:0:127.0.0.2]/",  # IPv4-translated
        "http://[::ffff:127.0.0.2]:8080/",  # IPv4-mapped
        "http://[64:ff9b::127.0.0.2]/",  # NAT64, well-known prefix
        "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1, hex spelling
        "http://[64:ff9b:1::5db8:d822]/",  # local-use NAT64: never public
        "http://[2002:7f00:2::]/",  # 6to4 of 127.0.0.2
        "http://[2002:a9fe:a9fe::1]/",  # 6to4 of 169.254.169.254
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
        "http://[::]/",
    ],
)
def test_ipv6_forms_of_refused_ipv4_addresses_are_refused(url: str) -> None:
    assert find_refusal(url, NOBODY, None) is not None


@pytest.mark.parametrize(
    "address", ["64:ff9b::5db8:d822", "2002:5db8:d822::1", "::ffff:0:5db8:d822"]
)
def test_ipv6_forms_of_public_ipv4_addresses_pass(address: str) -> None:
    assert is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.2:80@127.0.0.1:80/",
        "http://93.184.216.34:80@127.0.0.1/",
        "http://user@93.184.216.34/",
        "http://93.184.216.34:80:81/",
    ],
)
def test_urls_the_downloader_reads_differently_are_refused(url: str) -> None:
    assert "the downloader reads host" in (find_refusal(url, NOBODY, None) or "")


def test_the_middleware_refuses_logs_and_counts(caplog: pytest.LogCaptureFixture) -> None:
    guard, crawler = build_middleware(SsrfGuardMiddleware)
    with pytest.raises(SsrfRefused):
        asyncio.run(guard.process_request(Request("http://169.254.169.254/latest/")))
    assert stat(crawler, "newscrawl/ssrf_guard/refused") == 1
    assert "SSRF guard refused http://169.254.169.254/latest/" in caplog.text
    assert asyncio.run(guard.process_request(Request("http://93.184.216.34/"))) is None
    with pytest.raises(SsrfRefused):
        asyncio.run(guard.process_request(Request("http://127.0.0.2:1@127.0.0.1:1/")))
    with pytest.raises(SsrfRefused):
        asyncio.run(guard.process_request(Request("http://[64:ff9b::127.0.0.1]/")))
    assert stat(crawler, "newscrawl/ssrf_guard/refused") == 3


def test_the_allowlist_setting_is_read() -> None:
    guard, crawler = build_middleware(
        SsrfGuardMiddleware, {"NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1,10.0.0.0/8"}
    )
    assert asyncio.run(guard.process_request(Request("http://127.0.0.1:1/"))) is None
    assert asyncio.run(guard.process_request(Request("http://10.2.3.4/"))) is None
    assert stat(crawler, "newscrawl/ssrf_guard/refused") == 0


def test_switching_the_guard_off_names_the_setting() -> None:
    with pytest.raises(NotConfigured, match="NEWSCRAWL_SSRF_GUARD"):
        build_middleware(SsrfGuardMiddleware, {"NEWSCRAWL_SSRF_GUARD": False})
