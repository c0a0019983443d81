"""Produce one record and wait for its acknowledgement, within bounds.

A produce error is either *retriable* (the broker is away, a leader is moving, the
request timed out: trying again can succeed) or *final* (the record is larger than
the broker or the client accepts, the principal may not write the topic, the topic
name is invalid: trying again cannot succeed). Retriable errors are retried with
jittered backoff until a deadline; a final error ends the attempt at once. Either
way the caller gets a ``SendFailure`` naming the error, and decides what to do with
the record; nothing here retries forever unless told to (``deadline_s=None``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from aiokafka.errors import KafkaError, KafkaTimeoutError

from moderation.backoff import Backoff

log = logging.getLogger(__name__)


class Producer(Protocol):
    """What ``deliver`` needs of an AIOKafkaProducer."""

    async def send(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        *,
        headers: Sequence[tuple[str, bytes]] | None = None,
    ) -> Awaitable[Any]: ...


@dataclass(frozen=True, slots=True)
class SendFailure:
    """Why a record was not written."""

    topic: str
    error: str  # the exception's class name, e.g. MessageSizeTooLargeError
    detail: str
    final: bool  # True: refused for good; False: still failing at the deadline
    attempts: int

    def describe(self) -> str:
        why = "refused" if self.final else f"still failing after {self.attempts} attempts"
        return f"produce to {self.topic} {why}: {self.error}: {self.detail}"


def is_final(exc: BaseException) -> bool:
    """Whether trying the same produce again cannot succeed."""
    if isinstance(exc, KafkaTimeoutError):
        # aiokafka marks it not retriable, but it is what a broker that is away gives
        # (the batch expired waiting): the next attempt may well get through.
        return False
    if isinstance(exc, KafkaError):
        # The bare base class carries no verdict on retrying: treat it as transient.
        return type(exc) is not KafkaError and not exc.retriable
    # Not a Kafka error at all (a value the client cannot serialize, a bug): final.
    return True


async def deliver(
    producer: Producer,
    topic: str,
    value: bytes | None,
    key: bytes | None,
    headers: Sequence[tuple[str, bytes]],
    *,
    deadline_s: float | None,
    backoff: Backoff | None = None,
) -> SendFailure | None:
    """Produce and await the acknowledgement; ``None`` once acknowledged.

    Retriable errors are retried, each after the backoff's next delay (logged, one
    line per attempt), until ``deadline_s`` seconds have passed since the first
    attempt (``None``: without end). A final error returns at once.
    """
    backoff = backoff or Backoff()
    start = time.monotonic()
    attempts = 0
    while True:
        attempts += 1
        try:
            ack = await producer.send(topic, value=value, key=key, headers=list(headers))
            await ack
            return None
        except Exception as exc:
            failure = SendFailure(topic, type(exc).__name__, str(exc)[:500], True, attempts)
            if is_final(exc):
                return failure
            delay = backoff.next()
            if deadline_s is not None and time.monotonic() + delay - start > deadline_s:
                return SendFailure(topic, failure.error, failure.detail, False, attempts)
            log.warning(
                "produce to %s failed (%s: %s); attempt %d, retrying in %.2f s",
                topic,
                failure.error,
                failure.detail,
                attempts,
                delay,
            )
            await asyncio.sleep(delay)
