"""The inference engine: one thread, one ONNX Runtime session, fed from asyncio.

Consumers hand in tokenized messages with a deadline and await the scores; the
model runs on its own thread so consuming, heartbeats and producing never wait
on it. Under a backlog the engine spends the model only on messages that can
still make their deadline: a message that cannot finish in time behind the queued
messages due before it (by the model's measured time per length) is answered at
once as over budget, and among the rest the earliest deadline runs first. Queued
messages of equal token length may run together as one batch (no padding needed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from moderation import metrics
from moderation.classifier import Classifier, Encoded

log = logging.getLogger(__name__)

# At most this many equal-length messages in one run (batching is off by default),
# so that one batch cannot hold the model long while other deadlines run out.
MAX_BATCH = 8
# Smoothing of the per-length service-time estimate.
_EWMA = 0.2
_BUCKET_TOKENS = 8


class OverBudget:
    """The engine's answer for a message it could not score before its deadline."""

    __slots__ = ()


OVER_BUDGET = OverBudget()


@dataclass(slots=True)
class _Job:
    encoded: Encoded
    deadline: float  # time.monotonic() seconds
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    enqueued: float = field(default_factory=time.monotonic)


class ServiceTimes:
    """Measured model time per message, by token-length bucket (EWMA).

    The inference thread observes while the event loop estimates (for admission), so
    both go through one lock.
    """

    def __init__(self) -> None:
        self._est: dict[int, float] = {}
        self._lock = threading.Lock()

    def estimate(self, tokens: int) -> float:
        """Seconds a message of this length is expected to take; 0 before any sample."""
        bucket = tokens // _BUCKET_TOKENS
        with self._lock:
            if bucket in self._est:
                return self._est[bucket]
            known = [v for b, v in self._est.items() if b <= bucket]
        return max(known) if known else 0.0

    def observe(self, tokens: int, seconds: float) -> None:
        """Fold one measurement in."""
        bucket = tokens // _BUCKET_TOKENS
        with self._lock:
            old = self._est.get(bucket)
            self._est[bucket] = seconds if old is None else old + _EWMA * (seconds - old)


def admit(jobs: list[_Job], tokens: int, deadline: float, now: float, times: ServiceTimes) -> bool:
    """Can a new message still make ``deadline`` behind the queued ones that run before it?

    Earliest deadline first: every queued job with an earlier (or equal) deadline runs
    first. When their expected time plus the message's own exceeds what is left, the
    message is answered at once rather than queued: under overload the queue stays
    short, answers stay prompt, and in-flight slots free up for the next fetch.
    """
    ahead = sum(times.estimate(j.encoded.tokens) for j in jobs if j.deadline <= deadline)
    return deadline - now >= ahead + times.estimate(tokens)


def pick(
    jobs: list[_Job], now: float, times: ServiceTimes, batching: bool
) -> tuple[list[_Job], list[_Job]]:
    """Split the queue into (hopeless, to_run); remove both from ``jobs``.

    Hopeless: cannot finish before its deadline even if started now. To run: the
    earliest deadline, plus queued messages of the same token length if batching.
    """
    hopeless = [j for j in jobs if j.deadline - now < times.estimate(j.encoded.tokens)]
    if hopeless:
        dead = {id(j) for j in hopeless}
        jobs[:] = [j for j in jobs if id(j) not in dead]
    if not jobs:
        return hopeless, []
    first = min(jobs, key=lambda j: j.deadline)
    run = [first]
    if batching:
        n = first.encoded.tokens
        run += [j for j in jobs if j is not first and j.encoded.tokens == n][: MAX_BATCH - 1]
    chosen = {id(j) for j in run}
    jobs[:] = [j for j in jobs if id(j) not in chosen]
    return hopeless, run


class InferenceEngine:
    """Runs the classifier on one dedicated thread; ``await score(...)`` from asyncio."""

    def __init__(self, classifier: Classifier, *, same_length_batching: bool = False) -> None:
        self.classifier = classifier
        self.batching = same_length_batching
        self.times = ServiceTimes()
        self._jobs: list[_Job] = []
        self._cond = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="inference", daemon=True)
        self.batches_run = 0
        self.messages_run = 0
        self._calibrate()

    def _calibrate(self) -> None:
        """Seed the service-time estimate so the first backlog is judged fairly."""
        for n in (8, 16, 32, 64, self.classifier.max_tokens):
            ids = np.full((min(n, self.classifier.max_tokens),), 1000, dtype=np.int64)
            enc = Encoded(ids, False)
            start = time.perf_counter()
            self.classifier.scores(enc)
            self.times.observe(enc.tokens, time.perf_counter() - start)

    def start(self) -> None:
        """Start the inference thread."""
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Finish queued work and stop the thread."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout)

    async def score(self, encoded: Encoded, deadline: float) -> np.ndarray | OverBudget:
        """Scores for one message, or OVER_BUDGET if it cannot make ``deadline``."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        with self._cond:
            if self._stopping:
                raise RuntimeError("inference engine is stopped")
            if not admit(self._jobs, encoded.tokens, deadline, time.monotonic(), self.times):
                return OVER_BUDGET
            self._jobs.append(_Job(encoded, deadline, fut, loop))
            self._cond.notify()
        return await fut

    @staticmethod
    def _resolve(job: _Job, value: Any, exc: BaseException | None = None) -> None:
        def settle() -> None:
            if job.future.done():
                return
            if exc is not None:
                job.future.set_exception(exc)
            else:
                job.future.set_result(value)

        with contextlib.suppress(RuntimeError):  # loop closed: nobody waits any more
            job.loop.call_soon_threadsafe(settle)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._stopping:
                    self._cond.wait()
                if not self._jobs and self._stopping:
                    return
                hopeless, run = pick(self._jobs, time.monotonic(), self.times, self.batching)
            for job in hopeless:
                self._resolve(job, OVER_BUDGET)
            if not run:
                continue
            start = time.perf_counter()
            try:
                if len(run) == 1:
                    rows = self.classifier.scores(run[0].encoded)[None, :]
                else:
                    rows = self.classifier.scores_same_length([j.encoded for j in run])
            except Exception as exc:  # a model failure answers these messages, not the thread
                log.exception("inference failed for a batch of %d", len(run))
                for job in run:
                    self._resolve(job, None, exc)
                continue
            elapsed = time.perf_counter() - start
            metrics.INFERENCE.observe(elapsed)
            now = time.monotonic()
            for job in run:
                metrics.QUEUE_WAIT.observe(max(0.0, now - elapsed - job.enqueued))
            if len(run) == 1:
                self.times.observe(run[0].encoded.tokens, elapsed)
            self.batches_run += 1
            self.messages_run += len(run)
            for job, row in zip(run, rows, strict=True):
                self._resolve(job, row)
