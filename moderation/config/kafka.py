"""Where the broker is and how to authenticate."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moderation.config.source import PREFIX, Source, _choice
from moderation.errors import ConfigError

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
                from moderation.kafka.auth import token_provider

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


_TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")


def is_topic_name(name: str) -> bool:
    """A legal Kafka topic name: 1-249 ASCII letters, digits, '.', '_', '-'."""
    return _TOPIC_NAME.fullmatch(name) is not None


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
