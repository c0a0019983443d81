import asyncio
import os
import sys
import threading

import numpy as np
import pytest

from moderation.classifier import Encoded
from moderation.engine import (
    MAX_BATCH,
    MIN_FIT_TOKENS,
    ServiceTimes,
    _Job,
    admit,
    cut,
    longest_fitting,
    lower_thread_priority,
    pick,
)


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


def test_service_time_estimate_interpolates_between_measured_lengths() -> None:
    t = ServiceTimes()
    assert t.estimate(50) == 0.0
    t.observe(8, 0.002)
    assert t.estimate(3) == 0.002  # below the shortest measured: that one
    # Above the longest measured: in proportion to length (bucket 5 of 8 tokens vs 1).
    assert abs(t.estimate(40) - 0.002 * 5.5 / 1.5) < 1e-12
    t.observe(64, 0.016)
    # Between 8 (bucket 1) and 64 (bucket 8): bucket 4 is 3/7 of the way.
    assert abs(t.estimate(32) - (0.002 + 0.014 * 3 / 7)) < 1e-12
    t.observe(8, 0.004)
    assert 0.002 < t.estimate(8) < 0.004


def per_token(seconds: float) -> ServiceTimes:
    """A model whose time is ``seconds`` per token, measured at the calibration lengths."""
    t = ServiceTimes()
    for n in (8, 16, 32, 64, 128):
        t.observe(n, n * seconds)
    return t


def test_longest_fitting_prefix_is_the_longest_whose_estimate_fits() -> None:
    t = per_token(0.0003)  # 128 tokens: 38.4 ms
    n = longest_fitting(128, 0.020, t)
    assert MIN_FIT_TOKENS <= n < 128
    assert t.estimate(n) <= 0.020 < t.estimate(n + 8)
    assert longest_fitting(128, 1.0, t) == 128
    assert longest_fitting(128, 0.0003 * 4, t) == 0  # not even the minimum fits
    assert longest_fitting(5, 1.0, t) == 0  # shorter than the minimum: never "cut"


def test_cut_keeps_the_start_and_the_closing_separator() -> None:
    e = Encoded(np.array([101, 1, 2, 3, 4, 5, 102], dtype=np.int64), False)
    c = cut(e, 4)
    assert c.ids.tolist() == [101, 1, 2, 102] and c.truncated
    assert cut(e, 7) is e and cut(e, 50) is e


def test_admission_offers_a_prefix_when_the_whole_does_not_fit() -> None:
    t = per_token(0.0003)
    assert admit([], 128, 0.100, 0.0, t) == 128
    prefix = admit([], 128, 0.020, 0.0, t)
    assert MIN_FIT_TOKENS <= prefix < 128
    # The queue due first takes its share: less is left for the prefix.
    queued = [job(32, 0.010)]
    assert admit(queued, 128, 0.020, 0.0, t) < prefix
    assert admit([job(64, 0.010)] * 2, 128, 0.020, 0.0, t) == 0


def test_pick_cuts_a_waiting_message_its_deadline_no_longer_fits() -> None:
    t = per_token(0.0003)
    long_one = job(128, 0.020)
    hopeless, run = pick([long_one], 0.0, t, batching=False)
    assert hopeless == [] and run == [long_one]
    assert MIN_FIT_TOKENS <= long_one.encoded.tokens < 128 and long_one.encoded.truncated
    assert t.estimate(long_one.encoded.tokens) <= 0.020


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

    recorded = []
    failures: list[BaseException] = []

    def record() -> None:
        n = 0
        try:
            while not stop.is_set():
                n += 1
                t.observe(8 * (n % 5000), 0.001)
        except BaseException as exc:  # a failure here must fail the test, not vanish
            failures.append(exc)
        recorded.append(n)

    import sys

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    writer = threading.Thread(target=record)
    writer.start()
    estimates = []
    try:
        for _ in range(2_000):
            estimates.append(t.estimate(8 * 5000))
    finally:
        stop.set()
        writer.join()
        sys.setswitchinterval(interval)
    assert not failures, failures
    assert recorded and recorded[0] > 0, "the writer never ran alongside the estimates"
    # A torn read would show as a NaN, an infinity or a negative time.
    assert all(e >= 0 and e != float("inf") for e in estimates)
    # Every observation was 1 ms, whatever its length: so is the estimate at a length
    # the writer measured first (how far it got depends on scheduling).
    assert abs(t.estimate(8) - 0.001) < 1e-6


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_the_long_lane_lowers_its_own_thread_priority_and_no_other() -> None:
    tid = threading.get_native_id()
    before = os.getpriority(os.PRIO_PROCESS, tid)
    seen: dict[str, int | None] = {}

    def lane() -> None:
        me = threading.get_native_id()
        seen["unchanged"] = lower_thread_priority(0)
        seen["start"] = os.getpriority(os.PRIO_PROCESS, me)
        seen["after"] = lower_thread_priority(5)
        seen["read"] = os.getpriority(os.PRIO_PROCESS, me)

    t = threading.Thread(target=lane)
    t.start()
    t.join()
    start = seen["start"]
    assert seen["unchanged"] is None and start is not None
    assert seen["after"] == seen["read"] == min(19, start + 5)
    assert os.getpriority(os.PRIO_PROCESS, tid) == before  # the caller's thread untouched
