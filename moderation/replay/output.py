"""Where replayed verdicts go: files written in input order, truncatable back to a
checkpoint, and the progress line."""

from __future__ import annotations

import csv
import io
import logging
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

import orjson

from moderation.config import KafkaSettings
from moderation.replay import ReplayError

log = logging.getLogger(__name__)


class Output:
    """JSONL or CSV file, or a Kafka topic (``kafka:TOPIC``)."""

    def __init__(self, spec: str, labels: list[str], kafka: KafkaSettings) -> None:
        self.spec = spec
        self.labels = labels
        self.kafka = kafka
        self.topic = spec.removeprefix("kafka:") if spec.startswith("kafka:") else None
        self.path = None if self.topic else Path(spec)
        self.fh: IO[bytes] | None = None
        self._producer: Any = None
        self._loop: Any = None
        if self.path is not None and self.path.suffix.lower() not in (".jsonl", ".csv"):
            raise ReplayError(f"{spec}: output must end in .jsonl or .csv, or be kafka:TOPIC")

    @property
    def csv(self) -> bool:
        return self.path is not None and self.path.suffix.lower() == ".csv"

    def open(self, truncate_to: int | None) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if truncate_to is None:
                self.fh = self.path.open("wb")
                if self.csv:
                    cols = ["ref", "id", "decision", *self.labels, "model", "labels", "text"]
                    self.fh.write(_csv_line(cols))
            else:
                self.fh = self.path.open("r+b")
                self.fh.truncate(truncate_to)
                self.fh.seek(truncate_to)
        else:
            import asyncio

            from moderation.kafka.clients import producer

            async def start() -> Any:
                # aiokafka binds to the running loop: build it inside ours.
                # Replay is throughput, not latency: let records share requests.
                out = producer(self.kafka, linger_ms=5)
                await out.start()
                return out

            self._loop = asyncio.new_event_loop()
            self._producer = self._loop.run_until_complete(start())

    def write(self, rows: list[dict[str, Any]]) -> None:
        if self.fh is not None:
            if self.csv:
                buf = b"".join(
                    _csv_line(
                        [
                            r["ref"],
                            r["id"],
                            r["decision"],
                            *(f"{r['scores'][k]:.6g}" for k in self.labels),
                            r["model"],
                            orjson.dumps(r["labels"]).decode() if r.get("labels") else "",
                            r.get("text", ""),
                        ]
                    )
                    for r in rows
                )
            else:
                buf = b"".join(orjson.dumps(r) + b"\n" for r in rows)
            self.fh.write(buf)
        else:

            async def send() -> None:
                for r in rows:
                    await self._producer.send(self.topic, orjson.dumps(r), key=r["id"].encode())
                await self._producer.flush()

            self._loop.run_until_complete(send())

    def flush(self) -> int:
        """Make what was written durable; the file's length (0 for a topic)."""
        if self.fh is None:
            return 0
        self.fh.flush()
        os.fsync(self.fh.fileno())
        return self.fh.tell()

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
        if self._producer is not None:
            self._loop.run_until_complete(self._producer.stop())
            self._loop.close()


def _csv_line(cells: list[str]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(cells)
    return buf.getvalue().encode("utf-8", "surrogatepass")


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class Progress:
    """A bar with rate and ETA on a terminal; a log line every 10 s otherwise."""

    def __init__(self, total: int, done: int, enabled: bool, stream: IO[str] = sys.stderr):
        self.total = total
        self.start_done = done
        self.enabled = enabled
        self.stream = stream
        self.tty = stream.isatty()
        self.t0 = time.monotonic()
        self.last = 0.0

    def update(self, done: int, final: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (not final and now - self.last < (0.5 if self.tty else 10)):
            return
        self.last = now
        rate = (done - self.start_done) / max(1e-9, now - self.t0)
        left = max(0, self.total - done)
        eta = time.strftime("%H:%M:%S", time.gmtime(left / rate)) if rate > 0 else "--:--:--"
        frac = done / self.total if self.total else 1.0
        bar = "#" * int(frac * 30)
        line = f"[{bar:<30}] {done:,}/{self.total:,} {frac:6.1%} {rate:,.0f} msg/s ETA {eta}"
        if self.tty:
            self.stream.write("\r" + line + ("\n" if final else ""))
            self.stream.flush()
        else:
            log.info("replay %s", line)
