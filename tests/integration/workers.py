"""Running a worker inside the test's event loop until the block ends."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from moderation.classifier import Classifier
from moderation.config import WorkerSettings
from moderation.policy import Policy
from moderation.worker import Worker


@contextlib.asynccontextmanager
async def running(
    settings: WorkerSettings, model: tuple[Classifier, Policy], cache: Any = None
) -> AsyncIterator[Worker]:
    worker = Worker(settings, *model, cache)
    task = asyncio.create_task(worker.run())
    deadline = time.monotonic() + 30
    while not worker.ready:
        if task.done():
            task.result()
        assert time.monotonic() < deadline, "worker never got partitions"
        await asyncio.sleep(0.05)
    try:
        yield worker
    finally:
        worker.request_stop()
        await asyncio.wait_for(task, 30)
