"""Settings: the one place that reads environment variables and the TOML file.

Every setting has a default that works on a laptop. ``MODERATION_CONFIG`` may
name a TOML file whose keys are the variable names without the ``MODERATION_``
prefix, in lower case (``threads = 2``); environment variables win over it.
Values are validated here, and each error names the setting and what it wants.
"""

from __future__ import annotations

import json
import os
import re
import socket
import tomllib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moderation.errors import ConfigError

PREFIX = "MODERATION_"
DEFAULT_MODEL_NAME = "moderation-minilm-int8"
# The mission's figure: one process, four intra-op threads (clamped to the cores we have).
DEFAULT_THREADS = 4
# Chat messages are short; 128 tokens keeps a long paste's cost bounded.
DEFAULT_MAX_TOKENS = 128


def default_model_dir() -> Path:
    """The shipped int8 model: inside an installed package (``moderation/models``), or
    under ``models/`` beside the package in a checkout (and an editable install)."""
    here = Path(__file__).resolve().parent
    installed = here / "models" / DEFAULT_MODEL_NAME
    if installed.is_dir():
        return installed
    return here.parent / "models" / DEFAULT_MODEL_NAME


@dataclass(frozen=True, slots=True)
class ClassifierSettings:
    """How the model is loaded and run."""

    model_dir: Path = field(default_factory=default_model_dir)
    threads: int = DEFAULT_THREADS
    max_tokens: int = DEFAULT_MAX_TOKENS
    # Off, by measurement: spinning intra-op threads make the model alone ~0.2 ms
    # faster, but inside the worker they take the cores the event loop, the client
    # and the broker need; in every `moderation bench e2e` run, p99 at 100 and 200
    # msg/s was lower with spinning off (docs/benchmarks.md).
    spinning: bool = False
    # Label -> threshold overrides; labels left out keep the model card's value.
    thresholds: Mapping[str, float] = field(default_factory=dict)
    # Undo evasive spellings (look-alike letters, leetspeak, spaced-out letters,
    # stretched vowels) before tokenizing: moderation/normalize.py.
    normalize: bool = True
    # Refuse to start on a CPU without VNNI: int8 runs several times slower there, and
    # int8 kernels have given wrong results on some older CPUs. Off for laptops.
    require_vnni: bool = False


class Source:
    """Raw setting values: environment first, then the TOML file, then nothing."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env = dict(os.environ if env is None else env)
        self.file: dict[str, Any] = {}
        path = self.env.get(PREFIX + "CONFIG")
        if path:
            try:
                with open(path, "rb") as fh:
                    self.file = tomllib.load(fh)
            except OSError as exc:
                raise ConfigError(f"MODERATION_CONFIG={path}: cannot read: {exc}") from exc
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"MODERATION_CONFIG={path}: not valid TOML: {exc}") from exc

    def get(self, name: str) -> Any:
        """The raw value of ``MODERATION_<NAME>``, or None when unset."""
        key = PREFIX + name
        if key in self.env and self.env[key] != "":
            return self.env[key]
        return self.file.get(name.lower())

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        """An integer in [low, high]."""
        raw = self.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"{PREFIX}{name}={raw!r}: expected an integer") from None
        if not low <= value <= high:
            raise ConfigError(f"{PREFIX}{name}={value}: expected {low}..{high}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        """true/false, 1/0, yes/no, on/off."""
        raw = self.get(name)
        if raw is None:
            return default
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{PREFIX}{name}={raw!r}: expected true or false")

    def thresholds(self, name: str) -> dict[str, float]:
        """``label=value`` pairs separated by commas (or a TOML table)."""
        raw = self.get(name)
        if raw is None:
            return {}
        pairs = raw.items() if isinstance(raw, dict) else _split_pairs(name, str(raw))
        out = {}
        for label, value in pairs:
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise ConfigError(f"{PREFIX}{name}: {label}={value!r} is not a number") from None
            if not 0.0 <= v <= 1.0:
                raise ConfigError(f"{PREFIX}{name}: {label}={v} must lie in [0, 1]")
            out[str(label)] = v
        return out


def _split_pairs(name: str, text: str) -> list[tuple[str, str]]:
    pairs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        label, sep, value = part.partition("=")
        if not sep or not label.strip():
            raise ConfigError(f"{PREFIX}{name}: {part!r} is not label=value")
        pairs.append((label.strip(), value.strip()))
    return pairs


def classifier_settings(source: Source | None = None) -> ClassifierSettings:
    """Classifier settings from the environment and the config file."""
    src = source or Source()
    model_dir = src.get("MODEL_DIR")
    return ClassifierSettings(
        model_dir=Path(model_dir) if model_dir else default_model_dir(),
        threads=src.integer("THREADS", DEFAULT_THREADS, 1, 256),
        max_tokens=src.integer("MAX_TOKENS", DEFAULT_MAX_TOKENS, 8, 512),
        spinning=src.boolean("SPINNING", ClassifierSettings().spinning),
        thresholds=src.thresholds("THRESHOLDS"),
        require_vnni=src.boolean("REQUIRE_VNNI", False),
        normalize=src.boolean("NORMALIZE", True),
    )


# --- the worker -------------------------------------------------------------------

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
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")
# Options the code sets itself: overriding them would break delivery guarantees
# (acks, commits, group) or duplicate a setting that has its own variable.
_MANAGED_OPTIONS = frozenset(
    {
        "loop",
        "bootstrap_servers",
        "client_id",
        "security_protocol",
        "ssl_context",
        "sasl_mechanism",
        "sasl_plain_username",
        "sasl_plain_password",
        "sasl_kerberos_service_name",
        "sasl_kerberos_domain_name",
        "sasl_oauth_token_provider",
        "acks",
        "enable_idempotence",
        "transactional_id",
        "group_id",
        "group_instance_id",
        "enable_auto_commit",
        "auto_offset_reset",
        "key_serializer",
        "value_serializer",
        "key_deserializer",
        "value_deserializer",
    }
)


@dataclass(frozen=True, slots=True)
class KafkaSettings:
    """Where the broker is and how to authenticate; passed through to aiokafka."""

    bootstrap: str | None = None  # None: start the embedded broker
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    # Names this process in broker logs, quotas and request metrics.
    client_id: str = "moderation"
    # Off by default: the embedded broker (tansu) does not implement it. On Apache
    # Kafka it removes duplicates a producer retry could write.
    idempotence: bool = False
    kerberos_service_name: str = "kafka"
    kerberos_domain_name: str | None = None
    oauth_token_file: str | None = None
    oauth_token_url: str | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: str | None = field(default=None, repr=False)
    oauth_scope: str | None = None
    # Further aiokafka keyword arguments, checked against its constructors at load.
    producer_options: Mapping[str, Any] = field(default_factory=dict)
    consumer_options: Mapping[str, Any] = field(default_factory=dict)

    def client_kwargs(self) -> dict[str, Any]:
        """Keyword arguments common to aiokafka consumers, producers and admin clients."""
        kw: dict[str, Any] = {
            "security_protocol": self.security_protocol,
            "client_id": self.client_id,
        }
        if self.security_protocol.startswith("SASL"):
            kw["sasl_mechanism"] = self.sasl_mechanism
            if self.sasl_mechanism == "GSSAPI":
                kw["sasl_kerberos_service_name"] = self.kerberos_service_name
                if self.kerberos_domain_name:
                    kw["sasl_kerberos_domain_name"] = self.kerberos_domain_name
            elif self.sasl_mechanism == "OAUTHBEARER":
                from moderation.kafka_auth import token_provider

                kw["sasl_oauth_token_provider"] = token_provider(
                    self.oauth_token_file,
                    self.oauth_token_url,
                    self.oauth_client_id,
                    self.oauth_client_secret,
                    self.oauth_scope,
                )
            else:
                kw["sasl_plain_username"] = self.sasl_username
                kw["sasl_plain_password"] = self.sasl_password
        if self.security_protocol.endswith("SSL"):
            from aiokafka.helpers import create_ssl_context

            kw["ssl_context"] = create_ssl_context(
                cafile=self.ssl_cafile, certfile=self.ssl_certfile, keyfile=self.ssl_keyfile
            )
        return kw


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
    fallback_decision: str = "allow"
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
    embedded_partitions: int = 4
    # /metrics, /healthz, /readyz; 0 turns the endpoint off.
    metrics_port: int = 9108
    # Chat text is user data: logged with each verdict only when an operator asks.
    log_text: bool = False


def _choice(src: Source, name: str, default: str, allowed: tuple[str, ...]) -> str:
    raw = src.get(name)
    if raw is None:
        return default
    value = str(raw).strip()
    if value.upper() in (a.upper() for a in allowed):
        return next(a for a in allowed if a.upper() == value.upper())
    raise ConfigError(f"{PREFIX}{name}={value!r}: expected one of {', '.join(allowed)}")


_TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")


def is_topic_name(name: str) -> bool:
    """A legal Kafka topic name: 1-249 ASCII letters, digits, '.', '_', '-'."""
    return _TOPIC_NAME.fullmatch(name) is not None


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


def _topic(src: Source, name: str, default: str) -> str:
    raw = src.get(name)
    value = default if raw is None else str(raw).strip()
    if not is_topic_name(value):
        raise ConfigError(
            f"{PREFIX}{name}={value!r}: not a valid Kafka topic name "
            "(letters, digits, '.', '_', '-', at most 249)"
        )
    return value


def _bootstrap(src: Source) -> str | None:
    raw = src.get("KAFKA_BOOTSTRAP")
    if raw is None:
        return None
    hosts = [h.strip() for h in str(raw).split(",") if h.strip()]
    for h in hosts:
        host, sep, port = h.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"{PREFIX}KAFKA_BOOTSTRAP: {h!r} is not host:port")
    if not hosts:
        raise ConfigError(f"{PREFIX}KAFKA_BOOTSTRAP is empty")
    return ",".join(hosts)


def _client_options(src: Source, name: str, kind: str) -> dict[str, Any]:
    """A JSON object (or TOML table) of extra aiokafka arguments, checked by name."""
    import inspect

    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    raw = src.get(name)
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise ConfigError(f"{PREFIX}{name}: not a JSON object: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{PREFIX}{name}: expected a JSON object (or a TOML table)")
    cls = AIOKafkaProducer if kind == "producer" else AIOKafkaConsumer
    known = set(inspect.signature(cls.__init__).parameters) - {"self"}
    for key in raw:
        if key in _MANAGED_OPTIONS:
            raise ConfigError(
                f"{PREFIX}{name}: {key!r} is set by moderation itself "
                "(it has its own setting, or delivery guarantees depend on it)"
            )
        if key not in known:
            raise ConfigError(
                f"{PREFIX}{name}: {key!r} is not an aiokafka {kind} option "
                f"(known: {', '.join(sorted(known - _MANAGED_OPTIONS))})"
            )
    return dict(raw)


def kafka_settings(src: Source) -> KafkaSettings:
    """Broker address and security settings, checked for consistency."""
    protocol = _choice(src, "KAFKA_SECURITY_PROTOCOL", "PLAINTEXT", SECURITY_PROTOCOLS)
    client_id = str(src.get("KAFKA_CLIENT_ID") or f"moderation-{socket.gethostname()}")
    if len(client_id) > 255 or not client_id.isprintable():
        raise ConfigError(f"{PREFIX}KAFKA_CLIENT_ID: at most 255 printable characters")
    s = KafkaSettings(
        bootstrap=_bootstrap(src),
        security_protocol=protocol,
        sasl_mechanism=(
            _choice(src, "KAFKA_SASL_MECHANISM", "PLAIN", SASL_MECHANISMS)
            if protocol.startswith("SASL")
            else None
        ),
        sasl_username=src.get("KAFKA_SASL_USERNAME"),
        sasl_password=src.get("KAFKA_SASL_PASSWORD"),
        ssl_cafile=src.get("KAFKA_SSL_CAFILE"),
        ssl_certfile=src.get("KAFKA_SSL_CERTFILE"),
        ssl_keyfile=src.get("KAFKA_SSL_KEYFILE"),
        client_id=client_id,
        idempotence=src.boolean("KAFKA_IDEMPOTENCE", False),
        kerberos_service_name=str(src.get("KAFKA_KERBEROS_SERVICE_NAME") or "kafka"),
        kerberos_domain_name=src.get("KAFKA_KERBEROS_DOMAIN_NAME"),
        oauth_token_file=src.get("KAFKA_OAUTH_TOKEN_FILE"),
        oauth_token_url=src.get("KAFKA_OAUTH_TOKEN_URL"),
        oauth_client_id=src.get("KAFKA_OAUTH_CLIENT_ID"),
        oauth_client_secret=src.get("KAFKA_OAUTH_CLIENT_SECRET"),
        oauth_scope=src.get("KAFKA_OAUTH_SCOPE"),
        producer_options=_client_options(src, "KAFKA_PRODUCER_OPTIONS", "producer"),
        consumer_options=_client_options(src, "KAFKA_CONSUMER_OPTIONS", "consumer"),
    )
    mechanism = s.sasl_mechanism
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and not (
        s.sasl_username and s.sasl_password
    ):
        raise ConfigError(
            f"{PREFIX}KAFKA_SECURITY_PROTOCOL={protocol} with {mechanism} needs "
            f"{PREFIX}KAFKA_SASL_USERNAME and {PREFIX}KAFKA_SASL_PASSWORD"
        )
    if mechanism == "OAUTHBEARER":
        s.client_kwargs()  # raises ConfigError naming what is missing
    if mechanism == "GSSAPI":
        import importlib.util

        if importlib.util.find_spec("gssapi") is None:
            raise ConfigError(
                f"{PREFIX}KAFKA_SASL_MECHANISM=GSSAPI needs the gssapi package "
                "(pip install 'moderation[kerberos]') and a Kerberos ticket or keytab"
            )
    for name in ("KAFKA_SSL_CAFILE", "KAFKA_SSL_CERTFILE", "KAFKA_SSL_KEYFILE"):
        path = src.get(name)
        if path and not Path(path).is_file():
            raise ConfigError(f"{PREFIX}{name}={path}: no such file")
    if (s.ssl_certfile is None) != (s.ssl_keyfile is None):
        raise ConfigError(f"{PREFIX}KAFKA_SSL_CERTFILE and {PREFIX}KAFKA_SSL_KEYFILE go together")
    return s


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
        fallback_decision=_choice(src, "FALLBACK_DECISION", "allow", ("allow", "nudge")),
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
        embedded_partitions=src.integer("EMBEDDED_PARTITIONS", 4, 1, 64),
        metrics_port=src.integer("METRICS_PORT", d.metrics_port, 0, 65535),
        log_text=src.boolean("LOG_TEXT", d.log_text),
    )
    if len({s.input_topic, s.verdict_topic, s.dlq_topic}) < 3:
        raise ConfigError("MODERATION_INPUT_TOPIC, _VERDICT_TOPIC and _DLQ_TOPIC must differ")
    return s


# --- the send-message client (moderation.client) ------------------------------------


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
    fallback_decision: str = "allow"
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
        fallback_decision=_choice(src, "FALLBACK_DECISION", "allow", ("allow", "nudge")),
        fetch_max_wait_ms=src.integer("FETCH_MAX_WAIT_MS", DEFAULT_FETCH_MAX_WAIT_MS, 1, 10_000),
    )


# --- the verdict cache ---------------------------------------------------------------

# Roblox cached one million entries in process; 100k score rows is ~20 MB here.
DEFAULT_CACHE_LOCAL_ENTRIES = 100_000
DEFAULT_CACHE_TTL_S = 24 * 3600
# A Redis hit over loopback takes well under a millisecond; 5 ms caps a sick Redis's
# cost at a tenth of the default budget.
DEFAULT_REDIS_TIMEOUT_MS = 5


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """The two-tier verdict cache."""

    enabled: bool = True
    redis_url: str | None = field(default=None, repr=False)  # may hold a password
    namespace: str = "moderation"
    local_entries: int = DEFAULT_CACHE_LOCAL_ENTRIES
    ttl_s: int = DEFAULT_CACHE_TTL_S
    redis_timeout_ms: int = DEFAULT_REDIS_TIMEOUT_MS


def cache_settings(source: Source | None = None) -> CacheSettings:
    """Cache settings from the environment and the config file, validated."""
    src = source or Source()
    url = src.get("REDIS_URL")
    if url is not None:
        url = str(url).strip()
        if not url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"{PREFIX}REDIS_URL must start with redis://, rediss:// or unix://")
    namespace = str(src.get("CACHE_NAMESPACE") or "moderation")
    if not namespace or any(c.isspace() for c in namespace) or len(namespace) > 64:
        raise ConfigError(f"{PREFIX}CACHE_NAMESPACE={namespace!r}: 1..64 characters, no spaces")
    return CacheSettings(
        enabled=src.boolean("CACHE", True),
        redis_url=url or None,
        namespace=namespace,
        local_entries=src.integer(
            "CACHE_LOCAL_ENTRIES", DEFAULT_CACHE_LOCAL_ENTRIES, 0, 10_000_000
        ),
        ttl_s=src.integer("CACHE_TTL_S", DEFAULT_CACHE_TTL_S, 1, 30 * 24 * 3600),
        redis_timeout_ms=src.integer("REDIS_TIMEOUT_MS", DEFAULT_REDIS_TIMEOUT_MS, 1, 1000),
    )
