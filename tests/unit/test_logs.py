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


def test_a_dependencys_repeated_line_passes_once_per_window_with_the_count() -> None:
    import time

    from moderation.logs import RepeatFilter

    f = RepeatFilter(loggers=("aiokafka",), window_s=0.2)

    def rec(name: str, msg: str, arg: object) -> logging.LogRecord:
        return logging.LogRecord(name, logging.ERROR, "", 0, msg, (arg,), None)

    template = "Unable connect to node with id %s"
    passed = [f.filter(rec("aiokafka.conn", template, i)) for i in range(50)]
    assert passed == [True] + [False] * 49
    # Our own loggers are never held back.
    assert all(f.filter(rec("moderation.worker", template, i)) for i in range(5))
    # A different line from the same logger is its own series.
    assert f.filter(rec("aiokafka.conn", "Unable to update metadata from %s", 1))
    time.sleep(0.25)
    again = rec("aiokafka.conn", template, 99)
    assert f.filter(again) and again.suppressed == 49  # type: ignore[attr-defined]
