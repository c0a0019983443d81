"""Hostile records: whatever arrives, decoding returns a message or a named problem."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.schema import ChatMessage, InvalidRecord, decode_message

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def check(raw: bytes | None) -> None:
    try:
        msg = decode_message(raw, 1000)
    except InvalidRecord as bad:
        assert bad.kind and bad.detail
        assert bad.message_id is None or isinstance(bad.message_id, str)
    else:
        assert isinstance(msg, ChatMessage) and isinstance(msg.text, str) and msg.id


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(raw: bytes) -> None:
    check(raw)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_json_of_any_shape(value: object) -> None:
    check(json.dumps(value).encode())  # stdlib: big integers too


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["id", "text", "sent_at", "budget_ms", "sender_id", "conversation_id", "x"]
        ),
        json_values,
        max_size=7,
    )
)
def test_near_miss_messages(obj: dict[str, object]) -> None:
    check(json.dumps(obj).encode())


def test_deep_nesting_is_answered_not_crashed() -> None:
    check(b"[" * 100_000 + b"]" * 100_000)
    check(b'{"id": "a", "text": ' + b"[" * 5000 + b"]" * 5000 + b"}")
