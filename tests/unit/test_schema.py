import orjson
import pytest

from moderation.schema import InvalidRecord, Verdict, decode_message


def test_valid_message_with_optional_fields_and_extras() -> None:
    raw = orjson.dumps(
        {
            "id": "m1",
            "text": "hi",
            "sent_at": 1700000000000,
            "conversation_id": "c",
            "sender_id": "s",
            "budget_ms": 30,
            "extra": [1],
        }
    )
    m = decode_message(raw, 1000)
    assert (m.id, m.text, m.sent_at_ms, m.conversation_id, m.sender_id, m.budget_ms) == (
        "m1",
        "hi",
        1700000000000,
        "c",
        "s",
        30,
    )


@pytest.mark.parametrize(
    ("raw", "kind", "recovered"),
    [
        (None, "empty_record", None),
        (b"\xff\xfe", "undecodable", None),
        (b"{oops", "invalid_json", None),
        (b'"just a string"', "not_an_object", None),
        (b'{"text": "x"}', "missing_field", None),
        (b'{"id": 5, "text": "x"}', "wrong_type", None),
        (b'{"id": "", "text": "x"}', "out_of_range", None),
        (b'{"id": "a"}', "missing_field", "a"),
        (b'{"id": "a", "text": null}', "missing_field", "a"),
        (b'{"id": "a", "text": ["x"]}', "wrong_type", "a"),
        (b'{"id": "a", "text": "x", "sent_at": "now"}', "wrong_type", "a"),
        (b'{"id": "a", "text": "x", "sent_at": true}', "wrong_type", "a"),
        (b'{"id": "a", "text": "x", "budget_ms": 0}', "out_of_range", "a"),
        (b'{"id": "a", "text": "x", "sender_id": 3}', "wrong_type", "a"),
        (b'{"id": "a", "text": "' + b"y" * 200 + b'"}', "too_large", "a"),
    ],
)
def test_each_bad_record_names_its_problem(
    raw: bytes | None, kind: str, recovered: str | None
) -> None:
    with pytest.raises(InvalidRecord) as info:
        decode_message(raw, 100)
    assert info.value.kind == kind
    assert info.value.message_id == recovered
    assert info.value.detail


def test_multibyte_text_is_measured_in_bytes() -> None:
    with pytest.raises(InvalidRecord, match="too_large"):
        decode_message(orjson.dumps({"id": "a", "text": "é" * 60}), 100)  # 120 bytes


def test_lone_surrogate_escape_in_json_is_accepted() -> None:
    assert decode_message(b'{"id": "a", "text": "x\\ud800y"}', 100).text == "x\ud800y"


def test_verdict_round_trip_omits_unset_optionals() -> None:
    v = Verdict("m1", "nudge", "model", "mod@1", 3.14159, {"toxic": 0.9})
    body = orjson.loads(v.to_json())
    assert body == {
        "message_id": "m1",
        "decision": "nudge",
        "reason": "model",
        "scores": {"toxic": 0.9},
        "model": "mod@1",
        "latency_ms": 3.142,
    }
    assert Verdict.from_json(v.to_json()).scores == {"toxic": 0.9}
