"""`moderation worker` as operators run it: a subprocess with its log in a file,
stopped by signals. The integration tests and the fault suite both start workers so."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path


class WorkerProcess:
    """One worker process; ``start`` again after a kill restarts it on the same log."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        with self.log_path.open("ab") as fh:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "moderation.cli", "worker"],
                env=self.env,
                stdout=fh,
                stderr=subprocess.STDOUT,
            )

    def _running(self) -> subprocess.Popen[bytes]:
        assert self.proc is not None, "never started"
        return self.proc

    @property
    def pid(self) -> int:
        return self._running().pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        self._running().send_signal(sig)

    def wait(self, timeout: float) -> int:
        return self._running().wait(timeout)

    def kill(self) -> None:
        if self.alive():
            self.signal(signal.SIGKILL)
            self.wait(10)

    stop = kill

    def terminate(self) -> float:
        """SIGTERM; seconds until it exited."""
        start = time.monotonic()
        self.signal(signal.SIGTERM)
        self.wait(60)
        return time.monotonic() - start

    def rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def ready(self) -> bool:
        return "partitions assigned" in self.log_path.read_text(errors="replace")
