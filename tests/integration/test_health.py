"""/metrics, /healthz and /readyz on a running worker, read over HTTP."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from moderation.app import load_classifier
from moderation.config import ClassifierSettings
from moderation.health import HealthServer
from moderation.worker import Worker
from tests.integration.kafka_io import message, produce, read
from tests.topics import Topics

pytestmark = pytest.mark.integration


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_metrics_count_what_was_sent_and_readiness_follows_assignment(topics: Topics) -> None:
    model = load_classifier(ClassifierSettings(threads=1))

    async def scenario() -> tuple[Any, ...]:
        worker = Worker(topics.settings(), *model)
        health = await HealthServer(lambda: worker.ready, host="127.0.0.1", port=0).start()
        port = health.port
        before = samples((await asyncio.to_thread(get, port, "/metrics"))[1])
        not_ready = await asyncio.to_thread(get, port, "/readyz")
        task = asyncio.create_task(worker.run())
        while not worker.ready:
            await asyncio.sleep(0.05)
        ready = await asyncio.to_thread(get, port, "/readyz")
        await produce(
            topics.bootstrap,
            topics.input,
            [(message(f"h{i}", f"hello friend number {i}"), None, []) for i in range(10)]
            + [(b"not json", None, [])],
        )
        await read(topics.bootstrap, topics.verdicts, 10, 30)
        await asyncio.sleep(0.5)  # a commit cycle, for the lag gauge
        after = samples((await asyncio.to_thread(get, port, "/metrics"))[1])
        alive = await asyncio.to_thread(get, port, "/healthz")
        missing = await asyncio.to_thread(get, port, "/nope")
        worker.request_stop()
        await asyncio.wait_for(task, 30)
        await health.close()
        return before, after, not_ready, ready, alive, missing

    before, after, not_ready, ready, alive, missing = asyncio.run(scenario())
    assert not_ready[0] == 503 and ready[0] == 200 and alive[0] == 200 and missing[0] == 404

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert delta("moderation_verdicts_total", decision="allow", reason="model") == 10
    assert delta("moderation_dead_letters_total", error="invalid_json") == 1
    assert delta("moderation_verdict_latency_seconds_count") == 10
    assert delta("moderation_inference_seconds_count") == 10
    assert delta("moderation_tokenize_seconds_count") == 10
    assert after[("moderation_in_flight", ())] == 0
    lags = [v for (name, _), v in after.items() if name == "moderation_consumer_lag"]
    assert lags and all(v == 0 for v in lags)
    assert any(name == "moderation_model_info" for name, _ in after)
