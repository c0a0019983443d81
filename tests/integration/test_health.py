"""/metrics, /healthz and /readyz on a running worker, read over HTTP."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from moderation.health import HealthServer
from tests.integration.kafka_io import message, produce, read
from tests.integration.workers import unstarted
from tests.topics import PARTITIONS, Topics

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


def test_metrics_count_what_was_sent_and_readiness_follows_assignment(
    topics: Topics, model: Any
) -> None:

    async def scenario() -> tuple[Any, ...]:
        worker = unstarted(topics.settings(), model)
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
    assert delta("moderation_inference_seconds_count", lane="main") == 10
    assert delta("moderation_tokenize_seconds_count") == 10
    assert after[("moderation_in_flight", ())] == 0
    lags = [v for (name, _), v in after.items() if name == "moderation_consumer_lag"]
    assert lags and all(v == 0 for v in lags)
    assert any(name == "moderation_model_info" for name, _ in after)


def test_a_stalled_worker_shows_its_lag_growing(
    topics: Topics, model: Any, monkeypatch: Any
) -> None:
    """Lag comes from the broker's end offsets on its own schedule, not only after a
    commit: a worker whose model never answers commits nothing, yet its lag shows."""
    import moderation.kafka.acks as acks_module
    from moderation.metrics import REGISTRY

    monkeypatch.setattr(acks_module, "LAG_REFRESH_S", 0.3)
    settings = topics.settings(max_in_flight=1, budget_ms=60_000, shutdown_grace_s=1.0)

    def lag() -> float:
        return sum(
            REGISTRY.get_sample_value(
                "moderation_consumer_lag", {"topic": topics.input, "partition": str(p)}
            )
            or 0.0
            for p in range(PARTITIONS)
        )

    async def scenario() -> list[float]:
        worker = unstarted(settings, model)
        stuck = asyncio.Event()

        async def never(*_: Any) -> Any:  # the model hangs: nothing finishes or commits
            stuck.set()
            await asyncio.Event().wait()

        worker.moderator.engine.score = never  # type: ignore[method-assign]
        task = asyncio.create_task(worker.run())
        while not worker.ready:
            await asyncio.sleep(0.05)
        seen = []
        for n in (5, 20):
            # One record per produce request: tansu's ListOffsets(latest) counts batches,
            # not records (Apache Kafka counts records), so one-record batches keep the
            # expected lag exact on both.
            for i in range(n):
                await produce(
                    topics.bootstrap, topics.input, [(message(f"s{n}-{i}", "hi"), None, [])]
                )
            await asyncio.wait_for(stuck.wait(), 30)
            await asyncio.sleep(1.5)  # a few refreshes
            seen.append(lag())
        worker.request_stop()
        await asyncio.wait_for(task, 30)
        return seen

    first, second = asyncio.run(scenario())
    # 5 then 25 records behind: the one the stuck task holds is taken but not
    # committed, so it is still lag -- exactly what was produced.
    assert (first, second) == (5, 25)


def test_each_process_exports_only_its_own_series(topics: Topics, tmp_path: Any) -> None:
    """A worker shows no client series, a send-message API no worker series; both show
    the process and Python collectors."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from moderation.embedded import free_port

    env = {**os.environ, **topics.env(), "MODERATION_THREADS": "1"}
    worker_port, api_port = free_port(), free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "moderation.cli", *cmd],
            env={**env, **extra},
            stdout=(tmp_path / f"{name}.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        for name, cmd, extra in (
            ("worker", ["worker"], {"MODERATION_METRICS_PORT": str(worker_port)}),
            ("api", ["send-api", "--port", str(api_port)], {"MODERATION_INSTANCE_ID": "api-m"}),
        )
    ]

    def scrape(port: int) -> str:
        deadline = time.monotonic() + 90
        while True:
            try:
                return get(port, "/metrics")[1]
            except OSError:
                assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
                time.sleep(0.2)

    try:
        worker_text, api_text = scrape(worker_port), scrape(api_port)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        codes = [p.wait(30) for p in procs]
    for text in (worker_text, api_text):
        assert "process_resident_memory_bytes" in text and "process_open_fds" in text
        assert "process_cpu_seconds_total" in text and "python_gc_objects_collected" in text
    assert "moderation_verdict_latency_seconds" in worker_text
    assert "moderation_client_" not in worker_text
    assert "moderation_client_check_seconds" in api_text
    assert "moderation_verdict" not in api_text and "moderation_consumer_lag" not in api_text
    assert codes == [0, 0]
