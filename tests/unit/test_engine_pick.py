import asyncio

import numpy as np

from moderation.classifier import Encoded
from moderation.engine import MAX_BATCH, ServiceTimes, _Job, admit, pick


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


def test_admission_counts_the_queue_due_first() -> None:
    t = times(0.005)  # 5 ms per message
    queued = [job(10, 0.020 + i * 0.001) for i in range(10)]  # due within 20-29 ms
    # Due at 30 ms: ten messages (50 ms) run first, so it cannot make it.
    assert not admit(queued, 10, 0.030, 0.0, t)
    # Due at 100 ms: 50 + 5 ms fits.
    assert admit(queued, 10, 0.100, 0.0, t)
    # Messages due after it do not delay it under earliest-deadline-first.
    assert admit([job(10, 1.0) for _ in range(100)], 10, 0.010, 0.0, t)
    # An empty queue admits whatever its own time allows.
    assert admit([], 10, 0.006, 0.0, t) and not admit([], 10, 0.004, 0.0, t)


def test_service_times_are_safe_across_threads() -> None:
    # The inference thread records times while the event loop estimates for
    # admission; a dict changing size under an estimate once failed a message.
    import threading

    t = ServiceTimes()
    stop = threading.Event()

    def record() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            t.observe(8 * (n % 5000), 0.001)

    import sys

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    writer = threading.Thread(target=record)
    writer.start()
    try:
        for _ in range(2_000):
            t.estimate(8 * 5000)
    finally:
        stop.set()
        writer.join()
        sys.setswitchinterval(interval)
