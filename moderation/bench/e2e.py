"""`moderation bench e2e`: send-to-verdict latency through a real broker, open loop.

In one run: the broker floor (the worker's own Kafka path answering without the
model), the worker at fixed rates, and a ramp to saturation with and without
equal-length batching. A producer sends realistic chat messages on a fixed
schedule (open loop: it never waits for answers); a consumer of the verdict topic
measures each message's send-to-verdict latency. The worker runs as its own
process, as in production. Everything talks to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import time
import uuid
from dataclasses import asdict
from pathlib import Path

import numpy as np
import orjson
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from moderation.bench.e2e_report import LONG_CHARS, Step, held, plot, summary_lines
from moderation.bench.model import chat_messages
from moderation.bench.stats import markdown_table, write_docs_section
from moderation.config import KafkaSettings
from moderation.embedded import EmbeddedBroker
from moderation.kafka.admin import ensure_topics

log = logging.getLogger(__name__)

PARTITIONS = 8
FETCH_MAX_WAIT_MS = 5


async def _fresh_topics(bootstrap: str) -> tuple[str, str, str]:
    tag = uuid.uuid4().hex[:8]
    names = (f"bench-in-{tag}", f"bench-verdicts-{tag}", f"bench-dlq-{tag}")
    await ensure_topics(
        KafkaSettings(bootstrap=bootstrap),
        {names[0]: PARTITIONS, names[1]: PARTITIONS, names[2]: 1},
    )
    return names


class Phase:
    """A worker process on fresh topics, plus the load generator's producer and consumer."""

    def __init__(
        self, bootstrap: str, argv: list[str], env: dict[str, str], budget_ms: int
    ) -> None:
        self.bootstrap = bootstrap
        self.argv = argv
        self.extra_env = env
        self.budget_ms = budget_ms
        self.proc: subprocess.Popen[bytes] | None = None
        # Where the next step starts in the message list: each step of a phase sends
        # messages the worker has not seen, so its verdict cache starts cold every step
        # (from the list's start each time, a step re-sent the last one's messages and
        # they were answered from the cache).
        self.next_text = 0

    async def __aenter__(self) -> Phase:
        self.input, self.verdicts, dlq = await _fresh_topics(self.bootstrap)
        env = {
            **os.environ,
            "MODERATION_KAFKA_BOOTSTRAP": self.bootstrap,
            "MODERATION_INPUT_TOPIC": self.input,
            "MODERATION_VERDICT_TOPIC": self.verdicts,
            "MODERATION_DLQ_TOPIC": dlq,
            "MODERATION_GROUP_ID": f"bench-{uuid.uuid4().hex[:8]}",
            "MODERATION_SESSION_TIMEOUT_MS": "6000",
            "MODERATION_BUDGET_MS": str(self.budget_ms),
            "MODERATION_FETCH_MAX_WAIT_MS": str(FETCH_MAX_WAIT_MS),
            "MODERATION_METRICS_PORT": "0",
            **self.extra_env,
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", *self.argv],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=0)
        self.consumer = AIOKafkaConsumer(
            self.verdicts,
            bootstrap_servers=self.bootstrap,
            group_id=f"load-{uuid.uuid4().hex}",
            auto_offset_reset="earliest",
            fetch_max_wait_ms=FETCH_MAX_WAIT_MS,
            session_timeout_ms=6000,
            heartbeat_interval_ms=1000,
        )
        await self.producer.start()
        await self.consumer.start()
        # Warm: one message through the whole path before any clock starts.
        await self.run_rate("warm", 20, 1.0, ["hello there"], settle_s=30)
        self.next_text = 0
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.consumer.stop()
        await self.producer.stop()
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    async def run_rate(
        self, phase: str, rate: float, seconds: float, texts: list[str], settle_s: float = 5.0
    ) -> Step:
        """Send ``rate`` msg/s for ``seconds`` on a fixed schedule; collect every verdict."""
        n = max(1, int(rate * seconds))
        prefix = uuid.uuid4().hex[:6]
        sent_at: dict[str, float] = {}
        latencies: dict[str, float] = {}
        long_pastes: set[str] = set()
        # What the worker itself stamped on each verdict (sent_at to verdict), kept for
        # comparison with its Prometheus histogram.
        self.worker_latencies_ms: list[float] = []
        fallback = 0
        cut_to_fit = 0
        done = asyncio.Event()

        async def receive() -> None:
            nonlocal fallback, cut_to_fit
            while not done.is_set():
                batch = await self.consumer.getmany(timeout_ms=20)
                now = time.time() * 1000
                for recs in batch.values():
                    for r in recs:
                        v = orjson.loads(r.value)
                        mid = v["message_id"]
                        if mid in sent_at and mid not in latencies:
                            latencies[mid] = now - sent_at[mid]
                            self.worker_latencies_ms.append(float(v["latency_ms"]))
                            fallback += v["reason"] not in ("model", "cache")
                            cut_to_fit += v.get("truncated") == "budget"
                if len(latencies) == n:
                    done.set()

        rx = asyncio.create_task(receive())
        start = time.monotonic() + 0.05
        for i in range(n):
            delay = start + i / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            mid = f"{prefix}-{i}"
            ts = time.time() * 1000
            sent_at[mid] = ts
            text = texts[(self.next_text + i) % len(texts)]
            if len(text) >= LONG_CHARS:
                long_pastes.add(mid)
            body = orjson.dumps({"id": mid, "text": text, "sent_at": int(ts)})
            await self.producer.send(self.input, body, key=mid.encode())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), settle_s)
        done.set()
        await rx
        self.next_text += n
        self.last_latencies_ms = list(latencies.values())
        lat = np.array(self.last_latencies_ms) if latencies else np.array([np.inf])
        long = [v for m, v in latencies.items() if m in long_pastes] or [np.nan]
        others = [v for m, v in latencies.items() if m not in long_pastes] or [np.nan]
        return Step(
            phase,
            rate,
            n,
            len(latencies),
            fallback,
            cut_to_fit,
            float(np.percentile(lat, 50)),
            float(np.percentile(lat, 90)),
            float(np.percentile(lat, 99)),
            float(lat.max()),
            float(np.percentile(long, 50)),
            float(np.percentile(others, 99)),
        )


# (phase label, worker module argv, extra environment, run the fixed rates, run the ramp)
PHASES: list[tuple[str, list[str], dict[str, str], bool, bool]] = [
    ("floor (no model)", ["moderation.bench.echo_worker"], {}, True, False),
    ("worker", ["moderation.cli", "worker"], {}, True, True),
    (
        "worker, cut to fit off",
        ["moderation.cli", "worker"],
        {"MODERATION_CUT_TO_FIT": "false"},
        True,
        False,
    ),
    (
        "worker, spinning on",
        ["moderation.cli", "worker"],
        {"MODERATION_SPINNING": "true"},
        True,
        True,
    ),
    (
        "worker, equal-length batching",
        ["moderation.cli", "worker"],
        {"MODERATION_SAME_LENGTH_BATCHING": "true"},
        False,
        True,
    ),
]


async def run(ns: argparse.Namespace) -> dict[str, object]:
    """All configurations in one run against one broker, one at a time on fresh topics.

    One at a time because that is how a worker runs in production, one per machine:
    with several workers alive at once, the idle ones' fetch loops alone cost this
    2-core machine more than the differences being measured.
    """
    # Enough distinct messages for the fixed rates and a few ramp steps without repeats
    # (held-out chitchat has 23,680 utterances).
    texts = chat_messages(20000, ns.long_fraction, ns.seed)
    steps: list[Step] = []
    with EmbeddedBroker() as broker:
        for label, argv, env, fixed, ramp in PHASES:
            async with Phase(broker.bootstrap, argv, env, ns.budget_ms) as ph:
                if fixed:
                    for rate in ns.rates:
                        steps.append(await ph.run_rate(label, rate, ns.seconds, texts))
                        log.info("%s", steps[-1])
                failures = 0
                rate = ns.ramp_start
                while ramp and rate <= ns.ramp_max and failures < 2:
                    s = await ph.run_rate(f"{label} (ramp)", rate, ns.ramp_seconds, texts)
                    steps.append(s)
                    log.info("%s", s)
                    failures = 0 if held(s, ns.budget_ms) else failures + 1
                    rate += ns.ramp_step
    return {"steps": steps}


def main(argv: list[str] | None = None) -> int:
    """Run the end-to-end benchmark; print tables; write JSON, PNG and the docs section."""
    p = argparse.ArgumentParser(prog="moderation bench e2e", description=__doc__)
    p.add_argument("--rates", type=float, nargs="+", default=[50, 100, 200])
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--ramp-start", type=float, default=300)
    p.add_argument("--ramp-step", type=float, default=100)
    p.add_argument("--ramp-max", type=float, default=1500)
    p.add_argument("--ramp-seconds", type=float, default=8)
    p.add_argument("--budget-ms", type=int, default=50)
    p.add_argument("--long-fraction", type=float, default=0.02)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    result = asyncio.run(run(ns))
    steps: list[Step] = result["steps"]  # type: ignore[assignment]
    headers = [
        "phase",
        "rate msg/s",
        "sent",
        "answered",
        "fallback",
        "cut to fit",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
        "long pastes p50 ms",
        "others p99 ms",
        "held",
    ]
    rows = [
        [
            s.phase,
            f"{s.rate:.0f}",
            s.sent,
            s.answered,
            s.fallback,
            s.cut_to_fit,
            f"{s.p50_ms:.1f}",
            f"{s.p90_ms:.1f}",
            f"{s.p99_ms:.1f}",
            f"{s.max_ms:.1f}",
            f"{s.long_p50_ms:.1f}",
            f"{s.others_p99_ms:.1f}",
            "yes" if held(s, ns.budget_ms) else "no",
        ]
        for s in steps
    ]
    table = markdown_table(headers, rows)
    summary = summary_lines(steps, ns, [label for label, *_, ramp in PHASES[1:] if ramp])
    print(table + "\n\n" + summary)
    (ns.out / "bench-e2e.json").write_text(
        json.dumps(
            {"budget_ms": ns.budget_ms, "steps": [asdict(s) for s in steps], "summary": summary},
            indent=2,
        )
    )
    plot(steps, ns.budget_ms, ns.out / "bench-e2e.png")
    if ns.docs:
        body = (
            f"Command: `moderation bench e2e`. Open-loop producer, verdict consumer and worker "
            f"process on one 2-core machine with the embedded tansu broker, "
            f"{PARTITIONS} partitions, `fetch_max_wait_ms` {FETCH_MAX_WAIT_MS}, budget "
            f"{ns.budget_ms} ms, cold cache, {ns.long_fraction:.0%} of messages long (up to "
            f"128 tokens). Latency: producer's send time to the verdict's arrival at the "
            f"consumer. *fallback*: answered without the model; *cut to fit*: scored on the "
            f"longest prefix the budget could fit. *held*: all answered, p99 within budget, "
            f"at most 1% fallback answers. *long pastes p50*: messages of {LONG_CHARS} "
            f"characters or more (128 tokens read); *others p99*: every other message."
            f"\n\n{table}\n\n{summary}\n\n"
            "![e2e latency](bench-e2e.png)\n"
        )
        write_docs_section(Path(ns.docs), "bench-e2e", body, ns.out / "bench-e2e.png")
    return 0
