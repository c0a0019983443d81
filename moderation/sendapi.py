"""An example send-message HTTP service built on ``moderation.client``.

``POST /messages`` with ``{"text": ..., "conversation_id": ..., "sender_id": ...,
"id": ... (optional)}`` answers ``{"message_id", "delivered", "verdict"}``: a real
chat service would deliver the message when the verdict is ``allow`` and ask the
sender to rethink on ``nudge``. ``GET /healthz`` and ``/metrics`` as the worker's.

It is deliberately small (asyncio streams, HTTP/1.1 with keep-alive, no framework):
the point is how the client is used, one per process, shared by every request.
``moderation send-api --embedded`` runs it against the embedded broker with a worker
in the same process, for a laptop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import uuid
from dataclasses import asdict, replace
from typing import Any

import orjson
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from moderation.client import ModerationClient
from moderation.config import ClientSettings
from moderation.metrics import REGISTRY

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
_IDLE_TIMEOUT_S = 30


def _response(status: str, body: bytes, content_type: str = "application/json") -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def _error(status: str, detail: str) -> bytes:
    return _response(status, orjson.dumps({"error": detail}))


class SendApi:
    """The HTTP front: parse, call ``client.check``, answer."""

    def __init__(self, client: ModerationClient, host: str = "127.0.0.1", port: int = 8080):
        self.client = client
        self.host = host
        self.port = port
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> SendApi:
        """Listen; with port 0 the bound port is written back to ``self.port``."""
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("send-message API on http://%s:%d/messages", self.host, self.port)
        return self

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def handle(self, method: str, path: str, body: bytes) -> bytes:
        """The whole response for one request."""
        path = path.split("?", 1)[0]
        if path == "/healthz" and method == "GET":
            return _response("200 OK", b"ok\n", "text/plain")
        if path == "/metrics" and method == "GET":
            return _response("200 OK", generate_latest(REGISTRY), CONTENT_TYPE_LATEST)
        if path != "/messages":
            return _error("404 Not Found", "try POST /messages")
        if method != "POST":
            return _error("405 Method Not Allowed", "POST a JSON message to /messages")
        try:
            msg = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            return _error("400 Bad Request", f"body is not JSON: {exc}")
        if not isinstance(msg, dict):
            return _error("400 Bad Request", "body must be a JSON object")
        msg.setdefault("id", uuid.uuid4().hex)
        try:
            verdict = await self.client.check(msg)
        except ValueError as exc:
            return _error("422 Unprocessable Entity", str(exc))
        payload: dict[str, Any] = {
            "message_id": verdict.message_id,
            "delivered": verdict.decision == "allow",
            "verdict": {k: v for k, v in asdict(verdict).items() if v is not None},
        }
        return _response("200 OK", orjson.dumps(payload))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _IDLE_TIMEOUT_S)
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (line.partition(":") for line in lines[1:] if line)
                }
                length = int(headers.get("content-length", "0"))
                if not 0 <= length <= MAX_BODY_BYTES:
                    writer.write(_error("413 Content Too Large", f"at most {MAX_BODY_BYTES}"))
                    break
                body = await reader.readexactly(length) if length else b""
                writer.write(await self.handle(method, path, body))
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (
            ValueError,
            TimeoutError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ConnectionError,
        ):
            pass
        finally:
            writer.close()


async def serve(settings: ClientSettings, port: int, embedded: bool) -> None:
    """Run the API (and, with ``embedded``, a broker and a worker) until SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with contextlib.AsyncExitStack() as stack:
        worker_task = None
        if embedded:
            from moderation.app import embedded_worker

            bootstrap, worker, worker_task = await stack.enter_async_context(embedded_worker())
            settings = replace(
                settings,
                kafka=replace(settings.kafka, bootstrap=bootstrap),
                input_topic=worker.settings.input_topic,
                verdict_topic=worker.settings.verdict_topic,
            )
        client = await stack.enter_async_context(ModerationClient(settings))
        api = await SendApi(client, host="0.0.0.0", port=port).start()
        stack.push_async_callback(api.close)
        waiter = asyncio.create_task(stop.wait())
        watch = {waiter} | ({worker_task} if worker_task else set())
        await asyncio.wait(watch, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
