"""Name a failed fetch for the log: an HTTP status, a DNS failure, a refused connection..."""

from __future__ import annotations

from http import HTTPStatus
from urllib.parse import urlsplit

from scrapy.exceptions import CannotResolveHostError, DownloadConnectionRefusedError
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet.error import ConnectionRefusedError as TxConnectionRefusedError
from twisted.internet.error import DNSLookupError


def describe_http_status(status: int) -> str:
    """"HTTP 404 Not Found"; the bare number for a status without a standard phrase."""
    try:
        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def describe_fetch_error(error: BaseException | None, url: str | None = None) -> str:
    """What went wrong fetching `url`, in a few words users recognise."""
    if error is None:
        return "unknown error"
    host = urlsplit(url).netloc if url else ""
    if isinstance(error, HttpError):
        return describe_http_status(error.response.status)
    if isinstance(error, CannotResolveHostError | DNSLookupError):
        return f"DNS lookup failed: no address for {host}" if host else "DNS lookup failed"
    if isinstance(error, DownloadConnectionRefusedError | TxConnectionRefusedError):
        return f"connection refused by {host}" if host else "connection refused"
    # Timeouts and the rest: their own messages already say what happened.
    return str(error) or type(error).__name__
