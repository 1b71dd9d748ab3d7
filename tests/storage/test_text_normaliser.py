from __future__ import annotations

import pytest

from newscrawl.storage.text_normaliser import normalise_text, normalise_value


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("plain ASCII title", "plain ASCII title"),
        ("nul\x00inside", "nulinside"),
        ("http://x.test/\ud83d.jpg", "http://x.test/\ufffd.jpg"),
        ("\ud83d\ude00 pair", "\U0001f600 pair"),
        ("\udc00\ud83d", "\ufffd\ufffd"),
        ("\x1b[1;31mRed\x1b[0m", "Red"),
        ("\x1b]0;window title\x07after", "after"),
        ("bell\x07 and\x0b vt\x7f del\x85 nel", "bell and vt del nel"),
        ("keeps\ttab\nand newline", "keeps\ttab\nand newline"),
        ("crlf\r\nand cr\rend", "crlf\nand cr\nend"),
        ("cafe\u0301", "caf\u00e9"),
        ("\u00e9t\u00e9", "\u00e9t\u00e9"),
    ],
)
def test_normalise_text(raw: str, stored: str) -> None:
    assert normalise_text(raw) == stored
    # Idempotent: a stored value read back and written again stays the same.
    assert normalise_text(stored) == stored


def test_normalise_value_reaches_into_lists_and_dicts() -> None:
    value = {"k\x00ey": ["a\x00", 3, None, ("\ud800",)], "n": 1.5}
    assert normalise_value(value) == {"key": ["a", 3, None, ["\ufffd"]], "n": 1.5}
