"""Fuzz the example HTTP service: any method, path, header or body gets a 4xx or a
verdict, never a 5xx and never a hang.

The service runs as deployed (aiohttp, a ModerationClient on the real broker) in a
thread of its own; hypothesis writes raw HTTP/1.1 requests to it over a socket, so
nothing between the fuzzer and the server tidies them up. No worker runs: a
well-formed message is answered with the client's fallback verdict after its
(short) timeout, which is a verdict like any other for this purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import threading
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from moderation.client import ModerationClient
from moderation.config import ClientSettings, KafkaSettings
from moderation.sendapi import MAX_BODY_BYTES, SendApi
from tests.topics import Topics

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

# Long enough for any answer on a loaded CI machine; a server that has not answered
# by then is hanging.
HANG_S = 15.0


@pytest.fixture(scope="module")
def api_port(broker: Any) -> Iterator[int]:
    topics = Topics.named(broker.bootstrap, "fz-")
    asyncio.run(topics.create())
    ready = threading.Event()
    port: list[int] = []
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    async def serve() -> None:
        s = ClientSettings(
            kafka=KafkaSettings(bootstrap=topics.bootstrap),
            input_topic=topics.input,
            verdict_topic=topics.verdicts,
            instance_id="fuzz",
            timeout_ms=30,
        )
        async with ModerationClient(s) as client:
            api = await SendApi(client, port=0).start()
            port.append(api.port)
            ready.set()
            await stop.wait()
            await api.close()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(60), "send-api never started"
    yield port[0]
    loop.call_soon_threadsafe(stop.set)
    thread.join(30)


TOKEN = st.from_regex(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}", fullmatch=True)
METHODS = st.sampled_from(
    ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE"]
) | st.from_regex(r"[A-Z]{1,12}", fullmatch=True)
PATHS = st.sampled_from(
    ["/messages", "/healthz", "/metrics", "/", "/messages/", "/messages?x=1", "/%00", "//"]
) | st.from_regex(r"/[A-Za-z0-9._~%/?=&-]{0,40}", fullmatch=True)
# Header values: visible characters, spaces and tabs (CR and LF would end the header).
VALUES = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f"),
    max_size=60,
)
HEADERS = st.lists(
    st.tuples(TOKEN, VALUES)
    | st.tuples(
        st.sampled_from(
            ["Content-Type", "Accept", "Expect", "Accept-Encoding", "Content-Encoding"]
        ),
        st.sampled_from(["application/json", "text/plain", "100-continue", "gzip", "br", "*/*", ""])
        | VALUES,
    ),
    max_size=6,
)


def dumps(value: Any) -> bytes:
    # The standard library writes what orjson refuses: big integers, NaN, lone
    # surrogates (escaped), which is what a careless client sends.
    return json.dumps(value).encode()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids),
    max_leaves=10,
)
MESSAGES = st.fixed_dictionaries(
    {"text": st.text(max_size=200) | JSON},
    optional={
        "id": st.text(max_size=300) | JSON,
        "conversation_id": st.text(max_size=40) | JSON,
        "budget_ms": st.integers(-10, 100_000) | JSON,
        "sent_at": st.integers() | JSON,
    },
)
BODIES = (
    st.binary(max_size=400)
    | JSON.map(dumps)
    | MESSAGES.map(dumps)
    | st.just(b"x" * (MAX_BODY_BYTES + 1))
)


SKIPPED = {"content-length", "transfer-encoding", "connection", "host"}


def request(
    method: str, path: str, headers: list[tuple[str, str]], body: bytes, chunked: bool
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers if k.lower() not in SKIPPED]
    if chunked:
        lines.append("Transfer-Encoding: chunked")
        payload = (
            b"".join(
                b"%x\r\n%s\r\n" % (len(part), part)
                for part in (body[i : i + 97] for i in range(0, len(body), 97))
            )
            + b"0\r\n\r\n"
        )
    else:
        lines.append(f"Content-Length: {len(body)}")
        payload = body
    return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + payload


def exchange(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        with contextlib.suppress(OSError):  # the server may answer (413) before all is sent
            sock.sendall(raw)
        out = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                pytest.fail(f"no complete answer within {HANG_S} s to {raw[:200]!r}")
            if not chunk:
                return out
            out += chunk


ANY_REQUEST = st.tuples(METHODS, PATHS, HEADERS, BODIES, st.booleans())
# Most random requests stop at routing; half the examples are plausible messages, so
# the handler, the client and the verdict path see many odd bodies and headers too.
PLAUSIBLE = st.tuples(
    st.just("POST"), st.just("/messages"), HEADERS, MESSAGES.map(dumps), st.booleans()
)
EXAMPLES = int(os.environ.get("MODERATION_FUZZ_EXAMPLES", "300"))


def final_status(answer: bytes) -> tuple[int, bytes]:
    """The status and body after any interim 1xx answers (``100 Continue``)."""
    while True:
        assert answer.startswith(b"HTTP/1."), f"not an HTTP answer: {answer[:100]!r}"
        status = int(answer.split(b" ", 2)[1])
        _head, _, rest = answer.partition(b"\r\n\r\n")
        if 100 <= status < 200 and rest:
            answer = rest
            continue
        return status, rest


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ANY_REQUEST | PLAUSIBLE)
def test_any_request_gets_a_4xx_or_a_verdict(
    api_port: int, case: tuple[str, str, list[tuple[str, str]], bytes, bool]
) -> None:
    method, path, headers, body, chunked = case
    raw = request(method, path, headers, body, chunked)
    status, payload = final_status(exchange(api_port, raw))
    event(f"status {status}")  # pytest --hypothesis-show-statistics shows the mix
    assert status < 500, f"{status} for {raw[:300]!r}: {payload[:300]!r}"
    if status == 200 and method == "POST" and path == "/messages":
        assert orjson.loads(payload)["verdict"]["decision"] in ("allow", "nudge")


def test_a_body_that_does_not_match_its_content_encoding_is_a_400(api_port: int) -> None:
    """Found by fuzzing this service: aiohttp raised from request.read() and the
    service answered 500. (Encodings aiohttp cannot decode at all, br without
    Brotli, it refuses itself with a plain-text 400.)"""
    for encoding in ("gzip", "deflate", "br"):
        body = b'{"text": "hi"}'
        raw = request("POST", "/messages", [("Content-Encoding", encoding)], body, False)
        status, payload = final_status(exchange(api_port, raw))
        assert status == 400, (encoding, status, payload)
        if encoding != "br":
            assert encoding in orjson.loads(payload)["error"]


def test_an_expect_header_aiohttp_cannot_echo_is_a_417(api_port: int) -> None:
    """Found by the fuzzer: a non-UTF-8 Expect value made aiohttp's own 417 a 500,
    on every path and method."""
    for method, path in (("POST", "/messages"), ("GET", "/messages"), ("GET", "/nowhere")):
        raw = request(method, path, [("Expect", "\x80")], b"{}", False)
        status, payload = final_status(exchange(api_port, raw))
        assert status == 417, (method, path, status, payload)
        assert "unsupported Expect" in orjson.loads(payload)["error"]


def test_wrong_paths_and_methods_say_what_to_do(api_port: int) -> None:
    for method, path, status, hint in (
        ("GET", "/messages", 405, "use POST"),
        ("DELETE", "/healthz", 405, "use GET"),
        ("GET", "/nowhere", 404, "POST /messages"),
    ):
        got, payload = final_status(exchange(api_port, request(method, path, [], b"", False)))
        assert got == status and hint in orjson.loads(payload)["error"], (method, path, payload)
