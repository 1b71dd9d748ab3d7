"""Property tests: the middlewares' pure decisions never raise on arbitrary input."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.middlewares.response_guard import decode_mixed_utf8, find_body_problem
from newscrawl.middlewares.ssrf_guard import SsrfAllowlist, find_refusal
from newscrawl.middlewares.tracking_params import DEFAULT_TRACKING_PARAMS, remove_tracking_params

PROPERTY_SETTINGS = settings(max_examples=300, deadline=None)

names = st.sampled_from(["id", "page", "utm_source", "utm_x", "fbclid", "gclid", "q", "ref"])
values = st.text(alphabet="abcXYZ019-_.%", max_size=8)
queries = st.lists(st.tuples(names, values), max_size=6)
fragments = st.one_of(st.just(""), st.text(alphabet="abc#/!", max_size=6).map(lambda f: "#" + f))


@PROPERTY_SETTINGS
@given(queries, fragments)
def test_tracking_removal_keeps_other_params_in_order_and_is_idempotent(
    query: list[tuple[str, str]], fragment: str
) -> None:
    url = "https://n.example/a/b" + ("?" + "&".join(f"{k}={v}" for k, v in query)) * bool(
        query
    ) + fragment
    clean = remove_tracking_params(url)
    assert "#" not in clean
    assert remove_tracking_params(clean) == clean
    kept = [k for k, _ in parse_qsl(urlsplit(clean).query, keep_blank_values=True)]
    expected = [k for k, _ in parse_qsl(urlsplit(url.split("#")[0]).query, keep_blank_values=True)
                if k not in ("fbclid", "gclid") and not k.startswith("utm_")]
    assert kept == expected
    assert DEFAULT_TRACKING_PARAMS  # the defaults are what this test strips


@PROPERTY_SETTINGS
@given(st.one_of(st.text(max_size=60), st.text(max_size=40).map(lambda t: "http://" + t)))
def test_find_refusal_never_raises(url: str) -> None:
    reason = find_refusal(url, SsrfAllowlist(), None)
    if not url.startswith(("http://", "https://")):
        assert reason is not None


@PROPERTY_SETTINGS
@given(st.binary(max_size=300))
def test_body_checks_never_raise(body: bytes) -> None:
    find_body_problem(body)
    decoded = decode_mixed_utf8(body)
    try:
        strict = body.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert decoded == strict
