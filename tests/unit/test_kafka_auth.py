"""OAUTHBEARER tokens from a client-credentials endpoint (a real HTTP server on loopback)."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from aiohttp import web

from moderation.kafka.auth import ClientCredentialsTokenProvider, TokenError


async def _endpoint(answers: list[tuple[int, Any]], seen: list[dict[str, str]]) -> web.AppRunner:
    async def token(request: web.Request) -> web.Response:
        form = await request.post()
        seen.append(
            {"auth": request.headers["Authorization"], **{k: str(v) for k, v in form.items()}}
        )
        status, body = answers.pop(0)
        return web.json_response(body, status=status)

    app = web.Application()
    app.add_routes([web.post("/token", token)])
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner


def test_client_credentials_token_is_fetched_cached_and_refreshed() -> None:
    async def main() -> None:
        seen: list[dict[str, str]] = []
        answers: list[tuple[int, Any]] = [
            (200, {"access_token": "t1", "expires_in": 3600}),
            (200, {"access_token": "t2", "expires_in": 30}),  # inside the refresh margin
            (200, {"access_token": "t3", "expires_in": 3600}),
            (401, {"error": "invalid_client"}),
            (200, {"token": "no access_token field"}),
        ]
        runner = await _endpoint(answers, seen)
        url = f"http://127.0.0.1:{runner.addresses[0][1]}/token"
        try:
            p = ClientCredentialsTokenProvider(url, "svc", "s3cret", "kafka")
            got = await asyncio.gather(*(p.token() for _ in range(5)))
            assert got == ["t1"] * 5 and len(seen) == 1  # connections share one request
            assert seen[0]["grant_type"] == "client_credentials" and seen[0]["scope"] == "kafka"
            assert base64.b64decode(seen[0]["auth"].split()[1]) == b"svc:s3cret"
            assert "s3cret" not in repr(p)
            p._expires_at = 0  # as if an hour had passed
            assert await p.token() == "t2"
            assert await p.token() == "t3"  # t2 expires within the margin: fetched again
            bad = ClientCredentialsTokenProvider(url, "svc", "wrong", None)
            with pytest.raises(TokenError, match="HTTP 401"):
                await bad.token()
            with pytest.raises(TokenError, match="no access_token"):
                await bad.token()
        finally:
            await runner.cleanup()
        down = ClientCredentialsTokenProvider(url, "svc", "s3cret", None)
        with pytest.raises(TokenError, match="OAuth token endpoint"):
            await down.token()

    asyncio.run(main())
