"""A real Kafka-protocol broker (tansu) for the session; fresh topics and groups per test."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from moderation.config import KafkaSettings, WorkerSettings
from moderation.embedded import EmbeddedBroker, ensure_topics

# tansu holds a JoinGroup for about half the session timeout: keep it short.
SESSION_TIMEOUT_MS = 6000
# Functional tests check what is answered, not how fast: a budget no shared CI
# machine misses. The budget behaviour has its own test.
FUNCTIONAL_BUDGET_MS = 20_000


@pytest.fixture(scope="session")
def broker() -> Iterator[EmbeddedBroker]:
    b = EmbeddedBroker().start()
    yield b
    b.stop()


@dataclass
class Topics:
    """Fresh topic names and group id for one test, created on the broker."""

    bootstrap: str
    input: str
    verdicts: str
    dlq: str
    group: str

    def settings(self, **overrides: object) -> WorkerSettings:
        s = WorkerSettings(
            kafka=KafkaSettings(bootstrap=self.bootstrap),
            input_topic=self.input,
            verdict_topic=self.verdicts,
            dlq_topic=self.dlq,
            group_id=self.group,
            session_timeout_ms=SESSION_TIMEOUT_MS,
            shutdown_grace_s=10.0,
            budget_ms=FUNCTIONAL_BUDGET_MS,
        )
        return replace(s, **overrides)  # type: ignore[arg-type]

    def env(self, **extra: str) -> dict[str, str]:
        root = Path(__file__).resolve().parents[2]
        return {
            **os.environ,
            "PYTHONPATH": str(root),
            "MODERATION_KAFKA_BOOTSTRAP": self.bootstrap,
            "MODERATION_INPUT_TOPIC": self.input,
            "MODERATION_VERDICT_TOPIC": self.verdicts,
            "MODERATION_DLQ_TOPIC": self.dlq,
            "MODERATION_GROUP_ID": self.group,
            "MODERATION_SESSION_TIMEOUT_MS": str(SESSION_TIMEOUT_MS),
            "MODERATION_THREADS": "1",
            # Several workers share this machine: no fixed metrics port for them.
            "MODERATION_METRICS_PORT": "0",
            "MODERATION_BUDGET_MS": str(FUNCTIONAL_BUDGET_MS),
            **extra,
        }


@pytest.fixture
def topics(broker: EmbeddedBroker) -> Topics:
    tag = uuid.uuid4().hex[:10]
    t = Topics(broker.bootstrap, f"in-{tag}", f"verdicts-{tag}", f"dlq-{tag}", f"g-{tag}")
    kafka = KafkaSettings(bootstrap=broker.bootstrap)
    asyncio.run(ensure_topics(kafka, {t.input: 4, t.verdicts: 4, t.dlq: 1}))
    return t


class WorkerProcess:
    """`moderation worker` as operators run it: a subprocess, stopped by signals."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.log = log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moderation.cli", "worker"],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.log.close()


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
