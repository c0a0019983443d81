"""Logging set-up: one JSON object per line for machines, plain text for people.

Chat text is never logged unless an operator sets ``MODERATION_LOG_TEXT=true``;
log lines carry message ids and text hashes instead.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from types import TracebackType

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


# A dependency that retries in a tight loop (aiokafka reconnects every 100 ms while
# the broker is away) writes the same line many times a second: each distinct line
# is let through once per this many seconds, carrying how many were held back.
REPEAT_WINDOW_S = 10.0


class RepeatFilter(logging.Filter):
    """Lets each (logger, message template, level) through once per window.

    Only for records of the named loggers and their children (third-party ones): our
    own retry loops already log one line per attempt with its delay.
    """

    def __init__(
        self, loggers: tuple[str, ...] = ("aiokafka",), window_s: float = REPEAT_WINDOW_S
    ) -> None:
        super().__init__()
        self.loggers = loggers
        self.window_s = window_s
        self._last: dict[tuple[str, str, int], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not any(record.name == n or record.name.startswith(n + ".") for n in self.loggers):
            return True
        key = (record.name, str(record.msg), record.levelno)
        now = time.monotonic()
        with self._lock:
            seen = self._last.get(key)
            if seen is not None and now - seen[0] < self.window_s:
                self._last[key] = (seen[0], seen[1] + 1)
                return False
            held = seen[1] if seen is not None else 0
            self._last[key] = (now, 0)
            if len(self._last) > 1000:  # bounded: forget the oldest
                oldest = min(self._last, key=lambda k: self._last[k][0])
                del self._last[oldest]
        if held:
            record.suppressed = held  # shows as "suppressed": N in JSON
        return True


def _log_uncaught(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """Uncaught exceptions as one log record (one JSON line), not raw traceback text."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
        return
    logging.getLogger("moderation").critical("uncaught exception", exc_info=(kind, exc, tb))


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is not None:
        logging.getLogger("moderation").critical(
            "uncaught exception in thread %s",
            args.thread.name if args.thread else "?",
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
        )


def configure(level: int, fmt: str) -> None:
    """Root logging to stderr in ``json`` or ``text``; aiokafka's chatter held to warnings."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    # Filters on a logger do not see its children's records; a handler's do.
    handler.addFilter(RepeatFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # aiokafka narrates every group join at INFO, and at DEBUG logs record values,
    # which hold chat text: never below INFO, and only warnings unless verbose.
    logging.getLogger("aiokafka").setLevel(
        logging.INFO if level <= logging.DEBUG else logging.WARNING
    )
    if fmt == "json":
        # A traceback printed as text would break one-object-per-line.
        sys.excepthook = _log_uncaught
        threading.excepthook = _log_uncaught_in_thread
