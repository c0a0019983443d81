"""A real Kafka-protocol broker (tansu) for the session; fresh topics and groups per test."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from moderation.embedded import EmbeddedBroker
from tests.topics import Topics


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
