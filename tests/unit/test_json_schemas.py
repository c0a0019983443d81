"""The published JSON Schemas describe what the code reads and writes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from moderation.schema import REASONS, Verdict, decode_message

SCHEMAS = Path(__file__).resolve().parents[2] / "moderation" / "schemas"


def schema(name: str) -> dict[str, object]:
    s = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(s)
    return s


@pytest.mark.parametrize("reason", REASONS)
def test_every_verdict_the_code_can_write_validates(reason: str) -> None:
    v = Verdict(
        "m1",
        "allow",
        reason,
        "m@1",
        1.5,
        {"toxic": 0.2},
        "c1",
        "bad",  # type: ignore[arg-type]
        "redis",
    )
    jsonschema.validate(orjson.loads(v.to_json()), schema("verdict.schema.json"))


def test_input_schema_agrees_with_the_decoder() -> None:
    s = schema("chat_message.schema.json")
    good = {"id": "m1", "text": "hi", "sent_at": 1, "budget_ms": 10, "extra": True}
    jsonschema.validate(good, s)
    decode_message(orjson.dumps(good), 100)
    for bad in ({"text": "x"}, {"id": 1, "text": "x"}, {"id": "a", "text": "x", "budget_ms": 0}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, s)
        with pytest.raises(ValueError):
            decode_message(orjson.dumps(bad), 100)
