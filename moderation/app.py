"""The one place the application is assembled: settings -> (embedded stack) -> model,
cache -> ``Moderator`` -> ``Worker`` (+ health endpoint), started and ready.

``running`` is what every entry point uses: `moderation worker`, the demo, the
example send-message API, the broker-floor benchmark and the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

from moderation import gcpause, metrics
from moderation.cache import REDIS_CONNECT_TIMEOUT_S, WRITE_TIMEOUT_FACTOR, VerdictCache
from moderation.classifier import Classifier
from moderation.config import (
    CacheSettings,
    ClassifierSettings,
    Settings,
    Source,
    WorkerSettings,
    classifier_settings,
    load,
)
from moderation.cpu import check_cpu, cpu_info
from moderation.embedded import EmbeddedBroker, EmbeddedRedis
from moderation.errors import ModerationError
from moderation.health import HealthServer
from moderation.kafka.admin import ensure_topics
from moderation.moderator import Moderator
from moderation.policy import Policy
from moderation.shadow import Shadow
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
            "amx": str(cpu.amx).lower(),
            "emulated": str(cpu.emulated).lower(),
            "usable_cores": str(cpu.usable_cores),
        }
    )
    check_cpu(cpu, settings.require_vnni)
    if not cpu.vnni:
        log.warning("no AVX-512 VNNI: int8 inference runs on a slower path on this CPU")
    classifier = Classifier(settings)
    metrics.describe_model(classifier)
    policy = Policy.for_model(
        classifier.labels, classifier.manifest["thresholds"], settings.thresholds
    )
    return classifier, policy


def build_shadow(settings: ClassifierSettings) -> Shadow | None:
    """The candidate of MODERATION_SHADOW_MODEL_DIR with its own card's thresholds, or
    None. Loaded like the live model (same threads, length limit, normalizer)."""
    if settings.shadow_model_dir is None:
        return None
    candidate = Classifier(replace(settings, model_dir=settings.shadow_model_dir))
    policy = Policy.for_model(candidate.labels, candidate.manifest["thresholds"], {})
    metrics.expose_shadow()
    log.info("shadow scoring with %s (thresholds %s)", candidate.model_id, policy.thresholds)
    return Shadow(candidate, policy)


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
            socket_timeout=timeout_s * WRITE_TIMEOUT_FACTOR,
            socket_connect_timeout=REDIS_CONNECT_TIMEOUT_S,
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


# How long ``running`` waits for the worker's partitions by default: a group join on
# Apache Kafka takes about three seconds (group.initial.rebalance.delay.ms), tansu
# holds a JoinGroup for half the session timeout; a minute covers both with margin.
READY_TIMEOUT_S = 60.0
# How often readiness is checked while waiting for it.
_READY_POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class App:
    """A started worker: the settings it runs with (embedded addresses filled in)."""

    settings: WorkerSettings
    cache_settings: CacheSettings
    moderator: Moderator
    worker: Worker
    task: asyncio.Task[None]

    @property
    def bootstrap(self) -> str:
        assert self.settings.kafka.bootstrap is not None
        return self.settings.kafka.bootstrap


@contextlib.asynccontextmanager
async def running(
    settings: Settings | None = None,
    *,
    embedded: bool = False,
    model: tuple[Classifier, Policy] | None = None,
    moderator_class: type[Moderator] = Moderator,
    signals: bool = False,
    health: bool = True,
    ready_timeout_s: float | None = READY_TIMEOUT_S,
) -> AsyncIterator[App]:
    """Assemble the worker from ``settings`` (default: the environment), start it, and
    wait until it has partitions (``ready_timeout_s=None``: do not wait).

    ``model`` reuses a loaded classifier and policy. ``signals``: SIGTERM and SIGINT
    request a graceful stop, SIGHUP reloads the model (``Moderator.swap``). ``health``
    serves /metrics, /healthz and /readyz on the metrics port (when it is not 0). On
    exit the worker drains, commits and stops.
    """
    settings = settings or load()
    classifier, policy = model or load_classifier(settings.classifier)
    async with stack(settings.worker, settings.cache, embedded) as (s, c):
        moderator = moderator_class(
            s.decision,
            classifier,
            policy,
            build_cache(c, classifier),
            build_shadow(settings.classifier),
        )
        worker = Worker(s, moderator)
        gcpause.watch()
        reloads: set[asyncio.Task[bool]] = set()
        if signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, worker.request_stop)
            loop.add_signal_handler(signal.SIGHUP, _reload, moderator, reloads)
        server = None
        if health and s.metrics_port:
            server = await HealthServer(lambda: worker.ready, port=s.metrics_port).start()
        task = asyncio.create_task(worker.run(), name="worker")
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
            if ready_timeout_s is not None:
                await _ready(worker, task, ready_timeout_s)
            yield App(s, c, moderator, worker, task)
        finally:
            worker.request_stop()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            for reload in reloads:
                reload.cancel()
            if server is not None:
                await server.close()


def _reload(moderator: Moderator, tasks: set[asyncio.Task[bool]]) -> None:
    """SIGHUP: read the model settings again (environment and the MODERATION_CONFIG
    file, which may name a new MODEL_DIR) and swap that model in."""
    try:
        settings = classifier_settings(Source())
    except ModerationError as exc:
        log.error("SIGHUP: settings unreadable (%s); the model stays as it is", exc)
        return
    log.info("SIGHUP: loading the model at %s", settings.model_dir)
    task = asyncio.create_task(moderator.swap(settings), name="model-swap")
    tasks.add(task)
    task.add_done_callback(tasks.discard)


async def _ready(worker: Worker, task: asyncio.Task[None], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not worker.ready:
        if task.done():
            task.result()  # the worker's own error, if it failed to start
            raise RuntimeError("the worker stopped before it was ready")
        if time.monotonic() > deadline:
            raise TimeoutError(f"the worker got no partitions within {timeout_s:.0f} s")
        await asyncio.sleep(_READY_POLL_S)


async def serve(embedded: bool = False) -> None:
    """`moderation worker`: run until SIGTERM or SIGINT, then drain and exit."""
    async with running(embedded=embedded, signals=True, ready_timeout_s=None) as app:
        if app.settings.gc_freeze:
            # Everything is loaded and connected: what lives now lives as long as the
            # process (only here, in the worker's own process: not in a host's).
            gcpause.freeze_startup()
        await app.task
