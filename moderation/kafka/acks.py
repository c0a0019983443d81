"""Which offsets may be committed: only those below every message still in flight.

Messages of one partition finish out of order (a long one, a batch, a retry);
an offset is committed only when it and everything before it has its verdict
acknowledged, so a crash redelivers, never skips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

P = TypeVar("P")


@dataclass(slots=True)
class _Partition:
    in_flight: set[int] = field(default_factory=set)
    next_offset: int | None = None  # one past the highest offset taken in
    committed: int | None = None


class OffsetTracker(Generic[P]):
    """Per partition: offsets taken in, offsets done, and the committable position."""

    def __init__(self) -> None:
        self._parts: dict[P, _Partition] = {}

    def begin(self, partition: P, offset: int) -> None:
        """A record was taken in for processing."""
        p = self._parts.setdefault(partition, _Partition())
        p.in_flight.add(offset)
        if p.next_offset is None or offset + 1 > p.next_offset:
            p.next_offset = offset + 1

    def finish(self, partition: P, offset: int) -> None:
        """The record's verdict (and dead letter, if any) is acknowledged."""
        p = self._parts.get(partition)
        if p is not None:
            p.in_flight.discard(offset)

    def in_flight(self, partition: P | None = None) -> int:
        """Records taken in and not yet finished (for one partition, or all)."""
        if partition is not None:
            p = self._parts.get(partition)
            return len(p.in_flight) if p else 0
        return sum(len(p.in_flight) for p in self._parts.values())

    def position(self, partition: P) -> int | None:
        """Where a commit now would put the partition (None before any record)."""
        p = self._parts.get(partition)
        if p is None or p.next_offset is None:
            return None
        return min(p.in_flight) if p.in_flight else p.next_offset

    def committable(self) -> dict[P, int]:
        """Partitions whose commit position moved since the last ``mark_committed``."""
        out = {}
        for tp, p in self._parts.items():
            if p.next_offset is None:
                continue
            position = min(p.in_flight) if p.in_flight else p.next_offset
            if p.committed is None or position > p.committed:
                out[tp] = position
        return out

    def mark_committed(self, positions: dict[P, int]) -> None:
        """Record a successful commit."""
        for tp, pos in positions.items():
            if tp in self._parts:
                self._parts[tp].committed = pos

    def forget(self, partitions: set[P] | list[P]) -> None:
        """Partitions revoked: their state goes with them."""
        for tp in partitions:
            self._parts.pop(tp, None)
