"""Spot XML documents that declare entities (billion laughs, XXE) so they can be logged.

The parsers never expand or fetch entities; this only names the attempt in the log.
"""

from __future__ import annotations

import re

# Entity declarations sit in the internal DTD subset at the top of the document.
_ENTITY_DECLARATION = re.compile(rb"<!ENTITY\s", re.IGNORECASE)
PROLOG_BYTES = 64 * 1024


def declares_entities(body: bytes) -> bool:
    """True when the document's prolog declares XML entities."""
    return _ENTITY_DECLARATION.search(body, 0, PROLOG_BYTES) is not None
