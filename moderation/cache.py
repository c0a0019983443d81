"""Recent verdict scores, shared: a bounded in-process LRU in front of Redis.

The key hashes the model id, the truncation setting and the token ids (and where lines
start, in a message of several: rule 116), so texts that tokenize alike share an entry
and raw text never appears in a key or value.
Values hold scores and the model id; the decision is recomputed from them with
the current thresholds. Redis never breaks the latency budget: each call has a
timeout of a few milliseconds, a circuit breaker stops calling it while it
fails, and writes happen in the background after the verdict is sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import orjson

from moderation import metrics
from moderation.classifier import Encoded

log = logging.getLogger(__name__)

Tier = Literal["local", "redis"]
# Writes waiting for Redis beyond this are dropped (and counted): a slow Redis
# must not grow our memory.
MAX_PENDING_WRITES = 1000
# Redis calls in flight at once, over connections opened at start: a burst must not
# open new connections inside a few-millisecond timeout (each would fail and open
# the breaker); it queues for a warm connection instead.
REDIS_CONNECTIONS = 8
# Opening those connections at start (a TLS handshake and AUTH included) on a loaded
# 2-core machine has taken over half a second; no verdict waits on it, since every
# call on the hot path has its own few-millisecond timeout.
REDIS_CONNECT_TIMEOUT_S = 2.0
# A background write may take this many times a read's timeout: it delays no verdict,
# and a write that lands late still serves the next instance that asks.
WRITE_TIMEOUT_FACTOR = 4
# Default read timeout: a Redis hit over loopback takes well under a millisecond.
DEFAULT_TIMEOUT_S = 0.005
# How long a caller waits for pending background writes (at shutdown, in benchmarks).
FLUSH_TIMEOUT_S = 0.5


def cache_key(model_id: str, max_tokens: int, encoded: Encoded) -> str:
    """Hex SHA-256 of model id, truncation setting and token ids (with where lines start,
    in a message of several: ``Encoded.key_bytes``): no text, ever."""
    h = hashlib.sha256()
    h.update(model_id.encode())
    h.update(b"|%d|" % max_tokens)
    h.update(encoded.key_bytes())
    return h.hexdigest()


class LocalLRU:
    """A bounded LRU of key -> (scores, expiry in monotonic seconds)."""

    def __init__(self, max_entries: int, ttl_s: float) -> None:
        self.max_entries = max_entries
        self.ttl_s = ttl_s
        self._d: OrderedDict[str, tuple[np.ndarray, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._d)

    def get(self, key: str, now: float | None = None) -> np.ndarray | None:
        """The scores, refreshed as most recent; None when absent or expired."""
        item = self._d.get(key)
        if item is None:
            return None
        if item[1] <= (time.monotonic() if now is None else now):
            del self._d[key]
            return None
        self._d.move_to_end(key)
        return item[0]

    def put(self, key: str, scores: np.ndarray, now: float | None = None) -> None:
        """Insert or refresh; evict the least recently used beyond the bound."""
        if self.max_entries <= 0:
            return
        self._d[key] = (scores, (time.monotonic() if now is None else now) + self.ttl_s)
        self._d.move_to_end(key)
        while len(self._d) > self.max_entries:
            self._d.popitem(last=False)


class CircuitBreaker:
    """closed -> (N consecutive failures) -> open -> (cool-down) -> half-open probe.

    A successful probe closes it; a failed one opens it again. Each cool-down lasts
    between three quarters of ``cooldown_s`` and all of it, at random, so instances
    that lost Redis together do not probe it in lockstep.
    """

    def __init__(
        self,
        failures_to_open: int = 5,
        cooldown_s: float = 1.0,
        rng: random.Random | None = None,
    ) -> None:
        self.failures_to_open = failures_to_open
        self.cooldown_s = cooldown_s
        self._rng = rng or random.Random()
        self._cooldown = cooldown_s
        self.state: Literal["closed", "open", "half_open"] = "closed"
        self._failures = 0
        self._opened_at = 0.0
        self._probing = False
        self.opened_count = 0

    def allow(self, now: float | None = None) -> bool:
        """May a call go to Redis now? In half-open, exactly one probe at a time."""
        now = time.monotonic() if now is None else now
        if self.state == "closed":
            return True
        if self.state == "open" and now - self._opened_at >= self._cooldown:
            self.state = "half_open"
        if self.state == "half_open" and not self._probing:
            self._probing = True
            return True
        return False

    def success(self) -> None:
        """A call worked: close."""
        if self.state != "closed":
            log.info("redis circuit breaker closed")
            metrics.BREAKER_OPEN.set(0)
        self.state = "closed"
        self._failures = 0
        self._probing = False

    def trip(self, now: float | None = None) -> None:
        """Open now, whatever the count: a failure no retry can mend (credentials)."""
        self._failures = max(self._failures, self.failures_to_open - 1)
        self.failure(now)

    def failure(self, now: float | None = None) -> None:
        """A call failed or timed out."""
        self._failures += 1
        self._probing = False
        if self.state == "half_open" or self._failures >= self.failures_to_open:
            if self.state != "open":
                self.opened_count += 1
                metrics.BREAKER_OPEN.set(1)
                if self.state == "closed":
                    log.warning("redis circuit breaker open after %d failures", self._failures)
                else:  # a failed probe: said once when it first opened, not every cool-down
                    log.debug("redis circuit breaker open again: the probe failed")
            self.state = "open"
            self._opened_at = time.monotonic() if now is None else now
            self._cooldown = self.cooldown_s * (0.75 + 0.25 * self._rng.random())


@dataclass
class CacheStats:
    """Counters the metrics layer reads."""

    hits_local: int = 0
    hits_redis: int = 0
    misses: int = 0
    errors: int = 0
    malformed: int = 0
    writes_dropped: int = 0


def _refused_credentials(exc: BaseException) -> bool:
    """Whether Redis said no to the user name or password (not: could not be reached)."""
    try:
        from redis.exceptions import AuthenticationError, ResponseError
    except ImportError:
        return False
    if isinstance(exc, AuthenticationError):
        return True
    return isinstance(exc, ResponseError) and str(exc).startswith(("WRONGPASS", "NOAUTH"))


class VerdictCache:
    """Two tiers: local LRU, then Redis (optional). Scores only, keyed by token ids."""

    def __init__(
        self,
        model_id: str,
        labels: tuple[str, ...],
        max_tokens: int,
        *,
        local_entries: int,
        ttl_s: int,
        redis: Any | None = None,
        namespace: str = "moderation",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.model_id = model_id
        self.labels = labels
        self.max_tokens = max_tokens
        self.local = LocalLRU(local_entries, ttl_s)
        self.ttl_s = ttl_s
        self.redis = redis
        self.prefix = f"{namespace}:scores:"
        self.timeout_s = timeout_s
        self.breaker = breaker or CircuitBreaker()
        self.stats = CacheStats()
        self._writes: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(REDIS_CONNECTIONS)

    def for_model(self, model_id: str, labels: tuple[str, ...], max_tokens: int) -> VerdictCache:
        """The same cache (Redis client, namespace, breaker, sizes) for another model: its
        keys and values carry that model's id, so the two never read each other's."""
        return VerdictCache(
            model_id,
            labels,
            max_tokens,
            local_entries=self.local.max_entries,
            ttl_s=self.ttl_s,
            redis=self.redis,
            namespace=self.prefix.removesuffix(":scores:"),
            timeout_s=self.timeout_s,
            breaker=self.breaker,
        )

    def key(self, encoded: Encoded) -> str:
        """The cache key of a tokenized message."""
        return cache_key(self.model_id, self.max_tokens, encoded)

    def _decode(self, raw: bytes) -> np.ndarray | None:
        try:
            obj = orjson.loads(raw)
            if obj["model"] != self.model_id:
                raise ValueError("model id differs")
            scores = obj["scores"]
            row = np.array([float(scores[label]) for label in self.labels], dtype=np.float32)
            if not np.all((row >= 0) & (row <= 1)):
                raise ValueError("score outside [0, 1]")
            return row
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            self.stats.malformed += 1
            self.stats.errors += 1
            metrics.ERRORS.labels("cache_malformed").inc()
            log.warning("malformed cached value ignored: %s", exc)
            return None

    async def get(self, key: str) -> tuple[np.ndarray, Tier] | None:
        """Scores and the tier that had them, or None on a miss (or any Redis trouble)."""
        start = time.perf_counter()
        found = await self._lookup(key)
        result = found[1] if found is not None else "miss"
        metrics.CACHE_LOOKUP.labels(result).observe(time.perf_counter() - start)
        if found is None:
            self.stats.misses += 1
            metrics.CACHE_MISSES.inc()
        else:
            metrics.CACHE_HITS.labels(found[1]).inc()
        return found

    async def _lookup(self, key: str) -> tuple[np.ndarray, Tier] | None:
        row = self.local.get(key)
        if row is not None:
            self.stats.hits_local += 1
            return row, "local"
        if self.redis is None or not self.breaker.allow():
            return None
        try:
            async with asyncio.timeout(self.timeout_s), self._slots:
                raw = await self.redis.get(self.prefix + key)
        except Exception as exc:  # timeouts, connection errors: all mean "miss"
            self.breaker.failure()
            self.stats.errors += 1
            metrics.ERRORS.labels("redis").inc()
            log.debug("redis get failed: %r", exc)
            return None
        self.breaker.success()
        if raw is None:
            return None
        row = self._decode(raw)
        if row is None:
            return None
        self.local.put(key, row)
        self.stats.hits_redis += 1
        return row, "redis"

    def put(self, key: str, row: np.ndarray) -> None:
        """Remember fresh scores: local now, Redis in the background (never awaited)."""
        self.local.put(key, row)
        if self.redis is None or not self.breaker.allow():
            return
        if len(self._writes) >= MAX_PENDING_WRITES:
            self.stats.writes_dropped += 1
            return
        value = orjson.dumps(
            {
                "model": self.model_id,
                "scores": {k: float(v) for k, v in zip(self.labels, row, strict=True)},
            }
        )
        task = asyncio.create_task(self._write(self.prefix + key, value))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, key: str, value: bytes) -> None:
        try:
            async with self._slots:  # background: waiting for a connection delays no verdict
                async with asyncio.timeout(self.timeout_s * WRITE_TIMEOUT_FACTOR):
                    await self.redis.set(key, value, ex=self.ttl_s)  # type: ignore[union-attr]
        except Exception as exc:
            self.breaker.failure()
            self.stats.errors += 1
            metrics.ERRORS.labels("redis").inc()
            log.debug("redis set failed: %r", exc)
        else:
            self.breaker.success()

    async def connect(
        self, connections: int = REDIS_CONNECTIONS, timeout_s: float = REDIS_CONNECT_TIMEOUT_S
    ) -> bool:
        """Open connections before traffic: a first call that must connect inside a
        few-millisecond timeout would otherwise count as a failure."""
        if self.redis is None:
            return False
        try:
            await asyncio.wait_for(
                asyncio.gather(*(self.redis.ping() for _ in range(connections))), timeout_s
            )
        except Exception as exc:
            if _refused_credentials(exc):
                # Said once, clearly, without the password; the breaker's probes
                # keep trying quietly, so fixed credentials (a rotated secret) heal it.
                log.error(
                    "redis refused the credentials in MODERATION_REDIS_URL (%s: %s); "
                    "serving from the local tier",
                    type(exc).__name__,
                    exc,
                )
                self.breaker.trip()
            else:
                self.breaker.failure()
                log.warning("redis not reachable at start (%r); serving from the local tier", exc)
            return False
        return True

    async def flush(self, timeout_s: float = FLUSH_TIMEOUT_S) -> None:
        """Wait (bounded) for background writes to land."""
        if self._writes:
            await asyncio.wait(set(self._writes), timeout=timeout_s)

    async def close(self) -> None:
        """Let pending writes finish briefly, then close the Redis client."""
        await self.flush()
        if self.redis is not None:
            await self.redis.aclose()
