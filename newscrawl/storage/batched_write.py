"""BatchedWrite: a write that the BatchWriter stores together with the others of its kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, Self, TypeVar

from sqlalchemy.orm import Session, SessionTransaction

R = TypeVar("R")


@dataclass
class BatchedWrite(Generic[R]):
    """A write whose kind stores a whole batch at once (`prepare_batch`, which the BatchWriter
    calls before the batch's writes run); called alone, or in another transaction than its
    batch's, it stores itself as a batch of one. Then each write returns its own result."""

    # Set by prepare_batch: the transaction that stored this write.
    stored_in: SessionTransaction | None = field(default=None, repr=False, kw_only=True)

    @classmethod
    def prepare_batch(cls, session: Session, writes: Sequence[Self]) -> None:
        """Store `writes` in the session's transaction and set each one's stored result."""
        raise NotImplementedError

    def stored_result(self) -> R | None:
        """What prepare_batch stored for this write, None before."""
        raise NotImplementedError

    def finish(self, session: Session, result: R) -> R:
        """Whatever this write does after its batch was stored; returns its result."""
        return result

    def __call__(self, session: Session) -> R:
        result = self.stored_result()
        if result is None or self.stored_in is not session.get_transaction():
            self.prepare_batch(session, [self])
            result = self.stored_result()
        assert result is not None
        return self.finish(session, result)
