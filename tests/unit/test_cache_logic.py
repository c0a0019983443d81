import numpy as np

from moderation.cache import CircuitBreaker, LocalLRU, cache_key
from moderation.classifier import Encoded


def enc(*ids: int) -> Encoded:
    return Encoded(np.array(ids, dtype=np.int64), False)


def test_key_depends_on_model_truncation_and_tokens_and_hides_text() -> None:
    k = cache_key("m@1", 128, enc(101, 7592, 102))
    assert len(k) == 64 and k == cache_key("m@1", 128, enc(101, 7592, 102))
    assert k != cache_key("m@2", 128, enc(101, 7592, 102))
    assert k != cache_key("m@1", 64, enc(101, 7592, 102))
    assert k != cache_key("m@1", 128, enc(101, 7593, 102))
    assert "7592" not in k


def test_where_lines_start_is_part_of_the_key_of_a_message_of_several() -> None:
    # "hi⏎you" and "hi you" share token ids, not verdicts (docs/model.md, rule 116).
    ids = np.array([101, 7632, 2017, 102], dtype=np.int64)
    one, two = Encoded(ids, False), Encoded(ids, False, (2,))
    assert one.key_bytes() == ids.astype("<i8").tobytes()  # one line: the ids alone
    assert cache_key("m@1", 128, one) != cache_key("m@1", 128, two)
    assert cache_key("m@1", 128, two) == cache_key("m@1", 128, Encoded(ids.copy(), False, (2,)))
    assert cache_key("m@1", 128, two) != cache_key("m@1", 128, Encoded(ids, False, (3,)))


def test_lru_is_bounded_and_evicts_least_recently_used() -> None:
    lru = LocalLRU(3, ttl_s=60)
    for i in range(3):
        lru.put(f"k{i}", np.array([i], dtype=np.float32), now=0)
    assert lru.get("k0", now=1) is not None  # k0 is now the most recent
    lru.put("k3", np.array([3], dtype=np.float32), now=1)
    assert len(lru) == 3
    assert lru.get("k1", now=1) is None  # evicted
    assert lru.get("k0", now=1) is not None


def test_lru_entries_expire() -> None:
    lru = LocalLRU(10, ttl_s=5)
    lru.put("k", np.array([1.0], dtype=np.float32), now=100)
    assert lru.get("k", now=104.9) is not None
    assert lru.get("k", now=105.0) is None
    assert len(lru) == 0


def test_zero_entries_disables_the_local_tier() -> None:
    lru = LocalLRU(0, ttl_s=5)
    lru.put("k", np.array([1.0], dtype=np.float32))
    assert lru.get("k") is None


def test_breaker_opens_probes_once_and_closes() -> None:
    b = CircuitBreaker(failures_to_open=3, cooldown_s=1.0)
    for _ in range(2):
        assert b.allow(now=0)
        b.failure(now=0)
    assert b.state == "closed"
    b.failure(now=0)
    assert b.state == "open" and not b.allow(now=0.5)
    assert b.allow(now=1.0)  # half-open: one probe
    assert b.state == "half_open" and not b.allow(now=1.0)
    b.failure(now=1.0)  # the probe failed: open again
    assert b.state == "open" and not b.allow(now=1.5)
    assert b.allow(now=2.1)
    b.success()
    assert b.state == "closed" and b.allow(now=2.1)
    assert b.opened_count == 2
