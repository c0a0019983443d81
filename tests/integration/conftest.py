"""A real Kafka-protocol broker (tansu) for the session; fresh topics and groups per test."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from moderation.app import load_classifier
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings
from moderation.embedded import EmbeddedBroker, EmbeddedRedis
from moderation.policy import Policy
from tests.topics import Topics
from tests.worker_process import WorkerProcess


@pytest.fixture(scope="session")
def broker() -> Iterator[EmbeddedBroker]:
    b = EmbeddedBroker().start()
    yield b
    b.stop()


@pytest.fixture
def topics(broker: EmbeddedBroker) -> Topics:
    t = Topics.named(broker.bootstrap)
    asyncio.run(t.create())
    return t


@pytest.fixture(scope="module")
def model() -> tuple[Classifier, Policy]:
    """The shipped model and its policy, loaded once per test module, on one thread."""
    return load_classifier(ClassifierSettings(threads=1))


@pytest.fixture
def redis_server() -> Iterator[EmbeddedRedis]:
    """A real redis-server on loopback for one test."""
    r = EmbeddedRedis().start()
    yield r
    r.stop()


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[object]:
    started: list[WorkerProcess] = []

    def _spawn(env: dict[str, str]) -> WorkerProcess:
        w = WorkerProcess(env, tmp_path / f"worker-{len(started)}.log")
        started.append(w)
        return w

    yield _spawn
    for w in started:
        w.stop()


def wait_for(predicate: object, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(interval)
    return False
