"""Chat messages in, verdicts out: decoding with orjson, validation with specific errors.

Input record value: a JSON object ``{"id": str, "text": str, "sent_at": int ms (optional),
"conversation_id": str (optional), "sender_id": str (optional), "budget_ms": int
(optional)}``; other fields are ignored. JSON Schemas: ``moderation/schemas/``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from moderation.errors import ModerationError
from moderation.policy import Decision

Truncation = Literal["max_tokens", "budget"]
Reason = Literal["model", "cache", "budget_exceeded", "invalid_input", "error", "timeout"]
REASONS: tuple[Reason, ...] = (
    "model",
    "cache",
    "budget_exceeded",
    "invalid_input",
    "error",
    "timeout",
)
MAX_ID_CHARS = 256
# Record headers: the caller's correlation id (echoed on the verdict) and the topic
# its verdict should go to (docs/client.md).
CORRELATION_HEADER = "correlation-id"
REPLY_TO_HEADER = "reply-to"
MAX_BUDGET_MS = 60_000


class InvalidRecord(ModerationError, ValueError):
    """A record that is not a valid chat message.

    ``kind`` is a stable machine-readable code (the DLQ header ``moderation-error``);
    ``message_id`` is set when an id could still be recovered, so the sender can be answered.
    """

    def __init__(self, kind: str, detail: str, message_id: str | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.code = kind
        self.detail = detail
        self.message_id = message_id


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One chat message to moderate."""

    id: str
    text: str
    sent_at_ms: int | None = None
    conversation_id: str | None = None
    sender_id: str | None = None
    budget_ms: int | None = None


def _recover_id(obj: Any) -> str | None:
    if isinstance(obj, dict):
        mid = obj.get("id")
        if isinstance(mid, str) and 0 < len(mid) <= MAX_ID_CHARS:
            return mid
    return None


def _optional_int(obj: dict[str, Any], key: str, mid: str, low: int, high: int) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRecord(
            "wrong_type", f"{key!r} must be an integer, got {type(value).__name__}", mid
        )
    if not low <= value <= high:
        raise InvalidRecord("out_of_range", f"{key!r}={value} outside {low}..{high}", mid)
    return value


def _optional_str(obj: dict[str, Any], key: str, mid: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InvalidRecord("wrong_type", f"{key!r} must be a string, got {type(value).__name__}", mid)


def _strict_json_fallback(value: bytes, exc: Exception) -> Any:
    """orjson refuses escaped lone surrogates (``"\\ud800"``), which JSON allows; the
    standard library accepts them, so a message is not lost to a stray escape."""
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidRecord("undecodable", "record value is not valid UTF-8") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise InvalidRecord("invalid_json", f"record value is not JSON: {exc}") from None


def decode_message(value: bytes | None, max_text_bytes: int) -> ChatMessage:
    """Parse and validate one record value; raise InvalidRecord saying what is wrong."""
    if value is None:
        raise InvalidRecord("empty_record", "record has no value (tombstone)")
    if len(value) > max_text_bytes + 64 * 1024:
        # Far too large to hold a valid text: don't even parse it.
        raise InvalidRecord("too_large", f"record of {len(value)} bytes exceeds the limit")
    try:
        obj = orjson.loads(value)
    except orjson.JSONDecodeError as exc:
        obj = _strict_json_fallback(value, exc)
    if not isinstance(obj, dict):
        raise InvalidRecord("not_an_object", f"expected a JSON object, got {type(obj).__name__}")
    mid = _recover_id(obj)
    raw_id = obj.get("id")
    if raw_id is None:
        raise InvalidRecord("missing_field", "'id' is missing")
    if not isinstance(raw_id, str):
        raise InvalidRecord("wrong_type", f"'id' must be a string, got {type(raw_id).__name__}")
    if mid is None:
        raise InvalidRecord("out_of_range", f"'id' must have 1..{MAX_ID_CHARS} characters")
    text = obj.get("text")
    if text is None:
        raise InvalidRecord("missing_field", "'text' is missing", mid)
    if not isinstance(text, str):
        raise InvalidRecord(
            "wrong_type", f"'text' must be a string, got {type(text).__name__}", mid
        )
    if len(text) > max_text_bytes or len(text.encode("utf-8", "surrogatepass")) > max_text_bytes:
        raise InvalidRecord("too_large", f"'text' exceeds {max_text_bytes} bytes", mid)
    return ChatMessage(
        id=mid,
        text=text,
        sent_at_ms=_optional_int(obj, "sent_at", mid, 0, 2**53),
        conversation_id=_optional_str(obj, "conversation_id", mid),
        sender_id=_optional_str(obj, "sender_id", mid),
        budget_ms=_optional_int(obj, "budget_ms", mid, 1, MAX_BUDGET_MS),
    )


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer for one message, as it goes onto the verdict topic."""

    message_id: str
    decision: Decision
    reason: Reason
    model: str
    latency_ms: float
    scores: dict[str, float] = field(default_factory=dict)
    conversation_id: str | None = None
    error: str | None = None
    cache: str | None = None  # "local" or "redis" when reason is "cache"
    tokens: int | None = None  # tokens the model read, when it read the message
    # "max_tokens": cut at the model's length limit; "budget": cut to fit the budget.
    truncated: Truncation | None = None

    def to_json(self) -> bytes:
        """orjson bytes; optional fields left out when unset."""
        body: dict[str, Any] = {
            "message_id": self.message_id,
            "decision": self.decision,
            "reason": self.reason,
            "scores": self.scores,
            "model": self.model,
            "latency_ms": round(self.latency_ms, 3),
        }
        if self.conversation_id is not None:
            body["conversation_id"] = self.conversation_id
        if self.error is not None:
            body["error"] = self.error
        if self.cache is not None:
            body["cache"] = self.cache
        if self.tokens is not None:
            body["tokens"] = self.tokens
        if self.truncated is not None:
            body["truncated"] = self.truncated
        return orjson.dumps(body)

    @classmethod
    def from_json(cls, raw: bytes) -> Verdict:
        """Parse a verdict record (what the client library reads)."""
        obj = orjson.loads(raw)
        return cls(
            message_id=obj["message_id"],
            decision=obj["decision"],
            reason=obj["reason"],
            model=obj["model"],
            latency_ms=float(obj["latency_ms"]),
            scores=dict(obj.get("scores") or {}),
            conversation_id=obj.get("conversation_id"),
            error=obj.get("error"),
            cache=obj.get("cache"),
            tokens=obj.get("tokens"),
            truncated=obj.get("truncated"),
        )
