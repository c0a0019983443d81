"""Acknowledgement: which offsets are committed, and when.

The ack policy is **at-least-once, after the reply**: an offset is committed only
when the verdict (and dead letter, if any) of its record and of every record before
it in the partition is acknowledged by the broker. Messages of one partition finish
out of order (a long one, a batch, a retry); ``OffsetTracker`` keeps the position
below every message still in flight, so a crash redelivers, never skips. ``Acks``
commits those positions periodically (never one commit per message), before a
rebalance takes partitions away, and at shutdown; it also keeps the consumer-lag
gauge fresh.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from aiokafka import AIOKafkaConsumer
from aiokafka.errors import KafkaError
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from moderation import metrics

log = logging.getLogger(__name__)

# Consumer lag is refreshed this often from the broker's end offsets, whatever the
# worker is doing: a stalled worker (no fetches, no commits) shows its lag growing.
# Prometheus scrapes every 15 s by default; 5 s keeps the gauge fresher than that.
LAG_REFRESH_S = 5.0
# While partitions are being revoked, their in-flight messages are checked this often.
_REVOKE_POLL_S = 0.005

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


class Acks:
    """The at-least-once-after-reply policy over one consumer's assigned partitions."""

    def __init__(self, commit_interval_s: float, revoke_grace_s: float) -> None:
        self.commit_interval_s = commit_interval_s
        self.revoke_grace_s = revoke_grace_s
        self.consumer: AIOKafkaConsumer | None = None
        self.tracker: OffsetTracker[TopicPartition] = OffsetTracker()
        self.assigned: set[TopicPartition] = set()
        # Committed offsets of assigned partitions nothing has been taken from yet.
        self._committed: dict[TopicPartition, int] = {}

    def begin(self, tp: TopicPartition, offset: int) -> None:
        self.tracker.begin(tp, offset)

    def done(self, tp: TopicPartition, offset: int) -> None:
        """Everything for this record is acknowledged: its offset may be committed."""
        self.tracker.finish(tp, offset)

    async def commit(self, only: set[TopicPartition] | None = None) -> None:
        """Commit every partition whose position moved (or just ``only``)."""
        if self.consumer is None:
            return
        positions = {
            tp: pos
            for tp, pos in self.tracker.committable().items()
            if tp in self.assigned and (only is None or tp in only)
        }
        if not positions:
            return
        try:
            await self.consumer.commit(
                {tp: OffsetAndMetadata(pos, "") for tp, pos in positions.items()}
            )
        except KafkaError as exc:
            log.warning("commit failed (will retry with the next one): %s", exc)
            return
        self.tracker.mark_committed(positions)
        self.report_lag()

    async def commit_periodically(self) -> None:
        while True:
            await asyncio.sleep(self.commit_interval_s)
            await self.commit()

    def report_lag(self, ends: dict[TopicPartition, int] | None = None) -> None:
        """Records behind each assigned partition's end: the broker's end offset when
        just asked for (``ends``), else the last fetch's high water."""
        if self.consumer is None:
            return
        for tp in self.assigned:
            high = max(self.consumer.highwater(tp) or 0, (ends or {}).get(tp, 0))
            position = self.tracker.position(tp)
            if position is None:
                # Nothing taken from this partition yet: measured from where the group
                # stands (its committed offset), so a worker that never fetched shows lag.
                position = self._committed.get(tp)
            if position is None:
                continue
            metrics.CONSUMER_LAG.labels(tp.topic, str(tp.partition)).set(max(0, high - position))

    async def refresh_lag_periodically(self) -> None:
        while True:
            await asyncio.sleep(LAG_REFRESH_S)
            if self.consumer is None or not self.assigned:
                continue
            parts = sorted(self.assigned)
            try:
                ends = await asyncio.wait_for(self.consumer.end_offsets(parts), LAG_REFRESH_S)
                for tp in parts:
                    if tp not in self._committed:
                        self._committed[tp] = await self.consumer.committed(tp) or 0
            except (KafkaError, TimeoutError) as exc:
                log.warning("lag refresh failed (next in %.0f s): %s", LAG_REFRESH_S, exc)
                continue
            self.report_lag(ends)

    async def on_revoked(self, revoked: set[TopicPartition]) -> None:
        """Before partitions go: finish their in-flight messages (bounded) and commit."""
        deadline = time.monotonic() + self.revoke_grace_s
        while any(self.tracker.in_flight(tp) for tp in revoked) and time.monotonic() < deadline:
            await asyncio.sleep(_REVOKE_POLL_S)
        await self.commit(only=revoked)
        self.assigned -= revoked
        self.tracker.forget(revoked)
        log.info("partitions revoked: %s", sorted(f"{tp.topic}/{tp.partition}" for tp in revoked))

    def on_assigned(self, assigned: set[TopicPartition]) -> None:
        """New partitions: start tracking them afresh from their committed position."""
        self.tracker.forget(assigned)
        self.assigned |= assigned
        for tp in assigned:
            self._committed.pop(tp, None)
        log.info("partitions assigned: %s", sorted(f"{tp.topic}/{tp.partition}" for tp in assigned))
