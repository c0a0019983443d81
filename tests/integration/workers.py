"""Running a worker inside the test's event loop until the block ends: the app's own
assembly (``moderation.app.running``), with the test's settings and loaded model."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace

from moderation.app import running as app_running
from moderation.classifier import Classifier
from moderation.config import CacheSettings, ClassifierSettings, Settings, WorkerSettings
from moderation.moderator import Moderator
from moderation.policy import Policy
from moderation.worker import Worker


@contextlib.asynccontextmanager
async def running(
    settings: WorkerSettings,
    model: tuple[Classifier, Policy],
    cache: CacheSettings | None = None,
    classifier: ClassifierSettings | None = None,
) -> AsyncIterator[Worker]:
    """A ready worker on ``settings`` (no health endpoint); the cache off unless given;
    ``classifier`` for what the loaded ``model`` does not carry (a shadow model)."""
    full = Settings(
        worker=replace(settings, metrics_port=0),
        cache=cache or CacheSettings(enabled=False),
        classifier=classifier or ClassifierSettings(threads=1),
    )
    async with app_running(full, model=model, ready_timeout_s=30) as app:
        yield app.worker


def unstarted(settings: WorkerSettings, model: tuple[Classifier, Policy]) -> Worker:
    """A worker not yet running, without cache: for tests of its start and readiness."""
    return Worker(settings, Moderator(settings.decision, *model))
