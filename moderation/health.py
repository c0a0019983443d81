"""The operator's HTTP endpoint: /metrics (Prometheus), /healthz (alive), /readyz (ready).

Ready means the model is loaded and the worker has partitions assigned. A tiny
asyncio server on the worker's own loop: no extra thread, no framework.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from moderation import metrics

log = logging.getLogger(__name__)

_MAX_REQUEST_BYTES = 8192


def _response(status: str, body: bytes, content_type: str = "text/plain; charset=utf-8") -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


class HealthServer:
    """Serves /metrics, /healthz and /readyz until closed."""

    def __init__(self, ready: Callable[[], bool], host: str = "0.0.0.0", port: int = 9108) -> None:
        self.ready = ready
        self.host = host
        self.port = port
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> HealthServer:
        """Listen; with port 0 the bound port is written back to ``self.port``."""
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info(
            "metrics and health on http://%s:%d/metrics, /healthz, /readyz", self.host, self.port
        )
        return self

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def respond(self, path: str, accept: str | None = None) -> bytes:
        """The whole HTTP response for a GET of ``path`` (OpenMetrics when accepted)."""
        path = path.split("?", 1)[0]
        if path == "/metrics":
            body, content_type = metrics.render(accept)
            return _response("200 OK", body, content_type)
        if path == "/healthz":
            return _response("200 OK", b"ok\n")
        if path == "/readyz":
            if self.ready():
                return _response("200 OK", b"ready\n")
            return _response("503 Service Unavailable", b"not ready\n")
        return _response("404 Not Found", b"not found: try /metrics, /healthz, /readyz\n")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            if len(head) > _MAX_REQUEST_BYTES:
                raise ValueError("request head too large")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            accept = next(
                (
                    v.strip()
                    for k, _, v in (x.partition(":") for x in lines[1:])
                    if k.strip().lower() == "accept"
                ),
                None,
            )
            if method not in ("GET", "HEAD"):
                writer.write(_response("405 Method Not Allowed", b"GET only\n"))
            else:
                resp = self.respond(path, accept)
                writer.write(
                    resp if method == "GET" else resp.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
                )
            await writer.drain()
        except (ValueError, TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            writer.write(_response("400 Bad Request", b"bad request\n"))
        finally:
            writer.close()
