"""`moderation demo`: the embedded stack end to end, on sample chat messages.

Starts the embedded broker and a worker, sends sample messages (and two bad
records) the way the send-message API would, prints every verdict as it comes
back, then a latency summary.
"""

from __future__ import annotations

import asyncio
import sys
import time

import numpy as np
import orjson
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from moderation.app import running
from moderation.schema import Verdict

SAMPLES = [
    "hey, are we still on for lunch tomorrow?",
    "lol that movie was so good, thanks for the rec",
    "shut up you stupid idiot, nobody wants you here",
    "can you send me the notes from class?",
    "you're a worthless piece of trash",
    "happy birthday!! hope you have an amazing day",
    "go back to your own country, you people ruin everything",
    "ok see you at 7",
]
BAD_RECORDS = [b'{"id": "demo-bad-1", "text": 42}', b"\xff\xfe not json"]


async def demo(rounds: int = 3, gap_s: float = 0.05) -> int:
    """Run the demo; return a process exit status."""
    out = sys.stdout
    async with running(embedded=True, health=False) as app:
        s = app.settings
        producer = AIOKafkaProducer(bootstrap_servers=s.kafka.bootstrap, acks="all")
        consumer = AIOKafkaConsumer(
            s.verdict_topic,
            s.dlq_topic,
            bootstrap_servers=s.kafka.bootstrap,
            # No group: it reads every partition itself, without waiting for a JoinGroup.
            group_id=None,
            auto_offset_reset="earliest",
            fetch_max_wait_ms=s.fetch_max_wait_ms,
        )
        await producer.start()
        await consumer.start()
        try:
            sent: dict[str, tuple[str, float]] = {}
            for r in range(rounds):
                for i, text in enumerate(SAMPLES):
                    mid = f"demo-{r}-{i}"
                    now = time.time()
                    sent[mid] = (text, now)
                    body = {"id": mid, "text": text, "sent_at": int(now * 1000)}
                    await producer.send(
                        s.input_topic,
                        orjson.dumps(body),
                        key=mid.encode(),
                        headers=[("correlation-id", mid.encode())],
                    )
                    await asyncio.sleep(gap_s)
            for raw in BAD_RECORDS:
                await producer.send(s.input_topic, raw)
            await producer.flush()
            latencies = []
            expected = len(sent) + 1  # the first bad record has an id; the second has none
            got = dead = 0
            deadline = time.monotonic() + 30
            out.write(
                f"{'message':<12} {'decision':<8} {'reason':<14} {'toxic':>6} {'ms':>7}  text\n"
            )
            # Both bad records are dead-lettered; wait for those too, so the count
            # printed is the one the worker logs when it stops.
            while (got < expected or dead < len(BAD_RECORDS)) and time.monotonic() < deadline:
                batch = await consumer.getmany(timeout_ms=200)
                for tp, records in batch.items():
                    for rec in records:
                        if tp.topic == s.dlq_topic:
                            dead += 1
                            continue
                        v = Verdict.from_json(rec.value)
                        got += 1
                        text = sent.get(v.message_id, ("(invalid record)", 0))[0]
                        if v.reason in ("model", "cache"):
                            latencies.append(v.latency_ms)
                        toxic = v.scores.get("toxic")
                        out.write(
                            f"{v.message_id:<12} {v.decision:<8} {v.reason:<14} "
                            f"{'' if toxic is None else f'{toxic:.3f}':>6} "
                            f"{v.latency_ms:7.1f}  {text[:60]}\n"
                        )
            if latencies:
                lat = np.asarray(latencies)
                out.write(
                    f"\n{got}/{expected} verdicts; send-to-verdict latency over "
                    f"{lat.size} classified: p50 {np.percentile(lat, 50):.1f} ms, "
                    f"p99 {np.percentile(lat, 99):.1f} ms; dead letters on "
                    f"{s.dlq_topic}: {dead} of {len(BAD_RECORDS)} bad records\n"
                )
            return 0 if got == expected and dead == len(BAD_RECORDS) else 1
        finally:
            await consumer.stop()
            await producer.stop()
