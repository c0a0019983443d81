"""The verdict cache against a real Redis: sharing, outages, bad values, TTL."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import numpy as np
import pytest
import redis.asyncio as aioredis

from moderation.app import build_cache
from moderation.cache import VerdictCache
from moderation.config import CacheSettings
from moderation.embedded import EmbeddedRedis
from tests.integration.conftest import wait_for
from tests.integration.kafka_io import message, produce, read
from tests.integration.workers import running
from tests.topics import Topics

pytestmark = pytest.mark.integration

# Functional tests: a Redis timeout no loaded 2-core CI machine trips by accident.
# The default (5 ms) is what the outage test and the benchmark exercise.
FUNCTIONAL_TIMEOUT_MS = "100"


def _assigned(log_text: str) -> set[int]:
    found = re.findall(r"partitions assigned: \[(.*?)\]", log_text)
    if not found:
        return set()
    return {int(p.split("/")[-1]) for p in re.findall(r"'([^']+)'", found[-1])}


def test_two_workers_in_one_group_share_verdicts_through_redis(
    topics: Topics, spawn: Any, redis_server: EmbeddedRedis, tmp_path: Any
) -> None:
    env = topics.env(
        MODERATION_REDIS_URL=redis_server.url, MODERATION_REDIS_TIMEOUT_MS=FUNCTIONAL_TIMEOUT_MS
    )
    a = spawn(env)
    b = spawn(env)
    logs = [tmp_path / "worker-0.log", tmp_path / "worker-1.log"]

    def split() -> bool:
        parts = [_assigned(p.read_text(errors="replace")) for p in logs]
        return all(parts) and not (parts[0] & parts[1]) and len(parts[0] | parts[1]) == 4

    assert wait_for(split, 60, interval=0.2), "the two workers never split the partitions"
    pa = min(_assigned(logs[0].read_text()))
    pb = min(_assigned(logs[1].read_text()))
    text = "this cached message is shared between instances"

    async def send(mid: str, partition: int) -> dict[str, Any]:
        from aiokafka import AIOKafkaProducer

        p = AIOKafkaProducer(bootstrap_servers=topics.bootstrap, acks="all")
        await p.start()
        try:
            await p.send_and_wait(topics.input, message(mid, text), partition=partition)
        finally:
            await p.stop()
        out = await read(
            topics.bootstrap,
            topics.verdicts,
            1,
            30,
            count=lambda o: sum(x.json()["message_id"] == mid for x in o),
        )
        return next(x.json() for x in out if x.json()["message_id"] == mid)

    first = asyncio.run(send("by-a", pa))
    assert first["reason"] == "model"
    time.sleep(0.3)  # the write to Redis happens after the verdict
    second = asyncio.run(send("by-b", pb))
    assert second["reason"] == "cache" and second["cache"] == "redis"
    assert second["scores"] == pytest.approx(first["scores"], abs=1e-6)
    assert second["decision"] == first["decision"]
    for w in (a, b):
        w.signal(15)
        assert w.wait(20) == 0


def test_redis_outage_keeps_verdicts_in_budget_and_breaker_recovers(
    topics: Topics, model: Any, redis_server: EmbeddedRedis
) -> None:
    cache_settings = CacheSettings(redis_url=redis_server.url, local_entries=0)

    async def scenario() -> tuple[list[Any], list[str]]:
        states = []
        async with running(topics.settings(budget_ms=1000), model, cache=cache_settings) as w:
            cache = w.moderator.cache
            assert cache is not None
            batch = [
                (message(f"before-{i}", f"first batch number {i}"), None, []) for i in range(20)
            ]
            await produce(topics.bootstrap, topics.input, batch)
            await read(topics.bootstrap, topics.verdicts, 20, 30)
            redis_server.stop()
            during = [(message(f"during-{i}", f"outage message {i}"), None, []) for i in range(60)]
            await produce(topics.bootstrap, topics.input, during)
            await read(topics.bootstrap, topics.verdicts, 80, 30)
            states.append(cache.breaker.state)
            redis_server.start()  # same port
            deadline = time.monotonic() + 15
            i = 0
            while cache.breaker.state != "closed" and time.monotonic() < deadline:
                await produce(
                    topics.bootstrap,
                    topics.input,
                    [(message(f"after-{i}", f"recovery {i}"), None, [])],
                )
                i += 1
                await asyncio.sleep(0.3)
            states.append(cache.breaker.state)
            states.append(f"opened {cache.breaker.opened_count} times")
            await asyncio.sleep(0.5)
            out = await read(topics.bootstrap, topics.verdicts, 80 + i, 30)
            return out, states

    out, states = asyncio.run(scenario())
    v = [o.json() for o in out]
    during = [x for x in v if x["message_id"].startswith("during-")]
    assert len(during) == 60
    assert all(x["reason"] == "model" for x in during)  # answered by the model meanwhile
    assert max(x["latency_ms"] for x in during) < 1000
    assert states[:2] == ["open", "closed"]
    assert states[2] != "opened 0 times"

    async def keys() -> int:
        r = aioredis.Redis.from_url(redis_server.url)
        try:
            return len(await r.keys("moderation:scores:*"))
        finally:
            await r.aclose()

    assert asyncio.run(keys()) >= 1  # writes resumed after the breaker closed


def test_malformed_value_is_a_counted_miss(redis_server: EmbeddedRedis, model: Any) -> None:
    clf = model[0]

    async def scenario() -> tuple[Any, int, Any]:
        cache = build_cache(
            CacheSettings(redis_url=redis_server.url, local_entries=0, redis_timeout_ms=100), clf
        )
        assert isinstance(cache, VerdictCache)
        assert await cache.connect()
        key = cache.key(clf.encode("hello malformed"))
        r = aioredis.Redis.from_url(redis_server.url)
        await r.set(cache.prefix + key, b"\x00not json")
        first = await cache.get(key)
        await r.set(
            cache.prefix + key, b'{"model": "%s", "scores": {"toxic": 7}}' % clf.model_id.encode()
        )
        second = await cache.get(key)
        await r.aclose()
        await cache.close()
        return first, cache.stats.malformed, second

    first, malformed, second = asyncio.run(scenario())
    assert first is None and second is None
    assert malformed == 2


def test_values_expire_after_the_ttl(redis_server: EmbeddedRedis, model: Any) -> None:
    clf = model[0]

    async def scenario() -> tuple[Any, Any, int]:
        cache = build_cache(
            CacheSettings(
                redis_url=redis_server.url, local_entries=0, ttl_s=1, redis_timeout_ms=100
            ),
            clf,
        )
        assert isinstance(cache, VerdictCache)
        assert await cache.connect()
        e = clf.encode("short lived")
        key = cache.key(e)
        cache.put(key, clf.scores(e))
        await asyncio.sleep(0.2)
        fresh = await cache.get(key)
        r = aioredis.Redis.from_url(redis_server.url)
        ttl = await r.ttl(cache.prefix + key)
        raw = await r.get(cache.prefix + key)
        await r.aclose()
        await asyncio.sleep(1.2)
        stale = await cache.get(key)
        await cache.close()
        assert raw is not None and b"short lived" not in raw  # no text in the value
        return fresh, stale, ttl

    fresh, stale, ttl = asyncio.run(scenario())
    assert fresh is not None and fresh[1] == "redis"
    assert stale is None
    assert 0 < ttl <= 1


def test_without_redis_the_local_tier_alone_serves(model: Any) -> None:
    clf = model[0]
    cache = build_cache(CacheSettings(redis_url=None, local_entries=10), clf)
    assert cache is not None and cache.redis is None
    e = clf.encode("local only")

    async def scenario() -> Any:
        key = cache.key(e)
        miss = await cache.get(key)
        cache.put(key, clf.scores(e))
        hit = await cache.get(key)
        return miss, hit

    miss, hit = asyncio.run(scenario())
    assert miss is None and hit[1] == "local"
    np.testing.assert_array_equal(hit[0], clf.scores(e))
