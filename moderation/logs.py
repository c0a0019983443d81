"""Logging set-up: one JSON object per line for machines, plain text for people.

Chat text is never logged unless an operator sets ``MODERATION_LOG_TEXT=true``;
log lines carry message ids and text hashes instead.
"""

from __future__ import annotations

import logging
import sys
import time

import orjson

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message"}


class JsonFormatter(logging.Formatter):
    """ts, level, logger, msg, any ``extra=`` fields, and the exception if there is one."""

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                body[key] = value
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(body, default=str).decode()


def configure(level: int, fmt: str) -> None:
    """Root logging to stderr in ``json`` or ``text``; aiokafka's chatter held to warnings."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # aiokafka narrates every group join at INFO, and at DEBUG logs record values,
    # which hold chat text: never below INFO, and only warnings unless verbose.
    logging.getLogger("aiokafka").setLevel(
        logging.INFO if level <= logging.DEBUG else logging.WARNING
    )
