"""The Kafka clients every part of moderation uses, configured once.

``acks="all"``: a verdict (or a message, or a replayed row) counts as sent only when
every in-sync replica has it. ``linger_ms=0``: chat waits on each record, so nothing
is held back to fill a batch. The idempotent producer is a setting
(``MODERATION_KAFKA_IDEMPOTENCE``), off by default because the embedded broker (tansu)
does not implement it; retries happen in our code, at-least-once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from moderation.config import KafkaSettings
from moderation.errors import TlsError

log = logging.getLogger(__name__)

REQUEST_TIMEOUT_MS = 5000


def producer(kafka: KafkaSettings, **overrides: Any) -> AIOKafkaProducer:
    """An unstarted producer for ``kafka``; call it inside the event loop that will use it."""
    options: dict[str, Any] = {
        "bootstrap_servers": kafka.bootstrap,
        "acks": "all",
        "linger_ms": 0,
        "enable_idempotence": kafka.idempotence,
        "request_timeout_ms": REQUEST_TIMEOUT_MS,
        **kafka.producer_options,
        **kafka.client_kwargs(),
    }
    options.update(overrides)
    return AIOKafkaProducer(**options)


async def check_tls(kafka: KafkaSettings, timeout_s: float = REQUEST_TIMEOUT_MS / 1000) -> None:
    """With TLS configured, shake hands with each bootstrap server before the Kafka
    clients do, so that an untrusted certificate is a clear error at start-up.

    aiokafka logs the verification failure and raises only "Unable to bootstrap",
    which our connect loop would retry for ever. A server that is not reachable
    yet is not an error here: the connect loop waits for it.
    """
    if not kafka.security_protocol.endswith("SSL") or not kafka.bootstrap:
        return
    import ssl

    context = kafka.client_kwargs()["ssl_context"]
    for server in kafka.bootstrap.split(","):
        host, _, port = server.strip().rpartition(":")
        host = host.strip("[]")
        try:
            _, writer = await asyncio.wait_for(
                asyncio.open_connection(host, int(port), ssl=context, server_hostname=host),
                timeout_s,
            )
        except ssl.SSLCertVerificationError as exc:
            raise TlsError(
                f"kafka TLS: the certificate of {server.strip()} is not trusted "
                f"({exc.verify_message}); MODERATION_KAFKA_SSL_CAFILE="
                f"{kafka.ssl_cafile or '(system CAs)'} must hold the CA that signed it"
            ) from None
        except ssl.SSLError as exc:
            raise TlsError(
                f"kafka TLS handshake with {server.strip()} failed: {exc.reason or exc}; "
                "is MODERATION_KAFKA_SECURITY_PROTOCOL right for this listener?"
            ) from None
        except (OSError, TimeoutError) as exc:
            log.info("kafka TLS check: %s not reachable yet (%s)", server.strip(), exc)
            continue
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await writer.wait_closed()


async def stop_quietly(
    client: Any, what: str, timeout_s: float = REQUEST_TIMEOUT_MS / 1000
) -> None:
    """Stop an aiokafka producer or consumer whatever state the broker is in.

    Bounded in time, never raising, one log line on trouble: with the broker gone,
    aiokafka's ``stop`` can wait on requests that cannot complete, raise a
    ``KafkaError``, or leak a ``CancelledError`` from a fetch task it cancelled
    itself. None of that should turn a clean shutdown into exit status 1 and
    tracebacks. A cancellation of the caller itself is passed on.
    """
    try:
        await asyncio.wait_for(client.stop(), timeout_s)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        log.warning("kafka %s stopped with a fetch still cancelling (broker away?)", what)
    except TimeoutError:
        log.warning("kafka %s did not stop within %.1f s (broker away?); left", what, timeout_s)
    except (KafkaError, OSError) as exc:
        log.warning("kafka %s stop: %s: %s", what, type(exc).__name__, exc)


def consumer_kwargs(kafka: KafkaSettings, **ours: Any) -> dict[str, Any]:
    """Keyword arguments for an AIOKafkaConsumer: the operator's extra options, then
    ours (which the settings refuse to let those override), then security."""
    return {
        "bootstrap_servers": kafka.bootstrap,
        **kafka.consumer_options,
        **ours,
        **kafka.client_kwargs(),
    }
