"""Producing test records and reading what the worker wrote back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer


@dataclass
class Out:
    """A record read back: value, key, headers."""

    value: bytes | None
    key: bytes | None
    headers: dict[str, bytes]

    def json(self) -> dict[str, Any]:
        assert self.value is not None
        return orjson.loads(self.value)


def message(mid: str, text: str, **extra: Any) -> bytes:
    return orjson.dumps({"id": mid, "text": text, "sent_at": int(time.time() * 1000), **extra})


async def produce(
    bootstrap: str,
    topic: str,
    records: Iterable[tuple[bytes | None, bytes | None, list[tuple[str, bytes]]]],
) -> None:
    """Send (value, key, headers) records and wait for every acknowledgement."""
    p = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await p.start()
    try:
        acks = [await p.send(topic, value=v, key=k, headers=h) for v, k, h in records]
        await asyncio.gather(*acks)
    finally:
        await p.stop()


def unique_ids(out: list[Out]) -> int:
    """Distinct message ids among verdicts (a redelivery repeats one)."""
    return len({o.json()["message_id"] for o in out})


async def read(
    bootstrap: str,
    topic: str,
    expect: int,
    timeout_s: float,
    settle_s: float = 0.0,
    count: Callable[[list[Out]], int] = len,
) -> list[Out]:
    """Read a topic from the beginning until ``count(records) >= expect``, then ``settle_s``.

    Without a consumer group: the reader takes every partition itself, and does not wait
    the seconds tansu holds a JoinGroup (about half the session timeout) each time."""
    c = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=None,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        fetch_max_wait_ms=20,
    )
    await c.start()
    out: list[Out] = []
    try:
        deadline = time.monotonic() + timeout_s
        settle_until: float | None = None
        while time.monotonic() < deadline:
            if count(out) >= expect:
                settle_until = settle_until or time.monotonic() + settle_s
                if time.monotonic() >= settle_until:
                    break
            batch = await c.getmany(timeout_ms=100)
            for recs in batch.values():
                out += [Out(r.value, r.key, dict(r.headers or ())) for r in recs]
    finally:
        await c.stop()
    return out
