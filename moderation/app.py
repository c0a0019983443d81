"""Assemble and run the worker: settings -> (embedded stack) -> model, cache -> worker."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator
from dataclasses import replace

from moderation import metrics
from moderation.cache import VerdictCache
from moderation.classifier import Classifier
from moderation.config import (
    CacheSettings,
    ClassifierSettings,
    Source,
    WorkerSettings,
    cache_settings,
    classifier_settings,
)
from moderation.config import worker_settings as read_worker_settings
from moderation.cpu import check_cpu, cpu_info
from moderation.embedded import EmbeddedBroker, EmbeddedRedis
from moderation.health import HealthServer
from moderation.kafka_clients import ensure_topics
from moderation.policy import Policy
from moderation.worker import Worker

log = logging.getLogger(__name__)


def load_classifier(settings: ClassifierSettings) -> tuple[Classifier, Policy]:
    """The model and its decision policy (card thresholds plus configured overrides)."""
    cpu = cpu_info()
    log.info("cpu: %s", cpu.describe())
    metrics.CPU_INFO.info(
        {
            "model": cpu.model_name,
            "kind": cpu.kind,
            "avx2": str(cpu.avx2).lower(),
            "avx512": str(cpu.avx512).lower(),
            "vnni": str(cpu.vnni).lower(),
            "usable_cores": str(cpu.usable_cores),
        }
    )
    check_cpu(cpu, settings.require_vnni)
    if not cpu.vnni:
        log.warning("no AVX-512 VNNI: int8 inference runs on a slower path on this CPU")
    classifier = Classifier(settings)
    metrics.MODEL_INFO.info(
        {
            "id": classifier.model_id,
            "quantization": str(classifier.manifest.get("quantization", "")),
            "threads": str(classifier.threads),
            "max_tokens": str(classifier.max_tokens),
        }
    )
    policy = Policy.for_model(
        classifier.labels, classifier.manifest["thresholds"], settings.thresholds
    )
    return classifier, policy


def build_cache(settings: CacheSettings, classifier: Classifier) -> VerdictCache | None:
    """The two-tier cache, or None when disabled; Redis only when a URL is configured."""
    if not settings.enabled:
        return None
    client = None
    if settings.redis_url:
        import redis.asyncio as aioredis

        timeout_s = settings.redis_timeout_ms / 1000
        client = aioredis.Redis.from_url(
            settings.redis_url,
            socket_timeout=timeout_s * 4,
            socket_connect_timeout=0.5,
            retry_on_timeout=False,
            health_check_interval=0,
        )
    return VerdictCache(
        classifier.model_id,
        classifier.labels,
        classifier.max_tokens,
        local_entries=settings.local_entries,
        ttl_s=settings.ttl_s,
        redis=client,
        namespace=settings.namespace,
        timeout_s=settings.redis_timeout_ms / 1000,
    )


@contextlib.asynccontextmanager
async def stack(
    wsettings: WorkerSettings, csettings: CacheSettings, embedded: bool
) -> AsyncIterator[tuple[WorkerSettings, CacheSettings]]:
    """Settings to use: as given, or pointed at a freshly started embedded broker and Redis.

    The embedded default starts when no bootstrap is configured (or ``embedded``);
    it brings a Redis too unless one is configured or the cache is off.
    """
    if wsettings.kafka.bootstrap is not None and not embedded:
        yield wsettings, csettings
        return
    broker = EmbeddedBroker().start()
    redis_server: EmbeddedRedis | None = None
    try:
        s = replace(wsettings, kafka=replace(wsettings.kafka, bootstrap=broker.bootstrap))
        n = s.embedded_partitions
        await ensure_topics(s.kafka, {s.input_topic: n, s.verdict_topic: n, s.dlq_topic: 1})
        if csettings.enabled and not csettings.redis_url:
            redis_server = EmbeddedRedis().start()
            csettings = replace(csettings, redis_url=redis_server.url)
        log.info(
            "embedded stack ready: broker %s, redis %s",
            broker.bootstrap,
            redis_server.url if redis_server else csettings.redis_url,
        )
        yield s, csettings
    finally:
        broker.stop()
        if redis_server is not None:
            redis_server.stop()


async def serve(embedded: bool = False) -> None:
    """`moderation worker`: run until SIGTERM or SIGINT, then drain and exit."""
    src = Source()
    wsettings, csettings = read_worker_settings(src), cache_settings(src)
    classifier, policy = load_classifier(classifier_settings(src))
    async with stack(wsettings, csettings, embedded) as (s, c):
        worker = Worker(s, classifier, policy, build_cache(c, classifier))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, worker.request_stop)
        health = None
        if s.metrics_port:
            health = await HealthServer(lambda: worker.ready, port=s.metrics_port).start()
        log.info(
            "worker consuming %s at %s (group %s, budget %d ms, fallback %s, cache %s)",
            s.input_topic,
            s.kafka.bootstrap,
            s.group_id,
            s.budget_ms,
            s.fallback_decision,
            "off" if not c.enabled else ("local+redis" if c.redis_url else "local"),
        )
        try:
            await worker.run()
        finally:
            if health is not None:
                await health.close()


@contextlib.asynccontextmanager
async def embedded_worker() -> AsyncIterator[tuple[str, Worker, asyncio.Task[None]]]:
    """A worker on the embedded broker and Redis in this process: (bootstrap, worker, task).

    For laptops and examples; the worker is ready (partitions assigned) on entry.
    """
    src = Source()
    classifier, policy = load_classifier(classifier_settings(src))
    async with stack(read_worker_settings(src), cache_settings(src), embedded=True) as (s, c):
        worker = Worker(s, classifier, policy, build_cache(c, classifier))
        task = asyncio.create_task(worker.run(), name="worker")
        try:
            while not worker.ready:
                if task.done():
                    task.result()
                await asyncio.sleep(0.05)
            assert s.kafka.bootstrap is not None
            yield s.kafka.bootstrap, worker, task
        finally:
            worker.request_stop()
            with contextlib.suppress(asyncio.CancelledError):
                await task
