"""declares_entities spots entity declarations in a document's prolog."""

from __future__ import annotations

from newscrawl.xml_entities import PROLOG_BYTES, declares_entities

LAUGHS = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "lol"><!ENTITY b "&a;&a;">]><r>&b;</r>'
XXE = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'


def test_entity_declarations_are_spotted() -> None:
    assert declares_entities(LAUGHS)
    assert declares_entities(XXE)


def test_plain_documents_and_entity_references_are_not() -> None:
    assert not declares_entities(b'<?xml version="1.0"?><rss><channel>&amp;</channel></rss>')
    assert not declares_entities(b"<!DOCTYPE html><html><body>ENTITY</body></html>")


def test_only_the_prolog_is_searched() -> None:
    late = b"<r>" + b" " * PROLOG_BYTES + b"<!ENTITY a 'x'></r>"
    assert not declares_entities(late)
