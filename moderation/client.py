"""The library the send-message API imports: ``await client.check(message)`` -> Verdict.

Each API instance has its own reply topic, ``<verdict topic>.<instance id>``. A call
produces the message with two headers, ``correlation-id`` and ``reply-to``; the
worker answers on the reply-to topic, and the instance's one consumer (assigned to
its topic's partitions, no consumer group) routes each verdict to the waiting call
by message id. An instance therefore reads only its own replies, and no group
rebalance can ever pause them. Why this scheme over the alternatives:
docs/client.md.

On timeout a call returns the fallback verdict with reason ``timeout``; it never
hangs and never raises for a slow or absent worker. Verdicts that arrive after
their call gave up, or for ids nobody waits for, are dropped and counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaError
from aiokafka.structs import TopicPartition

from moderation import metrics
from moderation.backoff import Backoff
from moderation.config import ClientSettings
from moderation.errors import ClientError, ConfigError, InvalidMessageError
from moderation.kafka.admin import ensure_topics
from moderation.kafka.clients import (
    check_tls,
    consumer_kwargs,
    producer,
    stop_quietly,
)
from moderation.kafka.replies import reply_topic
from moderation.kafka.send import deliver
from moderation.schema import (
    CORRELATION_HEADER,
    MAX_BUDGET_MS,
    MAX_ID_CHARS,
    REPLY_TO_HEADER,
    Verdict,
)

log = logging.getLogger(__name__)

# A reply topic just created can be missing from metadata for a moment: looked for
# 50 times, 0.1 s apart, before the client gives up on it.
_METADATA_POLLS = 50
_METADATA_POLL_S = 0.1
# getmany returns at least this often so close() is seen promptly; replies arriving
# sooner return at once (fetch_max_wait_ms bounds the broker's side).
_POLL_TIMEOUT_MS = 100


@dataclass
class ClientStats:
    """What the client saw; mirrored in Prometheus as moderation_client_*."""

    sent: int = 0
    answered: int = 0
    timed_out: int = 0
    late: int = 0
    unknown: int = 0
    malformed: int = 0
    undeliverable: int = 0


class ModerationClient:
    """One per API process; thousands of ``check`` calls may be in flight at once."""

    def __init__(self, settings: ClientSettings) -> None:
        if settings.kafka.bootstrap is None:
            raise ConfigError(
                "the client needs a Kafka bootstrap address (MODERATION_KAFKA_BOOTSTRAP)"
            )
        metrics.expose_client()
        self.settings = settings
        self.reply_topic = reply_topic(settings.verdict_topic, settings.instance_id)
        self.stats = ClientStats()
        self._waiting: dict[str, asyncio.Future[Verdict]] = {}
        # Ids whose call timed out recently: their verdict, if it comes, is "late".
        self._gave_up: dict[str, float] = {}
        self._producer: AIOKafkaProducer | None = None
        self._consumer: AIOKafkaConsumer | None = None
        self._reader: asyncio.Task[None] | None = None
        self._sends: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> ModerationClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Create the reply topic if needed, connect, and start routing replies."""
        s = self.settings
        await check_tls(s.kafka)
        if s.create_reply_topic:
            await ensure_topics(s.kafka, {self.reply_topic: s.reply_partitions})
        self._producer = producer(s.kafka)
        self._consumer = AIOKafkaConsumer(
            **consumer_kwargs(
                s.kafka,
                group_id=None,
                enable_auto_commit=False,
                fetch_max_wait_ms=s.fetch_max_wait_ms,
            )
        )
        await self._producer.start()
        await self._consumer.start()
        partitions = self._consumer.partitions_for_topic(self.reply_topic)
        for _ in range(_METADATA_POLLS):
            if partitions:
                break
            await asyncio.sleep(_METADATA_POLL_S)
            partitions = self._consumer.partitions_for_topic(self.reply_topic)
        if not partitions:
            raise ClientError(f"reply topic {self.reply_topic} does not exist")
        tps = [TopicPartition(self.reply_topic, p) for p in sorted(partitions)]
        self._consumer.assign(tps)
        # Only replies to calls made from now on matter.
        await self._consumer.seek_to_end(*tps)
        for tp in tps:
            await self._consumer.position(tp)
        self._reader = asyncio.create_task(self._read(), name="verdict-router")
        log.info("moderation client ready: replies on %s", self.reply_topic)

    async def close(self) -> None:
        """Stop routing; calls still waiting get their fallback."""
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        for mid, fut in list(self._waiting.items()):
            if not fut.done():
                fut.set_result(self._fallback(mid, 0.0))
        if self._consumer is not None:
            await stop_quietly(self._consumer, "reply consumer")
        if self._producer is not None:
            await stop_quietly(self._producer, "producer")

    @property
    def in_flight(self) -> int:
        """Calls waiting for a verdict."""
        return len(self._waiting)

    def _fallback(self, message_id: str, waited_ms: float, error: str | None = None) -> Verdict:
        """The operator's fallback: after the timeout, or (``error`` named) at once when
        the message could not be sent at all."""
        return Verdict(
            message_id=message_id,
            decision="nudge" if self.settings.fallback_decision == "nudge" else "allow",
            reason="timeout" if error is None else "error",
            model="none",
            latency_ms=waited_ms,
            error=error,
        )

    async def check(
        self,
        message: Mapping[str, Any],
        timeout_ms: int | None = None,
    ) -> Verdict:
        """The verdict for ``message`` (``id``, ``text``, optional ``conversation_id``...).

        Raises InvalidMessageError (a ValueError) for a message the worker would reject,
        or for an id that already has a call in flight; otherwise always returns a
        Verdict in time.
        """
        if self._producer is None:
            raise ClientError("client not started: use 'async with ModerationClient(...)'")
        mid = message.get("id")
        if not isinstance(mid, str) or not 0 < len(mid) <= MAX_ID_CHARS:
            raise InvalidMessageError(
                f"message 'id' must be a string of 1..{MAX_ID_CHARS} characters"
            )
        if not isinstance(message.get("text"), str):
            raise InvalidMessageError("message 'text' must be a string")
        if mid in self._waiting:
            raise InvalidMessageError(f"a check for message id {mid!r} is already in flight")
        timeout = self.settings.timeout_ms if timeout_ms is None else timeout_ms
        if not 0 < timeout <= MAX_BUDGET_MS:
            raise InvalidMessageError(f"timeout_ms must lie in 1..{MAX_BUDGET_MS}")
        start = time.time()
        body = dict(message)
        body.setdefault("sent_at", int(start * 1000))
        # The worker answers within the caller's own budget (with its fallback if need be).
        body.setdefault("budget_ms", timeout)
        fut: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()
        self._waiting[mid] = fut
        self.stats.sent += 1
        metrics.CLIENT_CALLS.labels("sent").inc()
        key = str(message.get("conversation_id") or mid).encode()
        headers = [
            (CORRELATION_HEADER, uuid.uuid4().hex.encode()),
            (REPLY_TO_HEADER, self.reply_topic.encode()),
        ]
        # The reply, not the produce acknowledgement, ends the call: a verdict proves
        # delivery, and the ack can come later than the verdict.
        sending = asyncio.create_task(self._send(orjson.dumps(body), key, headers, mid, fut, start))
        try:
            async with asyncio.timeout(timeout / 1000):
                return await fut
        except TimeoutError:
            self.stats.timed_out += 1
            metrics.CLIENT_CALLS.labels("timeout").inc()
            self._gave_up[mid] = time.monotonic()
            return self._fallback(mid, (time.time() - start) * 1000)
        finally:
            self._waiting.pop(mid, None)
            metrics.CLIENT_LATENCY.observe(time.time() - start)
            if not sending.done():
                if fut.done() and not fut.cancelled():
                    # Answered before the ack: let the ack finish in the background.
                    self._sends.add(sending)
                    sending.add_done_callback(self._sends.discard)
                else:
                    sending.cancel()  # the caller gave up; stop retrying

    async def _send(
        self,
        value: bytes,
        key: bytes,
        headers: list[tuple[str, bytes]],
        mid: str,
        answer: asyncio.Future[Verdict],
        start: float,
    ) -> None:
        """Produce until acknowledged; the caller's timeout bounds the retries. A record
        the broker refuses for good ends the call at once with the fallback."""
        assert self._producer is not None
        failure = await deliver(
            self._producer, self.settings.input_topic, value, key, headers, deadline_s=None
        )
        if failure is None:
            return
        log.error("message not sent: %s", failure.describe())
        self.stats.undeliverable += 1
        metrics.CLIENT_CALLS.labels("undeliverable").inc()
        if not answer.done():
            answer.set_result(self._fallback(mid, (time.time() - start) * 1000, failure.error))

    async def _read(self) -> None:
        assert self._consumer is not None
        backoff = Backoff()
        while True:
            try:
                batches = await self._consumer.getmany(timeout_ms=_POLL_TIMEOUT_MS)
            except KafkaError as exc:
                delay = backoff.next()
                log.warning("reading replies failed (%s); retrying in %.2f s", exc, delay)
                await asyncio.sleep(delay)
                continue
            backoff.reset()
            for records in batches.values():
                for record in records:
                    self._route(record.value)
            self._forget_old()

    def _route(self, raw: bytes | None) -> None:
        try:
            verdict = Verdict.from_json(raw or b"")
        except (ValueError, KeyError, TypeError):
            self.stats.malformed += 1
            metrics.CLIENT_REPLIES.labels("malformed").inc()
            return
        fut = self._waiting.get(verdict.message_id)
        if fut is not None and not fut.done():
            fut.set_result(verdict)
            self.stats.answered += 1
            metrics.CLIENT_REPLIES.labels("routed").inc()
        elif verdict.message_id in self._gave_up:
            self.stats.late += 1
            metrics.CLIENT_REPLIES.labels("late").inc()
        else:
            self.stats.unknown += 1
            metrics.CLIENT_REPLIES.labels("unknown").inc()

    def _forget_old(self) -> None:
        """Keep 'late' bookkeeping for a minute, bounded."""
        if not self._gave_up:
            return
        horizon = time.monotonic() - 60
        while self._gave_up:
            mid, at = next(iter(self._gave_up.items()))
            if at >= horizon and len(self._gave_up) <= 100_000:
                break
            del self._gave_up[mid]
