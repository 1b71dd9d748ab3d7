"""The one normal form of every string the store keeps, whichever the database.

PostgreSQL refuses NUL and lone surrogates that SQLite would keep, and control characters or
terminal escapes in a title reach whoever prints it. Every stored string goes through
`normalise_text` (by the column types in storage/types.py), so both backends keep the same:
- surrogate pairs joined, lone surrogates replaced by U+FFFD;
- ANSI/VT100 escape sequences removed whole, then every other C0/C1 control character
  except tab and newline; a carriage return becomes a newline;
- NFC, the form the web and most keyboards already produce.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

REPLACEMENT_CHARACTER = "\ufffd"
SURROGATES = re.compile("[\ud800-\udfff]")
# CSI (ESC [ or C1 CSI) with its parameters, OSC up to BEL or ST, then two-byte escapes.
TERMINAL_ESCAPES = re.compile(
    "(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
    "|(?:\x1b\\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"
    "|\x1b[@-Z\\\\-_]"
)
LINE_BREAKS = re.compile("\r\n?")
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Anything one of the passes above would change: most strings skip all of them.
NEEDS_CLEANING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def normalise_text(value: str) -> str:
    """`value` in the store's normal form (see the module docstring)."""
    if NEEDS_CLEANING.search(value) is not None:
        if SURROGATES.search(value) is not None:
            # Joins pairs split into two code points (e.g. by a JSON \\ud83d\\ude00 escape).
            value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        value = TERMINAL_ESCAPES.sub("", value)
        value = LINE_BREAKS.sub("\n", value)
        value = CONTROL_CHARACTERS.sub("", value)
    if value.isascii() or unicodedata.is_normalized("NFC", value):
        return value
    return unicodedata.normalize("NFC", value)


def normalise_value(value: Any) -> Any:
    """`value` with every string in it normalised: lists, tuples and dict keys and values."""
    if isinstance(value, str):
        return normalise_text(value)
    if isinstance(value, list | tuple):
        return [normalise_value(element) for element in value]
    if isinstance(value, dict):
        return {normalise_value(key): normalise_value(element) for key, element in value.items()}
    return value
