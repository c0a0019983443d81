"""The consume loop: fetch with backpressure, hand each record on, drain, rebalance.

``ConsumeLoop.run`` starts the consumer (waiting out a broker that is not up yet),
subscribes, and gives every fetched record to the handler as its own task, never
more than ``max_in_flight`` at once: past that it stops fetching, and the backlog
waits in Kafka, where it is safe. A stop request ends fetching; what is in flight
finishes within the grace period and is committed (``acks.Acks``); what is not
stays uncommitted and is redelivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
from aiokafka.errors import KafkaError
from aiokafka.protocol.group import LeaveGroupRequest
from aiokafka.structs import ConsumerRecord, TopicPartition

from moderation import metrics
from moderation.backoff import Backoff
from moderation.config import WorkerSettings
from moderation.kafka.acks import Acks
from moderation.kafka.clients import REQUEST_TIMEOUT_MS, consumer_kwargs, stop_quietly

log = logging.getLogger(__name__)

# getmany returns at least this often so a stop request is seen promptly.
POLL_TIMEOUT_MS = 100
# Of the shutdown grace period: in-flight messages get this share to finish, the
# producer's flush the next tenth; the rest is left for commits and closing.
DRAIN_SHARE = 0.8
FLUSH_SHARE = 0.1
# Never wait less than this for a drain step, however short the grace period.
_MIN_WAIT_S = 0.1
# Heartbeats go at a third of the session timeout (Kafka's own default ratio),
# but not more often than every 100 ms.
_MIN_HEARTBEAT_MS = 100

Handler = Callable[[ConsumerRecord[bytes, bytes]], Awaitable[None]]


async def start_with_retry(
    start: Callable[[], Awaitable[None]], what: str, stop: asyncio.Event
) -> bool:
    """Call a client's ``start`` until it connects; False if a stop came first.

    A broker that is not up yet (a deploy racing Kafka) is waited for, not fatal.
    """
    backoff = Backoff()
    while not stop.is_set():
        try:
            await start()
            return True
        except KafkaError as exc:
            delay = backoff.next()
            log.warning("kafka %s cannot connect yet (%s); retrying in %.2f s", what, exc, delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
    return False


class ConsumeLoop:
    """One consumer in the group; each record goes to ``handle`` as its own task."""

    def __init__(self, settings: WorkerSettings, handle: Handler) -> None:
        self.settings = settings
        self.handle = handle
        self.stopping = asyncio.Event()
        self.acks = Acks(settings.commit_interval_ms / 1000, settings.shutdown_grace_s / 2)
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(settings.max_in_flight)
        self._consumer: AIOKafkaConsumer | None = None

    @property
    def assigned(self) -> set[TopicPartition]:
        return self.acks.assigned

    @property
    def ready(self) -> bool:
        """Partitions assigned and not stopping."""
        return bool(self.acks.assigned) and not self.stopping.is_set()

    def request_stop(self) -> None:
        self.stopping.set()

    async def run(self, flush: Callable[[], Awaitable[None]]) -> None:
        """Consume until ``request_stop``; then drain, ``flush`` the replies, commit."""
        s = self.settings
        self._consumer = AIOKafkaConsumer(
            **consumer_kwargs(
                s.kafka,
                group_id=s.group_id,
                group_instance_id=s.group_instance_id,
                enable_auto_commit=False,
                auto_offset_reset="earliest",
                fetch_max_wait_ms=s.fetch_max_wait_ms,
                max_poll_records=s.max_in_flight,
                session_timeout_ms=s.session_timeout_ms,
                heartbeat_interval_ms=max(_MIN_HEARTBEAT_MS, s.session_timeout_ms // 3),
            )
        )
        self.acks.consumer = self._consumer
        try:
            if not await start_with_retry(self._consumer.start, "consumer", self.stopping):
                return
            self._consumer.subscribe([s.input_topic], listener=_Rebalance(self.acks))
            committer = asyncio.create_task(self.acks.commit_periodically(), name="committer")
            lag = asyncio.create_task(self.acks.refresh_lag_periodically(), name="lag")
            try:
                await self._fetch()
            finally:
                committer.cancel()
                lag.cancel()
                await self._drain(flush)
        finally:
            if self.stopping.is_set():
                await self._leave_group()
            await stop_quietly(self._consumer, "consumer")

    async def _fetch(self) -> None:
        assert self._consumer is not None
        backoff = Backoff()
        while not self.stopping.is_set():
            try:
                batches = await self._consumer.getmany(
                    timeout_ms=POLL_TIMEOUT_MS, max_records=self.settings.max_in_flight
                )
            except KafkaError as exc:
                delay = backoff.next()
                log.warning("fetch failed (%s); retrying in %.2f s", exc, delay)
                await asyncio.sleep(delay)
                continue
            backoff.reset()
            for tp, records in batches.items():
                for record in records:
                    # Records not begun when a stop comes are not committed: redelivered.
                    if not await self._slot_or_stop():
                        return
                    self.acks.begin(tp, record.offset)
                    metrics.IN_FLIGHT.inc()
                    task = asyncio.create_task(self._run_one(tp, record))
                    self._tasks.add(task)
                    task.add_done_callback(self._task_done)

    async def _run_one(self, tp: TopicPartition, record: ConsumerRecord[bytes, bytes]) -> None:
        await self.handle(record)
        self.acks.done(tp, record.offset)

    async def _slot_or_stop(self) -> bool:
        """Take an in-flight slot; False if a stop request came first."""
        if not self._slots.locked():
            await self._slots.acquire()
            return True
        acquire = asyncio.ensure_future(self._slots.acquire())
        stop = asyncio.ensure_future(self.stopping.wait())
        await asyncio.wait({acquire, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if acquire.done() and not acquire.cancelled():
            if not self.stopping.is_set():
                return True
            self._slots.release()  # both happened at once: stopping wins
        acquire.cancel()
        return False

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        metrics.IN_FLIGHT.dec()
        self._slots.release()
        if not task.cancelled() and task.exception() is not None:
            log.error("message task failed", exc_info=task.exception())

    async def _drain(self, flush: Callable[[], Awaitable[None]]) -> None:
        """Finish what is in flight (bounded), flush, commit."""
        grace = self.settings.shutdown_grace_s
        deadline = time.monotonic() + grace * DRAIN_SHARE
        if self._tasks:
            log.info("draining %d messages in flight", len(self._tasks))
            timeout = max(_MIN_WAIT_S, deadline - time.monotonic())
            await asyncio.wait(set(self._tasks), timeout=timeout)
        if self._tasks:
            log.warning(
                "%d messages unfinished at the end of the grace period; "
                "they stay uncommitted and will be redelivered",
                len(self._tasks),
            )
            for t in self._tasks:
                t.cancel()
        try:
            await asyncio.wait_for(flush(), timeout=max(_MIN_WAIT_S, grace * FLUSH_SHARE))
        except (TimeoutError, KafkaError) as exc:
            log.warning("flush on shutdown failed: %s", exc)
        await self.acks.commit()

    async def _leave_group(self) -> None:
        """A static member stopped on purpose says so, so that its partitions go to the
        others now rather than after the session timeout.

        aiokafka (like the Java client) never sends LeaveGroup for a static member, so
        a crashed worker restarting under its id keeps its partitions; a worker that
        is shut down (SIGTERM: a deploy, a scale-down) is not coming back under that
        id soon, and leaving by member id is what the broker accepts for that.
        """
        coordinator: Any = getattr(self._consumer, "_coordinator", None)
        if self.settings.group_instance_id is None or coordinator is None:
            return
        # Not in the group (generation -1, no member id): nothing to leave. tansu
        # numbers generations from 0, Apache Kafka from 1.
        if coordinator.generation < 0 or not coordinator.member_id:
            return
        try:
            await asyncio.wait_for(
                coordinator._send_req(
                    LeaveGroupRequest(self.settings.group_id, coordinator.member_id)
                ),
                timeout=REQUEST_TIMEOUT_MS / 1000,
            )
            log.info("left the group as static member %s", self.settings.group_instance_id)
        except (KafkaError, TimeoutError) as exc:
            log.warning(
                "leaving the group failed (%s): its partitions move after the session timeout", exc
            )


class _Rebalance(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, acks: Acks) -> None:
        self.acks = acks

    async def on_partitions_revoked(self, revoked: Any) -> None:
        await self.acks.on_revoked(set(revoked))

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.acks.on_assigned(set(assigned))
