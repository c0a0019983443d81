"""The inference engine: one thread, one ONNX Runtime session, fed from asyncio
(and optionally a second thread and session for long messages: ``long_lane_tokens``).

Consumers hand in tokenized messages with a deadline and await the scores; the
model runs on its own thread so consuming, heartbeats and producing never wait
on it. Under a backlog the engine spends the model only on messages that can
still make their deadline: a message that cannot finish in time behind the queued
messages due before it (by the model's measured time per length) is scored on the
longest prefix that does fit, and answered at once as over budget only when even
that prefix would be too short to judge. Among queued messages the earliest
deadline runs first. Queued messages of equal token length may run together as one
batch (no padding needed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import numpy as np

from moderation import metrics
from moderation.classifier import Classifier, Encoded

log = logging.getLogger(__name__)
T = TypeVar("T")

# At most this many equal-length messages in one run (batching is off by default),
# so that one batch cannot hold the model long while other deadlines run out.
MAX_BATCH = 8
# Smoothing of the per-length service-time estimate.
_EWMA = 0.2
_BUCKET_TOKENS = 8
# A message cut to fit its budget keeps at least this many tokens ([CLS], [SEP] and
# six of its own); a shorter prefix says too little, and the fallback answers.
MIN_FIT_TOKENS = 8


class OverBudget:
    """The engine's answer for a message it could not score before its deadline."""

    __slots__ = ()


OVER_BUDGET = OverBudget()


@dataclass(frozen=True, slots=True)
class Scored:
    """The engine's answer for a message it scored: one score row, and how many tokens
    the model saw (fewer than the message's when it was cut to fit its deadline)."""

    row: np.ndarray
    tokens: int
    cut_to_fit: bool


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
        """Seconds a message of this length is expected to take; 0 before any sample.

        A length with no sample of its own is interpolated linearly between the nearest
        measured lengths around it, or scaled in proportion to tokens from the longest
        measured one below it (the model's time grows about linearly with length).
        """
        bucket = tokens // _BUCKET_TOKENS
        with self._lock:
            if bucket in self._est:
                return self._est[bucket]
            below = max((b for b in self._est if b < bucket), default=None)
            above = min((b for b in self._est if b > bucket), default=None)
            lo = None if below is None else self._est[below]
            hi = None if above is None else self._est[above]
        if lo is None or below is None:
            return hi if hi is not None else 0.0
        if hi is None or above is None:
            return lo * (bucket + 0.5) / (below + 0.5)
        return lo + (hi - lo) * (bucket - below) / (above - below)

    def observe(self, tokens: int, seconds: float) -> None:
        """Fold one measurement in."""
        bucket = tokens // _BUCKET_TOKENS
        with self._lock:
            old = self._est.get(bucket)
            self._est[bucket] = seconds if old is None else old + _EWMA * (seconds - old)


def longest_fitting(tokens: int, seconds: float, times: ServiceTimes) -> int:
    """The longest length, at most ``tokens``, expected to run within ``seconds``;
    0 when not even MIN_FIT_TOKENS fit."""
    n = tokens
    while n >= MIN_FIT_TOKENS:
        if times.estimate(n) <= seconds:
            return n
        n = (n // _BUCKET_TOKENS) * _BUCKET_TOKENS - 1  # the top of the bucket below
    return 0


def cut(encoded: Encoded, tokens: int) -> Encoded:
    """The message's first ``tokens - 1`` ids and its closing [SEP]: a shorter
    message the model reads exactly as it would read that prefix typed alone."""
    if tokens >= encoded.tokens:
        return encoded
    ids = np.concatenate([encoded.ids[: tokens - 1], encoded.ids[-1:]])
    return Encoded(ids, True)


def admit(
    jobs: list[_Job],
    tokens: int,
    deadline: float,
    now: float,
    times: ServiceTimes,
    cut_to_fit: bool = True,
) -> int:
    """How many of the message's tokens can still make ``deadline`` behind the queued
    ones that run before it: ``tokens`` when all of it fits, fewer when only a prefix
    does, 0 when not even MIN_FIT_TOKENS do.

    Earliest deadline first: every queued job with an earlier (or equal) deadline runs
    first. A message that cannot fit at all is answered at once rather than queued:
    under overload the queue stays short, answers stay prompt, and in-flight slots
    free up for the next fetch.
    """
    ahead = sum(times.estimate(j.encoded.tokens) for j in jobs if j.deadline <= deadline)
    left = deadline - now - ahead
    if left >= times.estimate(tokens):
        return tokens
    return longest_fitting(tokens, left, times) if cut_to_fit else 0


def pick(
    jobs: list[_Job], now: float, times: ServiceTimes, batching: bool, cut_to_fit: bool = True
) -> tuple[list[_Job], list[_Job]]:
    """Split the queue into (hopeless, to_run); remove both from ``jobs``.

    A job that can no longer finish at its length is cut to the longest prefix that
    still can; hopeless: not even MIN_FIT_TOKENS can. To run: the earliest deadline,
    plus queued messages of the same token length if batching.
    """
    hopeless = []
    for j in jobs:
        if j.deadline - now < times.estimate(j.encoded.tokens):
            fits = longest_fitting(j.encoded.tokens, j.deadline - now, times) if cut_to_fit else 0
            if fits:
                j.encoded = cut(j.encoded, fits)
            else:
                hopeless.append(j)
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


class IdleWork(Protocol):
    """What the inference thread does when no live message waits (``shadow.Shadow``)."""

    def pending(self) -> bool: ...
    def run_one(self) -> None: ...
    def wake_with(self, cond: threading.Condition) -> None: ...


def lower_thread_priority(nice: int) -> int | None:
    """Lower the calling thread's scheduling priority by ``nice`` steps; its nice value
    after, or None where threads cannot be told apart (Linux sets it per thread)."""
    get_id = getattr(threading, "get_native_id", None)
    if nice <= 0 or get_id is None or not hasattr(os, "setpriority"):
        return None
    tid = get_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
        return os.getpriority(os.PRIO_PROCESS, tid)
    except OSError as exc:  # not allowed here: the lane runs at the process's priority
        log.warning("could not lower the long lane's priority: %s", exc)
        return None


def made_at_lower_priority(nice: int, make: Callable[[], T]) -> T:
    """``make()`` run on a short-lived thread whose priority is lowered by ``nice`` first,
    so any thread it starts (an ONNX Runtime session's intra-op pool) inherits the lower
    priority: Linux gives a new thread its creator's nice value."""
    if nice <= 0:
        return make()
    out: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        lower_thread_priority(nice)
        try:
            out.append(make())
        except BaseException as exc:  # re-raised on the caller's thread
            failed.append(exc)

    t = threading.Thread(target=run, name="lower-priority-maker")
    t.start()
    t.join()
    if failed:
        raise failed[0]
    return out[0]


class _Lane:
    """One inference thread with its own queue and its own service-time estimate.

    ``nice`` > 0: the thread runs at a lower scheduling priority than the rest of the
    process, so the operating system hands the cores to the main lane, the event loop
    and the clients whenever they have work, and the long paste takes what is left
    (its session's own intra-op threads, if any, are made lower by
    ``made_at_lower_priority``).
    """

    def __init__(
        self,
        lane: str,
        score_one: Callable[[Encoded], np.ndarray],
        score_batch: Callable[[Sequence[Encoded]], np.ndarray] | None,
        *,
        batching: bool,
        cut_to_fit: bool,
        idle_work: IdleWork | None,
        max_tokens: int,
        nice: int = 0,
    ) -> None:
        self.name = "inference" if lane == "main" else f"inference-{lane}"
        self.nice = nice
        self.thread_nice: int | None = None  # the thread's nice value once lowered
        self.inference_seconds = metrics.INFERENCE.labels(lane=lane)
        self.queue_wait_seconds = metrics.QUEUE_WAIT.labels(lane=lane)
        self.score_one = score_one
        self.score_batch = score_batch
        # Work for the thread's idle moments (shadow scoring): run only when no live
        # message is queued, one unit at a time.
        self.idle_work = idle_work
        self.batching = batching and score_batch is not None
        self.cut_to_fit = cut_to_fit
        self.times = ServiceTimes()
        self.jobs: list[_Job] = []
        self.cond = threading.Condition()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        if idle_work is not None:
            idle_work.wake_with(self.cond)
        self.batches_run = 0
        self.messages_run = 0
        self._calibrate(max_tokens)

    def _calibrate(self, max_tokens: int) -> None:
        """Seed the service-time estimate so the first backlog is judged fairly."""
        for n in (8, 16, 32, 64, max_tokens):
            enc = Encoded(np.full((min(n, max_tokens),), 1000, dtype=np.int64), False)
            start = time.perf_counter()
            self.score_one(enc)
            self.times.observe(enc.tokens, time.perf_counter() - start)

    def stop(self, timeout: float) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        if self.thread.is_alive():
            self.thread.join(timeout)

    def submit(self, encoded: Encoded, deadline: float, fut: asyncio.Future[Any]) -> _Job | None:
        """Queue the message (cut to what fits), or None when not even a prefix fits."""
        with self.cond:
            if self.stopping:
                raise RuntimeError("inference engine is stopped")
            fits = admit(
                self.jobs, encoded.tokens, deadline, time.monotonic(), self.times, self.cut_to_fit
            )
            if not fits:
                return None
            job = _Job(cut(encoded, fits), deadline, fut, fut.get_loop())
            self.jobs.append(job)
            self.cond.notify()
        return job

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

    def _idle(self) -> bool:
        return self.idle_work is not None and self.idle_work.pending()

    def _run(self) -> None:
        self.thread_nice = lower_thread_priority(self.nice)
        while True:
            with self.cond:
                while not self.jobs and not self.stopping and not self._idle():
                    self.cond.wait()
                if not self.jobs:
                    if self.stopping:
                        return
                    idle = True
                else:
                    idle = False
                    hopeless, run = pick(
                        self.jobs, time.monotonic(), self.times, self.batching, self.cut_to_fit
                    )
            if idle:
                assert self.idle_work is not None
                self.idle_work.run_one()  # outside the lock: live messages queue meanwhile
                continue
            for job in hopeless:
                self._resolve(job, OVER_BUDGET)
            if not run:
                continue
            start = time.perf_counter()
            try:
                if len(run) == 1:
                    rows = self.score_one(run[0].encoded)[None, :]
                else:
                    assert self.score_batch is not None
                    rows = self.score_batch([j.encoded for j in run])
            except Exception as exc:  # a model failure answers these messages, not the thread
                log.exception("inference failed for a batch of %d", len(run))
                for job in run:
                    self._resolve(job, None, exc)
                continue
            elapsed = time.perf_counter() - start
            self.inference_seconds.observe(elapsed)
            now = time.monotonic()
            for job in run:
                self.queue_wait_seconds.observe(max(0.0, now - elapsed - job.enqueued))
            if len(run) == 1:
                self.times.observe(run[0].encoded.tokens, elapsed)
            self.batches_run += 1
            self.messages_run += len(run)
            for job, row in zip(run, rows, strict=True):
                self._resolve(job, row)


class InferenceEngine:
    """Runs the classifier on a dedicated thread; ``await score(...)`` from asyncio.

    ``long_lane_tokens`` > 0: messages longer than that many tokens run on a second
    thread with a session of its own (``long_lane_threads`` intra-op threads), so that
    a short message never waits behind a long paste: on 2 cores a 128-token message
    holds the model for 12-30 ms, against about 2 ms for a chat message
    (docs/benchmarks.md). ``long_lane_nice``: how far below the process that lane runs.
    """

    def __init__(
        self,
        classifier: Classifier,
        *,
        same_length_batching: bool = False,
        cut_to_fit: bool = True,
        idle_work: IdleWork | None = None,
        long_lane_tokens: int = 0,
        long_lane_threads: int = 1,
        long_lane_nice: int = 0,
    ) -> None:
        self.classifier = classifier
        self.long_lane_tokens = long_lane_tokens
        self._main = _Lane(
            "main",
            classifier.scores,
            lambda batch: classifier.scores_same_length(batch),  # looked up when batching
            batching=same_length_batching,
            cut_to_fit=cut_to_fit,
            idle_work=idle_work,
            max_tokens=classifier.max_tokens,
        )
        self._long: _Lane | None = None
        if 0 < long_lane_tokens < classifier.max_tokens:
            self._long = _Lane(
                "long",
                made_at_lower_priority(
                    long_lane_nice, lambda: classifier.second_session(long_lane_threads)
                ),
                None,
                batching=False,
                cut_to_fit=cut_to_fit,
                idle_work=None,
                max_tokens=classifier.max_tokens,
                # ONNX Runtime runs on the calling thread plus the session's pool
                # (threads - 1): the lane's thread and the pool both run lower.
                nice=long_lane_nice,
            )
        self._lanes = [self._main] + ([self._long] if self._long is not None else [])

    def _lane(self, tokens: int) -> _Lane:
        if self._long is not None and tokens > self.long_lane_tokens:
            return self._long
        return self._main

    @property
    def lanes(self) -> int:
        """How many inference threads run (2 with the long lane)."""
        return len(self._lanes)

    @property
    def messages_run(self) -> int:
        return sum(lane.messages_run for lane in self._lanes)

    @property
    def batches_run(self) -> int:
        return sum(lane.batches_run for lane in self._lanes)

    def service_times(self, tokens: int) -> ServiceTimes:
        """The measured model times of the lane a message of this length runs on."""
        return self._lane(tokens).times

    def estimate(self, tokens: int) -> float:
        """Seconds a message of this length is expected to take on the lane it runs on."""
        return self.service_times(tokens).estimate(tokens)

    def start(self) -> None:
        """Start the inference threads."""
        for lane in self._lanes:
            lane.thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Finish queued work and stop the threads."""
        for lane in self._lanes:
            lane.stop(timeout)

    async def score(self, encoded: Encoded, deadline: float) -> Scored | OverBudget:
        """Scores for one message (or for the longest prefix of it that can make
        ``deadline``), or OVER_BUDGET if not even a short prefix can."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        job = self._lane(encoded.tokens).submit(encoded, deadline, fut)
        if job is None:
            return OVER_BUDGET
        row = await fut
        if isinstance(row, OverBudget):
            return row
        tokens = job.encoded.tokens  # pick() may have cut it further while it waited
        return Scored(row, tokens, tokens < encoded.tokens)
