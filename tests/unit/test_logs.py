import logging

import orjson

from moderation.logs import JsonFormatter


def test_json_lines_carry_level_logger_message_and_extras() -> None:
    rec = logging.LogRecord("moderation.worker", logging.WARNING, "f.py", 1, "lag %d", (5,), None)
    rec.message_id = "m1"
    line = orjson.loads(JsonFormatter().format(rec))
    assert line["level"] == "warning" and line["logger"] == "moderation.worker"
    assert line["msg"] == "lag 5" and line["message_id"] == "m1"
    assert line["ts"].endswith("Z")


def test_exceptions_are_one_field() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        rec = logging.LogRecord("x", logging.ERROR, "f.py", 1, "failed", (), sys.exc_info())
    line = orjson.loads(JsonFormatter().format(rec))
    assert "ValueError: boom" in line["exc"]
