"""TemplateCache: the decoded templates of the groups seen, so that no page decodes one again.

Free of Scrapy: what is done about an unreadable template is the caller's `on_unreadable`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, KeysView

from newscrawl.extraction import SiteTemplate, TemplateFormatError
from newscrawl.storage.records import TemplateKey, TemplateRecord

logger = logging.getLogger(__name__)


class TemplateCache:
    """Decoded templates by (group, learned_at), cleared whole when `max_size` is reached."""

    def __init__(self, max_size: int, on_unreadable: Callable[[], None]) -> None:
        self.max_size = max_size
        self.on_unreadable = on_unreadable
        self._templates: dict[TemplateKey, SiteTemplate] = {}

    def __contains__(self, key: TemplateKey) -> bool:
        return key in self._templates

    def keys(self) -> KeysView[TemplateKey]:
        """A live view of the cached keys (an admission skips loading the blobs of these)."""
        return self._templates.keys()

    def decode(self, stored: TemplateRecord) -> SiteTemplate | None:
        """The template of `stored`, decoded once; None when its blob is absent or unreadable."""
        template = self._templates.get(stored.key)
        if template is not None:
            return template
        if stored.template is None:
            # Only an admission leaves the blob out, and the admission reloads it on a miss.
            return None
        try:
            template = SiteTemplate.from_bytes(stored.template)
        except TemplateFormatError as exc:
            logger.warning("Ignoring unreadable template of %r: %s", stored.group_key, exc)
            self.on_unreadable()
            return None
        if len(self._templates) >= self.max_size:
            self._templates.clear()
        self._templates[stored.key] = template
        return template
