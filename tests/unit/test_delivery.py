"""The bounded send: which produce errors are retried, for how long, and what comes back.

A scripted stand-in for the producer (pure logic: no broker is needed to say which
error is final); the worker's use of it against the real broker is in the fault suite
(the poisoned-reply scenario) and tests/integration/test_client.py.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

import pytest
from aiokafka.errors import (
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    MessageSizeTooLargeError,
    NotLeaderForPartitionError,
    TopicAuthorizationFailedError,
    UnknownTopicOrPartitionError,
)

from moderation.backoff import Backoff
from moderation.kafka.send import SendFailure, deliver, is_final


class ScriptedProducer:
    """Raises the scripted errors in turn (on send or on the ack), then acknowledges."""

    def __init__(self, script: Sequence[BaseException | str]) -> None:
        self.script = list(script)
        self.sends: list[tuple[str, bytes | None]] = []

    async def send(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        *,
        headers: Sequence[tuple[str, bytes]] | None = None,
    ) -> asyncio.Future[Any]:
        self.sends.append((topic, value))
        ack: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        step = self.script.pop(0) if self.script else "ok"
        if isinstance(step, BaseException):
            if len(self.sends) % 2:  # alternate: refused on send, or on the ack
                raise step
            ack.set_exception(step)
        else:
            ack.set_result("acked")
        return ack


def fast() -> Backoff:
    return Backoff(first_s=0.001, max_s=0.004, rng=random.Random(1))


@pytest.mark.parametrize(
    ("exc", "final"),
    [
        (MessageSizeTooLargeError(), True),
        (TopicAuthorizationFailedError(), True),
        (ValueError("cannot serialize"), True),
        (KafkaConnectionError(), False),
        (NotLeaderForPartitionError(), False),
        (UnknownTopicOrPartitionError(), False),
        (KafkaTimeoutError(), False),  # aiokafka says final; a broker away gives it
        (KafkaError("unexpected"), False),
    ],
)
def test_final_and_retriable_errors_are_told_apart(exc: BaseException, final: bool) -> None:
    assert is_final(exc) is final


def test_retriable_errors_are_retried_until_acknowledged() -> None:
    producer = ScriptedProducer([KafkaConnectionError(), NotLeaderForPartitionError(), "ok"])
    got = asyncio.run(deliver(producer, "t", b"v", None, [], deadline_s=5, backoff=fast()))
    assert got is None
    assert len(producer.sends) == 3


def test_a_final_error_returns_at_once_named() -> None:
    producer = ScriptedProducer([MessageSizeTooLargeError("1 MB"), "ok"])
    got = asyncio.run(deliver(producer, "t", b"v", None, [], deadline_s=None, backoff=fast()))
    assert isinstance(got, SendFailure)
    assert (got.topic, got.error, got.final, got.attempts) == (
        "t",
        "MessageSizeTooLargeError",
        True,
        1,
    )
    assert len(producer.sends) == 1
    assert "refused" in got.describe() and "MessageSizeTooLargeError" in got.describe()


def test_a_retriable_error_that_persists_ends_at_the_deadline() -> None:
    producer = ScriptedProducer([KafkaConnectionError()] * 10_000)
    got = asyncio.run(deliver(producer, "t", b"v", None, [], deadline_s=0.05, backoff=fast()))
    assert isinstance(got, SendFailure)
    assert not got.final and got.error == "KafkaConnectionError"
    assert 1 < got.attempts == len(producer.sends) < 10_000
    assert f"after {got.attempts} attempts" in got.describe()


def test_without_a_deadline_retriable_errors_are_retried_past_any_count() -> None:
    producer = ScriptedProducer([UnknownTopicOrPartitionError()] * 60 + ["ok"])
    got = asyncio.run(deliver(producer, "t", b"v", None, [], deadline_s=None, backoff=fast()))
    assert got is None and len(producer.sends) == 61


def test_each_retry_is_logged_with_its_delay(caplog: pytest.LogCaptureFixture) -> None:
    producer = ScriptedProducer([KafkaConnectionError(), "ok"])
    with caplog.at_level("WARNING", logger="moderation.kafka.send"):
        asyncio.run(deliver(producer, "t", b"secret text", None, [], deadline_s=5, backoff=fast()))
    (line,) = [r.getMessage() for r in caplog.records]
    assert "attempt 1, retrying in" in line and "KafkaConnectionError" in line
    assert "secret text" not in line
