"""The worker: Kafka records in, verdicts out, through the ``Moderator``.

record -> ChatMessage (``schema.decode_message``) -> ``Moderator.decide`` (cache |
classifier -> policy) -> Verdict -> reply (``kafka.replies``) -> commit
(``kafka.acks``: at-least-once, after the reply is acknowledged). The consume loop
(``kafka.consume``) fetches with backpressure, drains and rebalances.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from moderation import metrics
from moderation.config import WorkerSettings
from moderation.kafka.clients import check_tls, producer, stop_quietly
from moderation.kafka.consume import ConsumeLoop, start_with_retry
from moderation.kafka.replies import Record, Replier
from moderation.moderator import Moderator, Outcome
from moderation.schema import InvalidRecord, decode_message

log = logging.getLogger(__name__)


class Worker:
    """One process: consumer and producer on the event loop, the model on its thread."""

    def __init__(self, settings: WorkerSettings, moderator: Moderator) -> None:
        metrics.expose_worker()
        self.settings = settings
        self.moderator = moderator
        self.loop = ConsumeLoop(settings, self.handle)
        self._replier: Replier | None = None

    def request_stop(self) -> None:
        """Stop fetching; ``run`` then drains, flushes, commits and returns."""
        self.loop.request_stop()

    @property
    def ready(self) -> bool:
        """Model loaded and partitions assigned."""
        return self.loop.ready

    @property
    def verdicts_sent(self) -> int:
        return self._replier.verdicts_sent if self._replier else 0

    @property
    def dead_letters_sent(self) -> int:
        return self._replier.dead_letters_sent if self._replier else 0

    async def run(self) -> None:
        """Run until ``request_stop``; then drain within the grace period."""
        s = self.settings
        await check_tls(s.kafka)
        out = producer(s.kafka)
        await self.moderator.start()
        try:
            if not await start_with_retry(out.start, "producer", self.loop.stopping):
                return
            self._replier = Replier(
                out,
                verdict_topic=s.verdict_topic,
                dlq_topic=s.dlq_topic,
                reply_deadline_s=s.reply_deadline_ms / 1000,
            )
            await self.loop.run(flush=out.flush)
        finally:
            await stop_quietly(out, "producer")
            await self.moderator.stop()
            log.info(
                "stopped: %d verdicts, %d dead letters", self.verdicts_sent, self.dead_letters_sent
            )

    async def decide(self, record: Record) -> Outcome:
        """The outcome for one record: decoded, then decided by the moderator."""
        try:
            msg = decode_message(record.value, self.settings.max_text_bytes)
        except InvalidRecord as bad:
            return self.moderator.refuse(bad, record.timestamp)
        except Exception as exc:  # a bug must not strand the offset: answer and keep it
            log.exception(
                "decoding failed at %s/%d@%d", record.topic, record.partition, record.offset
            )
            return self.moderator.failed(None, record.timestamp, exc)
        if msg.sent_at_ms is None:
            # No send time in the message: its budget runs from the broker's timestamp.
            msg = replace(msg, sent_at_ms=record.timestamp)
        return await self.moderator.decide(msg)

    async def handle(self, record: Record) -> None:
        """Decide, then send the verdict and any dead letter; the loop then acks."""
        assert self._replier is not None, "handle runs only inside run()"
        outcome = await self.decide(record)
        if outcome.problem is not None and outcome.verdict is not None:
            # Both at once: neither waits for the other's acknowledgement.
            await asyncio.gather(
                self._replier.dead_letter(record, outcome.problem),
                self._replier.verdict(record, outcome.verdict),
            )
        elif outcome.problem is not None:
            await self._replier.dead_letter(record, outcome.problem)
        elif outcome.verdict is not None:
            await self._replier.verdict(record, outcome.verdict)
