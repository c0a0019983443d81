"""What the worker needs besides the classifier: topics, group, budget, limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from moderation.config.kafka import KafkaSettings, _topic, kafka_settings
from moderation.config.source import PREFIX, Source, decision
from moderation.errors import ConfigError
from moderation.policy import Decision

# The send-message API waits for the verdict; 50 ms is Stream's p99 anchor.
DEFAULT_BUDGET_MS = 50
# tansu does not wake a waiting fetch early, so this bounds its tail latency; never 0.
DEFAULT_FETCH_MAX_WAIT_MS = 5
# Commits are periodic, never one per message; 200 ms bounds redelivery after a crash.
DEFAULT_COMMIT_INTERVAL_MS = 200
# Kubernetes sends SIGKILL 30 s after SIGTERM by default; drain well inside that.
DEFAULT_SHUTDOWN_GRACE_S = 10.0
# Enough in flight to keep the model busy through a fetch round trip, small enough
# that a backlog waits in Kafka (where it is safe) rather than in our memory.
DEFAULT_MAX_IN_FLIGHT = 256
DEFAULT_MAX_TEXT_BYTES = 16 * 1024
# How long a verdict's produce is retried on retriable errors before the message goes
# to the dead-letter topic instead. The caller stopped waiting long before (its budget
# is milliseconds); this only bounds how long one partition may stall behind a reply
# the broker keeps refusing. Outages shorter than this lose no verdict.
DEFAULT_REPLY_DEADLINE_MS = 30_000


@dataclass(frozen=True, slots=True)
class DecisionSettings:
    """What ``Moderator.decide`` needs: the budget, the fallback, and how to score."""

    budget_ms: int = DEFAULT_BUDGET_MS
    fallback: Decision = "allow"
    same_length_batching: bool = False
    cut_to_fit: bool = True
    log_text: bool = False
    long_lane_tokens: int = 0
    long_lane_threads: int = 1
    long_lane_nice: int = 0


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """Everything the worker needs besides the classifier."""

    kafka: KafkaSettings = field(default_factory=KafkaSettings)
    input_topic: str = "chat.messages"
    verdict_topic: str = "chat.verdicts"
    dlq_topic: str = "chat.messages.dlq"
    group_id: str = "moderation"
    # Static group membership (KIP-345): a stable, unique id per worker (the pod
    # name). A worker that crashes and restarts under the same id takes its
    # partitions back without a rebalance; one stopped on purpose leaves the group.
    group_instance_id: str | None = None
    budget_ms: int = DEFAULT_BUDGET_MS
    fallback_decision: Decision = "allow"
    max_text_bytes: int = DEFAULT_MAX_TEXT_BYTES
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    fetch_max_wait_ms: int = DEFAULT_FETCH_MAX_WAIT_MS
    commit_interval_ms: int = DEFAULT_COMMIT_INTERVAL_MS
    reply_deadline_ms: int = DEFAULT_REPLY_DEADLINE_MS
    shutdown_grace_s: float = DEFAULT_SHUTDOWN_GRACE_S
    session_timeout_ms: int = 10_000
    # Run queued messages of equal token length as one batch (no padding needed).
    # Off by default: dynamic int8 shares one activation scale across a batch, so a
    # message's scores would depend on its neighbours (docs/benchmarks.md).
    same_length_batching: bool = False
    # When a message's whole length cannot make its budget, score the longest prefix
    # that can (by the measured time per token) instead of answering with the fallback.
    cut_to_fit: bool = True
    # Messages longer than this many tokens run on a second inference thread with a
    # session of its own (long_lane_threads intra-op threads), so that chat messages
    # never queue behind a long paste; 0: one thread for all (moderation/engine.py).
    long_lane_tokens: int = 0
    # The long lane's thread runs this many nice steps below the process (Linux: per
    # thread), so chat messages, the event loop and the clients get the cores first.
    long_lane_nice: int = 0
    # Intra-op threads of the long lane's session.
    long_lane_threads: int = 1
    embedded_partitions: int = 4
    # /metrics, /healthz, /readyz; 0 turns the endpoint off.
    metrics_port: int = 9108
    # Chat text is user data: logged with each verdict only when an operator asks.
    log_text: bool = False
    # Exempt the objects alive at start-up from later garbage collections
    # (moderation/gcpause.py): a full collection then walks only what the worker made.
    gc_freeze: bool = True

    @property
    def decision(self) -> DecisionSettings:
        """The part of these settings that decides verdicts (``Moderator``)."""
        return DecisionSettings(
            budget_ms=self.budget_ms,
            fallback=self.fallback_decision,
            same_length_batching=self.same_length_batching,
            cut_to_fit=self.cut_to_fit,
            log_text=self.log_text,
            long_lane_tokens=self.long_lane_tokens,
            long_lane_threads=self.long_lane_threads,
            long_lane_nice=self.long_lane_nice,
        )


def _group_instance_id(src: Source) -> str | None:
    raw = src.get("GROUP_INSTANCE_ID")
    if raw is None or not str(raw).strip():
        return None
    value = str(raw).strip()
    if len(value) > 249 or not value.isprintable() or not value.isascii():
        raise ConfigError(
            f"{PREFIX}GROUP_INSTANCE_ID: at most 249 printable ASCII characters, got {value!r}"
        )
    return value


def worker_settings(source: Source | None = None) -> WorkerSettings:
    """Worker settings from the environment and the config file, validated."""
    src = source or Source()
    d = WorkerSettings()
    s = WorkerSettings(
        kafka=kafka_settings(src),
        input_topic=_topic(src, "INPUT_TOPIC", d.input_topic),
        verdict_topic=_topic(src, "VERDICT_TOPIC", d.verdict_topic),
        dlq_topic=_topic(src, "DLQ_TOPIC", d.dlq_topic),
        group_id=str(src.get("GROUP_ID") or d.group_id),
        group_instance_id=_group_instance_id(src),
        budget_ms=src.integer("BUDGET_MS", DEFAULT_BUDGET_MS, 1, 60_000),
        fallback_decision=decision(src, "FALLBACK_DECISION", "allow"),
        max_text_bytes=src.integer("MAX_TEXT_BYTES", DEFAULT_MAX_TEXT_BYTES, 1, 1 << 20),
        max_in_flight=src.integer("MAX_IN_FLIGHT", DEFAULT_MAX_IN_FLIGHT, 1, 100_000),
        fetch_max_wait_ms=src.integer("FETCH_MAX_WAIT_MS", DEFAULT_FETCH_MAX_WAIT_MS, 1, 10_000),
        commit_interval_ms=src.integer(
            "COMMIT_INTERVAL_MS", DEFAULT_COMMIT_INTERVAL_MS, 10, 60_000
        ),
        reply_deadline_ms=src.integer(
            "REPLY_DEADLINE_MS", DEFAULT_REPLY_DEADLINE_MS, 100, 3_600_000
        ),
        shutdown_grace_s=float(
            src.integer("SHUTDOWN_GRACE_S", int(DEFAULT_SHUTDOWN_GRACE_S), 1, 600)
        ),
        session_timeout_ms=src.integer("SESSION_TIMEOUT_MS", 10_000, 1_000, 300_000),
        same_length_batching=src.boolean("SAME_LENGTH_BATCHING", d.same_length_batching),
        cut_to_fit=src.boolean("CUT_TO_FIT", d.cut_to_fit),
        long_lane_tokens=src.integer("LONG_LANE_TOKENS", d.long_lane_tokens, 0, 4096),
        long_lane_nice=src.integer("LONG_LANE_NICE", d.long_lane_nice, 0, 19),
        long_lane_threads=src.integer("LONG_LANE_THREADS", d.long_lane_threads, 1, 64),
        embedded_partitions=src.integer("EMBEDDED_PARTITIONS", 4, 1, 64),
        metrics_port=src.integer("METRICS_PORT", d.metrics_port, 0, 65535),
        log_text=src.boolean("LOG_TEXT", d.log_text),
        gc_freeze=src.boolean("GC_FREEZE", d.gc_freeze),
    )
    if len({s.input_topic, s.verdict_topic, s.dlq_topic}) < 3:
        raise ConfigError("MODERATION_INPUT_TOPIC, _VERDICT_TOPIC and _DLQ_TOPIC must differ")
    return s
