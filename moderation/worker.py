"""The consume -> classify -> reply -> commit loop.

Records flow one way: record -> ChatMessage -> tokens -> engine -> policy ->
Verdict -> produce (acks=all) -> offset done -> periodic commit. An offset is
committed only when its verdict (and its dead letter, if any) is acknowledged,
so a crash redelivers and never skips: at-least-once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener
from aiokafka.errors import KafkaError
from aiokafka.protocol.group import LeaveGroupRequest
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from moderation import metrics
from moderation.backoff import Backoff
from moderation.cache import VerdictCache
from moderation.classifier import Classifier
from moderation.config import WorkerSettings, is_topic_name
from moderation.delivery import deliver
from moderation.engine import InferenceEngine, Scored
from moderation.errors import InvalidTextError
from moderation.kafka_clients import (
    REQUEST_TIMEOUT_MS,
    check_tls,
    consumer_kwargs,
    producer,
    stop_quietly,
)
from moderation.offsets import OffsetTracker
from moderation.policy import Decision, Policy
from moderation.schema import (
    CORRELATION_HEADER,
    REPLY_TO_HEADER,
    InvalidRecord,
    Reason,
    Truncation,
    Verdict,
    decode_message,
)

log = logging.getLogger(__name__)

ERROR_HEADER = "moderation-error"
# On a dead letter for a verdict that could not be written: the topic it was for.
REPLY_TOPIC_HEADER = "moderation-reply-topic"
# On a dead letter the topic refused with its value: the value was left out (the
# error named); the source coordinates in the other headers still find it.
VALUE_DROPPED_HEADER = "moderation-value-dropped"
# getmany returns at least this often so a stop request is seen promptly.
_POLL_TIMEOUT_MS = 100
# Consumer lag is refreshed this often from the broker's end offsets, whatever the
# worker is doing: a stalled worker (no fetches, no commits) shows its lag growing.
# Prometheus scrapes every 15 s by default; 5 s keeps the gauge fresher than that.
LAG_REFRESH_S = 5.0

Headers = Sequence[tuple[str, bytes]]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one record produces: a verdict (when it can be addressed) and/or a dead letter."""

    verdict: Verdict | None
    dead_letter: InvalidRecord | None = None
    text: str | None = None  # kept only for MODERATION_LOG_TEXT


def _header(headers: Headers | None, name: str) -> bytes | None:
    for key, value in headers or ():
        if key.lower() == name:
            return value
    return None


def dead_letter_headers(record: Any, problem: InvalidRecord) -> list[tuple[str, bytes]]:
    """The original headers plus what was wrong and where the record came from."""
    return [
        *list(record.headers or ()),
        (ERROR_HEADER, problem.kind.encode()),
        ("moderation-error-detail", problem.detail[:1000].encode("utf-8", "replace")),
        ("moderation-source-topic", record.topic.encode()),
        ("moderation-source-partition", str(record.partition).encode()),
        ("moderation-source-offset", str(record.offset).encode()),
    ]


class Worker:
    """One process: consumers and producers on the event loop, the model on its thread."""

    def __init__(
        self,
        settings: WorkerSettings,
        classifier: Classifier,
        policy: Policy,
        cache: VerdictCache | None = None,
    ) -> None:
        metrics.expose_worker()
        self.settings = settings
        self.cache = cache
        self.classifier = classifier
        self.policy = policy
        self.fallback: Decision = "nudge" if settings.fallback_decision == "nudge" else "allow"
        self.engine = InferenceEngine(
            classifier,
            same_length_batching=settings.same_length_batching,
            cut_to_fit=settings.cut_to_fit,
        )
        self.tracker: OffsetTracker[TopicPartition] = OffsetTracker()
        self._stopping = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(settings.max_in_flight)
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None
        self.assigned: set[TopicPartition] = set()
        # Committed offsets of assigned partitions nothing has been taken from yet.
        self._committed: dict[TopicPartition, int] = {}
        self.verdicts_sent = 0
        self.dead_letters_sent = 0

    # -- lifecycle -------------------------------------------------------------------

    def request_stop(self) -> None:
        """Stop fetching; ``run`` then drains, flushes, commits and returns."""
        self._stopping.set()

    @property
    def ready(self) -> bool:
        """Model loaded and partitions assigned."""
        return bool(self.assigned) and not self._stopping.is_set()

    async def run(self) -> None:
        """Run until ``request_stop``; then drain within the grace period."""
        s = self.settings
        await check_tls(s.kafka)
        self._producer = producer(s.kafka)
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
                heartbeat_interval_ms=max(100, s.session_timeout_ms // 3),
            )
        )
        self.engine.start()
        if self.cache is not None:
            await self.cache.connect()
        try:
            # A broker that is not up yet (a deploy racing Kafka) is waited for, not
            # fatal; a stop request ends the wait.
            if not await self._start_with_retry(self._producer.start, "producer"):
                return
            if not await self._start_with_retry(self._consumer.start, "consumer"):
                return
            self._consumer.subscribe([s.input_topic], listener=_Rebalance(self))
            committer = asyncio.create_task(self._commit_loop(), name="committer")
            lag = asyncio.create_task(self._lag_loop(), name="lag")
            try:
                await self._consume()
            finally:
                committer.cancel()
                lag.cancel()
                await self._drain()
        finally:
            await self._close()

    async def _start_with_retry(self, start: Any, what: str) -> bool:
        """Call a client's ``start`` until it connects; False if a stop came first."""
        backoff = Backoff()
        while not self._stopping.is_set():
            try:
                await start()
                return True
            except KafkaError as exc:
                delay = backoff.next()
                log.warning(
                    "kafka %s cannot connect yet (%s); retrying in %.2f s", what, exc, delay
                )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), delay)
        return False

    async def _drain(self) -> None:
        """Finish what is in flight (bounded), flush, commit."""
        grace = self.settings.shutdown_grace_s
        deadline = time.monotonic() + grace * 0.8
        if self._tasks:
            log.info("draining %d messages in flight", len(self._tasks))
            await asyncio.wait(set(self._tasks), timeout=max(0.1, deadline - time.monotonic()))
        if self._tasks:
            log.warning(
                "%d messages unfinished at the end of the grace period; "
                "they stay uncommitted and will be redelivered",
                len(self._tasks),
            )
            for t in self._tasks:
                t.cancel()
        if self._producer is not None:
            try:
                await asyncio.wait_for(self._producer.flush(), timeout=max(0.1, grace * 0.1))
            except (TimeoutError, KafkaError) as exc:
                log.warning("flush on shutdown failed: %s", exc)
        await self._commit()

    async def _close(self) -> None:
        if self._consumer is not None and self._stopping.is_set():
            await self._leave_group()
        if self._consumer is not None:
            await stop_quietly(self._consumer, "consumer")
        if self._producer is not None:
            await stop_quietly(self._producer, "producer")
        self.engine.stop()
        log.info(
            "stopped: %d verdicts, %d dead letters", self.verdicts_sent, self.dead_letters_sent
        )

    async def _leave_group(self) -> None:
        """A static member stopped on purpose says so, so that its partitions go to the
        others now rather than after the session timeout.

        aiokafka (like the Java client) never sends LeaveGroup for a static member, so
        a crashed worker restarting under its id keeps its partitions; a worker that
        is shut down (SIGTERM: a deploy, a scale-down) is not coming back under that
        id soon, and leaving by member id is what the broker accepts for that.
        """
        consumer = self._consumer
        coordinator = getattr(consumer, "_coordinator", None)
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

    # -- consuming -------------------------------------------------------------------

    async def _consume(self) -> None:
        assert self._consumer is not None
        backoff = Backoff()
        while not self._stopping.is_set():
            try:
                batches = await self._consumer.getmany(
                    timeout_ms=_POLL_TIMEOUT_MS, max_records=self.settings.max_in_flight
                )
            except KafkaError as exc:
                delay = backoff.next()
                log.warning("fetch failed (%s); retrying in %.2f s", exc, delay)
                await asyncio.sleep(delay)
                continue
            backoff.reset()
            for tp, records in batches.items():
                for record in records:
                    # Backpressure: with max_in_flight taken, stop fetching and let
                    # the backlog wait in Kafka, where it is safe. A stop request
                    # ends the wait: records not begun are not committed, so they
                    # are redelivered.
                    if not await self._slot_or_stop():
                        return
                    self.tracker.begin(tp, record.offset)
                    metrics.IN_FLIGHT.inc()
                    task = asyncio.create_task(self._handle(tp, record))
                    self._tasks.add(task)
                    task.add_done_callback(self._task_done)

    async def _slot_or_stop(self) -> bool:
        """Take an in-flight slot; False if a stop request came first."""
        if not self._slots.locked():
            await self._slots.acquire()
            return True
        acquire = asyncio.ensure_future(self._slots.acquire())
        stop = asyncio.ensure_future(self._stopping.wait())
        await asyncio.wait({acquire, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if acquire.done() and not acquire.cancelled():
            if not self._stopping.is_set():
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

    async def _handle(self, tp: TopicPartition, record: Any) -> None:
        try:
            outcome = await self.decide(record)
        except Exception as exc:  # a bug must not strand the offset: answer and keep it
            log.exception(
                "deciding failed at %s/%d@%d", record.topic, record.partition, record.offset
            )
            outcome = self._failed(record, exc)
        sends: list[Coroutine[Any, Any, None]] = []
        if outcome.dead_letter is not None:
            sends.append(self._dead_letter(record, outcome.dead_letter))
        if outcome.verdict is not None:
            sends.append(self._reply(record, outcome.verdict))
        await asyncio.gather(*sends)
        self.tracker.finish(tp, record.offset)
        self._count(outcome)

    def reply_topic(self, headers: Headers | None) -> str:
        """Where the verdict goes: the record's reply-to topic when it is one of ours.

        Only the verdict topic itself or ``<verdict topic>.<instance>`` is honoured, so
        a producer cannot make the worker write into arbitrary topics.
        """
        default = self.settings.verdict_topic
        raw = _header(headers, REPLY_TO_HEADER)
        if raw is None:
            return default
        try:
            topic = raw.decode("ascii")
        except UnicodeDecodeError:
            topic = ""
        family = topic.startswith(default + ".") and len(topic) > len(default) + 1
        if topic == default or (family and is_topic_name(topic)):
            return topic
        metrics.REPLY_TO_REFUSED.inc()
        return default

    def _count(self, outcome: Outcome) -> None:
        v, dead = outcome.verdict, outcome.dead_letter
        if v is not None:
            if self.settings.log_text and outcome.text is not None:
                log.info(
                    "verdict",
                    extra={
                        "message_id": v.message_id,
                        "decision": v.decision,
                        "reason": v.reason,
                        "text": outcome.text,
                    },
                )
            metrics.VERDICTS.labels(v.decision, v.reason).inc()
            metrics.VERDICT_LATENCY.observe(v.latency_ms / 1000)
            if v.reason == "budget_exceeded":
                metrics.BUDGET_EXCEEDED.inc()
        if dead is not None and dead.kind in ("inference_error", "internal_error"):
            metrics.ERRORS.labels(dead.kind).inc()

    # -- deciding --------------------------------------------------------------------

    def _verdict(
        self,
        mid: str,
        t0_ms: float,
        reason: Reason,
        decision: Decision,
        scores: dict[str, float] | None = None,
        conversation_id: str | None = None,
        error: str | None = None,
        cache: str | None = None,
        tokens: int | None = None,
        truncated: Truncation | None = None,
    ) -> Verdict:
        return Verdict(
            message_id=mid,
            decision=decision,
            reason=reason,
            model=self.classifier.model_id,
            latency_ms=max(0.0, time.time() * 1000 - t0_ms),
            scores=scores or {},
            conversation_id=conversation_id,
            error=error,
            cache=cache,
            tokens=tokens,
            truncated=truncated,
        )

    def _failed(self, record: Any, exc: Exception) -> Outcome:
        """An unexpected failure: the fallback verdict if an id is readable, and a dead letter."""
        bad = InvalidRecord("internal_error", repr(exc)[:500])
        try:
            msg = decode_message(record.value, self.settings.max_text_bytes)
        except InvalidRecord as invalid:
            mid = invalid.message_id
        else:
            mid = msg.id
        if mid is None:
            return Outcome(None, bad)
        return Outcome(
            self._verdict(mid, record.timestamp, "error", self.fallback, error="internal_error"),
            bad,
        )

    async def decide(self, record: Any) -> Outcome:
        """The verdict for one record (and its dead letter when the input was bad)."""
        now_ms = time.time() * 1000
        try:
            msg = decode_message(record.value, self.settings.max_text_bytes)
        except InvalidRecord as bad:
            if bad.message_id is None:
                return Outcome(None, bad)
            v = self._verdict(
                bad.message_id, record.timestamp, "invalid_input", self.fallback, error=bad.kind
            )
            return Outcome(v, bad)
        t0_ms = msg.sent_at_ms if msg.sent_at_ms is not None else record.timestamp
        budget_ms = msg.budget_ms or self.settings.budget_ms
        remaining_s = min(budget_ms, t0_ms + budget_ms - now_ms) / 1000
        conv = msg.conversation_id
        if remaining_s <= 0:
            return Outcome(
                self._verdict(msg.id, t0_ms, "budget_exceeded", self.fallback, conversation_id=conv)
            )
        tokenize_start = time.perf_counter()
        try:
            encoded = self.classifier.encode(msg.text)
        except InvalidTextError as exc:
            bad = InvalidRecord(exc.code, str(exc), msg.id)
            return Outcome(
                self._verdict(
                    msg.id,
                    t0_ms,
                    "invalid_input",
                    self.fallback,
                    conversation_id=conv,
                    error=exc.code,
                ),
                bad,
            )
        metrics.TOKENIZE.observe(time.perf_counter() - tokenize_start)
        key = self.cache.key(encoded) if self.cache is not None else None
        if key is not None:
            hit = await self.cache.get(key)  # type: ignore[union-attr]
            if hit is not None:
                # Decide afresh from cached scores: a threshold change applies at once.
                scores = self.classifier.label_scores(hit[0])
                return Outcome(
                    self._verdict(
                        msg.id,
                        t0_ms,
                        "cache",
                        self.policy.decide(scores),
                        scores,
                        conversation_id=conv,
                        cache=hit[1],
                        tokens=encoded.tokens,
                        truncated="max_tokens" if encoded.truncated else None,
                    ),
                    text=msg.text if self.settings.log_text else None,
                )
        try:
            out = await self.engine.score(encoded, time.monotonic() + remaining_s)
        except Exception as exc:  # the model failed: answer, and keep the record
            log.exception("inference failed for message %s", msg.id)
            bad = InvalidRecord("inference_error", repr(exc)[:500], msg.id)
            return Outcome(
                self._verdict(
                    msg.id,
                    t0_ms,
                    "error",
                    self.fallback,
                    conversation_id=conv,
                    error="inference_error",
                ),
                bad,
            )
        if not isinstance(out, Scored):  # over budget: not even a short prefix fits
            return Outcome(
                self._verdict(msg.id, t0_ms, "budget_exceeded", self.fallback, conversation_id=conv)
            )
        truncated: Truncation | None = None
        if out.cut_to_fit:
            # The scores are the prefix's: never cached under the whole message's key.
            truncated = "budget"
            metrics.CUT_TO_FIT.inc()
            metrics.CUT_TO_FIT_TOKENS.inc(encoded.tokens - out.tokens)
        else:
            if encoded.truncated:
                truncated = "max_tokens"
            if key is not None:
                self.cache.put(key, out.row)  # type: ignore[union-attr]
        scores = self.classifier.label_scores(out.row)
        return Outcome(
            self._verdict(
                msg.id,
                t0_ms,
                "model",
                self.policy.decide(scores),
                scores,
                conversation_id=conv,
                tokens=out.tokens,
                truncated=truncated,
            ),
            text=msg.text if self.settings.log_text else None,
        )

    # -- producing and committing ------------------------------------------------------

    async def _reply(self, record: Any, verdict: Verdict) -> None:
        """Send the verdict; if it cannot be written, dead-letter the message instead.

        Retriable errors are retried until the reply deadline, a final one (record too
        large, not authorized, invalid topic) not at all: either way the partition
        moves on, and the message is kept on the dead-letter topic with the error.
        """
        assert self._producer is not None
        topic = self.reply_topic(record.headers)
        headers = []
        corr = _header(record.headers, CORRELATION_HEADER)
        if corr is not None:
            headers.append((CORRELATION_HEADER, corr))
        failure = await deliver(
            self._producer,
            topic,
            verdict.to_json(),
            record.key,
            headers,
            deadline_s=self.settings.reply_deadline_ms / 1000,
        )
        if failure is None:
            self.verdicts_sent += 1
            return
        metrics.UNDELIVERABLE.labels("verdict", failure.error).inc()
        log.error(
            "verdict for %s/%d@%d not delivered: %s; the message goes to %s",
            record.topic,
            record.partition,
            record.offset,
            failure.describe(),
            self.settings.dlq_topic,
        )
        problem = InvalidRecord("reply_failed", failure.describe(), verdict.message_id)
        await self._dead_letter(record, problem, [(REPLY_TOPIC_HEADER, topic.encode())])

    async def _dead_letter(
        self, record: Any, problem: InvalidRecord, extra: list[tuple[str, bytes]] | None = None
    ) -> None:
        """Copy the record to the dead-letter topic with what was wrong.

        Retriable errors are retried without end: the dead-letter topic is where a
        message goes when nothing else can take it, and its offset must not be
        committed before it is somewhere. If the topic refuses the record for good
        (too large for it, say), the headers go without the value, which stays in
        the source topic at the offset they name; if even that is refused, the error
        is logged and counted and the partition moves on.
        """
        assert self._producer is not None
        topic = self.settings.dlq_topic
        headers = dead_letter_headers(record, problem) + (extra or [])
        failure = await deliver(
            self._producer, topic, record.value, record.key, headers, deadline_s=None
        )
        if failure is not None and record.value is not None:
            headers.append((VALUE_DROPPED_HEADER, failure.error.encode()))
            failure = await deliver(
                self._producer, topic, None, record.key, headers, deadline_s=None
            )
        if failure is None:
            metrics.DEAD_LETTERS.labels(problem.kind).inc()
            self.dead_letters_sent += 1
            return
        metrics.UNDELIVERABLE.labels("dead_letter", failure.error).inc()
        log.error(
            "dead letter for %s/%d@%d (%s) not delivered: %s; moving on",
            record.topic,
            record.partition,
            record.offset,
            problem.kind,
            failure.describe(),
        )

    async def _commit_loop(self) -> None:
        interval = self.settings.commit_interval_ms / 1000
        while True:
            await asyncio.sleep(interval)
            await self._commit()

    async def _commit(self, only: set[TopicPartition] | None = None) -> None:
        """Commit every partition whose position moved (or just ``only``)."""
        if self._consumer is None:
            return
        positions = {
            tp: pos
            for tp, pos in self.tracker.committable().items()
            if tp in self.assigned and (only is None or tp in only)
        }
        if not positions:
            return
        try:
            await self._consumer.commit(
                {tp: OffsetAndMetadata(pos, "") for tp, pos in positions.items()}
            )
        except KafkaError as exc:
            log.warning("commit failed (will retry with the next one): %s", exc)
            return
        self.tracker.mark_committed(positions)
        self._report_lag()

    def _report_lag(self, ends: dict[TopicPartition, int] | None = None) -> None:
        """Records behind each assigned partition's end: the broker's end offset when
        just asked for (``ends``), else the last fetch's high water."""
        if self._consumer is None:
            return
        for tp in self.assigned:
            high = max(self._consumer.highwater(tp) or 0, (ends or {}).get(tp, 0))
            position = self.tracker.position(tp)
            if position is None:
                # Nothing taken from this partition yet: measured from where the group
                # stands (its committed offset), so a worker that never fetched shows lag.
                position = self._committed.get(tp)
            if position is None:
                continue
            metrics.CONSUMER_LAG.labels(tp.topic, str(tp.partition)).set(max(0, high - position))

    async def _lag_loop(self) -> None:
        while True:
            await asyncio.sleep(LAG_REFRESH_S)
            if self._consumer is None or not self.assigned:
                continue
            parts = sorted(self.assigned)
            try:
                ends = await asyncio.wait_for(self._consumer.end_offsets(parts), LAG_REFRESH_S)
                for tp in parts:
                    if tp not in self._committed:
                        self._committed[tp] = await self._consumer.committed(tp) or 0
            except (KafkaError, TimeoutError) as exc:
                log.warning("lag refresh failed (next in %.0f s): %s", LAG_REFRESH_S, exc)
                continue
            self._report_lag(ends)

    async def on_revoked(self, revoked: set[TopicPartition]) -> None:
        """Before partitions go: finish their in-flight messages (bounded) and commit."""
        deadline = time.monotonic() + self.settings.shutdown_grace_s / 2
        while any(self.tracker.in_flight(tp) for tp in revoked) and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        await self._commit(only=revoked)
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


class _Rebalance(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    async def on_partitions_revoked(self, revoked: Any) -> None:
        await self.worker.on_revoked(set(revoked))

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.worker.on_assigned(set(assigned))
