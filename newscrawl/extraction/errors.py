"""Named errors of the extraction core."""

from __future__ import annotations


class ExtractionError(Exception):
    """Base class for every error raised by `newscrawl.extraction`."""


class TemplateFormatError(ExtractionError):
    """A stored site template is malformed or was written by an incompatible version."""


class ModelFormatError(ExtractionError):
    """The packaged block-scoring model is missing or malformed."""
