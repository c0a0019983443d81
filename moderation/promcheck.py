"""A real Prometheus on loopback, for tests and the proof script.

Starts Debian's ``prometheus`` with a config that scrapes given targets every
second and evaluates the project's rules from ``deploy/prometheus/rules``; queries
its HTTP API.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from moderation.embedded import LoopbackServer

RULES_DIR = Path(__file__).resolve().parent.parent / "deploy" / "prometheus" / "rules"


def prometheus_binary() -> str | None:
    """Path of the prometheus server, or None when it is not installed."""
    return shutil.which("prometheus")


class Prometheus(LoopbackServer):
    """prometheus scraping ``targets`` (host:port) every second, with our rules."""

    name = "prometheus"

    def __init__(self, targets: list[str], port: int | None = None) -> None:
        super().__init__(port)
        self.targets = targets
        self.dir = Path(tempfile.mkdtemp(prefix="prom-"))

    def command(self) -> list[str]:
        rules = sorted(str(p) for p in RULES_DIR.glob("*.yml"))
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": rules,
            "scrape_configs": [
                {"job_name": "moderation", "static_configs": [{"targets": self.targets}]}
            ],
        }
        cfg = self.dir / "prometheus.yml"
        cfg.write_text(json.dumps(config))  # JSON is YAML
        binary = prometheus_binary()
        if binary is None:
            raise RuntimeError("prometheus is not installed (apt-get install prometheus)")
        return [
            binary,
            f"--config.file={cfg}",
            f"--storage.tsdb.path={self.dir / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--log.level=warn",
        ]

    def answers(self) -> bool:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=1) as r:
            return bool(r.status == 200)

    def query(self, expr: str) -> list[dict[str, Any]]:
        """An instant query; raises on a PromQL error."""
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(
            {"query": expr}
        )
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.loads(r.read())
        if body.get("status") != "success":
            raise ValueError(f"{expr}: {body}")
        return list(body["data"]["result"])

    def scalar(self, expr: str) -> float | None:
        """The single value of an instant query, or None when it returns nothing."""
        result = self.query(expr)
        if not result:
            return None
        return float(result[0]["value"][1])

    def wait_for(self, expr: str, predicate: Any, timeout_s: float) -> float | None:
        """Poll ``expr`` until ``predicate(value)``; return the last value."""
        deadline = time.monotonic() + timeout_s
        value = None
        while time.monotonic() < deadline:
            value = self.scalar(expr)
            if value is not None and predicate(value):
                return value
            time.sleep(0.5)
        return value

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    """Run a promtool-like command, capturing its output."""
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)
