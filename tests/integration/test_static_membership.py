"""Static group membership (KIP-345) against the embedded broker, as it really behaves.

On Apache Kafka a static member that dies and rejoins under the same
``group.instance.id`` within the session timeout gets its old assignment back and
the other members see no rebalance. This probe kills a static member's process with
SIGKILL (no LeaveGroup, as in a crash), restarts it under the same id, and records
what the surviving member saw. It states what tansu does, so a change in the broker
shows up here and in the README's paragraph on static membership.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

from moderation.config import KafkaSettings
from moderation.embedded import EmbeddedBroker
from moderation.kafka.admin import ensure_topics

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

SESSION_TIMEOUT_MS = 6000

# A static member in its own process: prints its assignment, then polls until killed.
MEMBER = """
import asyncio, sys
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
bootstrap, topic, group, instance, session = sys.argv[1:6]
class Show(ConsumerRebalanceListener):
    async def on_partitions_revoked(self, revoked): pass
    async def on_partitions_assigned(self, assigned):
        print("assigned", ",".join(str(p.partition) for p in sorted(assigned)), flush=True)
async def main():
    c = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
        group_instance_id=instance, session_timeout_ms=int(session),
        heartbeat_interval_ms=int(session) // 6, enable_auto_commit=False)
    c.subscribe([topic], listener=Show())
    await c.start()
    while True:
        await c.getmany(timeout_ms=100)
asyncio.run(main())
"""


class Events(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.log: list[tuple[float, str, list[int]]] = []

    async def on_partitions_revoked(self, revoked: Any) -> None:
        self.log.append((time.monotonic(), "revoked", sorted(p.partition for p in revoked)))

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.log.append((time.monotonic(), "assigned", sorted(p.partition for p in assigned)))


def start_member(bootstrap: str, topic: str, group: str) -> subprocess.Popen[str]:
    args = [bootstrap, topic, group, "static-a", str(SESSION_TIMEOUT_MS)]
    return subprocess.Popen(
        [sys.executable, "-c", MEMBER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=os.environ,
    )


async def assignment_of(proc: subprocess.Popen[str]) -> list[int]:
    assert proc.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)
    while line and not line.strip().split(" ")[-1]:  # the empty first assignment
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)
    assert line.startswith("assigned"), line
    return [int(p) for p in line.split()[1].split(",")]


async def probe(bootstrap: str) -> dict[str, Any]:
    topic, group = "static-t", "static-g"
    await ensure_topics(KafkaSettings(bootstrap=bootstrap), {topic: 4})
    events = Events()
    b = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        group_instance_id="static-b",
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=SESSION_TIMEOUT_MS // 6,
        enable_auto_commit=False,
    )
    b.subscribe([topic], listener=events)
    await b.start()
    polling = True

    async def poll() -> None:
        while polling:
            await b.getmany(timeout_ms=100)

    poller = asyncio.create_task(poll())
    a = start_member(bootstrap, topic, group)
    a2: subprocess.Popen[str] | None = None
    try:
        # Wait until the group has settled with both members.
        while True:
            first = await assignment_of(a)
            if first and len(first) < 4:
                break
        await asyncio.sleep(1.0)
        killed_at = time.monotonic()
        a.kill()
        a.wait()
        a2 = start_member(bootstrap, topic, group)
        again = await assignment_of(a2)
        rejoined_s = time.monotonic() - killed_at
        # Give the survivor time to go through whatever the broker makes it do.
        for _ in range(100):
            if any(t > killed_at and kind == "assigned" for t, kind, _ in events.log):
                break
            await asyncio.sleep(0.2)
        b_after = [(kind, parts) for t, kind, parts in events.log if t > killed_at]
        return {
            "first": first,
            "again": again,
            "rejoined_s": rejoined_s,
            "b_after": b_after,
            "b_final": sorted(p.partition for p in b.assignment()),
        }
    finally:
        polling = False
        await poller
        for proc in (a, a2):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        await b.stop()


def test_tansu_gives_a_restarted_static_member_its_partitions_but_rebalances() -> None:
    with EmbeddedBroker() as broker:
        r = asyncio.run(probe(broker.bootstrap))
    print(r)
    # Honoured: the restarted member gets back exactly what it had, and the survivor
    # keeps the rest (the assignment is keyed by instance id, not by member id).
    assert r["again"] == r["first"]
    assert sorted(r["b_final"] + r["again"]) == [0, 1, 2, 3]
    # Not honoured: the survivor goes through a rebalance (its partitions revoked and
    # assigned again) where Apache Kafka would leave it alone. On a loaded host a second one
    # can begin before the record is taken (seen once in CI: revoked, assigned, revoked);
    # through each the survivor keeps the same partitions.
    assert r["b_after"][:2] == [("revoked", r["b_final"]), ("assigned", r["b_final"])], r["b_after"]
    assert all(parts == r["b_final"] for _, parts in r["b_after"]), r["b_after"]


async def members(bootstrap: str, group: str) -> list[str]:
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        (response,) = await admin.describe_consumer_groups([group])
        (described,) = response.groups
        return [m[0] for m in described[5]]
    finally:
        await admin.close()


def test_a_static_worker_stopped_on_purpose_leaves_the_group(topics: Any, model: Any) -> None:
    """aiokafka never sends LeaveGroup for a static member; the worker does on SIGTERM,
    so a deploy's stopped pod hands its partitions over now, not a session later. A
    static consumer stopped without it is still a member afterwards (the control)."""
    from tests.integration.workers import running

    session_ms = 8000

    async def main() -> tuple[list[str], list[str], list[str]]:
        settings = topics.settings(group_instance_id="w-static", session_timeout_ms=session_ms)
        async with running(settings, model):
            during = await members(topics.bootstrap, topics.group)
        after = await members(topics.bootstrap, topics.group)
        control_group = topics.group + "-control"
        c = AIOKafkaConsumer(
            bootstrap_servers=topics.bootstrap,
            group_id=control_group,
            group_instance_id="c-static",
            session_timeout_ms=session_ms,
            heartbeat_interval_ms=session_ms // 6,
            enable_auto_commit=False,
        )
        c.subscribe([topics.input])
        await c.start()
        while not c.assignment():
            await c.getmany(timeout_ms=100)
        await c.stop()
        return during, after, await members(topics.bootstrap, control_group)

    during, after, control = asyncio.run(main())
    assert len(during) == 1 and during[0].startswith("w-static")
    assert after == []
    assert len(control) == 1 and control[0].startswith("c-static")
