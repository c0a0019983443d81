import asyncio

import numpy as np

from moderation.classifier import Encoded
from moderation.engine import MAX_BATCH, ServiceTimes, _Job, pick


def job(tokens: int, deadline: float) -> _Job:
    loop = asyncio.new_event_loop()
    fut = loop.create_future()
    j = _Job(Encoded(np.zeros(tokens, dtype=np.int64), False), deadline, fut, loop)
    loop.close()
    return j


def times(seconds: float) -> ServiceTimes:
    t = ServiceTimes()
    for n in (8, 16, 32, 64, 128):
        t.observe(n, seconds)
    return t


def test_earliest_deadline_runs_first() -> None:
    jobs = [job(10, 5.0), job(12, 2.0), job(14, 3.0)]
    hopeless, run = pick(jobs, 0.0, times(0.001), batching=False)
    assert hopeless == [] and [j.deadline for j in run] == [2.0]
    assert len(jobs) == 2


def test_messages_that_cannot_make_their_deadline_are_not_run() -> None:
    jobs = [job(10, 0.0005), job(10, 1.0)]
    hopeless, run = pick(jobs, 0.0, times(0.001), batching=False)
    assert [j.deadline for j in hopeless] == [0.0005]
    assert [j.deadline for j in run] == [1.0]
    assert jobs == []


def test_equal_lengths_batch_together_up_to_the_cap() -> None:
    jobs = [job(10, 1.0 + i) for i in range(MAX_BATCH + 3)] + [job(11, 0.5)]
    _, run = pick(jobs, 0.0, times(0.001), batching=True)
    assert [j.encoded.tokens for j in run] == [11]  # earliest first, alone at its length
    _, run = pick(jobs, 0.0, times(0.001), batching=True)
    assert len(run) == MAX_BATCH and {j.encoded.tokens for j in run} == {10}
    assert len(jobs) == 3


def test_service_time_estimate_uses_the_nearest_shorter_bucket() -> None:
    t = ServiceTimes()
    assert t.estimate(50) == 0.0
    t.observe(10, 0.002)
    assert t.estimate(50) == 0.002
    t.observe(10, 0.004)
    assert 0.002 < t.estimate(10) < 0.004
