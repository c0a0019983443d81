"""The send-message client against a real broker and a real worker."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import pytest

from moderation.client import ModerationClient
from moderation.config import ClientSettings, KafkaSettings
from moderation.schema import REPLY_TO_HEADER
from moderation.sendapi import SendApi
from tests.integration.kafka_io import message, produce, read
from tests.integration.workers import running
from tests.topics import Topics

pytestmark = pytest.mark.integration


def client_settings(topics: Topics, instance: str, **kw: Any) -> ClientSettings:
    return ClientSettings(
        kafka=KafkaSettings(bootstrap=topics.bootstrap),
        input_topic=topics.input,
        verdict_topic=topics.verdicts,
        instance_id=instance,
        **kw,
    )


def test_two_instances_each_get_only_their_own_replies(topics: Topics, model: Any) -> None:
    async def main() -> None:
        async with (
            running(topics.settings(), model),
            ModerationClient(client_settings(topics, "api-a", timeout_ms=20_000)) as a,
            ModerationClient(client_settings(topics, "api-b", timeout_ms=20_000)) as b,
        ):
            texts = ["you are a worthless idiot", "see you at practice tomorrow!"]
            calls = [a.check({"id": f"a-{i}", "text": texts[i % 2]}) for i in range(40)]
            calls += [b.check({"id": f"b-{i}", "text": texts[i % 2]}) for i in range(40)]
            verdicts = await asyncio.gather(*calls)
            stats = (a.stats, b.stats)
        by_id = {v.message_id: v for v in verdicts}
        assert len(by_id) == 80
        assert {v.reason for v in verdicts} == {"model"}
        assert by_id["a-0"].decision == "nudge" and by_id["a-1"].decision == "allow"
        assert by_id["b-0"].decision == "nudge" and by_id["b-1"].decision == "allow"
        assert all(s.answered == 40 and s.unknown == 0 and s.timed_out == 0 for s in stats)
        # Each reply topic holds exactly its instance's verdicts: nobody reads anyone else's.
        for instance in ("a", "b"):
            out = await read(topics.bootstrap, f"{topics.verdicts}.api-{instance}", 40, 20)
            ids = {o.json()["message_id"] for o in out}
            assert ids == {f"{instance}-{i}" for i in range(40)}
        # And the shared verdict topic got none of them.
        assert await read(topics.bootstrap, topics.verdicts, 1, 2) == []

    asyncio.run(main())


def test_timeout_returns_fallback_and_late_reply_is_counted(topics: Topics, model: Any) -> None:
    async def main() -> None:
        settings = client_settings(topics, "api-late", timeout_ms=300, fallback_decision="nudge")
        async with ModerationClient(settings) as client:
            start = time.monotonic()
            verdict = await client.check({"id": "slow-1", "text": "hello there"})
            waited = time.monotonic() - start
            assert verdict.reason == "timeout" and verdict.decision == "nudge"
            assert waited < 5, "a timed-out call must come back, not hang"
            assert client.in_flight == 0
            # Now a worker starts and answers the old message (budget set by the call
            # has passed, so it answers with its own fallback): a late reply.
            async with running(topics.settings(), model):
                deadline = time.monotonic() + 30
                while client.stats.late == 0 and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                assert client.stats.late == 1
                assert client.stats.timed_out == 1 and client.stats.unknown == 0
                # A fresh call on the same client works once the worker is there.
                ok = await client.check({"id": "fast-1", "text": "thanks!"}, timeout_ms=20_000)
                assert ok.reason == "model"

    asyncio.run(main())


def test_thousands_in_flight(topics: Topics, model: Any) -> None:
    async def main() -> None:
        async with (
            running(topics.settings(), model),
            ModerationClient(client_settings(topics, "api-many", timeout_ms=60_000)) as client,
        ):
            n = 2000
            calls = [client.check({"id": f"m-{i}", "text": f"message {i % 50}"}) for i in range(n)]
            verdicts = await asyncio.gather(*calls)
        assert sorted(v.message_id for v in verdicts) == sorted(f"m-{i}" for i in range(n))
        assert all(v.reason in ("model", "cache") for v in verdicts)
        assert client.stats.answered == n

    asyncio.run(main())


def test_a_message_the_broker_refuses_gets_the_fallback_at_once(topics: Topics) -> None:
    """A record over the producer's size limit can never be sent: the call does not
    wait out its timeout retrying, it answers with the fallback and names the error."""

    async def main() -> None:
        settings = client_settings(topics, "api-big", timeout_ms=60_000, fallback_decision="nudge")
        async with ModerationClient(settings) as client:
            verdict = await client.check({"id": "big-1", "text": "x" * 1_100_000})
            assert (verdict.reason, verdict.decision) == ("error", "nudge")
            assert verdict.error == "MessageSizeTooLargeError"
            assert client.stats.undeliverable == 1 and client.stats.timed_out == 0
            # The client goes on working for the next message.
            ok = await client.check({"id": "small-1", "text": "hi"}, timeout_ms=200)
            assert ok.reason == "timeout"  # no worker runs here: sent, then timed out
            assert client.stats.undeliverable == 1

    asyncio.run(main())


def test_bad_calls_raise_clear_errors(topics: Topics) -> None:
    async def main() -> None:
        async with ModerationClient(client_settings(topics, "api-bad")) as client:
            with pytest.raises(ValueError, match="'id'"):
                await client.check({"text": "no id"})
            with pytest.raises(ValueError, match="'text'"):
                await client.check({"id": "x", "text": 5})
            with pytest.raises(ValueError, match="timeout_ms"):
                await client.check({"id": "x", "text": "hi"}, timeout_ms=0)
            first = asyncio.create_task(client.check({"id": "dup", "text": "hi"}))
            await asyncio.sleep(0.05)
            with pytest.raises(ValueError, match="already in flight"):
                await client.check({"id": "dup", "text": "hi"})
            assert (await first).reason == "timeout"

    asyncio.run(main())


def test_worker_refuses_reply_to_outside_the_verdict_family(topics: Topics, model: Any) -> None:
    async def main() -> None:
        async with running(topics.settings(), model):
            await produce(
                topics.bootstrap,
                topics.input,
                [(message("r-1", "hi"), b"r-1", [(REPLY_TO_HEADER, topics.dlq.encode())])],
            )
            out = await read(topics.bootstrap, topics.verdicts, 1, 20)
        assert [o.json()["message_id"] for o in out] == ["r-1"]
        assert await read(topics.bootstrap, topics.dlq, 1, 2) == []

    asyncio.run(main())


async def _post(port: int, body: bytes) -> tuple[int, dict[str, Any]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), orjson.loads(payload)


def _parse(raw: bytes) -> tuple[int, dict[str, Any]]:
    head, _, payload = raw.partition(b"\r\n\r\n")
    if b"Transfer-Encoding: chunked" in head:  # de-chunk (one or more chunks)
        out, rest = b"", payload
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            out, rest = out + rest[:n], rest[n + 2 :]
        payload = out
    return int(head.split(b" ")[1]), orjson.loads(payload)


async def _expect_continue(port: int, body: bytes) -> tuple[bytes, int, dict[str, Any]]:
    """Send the head with ``Expect: 100-continue``; the body only after the interim 100."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Expect: 100-continue\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
    )
    await writer.drain()
    # A server that ignores the header never sends the interim line: this read then
    # waits out its (liveness) limit and the test fails.
    interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
    writer.write(body)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    return interim, *_parse(raw)


async def _chunked(port: int, chunks: list[bytes]) -> tuple[int, dict[str, Any]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
        + b"".join(f"{len(c):x}\r\n".encode() + c + b"\r\n" for c in chunks)
        + b"0\r\n\r\n"
    )
    await writer.drain()
    raw = await reader.read()
    writer.close()
    return _parse(raw)


def test_example_send_api_speaks_http_as_clients_do(topics: Topics, model: Any) -> None:
    """Expect: 100-continue (curl's default for larger bodies), chunked bodies, a body
    over the limit, OpenMetrics for a scraper that asks for it."""
    from moderation.sendapi import MAX_BODY_BYTES

    async def main() -> None:
        settings = client_settings(topics, "api-http11", timeout_ms=20_000)
        async with running(topics.settings(), model), ModerationClient(settings) as client:
            api = await SendApi(client, port=0).start()
            try:
                interim, status, body = await _expect_continue(
                    api.port, b'{"id": "e-1", "text": "see you at 7"}'
                )
                assert interim.startswith(b"HTTP/1.1 100 Continue")
                assert status == 200 and body["message_id"] == "e-1"
                status, body = await _chunked(
                    api.port, [b'{"id": "c-1", "te', b'xt": "see you', b' at 7"}']
                )
                assert status == 200 and body["message_id"] == "c-1"
                status, body = await _post(api.port, b'{"text": "' + b"a" * MAX_BODY_BYTES + b'"}')
                assert status == 413
                assert f"{MAX_BODY_BYTES} bytes" in body["error"]
                status, body = await _chunked(api.port, [b"x" * 40_000, b"x" * 40_000])
                assert status == 413 and "bytes" in body["error"]
                reader, writer = await asyncio.open_connection("127.0.0.1", api.port)
                writer.write(
                    b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    b"Accept: application/openmetrics-text; version=1.0.0\r\n\r\n"
                )
                raw = await reader.read()
                writer.close()
                head, _, text = raw.partition(b"\r\n\r\n")
                assert b"application/openmetrics-text" in head
                assert b"moderation_client_calls_total" in text
                assert b"process_resident_memory_bytes" in text
            finally:
                await api.close()

    asyncio.run(main())


def test_example_send_api_service(topics: Topics, model: Any) -> None:
    async def main() -> None:
        settings = client_settings(topics, "api-http", timeout_ms=20_000)
        async with running(topics.settings(), model), ModerationClient(settings) as client:
            api = await SendApi(client, port=0).start()
            try:
                status, body = await _post(api.port, b'{"text": "you are a worthless idiot"}')
                assert status == 200 and body["delivered"] is False
                assert body["verdict"]["decision"] == "nudge"
                status, body = await _post(api.port, b'{"id": "h-2", "text": "see you at 7"}')
                assert status == 200 and body["delivered"] is True
                assert body["message_id"] == "h-2"
                status, body = await _post(api.port, b'{"text": 5}')
                assert status == 422 and "'text'" in body["error"]
                status, body = await _post(api.port, b"not json")
                assert status == 400 and "not JSON" in body["error"]
            finally:
                await api.close()

    asyncio.run(main())


def test_send_api_command_runs_the_embedded_stack(tmp_path: Any) -> None:
    """What the README shows: `moderation send-api --embedded`, then POST a message."""
    import os
    import signal
    import subprocess
    import sys

    from moderation.embedded import free_port

    port = free_port()
    env = {**os.environ, "MODERATION_METRICS_PORT": "0", "MODERATION_THREADS": "1"}
    log = (tmp_path / "api.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "moderation.cli", "send-api", "--embedded", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )

    async def main() -> tuple[int, dict[str, Any]]:
        deadline = time.monotonic() + 90
        while True:
            try:
                return await _post(port, b'{"text": "you are a worthless idiot"}')
            except OSError:
                assert proc.poll() is None, (tmp_path / "api.log").read_text()
                assert time.monotonic() < deadline, "send-api never listened"
                await asyncio.sleep(0.2)

    try:
        status, body = asyncio.run(main())
        assert status == 200 and body["verdict"]["decision"] == "nudge"
        assert body["verdict"]["reason"] == "model"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        log.close()
