"""Fresh topics and a group on a real broker, and a worker's settings for them.

Shared by the integration tests and the fault suite: one place says how a test
worker is configured.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from moderation.config import KafkaSettings, WorkerSettings
from moderation.kafka.admin import ensure_topics

ROOT = Path(__file__).resolve().parents[1]
# tansu holds a JoinGroup for about half the session timeout: keep it short.
SESSION_TIMEOUT_MS = 6000
# Functional tests check what is answered, not how fast: a budget no shared CI
# machine misses. Tests of the budget itself set their own.
FUNCTIONAL_BUDGET_MS = 20_000
PARTITIONS = 4


@dataclass
class Topics:
    """Input, verdict and dead-letter topics and a consumer group, all new."""

    bootstrap: str
    input: str
    verdicts: str
    dlq: str
    group: str
    partitions: int = PARTITIONS

    @classmethod
    def named(cls, bootstrap: str, prefix: str = "", partitions: int = PARTITIONS) -> Topics:
        tag = uuid.uuid4().hex[:10]
        return cls(
            bootstrap,
            f"{prefix}in-{tag}",
            f"{prefix}verdicts-{tag}",
            f"{prefix}dlq-{tag}",
            f"{prefix}g-{tag}",
            partitions,
        )

    async def create(self) -> None:
        """Create the topics (again, after a broker lost them)."""
        n = self.partitions
        await ensure_topics(
            KafkaSettings(bootstrap=self.bootstrap), {self.input: n, self.verdicts: n, self.dlq: 1}
        )

    def settings(self, **overrides: object) -> WorkerSettings:
        """In-process worker settings for these topics."""
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
        """The environment of a `moderation worker` process for these topics."""
        return {
            **os.environ,
            "PYTHONPATH": str(ROOT),
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
