"""An example send-message HTTP service built on ``moderation.client``, on aiohttp.

``POST /messages`` with ``{"text": ..., "conversation_id": ..., "sender_id": ...,
"id": ... (optional)}`` answers ``{"message_id", "delivered", "verdict"}``: a real
chat service would deliver the message when the verdict is ``allow`` and ask the
sender to rethink on ``nudge``. ``GET /healthz`` (200 once the client is connected),
``/metrics`` as the worker's (OpenMetrics when the scraper asks for it).

The point is how the client is used: one per process, shared by every request.
aiohttp does the HTTP (keep-alive, chunked bodies, ``Expect: 100-continue``).
``moderation send-api --embedded`` runs it against the embedded broker with a worker
in the same process, for a laptop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, replace
from typing import Any

import orjson
from aiohttp import hdrs, web
from aiohttp.web_protocol import RequestPayloadError
from aiohttp.web_urldispatcher import _default_expect_handler

from moderation import metrics
from moderation.client import ModerationClient
from moderation.config import ClientSettings

log = logging.getLogger(__name__)

# A chat message is at most MODERATION_MAX_TEXT_BYTES (16 KiB) of text by default;
# 64 KiB leaves room for JSON escaping and the other fields.
MAX_BODY_BYTES = 64 * 1024
# Every interface, for a container; the embedded laptop demo binds loopback only.
DEFAULT_HOST = "0.0.0.0"
LOOPBACK = "127.0.0.1"

_ROUTES = {"/messages": "POST", "/healthz": "GET", "/metrics": "GET"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, detail: str) -> web.Response:
    return web.Response(
        status=status, body=orjson.dumps({"error": detail}), content_type="application/json"
    )


@web.middleware
async def _json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """aiohttp's 413 as a JSON body that names the limit (404 and 405 come from the
    catch-all route, ``SendApi.elsewhere``)."""
    try:
        return await handler(request)
    except web.HTTPRequestEntityTooLarge:
        return _error(
            413, f"body too large: at most {MAX_BODY_BYTES} bytes ({MAX_BODY_BYTES // 1024} KiB)"
        )


async def _expect(request: web.Request) -> None:
    """``Expect: 100-continue`` as aiohttp does it; any other value a 417 that says
    which, with the value escaped (aiohttp's own put it in the body raw, and a
    non-UTF-8 value made that a 500)."""
    expect = request.headers.get(hdrs.EXPECT, "")
    if expect.lower() != "100-continue":
        detail = f"unsupported Expect: {ascii(expect)[:100]}; only 100-continue is"
        raise web.HTTPExpectationFailed(
            text=orjson.dumps({"error": detail}).decode(), content_type="application/json"
        )
    await _default_expect_handler(request)


class SendApi:
    """The HTTP front: parse, call ``client.check``, answer."""

    def __init__(self, client: ModerationClient, host: str = LOOPBACK, port: int = 8080):
        self.client = client
        self.host = host
        self.port = port
        self.app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[_json_errors])
        self.app.add_routes(
            [
                web.post("/messages", self.messages, expect_handler=_expect),
                web.get("/healthz", self.healthz, expect_handler=_expect),
                web.get("/metrics", self.metrics, expect_handler=_expect),
                # Last: everything else, so that every request (a wrong method or
                # path included) goes through our Expect handler.
                web.route("*", "/{tail:.*}", self.elsewhere, expect_handler=_expect),
            ]
        )
        self._runner: web.AppRunner | None = None

    async def start(self) -> SendApi:
        """Listen; with port 0 the bound port is written back to ``self.port``."""
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        log.info("send-message API on http://%s:%d/messages", self.host, self.port)
        return self

    async def close(self) -> None:
        """Stop listening; requests being answered finish first."""
        if self._runner is not None:
            await self._runner.cleanup()

    async def elsewhere(self, request: web.Request) -> web.Response:
        """Any other method or path: 405 for our paths, 404 for the rest."""
        allowed = _ROUTES.get(request.path)
        if allowed is not None:
            return _error(405, f"{request.method} not allowed on {request.path}: use {allowed}")
        return _error(404, "not found: try POST /messages, GET /healthz or GET /metrics")

    async def healthz(self, request: web.Request) -> web.Response:
        """Alive."""
        return web.Response(text="ok\n")

    async def metrics(self, request: web.Request) -> web.Response:
        """Prometheus exposition, OpenMetrics when the Accept header asks for it."""
        body, content_type = metrics.render(request.headers.get("Accept"))
        resp = web.Response(body=body)
        resp.headers["Content-Type"] = content_type
        return resp

    async def messages(self, request: web.Request) -> web.Response:
        """Check one chat message and say whether it would be delivered."""
        try:
            body = await request.read()
        except RequestPayloadError:  # a body that does not decode as it says it is encoded
            encoding = ascii(request.headers.get(hdrs.CONTENT_ENCODING, "identity"))[:40]
            return _error(400, f"body does not decode as its Content-Encoding {encoding} says")
        try:
            msg = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            return _error(400, f"body is not JSON: {exc}")
        if not isinstance(msg, dict):
            return _error(400, "body must be a JSON object")
        msg.setdefault("id", uuid.uuid4().hex)
        try:
            verdict = await self.client.check(msg)
        except ValueError as exc:
            return _error(422, str(exc))
        payload: dict[str, Any] = {
            "message_id": verdict.message_id,
            "delivered": verdict.decision == "allow",
            "verdict": {k: v for k, v in asdict(verdict).items() if v is not None},
        }
        return web.Response(body=orjson.dumps(payload), content_type="application/json")


async def serve(settings: ClientSettings, port: int, embedded: bool, host: str | None) -> None:
    """Run the API (and, with ``embedded``, a broker and a worker) until SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with contextlib.AsyncExitStack() as stack:
        worker_task = None
        if embedded:
            from moderation.app import running

            app = await stack.enter_async_context(running(embedded=True, health=False))
            worker_task = app.task
            settings = replace(
                settings,
                kafka=replace(settings.kafka, bootstrap=app.bootstrap),
                input_topic=app.settings.input_topic,
                verdict_topic=app.settings.verdict_topic,
            )
        client = await stack.enter_async_context(ModerationClient(settings))
        # The embedded stack is a laptop demo: loopback unless told otherwise.
        bind = host or (LOOPBACK if embedded else DEFAULT_HOST)
        api = await SendApi(client, host=bind, port=port).start()
        stack.push_async_callback(api.close)
        waiter = asyncio.create_task(stop.wait())
        watch = {waiter} | ({worker_task} if worker_task else set())
        await asyncio.wait(watch, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
