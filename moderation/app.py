"""Assemble and run the worker: settings -> (embedded broker) -> classifier -> worker."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator
from dataclasses import replace

from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, Source, WorkerSettings, classifier_settings
from moderation.config import worker_settings as read_worker_settings
from moderation.embedded import EmbeddedBroker, ensure_topics
from moderation.policy import Policy
from moderation.worker import Worker

log = logging.getLogger(__name__)


def load_classifier(settings: ClassifierSettings) -> tuple[Classifier, Policy]:
    """The model and its decision policy (card thresholds plus configured overrides)."""
    classifier = Classifier(settings)
    policy = Policy.for_model(
        classifier.labels, classifier.manifest["thresholds"], settings.thresholds
    )
    return classifier, policy


@contextlib.asynccontextmanager
async def broker_for(settings: WorkerSettings, embedded: bool) -> AsyncIterator[WorkerSettings]:
    """The settings to use: as given, or pointed at a freshly started embedded broker."""
    if settings.kafka.bootstrap is not None and not embedded:
        yield settings
        return
    broker = EmbeddedBroker().start()
    try:
        s = replace(settings, kafka=replace(settings.kafka, bootstrap=broker.bootstrap))
        n = settings.embedded_partitions
        await ensure_topics(s.kafka, {s.input_topic: n, s.verdict_topic: n, s.dlq_topic: 1})
        log.info(
            "embedded broker ready at %s with topics %s, %s, %s",
            broker.bootstrap,
            s.input_topic,
            s.verdict_topic,
            s.dlq_topic,
        )
        yield s
    finally:
        broker.stop()


async def serve(embedded: bool = False) -> None:
    """`moderation worker`: run until SIGTERM or SIGINT, then drain and exit."""
    src = Source()
    wsettings = read_worker_settings(src)
    classifier, policy = load_classifier(classifier_settings(src))
    async with broker_for(wsettings, embedded) as s:
        worker = Worker(s, classifier, policy)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, worker.request_stop)
        log.info(
            "worker consuming %s at %s (group %s, budget %d ms, fallback %s)",
            s.input_topic,
            s.kafka.bootstrap,
            s.group_id,
            s.budget_ms,
            s.fallback_decision,
        )
        await worker.run()
