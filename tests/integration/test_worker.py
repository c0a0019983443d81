"""The worker against a real broker: verdicts, bad input, budget, restarts, shutdown."""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections import Counter
from dataclasses import replace
from typing import Any

import orjson
import pytest

from moderation import metrics
from moderation.config import CacheSettings, WorkerSettings
from tests.integration.conftest import wait_for
from tests.integration.kafka_io import message, produce, read, unique_ids
from tests.integration.workers import running, unstarted
from tests.slow_model import teach_a_slow_model
from tests.topics import Topics

pytestmark = pytest.mark.integration


def test_verdicts_carry_keys_and_correlation_ids(
    topics: Topics, model: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="moderation")
    texts = [
        "see you at practice tomorrow!",
        "you are a worthless idiot",
        "lol ok",
        "thanks for the help earlier",
        "shut up, nobody likes you",
    ] * 6

    async def scenario() -> list[Any]:
        async with running(topics.settings(), model):
            await produce(
                topics.bootstrap,
                topics.input,
                [
                    (
                        message(f"m{i}", t),
                        f"conv-{i % 3}".encode(),
                        [("correlation-id", f"c{i}".encode())],
                    )
                    for i, t in enumerate(texts)
                ],
            )
            return await read(topics.bootstrap, topics.verdicts, len(texts), 30)

    out = asyncio.run(scenario())
    assert "worthless" not in caplog.text  # chat text is not logged by default
    by_id = {o.json()["message_id"]: o for o in out}
    assert set(by_id) == {f"m{i}" for i in range(len(texts))}
    for i, text in enumerate(texts):
        o = by_id[f"m{i}"]
        v = o.json()
        assert o.key == f"conv-{i % 3}".encode()
        assert o.headers["correlation-id"] == f"c{i}".encode()
        assert v["reason"] == "model" and v["decision"] in ("nudge", "allow")
        assert set(v["scores"]) == set(model[0].labels)
        assert v["model"] == model[0].model_id
        assert 0 <= v["latency_ms"] < 60_000
        want = model[1].decide(model[0].classify(text).scores)
        assert v["decision"] == want


def test_every_kind_of_bad_input_is_answered_or_dead_lettered(topics: Topics, model: Any) -> None:
    bad: list[tuple[bytes | None, str, str | None]] = [
        (b"\xff\xfe\xfd", "undecodable", None),
        (b"{not json", "invalid_json", None),
        (b"[1, 2, 3]", "not_an_object", None),
        (b'{"text": "no id here"}', "missing_field", None),
        (b'{"id": 7, "text": "numeric id"}', "wrong_type", None),
        (b'{"id": "b-notext"}', "missing_field", "b-notext"),
        (b'{"id": "b-inttext", "text": 12}', "wrong_type", "b-inttext"),
        (orjson.dumps({"id": "b-huge", "text": "x" * 5000}), "too_large", "b-huge"),
        (b'{"id": "b-empty", "text": "   "}', "empty_text", "b-empty"),
        (b'{"id": "b-budget", "text": "hi", "budget_ms": "soon"}', "wrong_type", "b-budget"),
        (None, "empty_record", None),
    ]
    records = []
    for i, (value, _, _) in enumerate(bad):
        records.append((message(f"good-{i}", f"have a nice day number {i}"), None, []))
        records.append((value, f"bad-{i}".encode(), [("trace", b"t")]))
    records.append((message("good-last", "bye"), None, []))
    answered = [mid for _, _, mid in bad if mid]
    good = [f"good-{i}" for i in range(len(bad))] + ["good-last"]

    async def scenario() -> tuple[list[Any], list[Any]]:
        async with running(topics.settings(max_text_bytes=1000), model):
            await produce(topics.bootstrap, topics.input, records)
            verdicts = await read(topics.bootstrap, topics.verdicts, len(good) + len(answered), 30)
            dlq = await read(topics.bootstrap, topics.dlq, len(bad), 30)
            return verdicts, dlq

    verdicts, dlq = asyncio.run(scenario())
    v = {o.json()["message_id"]: o.json() for o in verdicts}
    assert set(v) == set(good) | set(answered)
    for mid in good:
        assert v[mid]["reason"] == "model"
    kinds = {mid: kind for _, kind, mid in bad if mid}
    for mid in answered:
        assert v[mid]["reason"] == "invalid_input"
        assert v[mid]["decision"] == "allow"  # the configured fallback
        assert v[mid]["scores"] == {}
        assert v[mid]["error"] == kinds[mid]
    assert len(dlq) == len(bad)
    by_key = {o.key: o for o in dlq}
    for i, (value, kind, _) in enumerate(bad):
        d = by_key[f"bad-{i}".encode()]
        assert d.value == value  # the raw record, byte for byte
        assert d.headers["moderation-error"] == kind.encode()
        assert d.headers["trace"] == b"t"  # original headers kept
        assert d.headers["moderation-source-topic"] == topics.input.encode()
        assert d.headers["moderation-error-detail"]


def test_spent_budget_gets_the_fallback_without_the_model(topics: Topics, model: Any) -> None:
    old = int(time.time() * 1000) - 60_000

    async def scenario() -> tuple[list[Any], int]:
        async with running(topics.settings(fallback_decision="nudge"), model) as w:
            before = w.moderator.engine.messages_run
            await produce(
                topics.bootstrap,
                topics.input,
                [
                    (orjson.dumps({"id": "late", "text": "hello there", "sent_at": old}), None, []),
                    (
                        orjson.dumps(
                            {
                                "id": "tight",
                                "text": "hi",
                                "budget_ms": 1,
                                "sent_at": int(time.time() * 1000) - 5,
                            }
                        ),
                        None,
                        [],
                    ),
                    (message("fresh", "hello there", budget_ms=5000), None, []),
                ],
            )
            out = await read(topics.bootstrap, topics.verdicts, 3, 30)
            return out, w.moderator.engine.messages_run - before

    out, model_runs = asyncio.run(scenario())
    v = {o.json()["message_id"]: o.json() for o in out}
    for mid in ("late", "tight"):
        assert v[mid]["reason"] == "budget_exceeded"
        assert v[mid]["decision"] == "nudge"
        assert v[mid]["scores"] == {}
    assert v["late"]["latency_ms"] >= 60_000
    assert v["fresh"]["reason"] == "model"
    assert model_runs == 1


@pytest.mark.parametrize("long_lane_tokens", [0, 64], ids=["one lane", "long lane"])
def test_a_long_message_the_budget_cannot_fit_is_scored_on_a_prefix(
    topics: Topics, model: Any, long_lane_tokens: int
) -> None:
    long_text = "we walked along the river and talked about our plans for a while " * 12
    clf = model[0]
    full = clf.encode(long_text).tokens
    # sent_at ahead of the clock, so the remaining budget is budget_ms itself, whatever
    # the broker's delivery took: the worker never grants more than budget_ms.
    ahead = int(time.time() * 1000) + 60_000

    async def scenario() -> dict[str, Any]:
        cache = CacheSettings(redis_url=None, local_entries=100)
        settings = replace(topics.settings(), long_lane_tokens=long_lane_tokens)
        async with running(settings, model, cache=cache) as w:
            engine = w.moderator.engine
            assert engine.lanes == (2 if long_lane_tokens else 1)
            # Half the full message's time must be a budget of tens of milliseconds,
            # however fast the CPU or busy the machine (tests/slow_model.py).
            teach_a_slow_model(engine, full)
            half_ms = int(500 * engine.estimate(full))  # half its time
            assert half_ms >= full // 2 - 1
            records = [
                (message("tight", long_text, budget_ms=half_ms, sent_at=ahead), None, []),
                (message("roomy", long_text, budget_ms=10_000), None, []),
                (message("short", "see you at the river", budget_ms=10_000), None, []),
            ]
            before = metrics.CUT_TO_FIT._value.get()
            out: list[Any] = []
            for i, r in enumerate(records):  # in turn: "roomy" must find "tight" answered
                await produce(topics.bootstrap, topics.input, [r])
                out = await read(topics.bootstrap, topics.verdicts, i + 1, 30)
            v = {o.json()["message_id"]: o.json() for o in out}
            v["cut_counted"] = metrics.CUT_TO_FIT._value.get() - before
            return v

    v = asyncio.run(scenario())
    tight, roomy, short = v["tight"], v["roomy"], v["short"]
    assert tight["reason"] == "model" and tight["truncated"] == "budget"
    assert 8 <= tight["tokens"] < full and tight["scores"]
    # The prefix's scores were not cached as the whole message's.
    assert roomy["reason"] == "model" and roomy["tokens"] == full
    assert roomy["truncated"] == "max_tokens"  # this text is longer than the model reads
    assert "truncated" not in short and short["tokens"] < 20
    assert v["cut_counted"] == 1


def _ids(out: list[Any]) -> Counter[str]:
    return Counter(o.json()["message_id"] for o in out)


def test_a_killed_worker_leaves_no_message_without_a_verdict(topics: Topics, spawn: Any) -> None:
    n = 600
    env = topics.env()
    first = spawn(env)
    asyncio.run(
        produce(
            topics.bootstrap,
            topics.input,
            [
                (message(f"k{i}", f"message {i} about the weekend plans"), None, [])
                for i in range(n)
            ],
        )
    )
    got_some = wait_for(
        lambda: len(asyncio.run(read(topics.bootstrap, topics.verdicts, 50, 1))) >= 50,
        60,
        interval=0.2,
    )
    assert got_some, "first worker produced nothing"
    first.signal(signal.SIGKILL)  # a crash: no drain, no final commit
    first.wait(10)
    second = spawn(env)
    out = asyncio.run(read(topics.bootstrap, topics.verdicts, n, 90, count=unique_ids))
    seen = _ids(out)
    assert set(seen) == {f"k{i}" for i in range(n)}  # nothing lost
    second.signal(signal.SIGTERM)
    assert second.wait(20) == 0


def test_sigterm_drains_commits_and_exits_in_grace(topics: Topics, spawn: Any) -> None:
    n = 2000
    grace_s = 8
    env = topics.env(MODERATION_SHUTDOWN_GRACE_S=str(grace_s))
    first = spawn(env)
    asyncio.run(produce(topics.bootstrap, topics.input, [(message("warm", "hi"), None, [])]))
    assert asyncio.run(read(topics.bootstrap, topics.verdicts, 1, 60)), "worker never answered"
    # The worker's own process freezes what it loaded at start (moderation/gcpause.py).
    assert "start-up objects frozen" in first.log_path.read_text(errors="replace")
    asyncio.run(
        produce(
            topics.bootstrap,
            topics.input,
            [(message(f"s{i}", f"hello number {i}, how was school"), None, []) for i in range(n)],
        )
    )
    started = time.monotonic()
    first.signal(signal.SIGTERM)  # mid-backlog: messages are in flight
    assert first.wait(grace_s + 5) == 0
    assert time.monotonic() - started < grace_s + 2
    done_by_first = len(asyncio.run(read(topics.bootstrap, topics.verdicts, n + 1, 3)))
    assert 1 < done_by_first < n + 1, "SIGTERM did not land mid-backlog; test proves nothing"
    # A successor in the same group finishes what was not done, and nothing twice.
    second = spawn(env)
    out = asyncio.run(
        read(topics.bootstrap, topics.verdicts, n + 1, 90, settle_s=3, count=unique_ids)
    )
    seen = _ids(out)
    assert set(seen) == {f"s{i}" for i in range(n)} | {"warm"}
    assert max(seen.values()) == 1, "graceful shutdown lost its commit: verdicts repeated"
    second.signal(signal.SIGTERM)
    assert second.wait(20) == 0


def test_worker_waits_for_a_broker_that_comes_up_late(model: Any) -> None:
    from moderation.config import KafkaSettings
    from moderation.embedded import EmbeddedBroker, free_port
    from moderation.kafka.admin import ensure_topics

    port = free_port()
    kafka = KafkaSettings(bootstrap=f"127.0.0.1:{port}")
    settings = WorkerSettings(
        kafka=kafka,
        input_topic="late-in",
        verdict_topic="late-out",
        dlq_topic="late-dlq",
        group_id="late",
        session_timeout_ms=6000,
        budget_ms=20_000,
    )

    async def scenario() -> list[Any]:
        worker = unstarted(settings, model)
        task = asyncio.create_task(worker.run())
        await asyncio.sleep(2.0)  # the worker starts first and must keep trying
        assert not task.done()
        broker = EmbeddedBroker(port=port).start()
        try:
            await ensure_topics(kafka, {"late-in": 2, "late-out": 2, "late-dlq": 1})
            await produce(kafka.bootstrap, "late-in", [(message("late-1", "hello"), None, [])])
            out = await read(kafka.bootstrap, "late-out", 1, 60)
            worker.request_stop()
            await asyncio.wait_for(task, 30)
            return out
        finally:
            broker.stop()

    out = asyncio.run(scenario())
    assert [o.json()["message_id"] for o in out] == ["late-1"]


def test_stop_while_waiting_for_a_broker_returns_promptly(model: Any) -> None:
    from moderation.config import KafkaSettings
    from moderation.embedded import free_port

    settings = WorkerSettings(kafka=KafkaSettings(bootstrap=f"127.0.0.1:{free_port()}"))

    async def scenario() -> float:
        worker = unstarted(settings, model)
        task = asyncio.create_task(worker.run())
        await asyncio.sleep(1.0)
        started = time.monotonic()
        worker.request_stop()
        await asyncio.wait_for(task, 15)
        return time.monotonic() - started

    assert asyncio.run(scenario()) < 10
