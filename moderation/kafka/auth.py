"""SASL/OAUTHBEARER tokens for managed Kafka services.

Two sources, the ones managed services document: a token file that something else
keeps fresh (a Kubernetes projected service-account token, a sidecar), re-read on
every connection; or the OAuth 2.0 client-credentials grant against a token
endpoint, cached until shortly before it expires. Standard library only, so the
client-only distribution can use it too.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from aiokafka.abc import AbstractTokenProvider

from moderation.errors import ConfigError, ModerationError

# Refresh this long before the token's stated expiry, so a connection made just
# before it never presents an expired token.
REFRESH_MARGIN_S = 60.0
# A token endpoint that does not answer within this is down; the Kafka client retries.
TOKEN_REQUEST_TIMEOUT_S = 10.0


class TokenError(ModerationError):
    """No OAuth token could be had; the message says from where and why."""

    code = "kafka_oauth_token"


class FileTokenProvider(AbstractTokenProvider):  # type: ignore[misc]
    """The token is the file's content, read afresh on each call."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)

    async def token(self) -> str:
        try:
            value = self.path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise TokenError(f"OAuth token file {self.path}: {exc.strerror}") from None
        if not value:
            raise TokenError(f"OAuth token file {self.path} is empty")
        return value


class ClientCredentialsTokenProvider(AbstractTokenProvider):  # type: ignore[misc]
    """OAuth 2.0 client credentials (RFC 6749 section 4.4), cached until near expiry."""

    def __init__(self, url: str, client_id: str, client_secret: str, scope: str | None) -> None:
        self.url = url
        self.client_id = client_id
        self._secret = client_secret
        self.scope = scope
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:  # never the secret
        return f"ClientCredentialsTokenProvider(url={self.url!r}, client_id={self.client_id!r})"

    async def token(self) -> str:
        async with self._lock:  # connections opened together share one request
            if self._token is None or time.monotonic() >= self._expires_at:
                body = await asyncio.to_thread(self._request)
                self._token = body["access_token"]
                lifetime = float(body.get("expires_in", 3600))
                self._expires_at = time.monotonic() + max(0.0, lifetime - REFRESH_MARGIN_S)
            return self._token

    def _request(self) -> dict[str, Any]:
        form = {"grant_type": "client_credentials"}
        if self.scope:
            form["scope"] = self.scope
        basic = base64.b64encode(
            f"{urllib.parse.quote(self.client_id)}:{urllib.parse.quote(self._secret)}".encode()
        ).decode()
        req = urllib.request.Request(
            self.url,
            data=urllib.parse.urlencode(form).encode(),
            headers={
                "Authorization": f"Basic {basic}",
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=TOKEN_REQUEST_TIMEOUT_S) as resp:
                body = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raise TokenError(f"OAuth token endpoint {self.url}: HTTP {exc.code}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise TokenError(f"OAuth token endpoint {self.url}: {exc}") from None
        except ValueError:
            raise TokenError(f"OAuth token endpoint {self.url}: answer is not JSON") from None
        if not isinstance(body, dict) or not isinstance(body.get("access_token"), str):
            raise TokenError(f"OAuth token endpoint {self.url}: no access_token in the answer")
        return body


def token_provider(
    token_file: str | None,
    token_url: str | None,
    client_id: str | None,
    client_secret: str | None,
    scope: str | None,
) -> AbstractTokenProvider:
    """The provider the settings name; exactly one source must be configured."""
    if token_file and token_url:
        raise ConfigError(
            "MODERATION_KAFKA_OAUTH_TOKEN_FILE and _TOKEN_URL exclude each other: set one"
        )
    if token_file:
        return FileTokenProvider(token_file)
    if token_url:
        if not (client_id and client_secret):
            raise ConfigError(
                "MODERATION_KAFKA_OAUTH_TOKEN_URL needs MODERATION_KAFKA_OAUTH_CLIENT_ID "
                "and MODERATION_KAFKA_OAUTH_CLIENT_SECRET"
            )
        return ClientCredentialsTokenProvider(token_url, client_id, client_secret, scope)
    raise ConfigError(
        "MODERATION_KAFKA_SASL_MECHANISM=OAUTHBEARER needs MODERATION_KAFKA_OAUTH_TOKEN_FILE "
        "or MODERATION_KAFKA_OAUTH_TOKEN_URL"
    )
