"""The producer every part of moderation uses, configured once.

``acks="all"``: a verdict (or a message, or a replayed row) counts as sent only when
every in-sync replica has it. ``linger_ms=0``: chat waits on each record, so nothing
is held back to fill a batch. The idempotent producer is off because the embedded
broker (tansu) does not implement it; retries happen in our code, at-least-once.
"""

from __future__ import annotations

from typing import Any

from aiokafka import AIOKafkaProducer

from moderation.config import KafkaSettings

REQUEST_TIMEOUT_MS = 5000


def producer(kafka: KafkaSettings, **overrides: Any) -> AIOKafkaProducer:
    """An unstarted producer for ``kafka``; call it inside the event loop that will use it."""
    options: dict[str, Any] = {
        "bootstrap_servers": kafka.bootstrap,
        "acks": "all",
        "linger_ms": 0,
        "enable_idempotence": False,
        "request_timeout_ms": REQUEST_TIMEOUT_MS,
        **kafka.client_kwargs(),
    }
    options.update(overrides)
    return AIOKafkaProducer(**options)
