"""Where verdicts go and what a dead letter carries.

The reply-topic rule is shared by both ends: an API instance listens on
``<verdict topic>.<instance>`` (``reply_topic``), and the worker honours a record's
``reply-to`` header only when it names the verdict topic or one of that family
(``accepted_reply_topic``), so a producer cannot make the worker write into arbitrary
topics. ``Replier`` sends a verdict and/or a dead letter for one record, with
``send.deliver``'s bounded retries.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from moderation import metrics
from moderation.config import is_topic_name
from moderation.errors import ConfigError
from moderation.kafka.send import Producer, deliver
from moderation.schema import CORRELATION_HEADER, REPLY_TO_HEADER, InvalidRecord, Verdict

log = logging.getLogger(__name__)

Headers = Sequence[tuple[str, bytes]]

ERROR_HEADER = "moderation-error"
ERROR_DETAIL_HEADER = "moderation-error-detail"
# On a dead letter for a verdict that could not be written: the topic it was for.
REPLY_TOPIC_HEADER = "moderation-reply-topic"
# On a dead letter the topic refused with its value: the value was left out (the
# error named); the source coordinates in the other headers still find it.
VALUE_DROPPED_HEADER = "moderation-value-dropped"
SOURCE_HEADERS = (
    "moderation-source-topic",
    "moderation-source-partition",
    "moderation-source-offset",
)
# A header value longer than this is cut: the detail is for people, the record for tools.
_MAX_DETAIL_BYTES = 1000


class Record(Protocol):
    """What the edge reads of a consumed record (aiokafka's ConsumerRecord has it)."""

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def value(self) -> bytes | None: ...
    @property
    def headers(self) -> Headers: ...


def header(headers: Headers | None, name: str) -> bytes | None:
    """The first header called ``name`` (case-insensitively), or None."""
    for key, value in headers or ():
        if key.lower() == name:
            return value
    return None


def reply_topic(verdict_topic: str, instance_id: str) -> str:
    """The reply topic of one API instance."""
    name = f"{verdict_topic}.{instance_id}"
    if not instance_id or not is_topic_name(name):
        raise ConfigError(
            f"instance id {instance_id!r} must be letters, digits, '.', '_' or '-' "
            f"and keep the topic name under 250 characters"
        )
    return name


def accepted_reply_topic(verdict_topic: str, headers: Headers | None) -> str | None:
    """The record's ``reply-to`` topic when the rule allows it; None when it asks for no
    particular topic; the verdict topic (counted as refused) when it asks for another."""
    raw = header(headers, REPLY_TO_HEADER)
    if raw is None:
        return None
    try:
        topic = raw.decode("ascii")
    except UnicodeDecodeError:
        topic = ""
    family = topic.startswith(verdict_topic + ".") and len(topic) > len(verdict_topic) + 1
    if topic == verdict_topic or (family and is_topic_name(topic)):
        return topic
    metrics.REPLY_TO_REFUSED.inc()
    return verdict_topic


def dead_letter_headers(record: Record, problem: InvalidRecord) -> list[tuple[str, bytes]]:
    """The original headers plus what was wrong and where the record came from."""
    detail = problem.detail[:_MAX_DETAIL_BYTES].encode("utf-8", "replace")
    source = (record.topic, str(record.partition), str(record.offset))
    return [
        *list(record.headers or ()),
        (ERROR_HEADER, problem.kind.encode()),
        (ERROR_DETAIL_HEADER, detail),
        *((name, value.encode()) for name, value in zip(SOURCE_HEADERS, source, strict=True)),
    ]


class Replier:
    """Sends verdicts and dead letters for consumed records."""

    def __init__(
        self,
        producer: Producer,
        *,
        verdict_topic: str,
        dlq_topic: str,
        reply_deadline_s: float,
    ) -> None:
        self.producer = producer
        self.verdict_topic = verdict_topic
        self.dlq_topic = dlq_topic
        self.reply_deadline_s = reply_deadline_s
        self.verdicts_sent = 0
        self.dead_letters_sent = 0

    def topic_for(self, record: Record) -> str:
        """Where the record's verdict goes."""
        return accepted_reply_topic(self.verdict_topic, record.headers) or self.verdict_topic

    async def verdict(self, record: Record, verdict: Verdict) -> None:
        """Send the verdict; if it cannot be written, dead-letter the message instead.

        Retriable errors are retried until the reply deadline, a final one (record too
        large, not authorized, invalid topic) not at all: either way the partition
        moves on, and the message is kept on the dead-letter topic with the error.
        """
        topic = self.topic_for(record)
        corr = header(record.headers, CORRELATION_HEADER)
        headers = [] if corr is None else [(CORRELATION_HEADER, corr)]
        failure = await deliver(
            self.producer,
            topic,
            verdict.to_json(),
            record.key,
            headers,
            deadline_s=self.reply_deadline_s,
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
            self.dlq_topic,
        )
        problem = InvalidRecord("reply_failed", failure.describe(), verdict.message_id)
        await self.dead_letter(record, problem, [(REPLY_TOPIC_HEADER, topic.encode())])

    async def dead_letter(
        self, record: Record, problem: InvalidRecord, extra: list[tuple[str, bytes]] | None = None
    ) -> None:
        """Copy the record to the dead-letter topic with what was wrong.

        Retriable errors are retried without end: the dead-letter topic is where a
        message goes when nothing else can take it, and its offset must not be
        committed before it is somewhere. If the topic refuses the record for good
        (too large for it, say), the headers go without the value, which stays in
        the source topic at the offset they name; if even that is refused, the error
        is logged and counted and the partition moves on.
        """
        topic = self.dlq_topic
        headers = dead_letter_headers(record, problem) + (extra or [])
        failure = await deliver(
            self.producer, topic, record.value, record.key, headers, deadline_s=None
        )
        if failure is not None and record.value is not None:
            headers.append((VALUE_DROPPED_HEADER, failure.error.encode()))
            failure = await deliver(
                self.producer, topic, None, record.key, headers, deadline_s=None
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
