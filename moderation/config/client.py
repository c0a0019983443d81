"""The send-message client's settings (``moderation.client``)."""

from __future__ import annotations

import socket
import uuid
from dataclasses import dataclass, field

from moderation.config.kafka import KafkaSettings, _topic, is_topic_name, kafka_settings
from moderation.config.source import PREFIX, Source, decision
from moderation.config.worker import DEFAULT_FETCH_MAX_WAIT_MS
from moderation.errors import ConfigError
from moderation.policy import Decision


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """Where to send and where replies come back."""

    kafka: KafkaSettings
    input_topic: str = "chat.messages"
    verdict_topic: str = "chat.verdicts"
    # Stable per instance (a pod name) so a restarted instance reuses its topic.
    instance_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    reply_partitions: int = 1
    timeout_ms: int = 50
    fallback_decision: Decision = "allow"
    fetch_max_wait_ms: int = 5
    create_reply_topic: bool = True


def client_settings(source: Source | None = None) -> ClientSettings:
    """Client settings for a send-message API process, validated."""
    src = source or Source()
    d = ClientSettings(kafka=KafkaSettings())
    instance = str(src.get("INSTANCE_ID") or socket.gethostname())
    if len(instance) > 200 or not is_topic_name(instance):
        raise ConfigError(
            f"{PREFIX}INSTANCE_ID={instance!r}: letters, digits, '.', '_', '-', at most 200"
        )
    return ClientSettings(
        kafka=kafka_settings(src),
        input_topic=_topic(src, "INPUT_TOPIC", d.input_topic),
        verdict_topic=_topic(src, "VERDICT_TOPIC", d.verdict_topic),
        instance_id=instance,
        reply_partitions=src.integer("REPLY_PARTITIONS", d.reply_partitions, 1, 64),
        timeout_ms=src.integer("CLIENT_TIMEOUT_MS", d.timeout_ms, 1, 60_000),
        fallback_decision=decision(src, "FALLBACK_DECISION", "allow"),
        fetch_max_wait_ms=src.integer("FETCH_MAX_WAIT_MS", DEFAULT_FETCH_MAX_WAIT_MS, 1, 10_000),
    )
