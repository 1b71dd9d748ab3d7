"""Errors of the evaluation benchmark."""


class EvaluationError(Exception):
    """Base class of the benchmark's errors."""


class DatasetError(EvaluationError):
    """A dataset folder does not follow the documented layout."""


class PeerUnavailableError(EvaluationError):
    """A peer extractor was asked for but its package is not installed."""
