"""The deploy files against a real Prometheus scraping a running worker."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from moderation.health import HealthServer
from moderation.promcheck import Prometheus, prometheus_binary, run
from tests.integration.kafka_io import message, produce, read
from tests.integration.workers import unstarted
from tests.topics import Topics

pytestmark = pytest.mark.integration
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NEEDS = "Prometheus is not installed here (Debian: apt-get install prometheus); .ci/run installs it"


@pytest.mark.skipif(shutil.which("promtool") is None, reason=NEEDS)
def test_promtool_accepts_the_config_and_rules() -> None:
    proc = run(["promtool", "check", "config", str(DEPLOY / "prometheus" / "prometheus.yml")])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rules = sorted(str(p) for p in (DEPLOY / "prometheus" / "rules").glob("*.yml"))
    proc = run(["promtool", "check", "rules", *rules])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def dashboard_exprs() -> list[str]:
    dash = json.loads((DEPLOY / "grafana" / "moderation-dashboard.json").read_text())
    return [t["expr"] for p in dash["panels"] for t in p["targets"]]


@pytest.mark.skipif(prometheus_binary() is None, reason=NEEDS)
def test_rules_and_dashboard_queries_on_a_real_prometheus(topics: Topics, model: Any) -> None:
    n = 120

    async def scenario() -> dict[str, Any]:
        worker = unstarted(topics.settings(), model)
        health = await HealthServer(lambda: worker.ready, host="127.0.0.1", port=0).start()
        prom = Prometheus([f"127.0.0.1:{health.port}"]).start()
        task = asyncio.create_task(worker.run())
        try:
            while not worker.ready:
                await asyncio.sleep(0.05)
            # Rates need a sample before the load: wait for the first scrape.
            up = await asyncio.to_thread(
                prom.wait_for, 'up{job="moderation"}', lambda v: v == 1, 30
            )
            assert up == 1, "Prometheus never scraped the worker"
            # The registry is per process: count from what this scrape already saw.
            base = await asyncio.to_thread(prom.scalar, "sum(moderation_verdicts_total)") or 0.0
            for i in range(0, n, 10):  # spread over several scrapes
                await produce(
                    topics.bootstrap,
                    topics.input,
                    [
                        (message(f"p{j}", f"prometheus message {j}"), None, [])
                        for j in range(i, i + 10)
                    ],
                )
                await asyncio.sleep(0.5)
            await read(topics.bootstrap, topics.verdicts, n, 30)
            total = await asyncio.to_thread(
                prom.wait_for, "sum(moderation_verdicts_total)", lambda v: v >= base + n, 30
            )
            p50 = await asyncio.to_thread(
                prom.wait_for, "moderation:verdict_latency_seconds:p50_1m", lambda v: v > 0, 30
            )
            p99 = await asyncio.to_thread(prom.scalar, "moderation:verdict_latency_seconds:p99_1m")
            errors = {}
            for expr in dashboard_exprs():
                try:
                    await asyncio.to_thread(prom.query, expr)
                except Exception as exc:
                    errors[expr] = repr(exc)
            alerts = await asyncio.to_thread(prom.query, "ALERTS")
            return {
                "total": (total or 0.0) - base,
                "p50": p50,
                "p99": p99,
                "errors": errors,
                "alerts": alerts,
            }
        finally:
            worker.request_stop()
            await asyncio.wait_for(task, 30)
            await health.close()
            prom.stop()

    r = asyncio.run(scenario())
    assert r["total"] == n
    assert r["p50"] is not None and r["p99"] is not None
    assert 0 < r["p50"] <= r["p99"] < 20  # seconds; the functional budget is 20 s
    assert r["errors"] == {}
    assert not [
        a
        for a in r["alerts"]
        if a["metric"].get("alertname") == "ModerationNoVerdicts"
        and a["metric"].get("alertstate") == "firing"
    ]
