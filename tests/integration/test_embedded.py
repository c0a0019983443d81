"""The embedded servers do not outlive the process that started them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

STARTER = """
import sys, time
from moderation.embedded import EmbeddedBroker, EmbeddedRedis
servers = [EmbeddedBroker().start(), EmbeddedRedis().start()]
print(" ".join(str(s.proc.pid) for s in servers), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_servers_die_when_their_parent_is_killed() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", STARTER],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        proc.send_signal(signal.SIGKILL)  # no cleanup code runs
        proc.wait(10)
        assert wait_for(lambda: not any(_alive(p) for p in pids), 10), "orphaned servers"
    finally:
        if proc.poll() is None:
            proc.kill()
