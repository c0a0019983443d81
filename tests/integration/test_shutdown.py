"""SIGTERM with the broker gone and Redis unreachable: a clean exit and a clean log.

The worker and the example API run as operators run them (processes, JSON logs).
The broker is killed under them; a few seconds of reconnect attempts later both get
SIGTERM. Each must exit 0 within its grace period, every log line must be one JSON
object (no traceback text), and a dependency's reconnect chatter is held to one line
per distinct message per window instead of tens a second.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import orjson
import pytest

from moderation.embedded import EmbeddedBroker, free_port
from moderation.logs import REPEAT_WINDOW_S
from tests.topics import Topics

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

GRACE_S = 10


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "moderation.cli", *args],
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )


def wait_http(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"{url} never ready"
        time.sleep(0.2)


def test_sigterm_exits_cleanly_with_the_broker_and_redis_down(tmp_path: Path) -> None:
    metrics_port, api_port, dead_port = free_port(), free_port(), free_port()
    with EmbeddedBroker() as broker:
        topics = Topics.named(broker.bootstrap, "sd-")
        env = {
            **topics.env(),
            "MODERATION_LOG_FORMAT": "json",
            "MODERATION_SHUTDOWN_GRACE_S": str(GRACE_S),
            "MODERATION_REDIS_URL": f"redis://127.0.0.1:{dead_port}/0",  # nothing listens
            "MODERATION_METRICS_PORT": str(metrics_port),
            "MODERATION_THREADS": "1",
        }
        logs = {"worker": tmp_path / "worker.log", "send-api": tmp_path / "api.log"}
        procs = {
            "worker": start(["worker"], env, logs["worker"]),
            "send-api": start(
                ["send-api", "--port", str(api_port), "--host", "127.0.0.1"],
                {**env, "MODERATION_METRICS_PORT": "0"},
                logs["send-api"],
            ),
        }
        try:
            wait_http(f"http://127.0.0.1:{metrics_port}/readyz", procs["worker"], logs["worker"])
            wait_http(f"http://127.0.0.1:{api_port}/healthz", procs["send-api"], logs["send-api"])
            broker.stop()
            outage_start = time.monotonic()
            time.sleep(4)  # let both run into the missing broker for a while
            exits = {}
            for name, proc in procs.items():
                t0 = time.monotonic()
                proc.send_signal(signal.SIGTERM)
                code = proc.wait(60)
                exits[name] = (code, time.monotonic() - t0)
            outage_s = time.monotonic() - outage_start
        finally:
            for proc in procs.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    for name, (code, took) in exits.items():
        text = logs[name].read_text()
        assert code == 0, f"{name} exited {code}:\n{text[-3000:]}"
        assert took <= GRACE_S, f"{name} took {took:.1f} s to exit (grace {GRACE_S} s)"
        lines = text.splitlines()
        records = []
        for line in lines:
            try:
                records.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                pytest.fail(f"{name} wrote a line that is not JSON: {line[:200]!r}")
        assert "Traceback" not in "".join(str(r.get("msg")) for r in records)
        # The dependency's reconnect chatter: each distinct line at most once per window.
        chatter = Counter(r["msg"] for r in records if r["logger"].startswith("aiokafka"))
        allowed = 1 + int(outage_s // REPEAT_WINDOW_S) + 1
        loud = {m: n for m, n in chatter.items() if n > allowed}
        assert not loud, f"{name} repeats itself: {loud}"
    assert any("redis" in orjson.loads(x)["msg"] for x in logs["worker"].read_text().splitlines())
