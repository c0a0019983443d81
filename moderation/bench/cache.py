"""`moderation bench cache`: what the verdict cache buys, inside the worker, in one run.

1. Verdict latency of decoding plus ``Moderator.decide`` (tokenize, cache, model,
   policy) on a
   local hit, a Redis hit (over loopback) and a miss.
2. Throughput of the same path over a message stream with 40% repeats versus none,
   cold cache at the start of each, with 64 messages in flight (as under a backlog).
Real Redis (embedded), real inference thread; no broker, so Kafka's cost does not
blur the cache's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

from moderation.app import build_cache, load_classifier
from moderation.bench.model import chat_messages
from moderation.bench.stats import markdown_table, summarize, write_docs_section
from moderation.config import CacheSettings, ClassifierSettings, DecisionSettings
from moderation.embedded import EmbeddedRedis
from moderation.moderator import Moderator, Outcome
from moderation.schema import decode_message


def record(mid: str, text: str) -> bytes:
    """A record value as the send-message API writes it."""
    now = int(time.time() * 1000)
    return orjson.dumps({"id": mid, "text": text, "sent_at": now, "budget_ms": 60_000})


async def decide(m: Moderator, value: bytes) -> Outcome:
    """What the worker does with a record's value: decode, then decide."""
    return await m.decide(decode_message(value, 1 << 20))


def make_moderator(model: Any, redis_url: str | None, local_entries: int) -> Moderator:
    cache = build_cache(
        CacheSettings(
            redis_url=redis_url,
            local_entries=local_entries,
            namespace=f"bench-{uuid.uuid4().hex[:8]}",
        ),
        model[0],
    )
    return Moderator(DecisionSettings(budget_ms=60_000), model[0], model[1], cache)


async def time_decide(w: Moderator, texts: list[str], expect: str) -> list[float]:
    out = []
    for i, t in enumerate(texts):
        rec = record(f"m{i}", t)
        start = time.perf_counter()
        o = await decide(w, rec)
        elapsed = time.perf_counter() - start
        assert o.verdict is not None
        # A Redis call that times out is a miss served by the model: not this row.
        if o.verdict.reason == expect:
            out.append(elapsed)
    return out


async def latency(model: Any, redis_url: str, texts: list[str]) -> dict[str, list[float]]:
    local = make_moderator(model, redis_url, 100_000)
    shared = make_moderator(model, redis_url, 0)  # no local tier: every hit is a Redis hit
    assert local.cache and shared.cache
    await local.start()
    await shared.start()
    try:
        miss = await time_decide(local, texts, "model")  # also fills both tiers
        await local.cache.flush(timeout_s=30)
        hit_local = await time_decide(local, texts, "cache")
        # `shared` shares the Redis namespace of `local` for this part.
        shared.cache.prefix = local.cache.prefix
        hit_redis = await time_decide(shared, texts, "cache")
    finally:
        for w in (local, shared):
            await w.stop()
    return {"miss (model)": miss, "local hit": hit_local, "redis hit": hit_redis}


async def cache_ops(model: Any, redis_url: str, texts: list[str]) -> dict[str, list[float]]:
    """The cache layer alone: key from token ids, local lookup, Redis lookup."""
    clf = model[0]
    local = build_cache(CacheSettings(redis_url=None, local_entries=100_000), clf)
    remote = build_cache(
        CacheSettings(
            redis_url=redis_url, local_entries=0, namespace=f"ops-{uuid.uuid4().hex[:8]}"
        ),
        clf,
    )
    assert local and remote
    await remote.connect()
    encoded = [clf.encode(t) for t in texts]
    keys, key_s = [], []
    for e in encoded:
        start = time.perf_counter()
        keys.append(local.key(e))
        key_s.append(time.perf_counter() - start)
    for k, e in zip(keys, encoded, strict=True):
        row = clf.scores(e)
        local.put(k, row)
        remote.put(k, row)
    await remote.flush(timeout_s=30)
    out: dict[str, list[float]] = {
        "key (hash of token ids)": key_s,
        "local get (hit)": [],
        "redis get (hit)": [],
    }
    for k in keys:
        start = time.perf_counter()
        assert await local.get(k) is not None
        out["local get (hit)"].append(time.perf_counter() - start)
        start = time.perf_counter()
        hit = await remote.get(k)
        elapsed = time.perf_counter() - start
        if hit is not None:  # a write lost to the timeout is a miss: not this row's subject
            out["redis get (hit)"].append(elapsed)
    await remote.close()
    return out


async def throughput(model: Any, redis_url: str, stream: list[str], window: int) -> float:
    w = make_moderator(model, redis_url, 100_000)
    assert w.cache
    await w.start()
    sem = asyncio.Semaphore(window)

    async def one(i: int, t: str) -> None:
        async with sem:
            await decide(w, record(f"t{i}", t))

    try:
        start = time.perf_counter()
        await asyncio.gather(*(one(i, t) for i, t in enumerate(stream)))
        return len(stream) / (time.perf_counter() - start)
    finally:
        await w.stop()


def repeat_stream(pool: list[str], n: int, repeat: float, rng: random.Random) -> list[str]:
    """n messages; each, with probability ``repeat``, repeats one already sent."""
    out: list[str] = []
    fresh = iter(pool)
    for _ in range(n):
        if out and rng.random() < repeat:
            out.append(rng.choice(out))
        else:
            out.append(next(fresh))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run; print tables; write JSON and the docs section."""
    p = argparse.ArgumentParser(prog="moderation bench cache", description=__doc__)
    p.add_argument("--messages", type=int, default=3000)
    p.add_argument("--latency-messages", type=int, default=1000)
    p.add_argument("--repeat", type=float, default=0.4)
    p.add_argument("--window", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    model = load_classifier(ClassifierSettings(threads=ns.threads))
    # Unique by what the cache key reads (token ids, and where lines start): "Hi" and "hi"
    # are one cache entry, so one of them goes.
    by_tokens: dict[bytes, str] = {}
    for t in chat_messages(ns.messages * 3, 0.0, 5):
        by_tokens.setdefault(model[0].encode(t).key_bytes(), t)
    pool = list(by_tokens.values())
    rng = random.Random(5)
    with EmbeddedRedis() as redis_server:
        url = redis_server.url
        ops = asyncio.run(cache_ops(model, url, pool[: ns.latency_messages]))
        lat = asyncio.run(latency(model, url, pool[: ns.latency_messages]))
        rng.shuffle(pool)
        unique = pool[: ns.messages]
        repeated = repeat_stream(pool[ns.messages :], ns.messages, ns.repeat, rng)
        tput_none = asyncio.run(throughput(model, url, unique, ns.window))
        tput_rep = asyncio.run(throughput(model, url, repeated, ns.window))
    rows = []
    stats = {k: summarize(v) for k, v in lat.items()}
    miss_p50 = stats["miss (model)"]["p50_ms"]
    for k, s in stats.items():
        rows.append(
            [
                k,
                s["n"],
                f"{s['p50_ms']:.3f}",
                f"{s['p99_ms']:.3f}",
                f"{s['p50_ms'] - stats['local hit']['p50_ms']:+.3f}" if k != "local hit" else "0",
                f"{miss_p50 / s['p50_ms']:.1f}x",
            ]
        )
    t1 = markdown_table(
        ["path", "n", "p50 ms", "p99 ms", "p50 over local hit", "p50 speed-up vs miss"], rows
    )
    ops_stats = {k: summarize(v) for k, v in ops.items()}
    t0 = markdown_table(
        ["cache operation alone", "n", "p50 ms", "p99 ms"],
        [[k, s["n"], f"{s['p50_ms']:.4f}", f"{s['p99_ms']:.4f}"] for k, s in ops_stats.items()],
    )
    seen: set[str] = set()
    hits = 0
    for t in repeated:
        hits += t in seen
        seen.add(t)
    share = hits / len(repeated)
    t2 = markdown_table(
        ["stream", "messages", "repeats", "msg/s", "ratio"],
        [
            ["all unique (cold cache)", ns.messages, "0%", f"{tput_none:.0f}", "1.00x"],
            [
                f"{100 * ns.repeat:.0f}% repeats (cold cache)",
                ns.messages,
                f"{100 * share:.1f}%",
                f"{tput_rep:.0f}",
                f"{tput_rep / tput_none:.2f}x",
            ],
        ],
    )
    ceiling = 1 / (1 - share)
    text = (
        f"{t0}\n\n{t1}\n\n{t2}\n\nCeiling if a hit were free: {ceiling:.2f}x. A local hit costs "
        f"decode + tokenize + hash + LRU; a Redis hit adds one GET over loopback."
    )
    print(text)
    (ns.out / "bench-cache.json").write_text(
        json.dumps(
            {
                "latency": stats,
                "throughput": {"unique": tput_none, "repeats": tput_rep, "repeat_share": share},
            },
            indent=2,
        )
    )
    if ns.docs:
        body = (
            f"Command: `moderation bench cache`. `Moderator.decide` after decoding, in "
            f"process (decode, tokenize, cache, model on its thread, policy), embedded "
            f"redis-server on loopback, {ns.threads} inference threads, {ns.window} "
            f"messages in flight for throughput.\n\n{text}\n"
        )
        write_docs_section(Path(ns.docs), "bench-cache", body)
    return 0
