"""Settings: one root (``Settings``), read once from the environment and the TOML file.

Each part has its own module and reader; ``load`` reads them all, so an entry point
sees every configuration error at start, each naming its setting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from moderation.config.cache import CacheSettings, cache_settings
from moderation.config.client import ClientSettings, client_settings
from moderation.config.kafka import (
    SASL_MECHANISMS,
    SECURITY_PROTOCOLS,
    KafkaSettings,
    is_topic_name,
    kafka_settings,
)
from moderation.config.model import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL_NAME,
    DEFAULT_THREADS,
    ClassifierSettings,
    classifier_settings,
    default_model_dir,
)
from moderation.config.source import PREFIX, Source
from moderation.config.worker import (
    DEFAULT_BUDGET_MS,
    DEFAULT_COMMIT_INTERVAL_MS,
    DEFAULT_FETCH_MAX_WAIT_MS,
    DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_TEXT_BYTES,
    DEFAULT_REPLY_DEADLINE_MS,
    DEFAULT_SHUTDOWN_GRACE_S,
    DecisionSettings,
    WorkerSettings,
    worker_settings,
)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a worker process is configured with."""

    worker: WorkerSettings = field(default_factory=WorkerSettings)
    classifier: ClassifierSettings = field(default_factory=ClassifierSettings)
    cache: CacheSettings = field(default_factory=CacheSettings)


def load(source: Source | None = None) -> Settings:
    """Every setting, validated; a ``ConfigError`` names the first one that is wrong."""
    src = source or Source()
    return Settings(
        worker=worker_settings(src),
        classifier=classifier_settings(src),
        cache=cache_settings(src),
    )


__all__ = [
    "DEFAULT_BUDGET_MS",
    "DEFAULT_COMMIT_INTERVAL_MS",
    "DEFAULT_FETCH_MAX_WAIT_MS",
    "DEFAULT_MAX_IN_FLIGHT",
    "DEFAULT_MAX_TEXT_BYTES",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL_NAME",
    "DEFAULT_REPLY_DEADLINE_MS",
    "DEFAULT_SHUTDOWN_GRACE_S",
    "DEFAULT_THREADS",
    "PREFIX",
    "SASL_MECHANISMS",
    "SECURITY_PROTOCOLS",
    "CacheSettings",
    "ClassifierSettings",
    "ClientSettings",
    "DecisionSettings",
    "KafkaSettings",
    "Settings",
    "Source",
    "WorkerSettings",
    "cache_settings",
    "classifier_settings",
    "client_settings",
    "default_model_dir",
    "is_topic_name",
    "kafka_settings",
    "load",
    "worker_settings",
]
