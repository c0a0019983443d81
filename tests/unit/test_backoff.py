import random

import pytest

from moderation.backoff import Backoff
from moderation.cache import CircuitBreaker


def test_delays_grow_then_cap_each_within_its_jitter_band() -> None:
    b = Backoff(first_s=0.1, max_s=1.0, rng=random.Random(1))
    ceilings = [0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    for c in ceilings:
        d = b.next()
        assert c / 2 <= d <= c, (c, d)
    b.reset()
    assert 0.05 <= b.next() <= 0.1


def test_two_replicas_do_not_retry_in_lockstep() -> None:
    a, b = Backoff(rng=random.Random(1)), Backoff(rng=random.Random(2))
    pairs = [(a.next(), b.next()) for _ in range(8)]
    assert all(x != y for x, y in pairs)
    # And one replica's delays are not all the same fraction of their step.
    c = Backoff(first_s=1.0, max_s=1.0, rng=random.Random(3))
    assert len({round(c.next(), 6) for _ in range(10)}) > 5


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="first_s"):
        Backoff(first_s=0, max_s=1)
    with pytest.raises(ValueError, match="first_s"):
        Backoff(first_s=2, max_s=1)


def test_breaker_cooldowns_are_jittered_between_three_quarters_and_all() -> None:
    waits = set()
    for seed in range(20):
        br = CircuitBreaker(failures_to_open=1, cooldown_s=1.0, rng=random.Random(seed))
        br.failure(now=0.0)
        assert not br.allow(now=0.74)
        assert br.allow(now=1.0)
        # Find when it first let a probe through, to the millisecond.
        br2 = CircuitBreaker(failures_to_open=1, cooldown_s=1.0, rng=random.Random(seed))
        br2.failure(now=0.0)
        waits.add(next(t / 1000 for t in range(740, 1001) if br2.allow(now=t / 1000)))
    assert len(waits) > 10
