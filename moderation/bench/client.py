"""`moderation bench client`: latency as the send-message API sees it, against the raw path.

One worker process on fresh topics, one broker, in one run. At each fixed rate, two
open-loop measurements alternate (raw, client, client, raw, so drift cancels):
*raw* is `bench e2e`'s own probe (a producer and a consumer of the verdict topic; the
worker's end-to-end figure), *client* is ``await ModerationClient.check()`` per
message (the reply-to topic, routing by id, the timeout machinery). The client's
overhead is the difference of their medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from pathlib import Path

import numpy as np

from moderation.bench.e2e import PARTITIONS, Phase
from moderation.bench.model import chat_messages
from moderation.bench.stats import markdown_table, write_docs_section
from moderation.client import ModerationClient
from moderation.config import ClientSettings, KafkaSettings
from moderation.embedded import EmbeddedBroker


async def client_rate(
    client: ModerationClient, rate: float, seconds: float, texts: list[str], timeout_ms: int
) -> tuple[np.ndarray, int]:
    """(latencies in ms of answered calls, how many timed out) at ``rate`` for ``seconds``."""
    n = max(1, int(rate * seconds))
    prefix = uuid.uuid4().hex[:6]
    latencies: list[float] = []
    timeouts = 0

    async def one(i: int) -> None:
        nonlocal timeouts
        start = time.perf_counter()
        v = await client.check(
            {"id": f"{prefix}-{i}", "text": texts[i % len(texts)]}, timeout_ms=timeout_ms
        )
        if v.reason == "timeout":
            timeouts += 1
        else:
            latencies.append((time.perf_counter() - start) * 1000)

    tasks = []
    t0 = time.monotonic() + 0.05
    for i in range(n):
        delay = t0 + i / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i)))
    await asyncio.gather(*tasks)
    return np.array(latencies), timeouts


async def run(ns: argparse.Namespace) -> list[dict[str, float]]:
    texts = chat_messages(2000, 0.02, ns.seed)
    out = []
    with EmbeddedBroker() as broker:
        argv = ["moderation.cli", "worker"]
        async with Phase(broker.bootstrap, argv, {}, ns.budget_ms) as ph:
            settings = ClientSettings(
                kafka=KafkaSettings(bootstrap=broker.bootstrap),
                input_topic=ph.input,
                verdict_topic=ph.verdicts,
                instance_id="bench",
                # As many as the verdict topic: tansu's fetch cost grows with the
                # batches stored in one partition, which would tax the client alone.
                reply_partitions=PARTITIONS,
            )
            async with ModerationClient(settings) as client:
                await client_rate(client, 20, 1.0, texts, 5000)  # warm
                for rate in ns.rates:
                    raw: list[float] = []
                    via: list[float] = []
                    timeouts = 0
                    for kind in ("raw", "client", "client", "raw"):
                        if kind == "raw":
                            await ph.run_rate("raw", rate, ns.seconds / 2, texts)
                            raw.extend(ph.last_latencies_ms)
                        else:
                            lat, t = await client_rate(
                                client, rate, ns.seconds / 2, texts, ns.budget_ms * 4
                            )
                            via.extend(lat.tolist())
                            timeouts += t
                    r, c = np.array(raw), np.array(via)
                    out.append(
                        {
                            "rate": rate,
                            "raw_n": int(r.size),
                            "client_n": int(c.size),
                            "client_timeouts": timeouts,
                            "raw_p50": float(np.percentile(r, 50)),
                            "raw_p99": float(np.percentile(r, 99)),
                            "client_p50": float(np.percentile(c, 50)),
                            "client_p99": float(np.percentile(c, 99)),
                        }
                    )
                    print(out[-1], flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run; print the table; write JSON and the docs section."""
    p = argparse.ArgumentParser(prog="moderation bench client", description=__doc__)
    p.add_argument("--rates", type=float, nargs="+", default=[50, 100, 200])
    p.add_argument("--seconds", type=float, default=20, help="per rate and kind")
    p.add_argument("--budget-ms", type=int, default=50)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    steps = asyncio.run(run(ns))
    rows = [
        [
            f"{s['rate']:.0f}",
            f"{s['raw_p50']:.2f}",
            f"{s['client_p50']:.2f}",
            f"{s['client_p50'] - s['raw_p50']:+.2f}",
            f"{s['raw_p99']:.1f}",
            f"{s['client_p99']:.1f}",
            f"{s['client_timeouts']}",
        ]
        for s in steps
    ]
    table = markdown_table(
        [
            "rate msg/s",
            "worker e2e p50 ms",
            "client p50 ms",
            "client overhead p50 ms",
            "worker e2e p99 ms",
            "client p99 ms",
            "client timeouts",
        ],
        rows,
    )
    worst = max(s["client_p50"] - s["raw_p50"] for s in steps)
    note = (
        f"Target: client overhead at most 1 ms at p50: {'met' if worst <= 1 else 'MISSED'} "
        f"(worst {worst:+.2f} ms). Both kinds measured alternately in one run "
        f"(raw, client, client, raw at each rate); raw = producer send to verdict arrival "
        f"at a plain consumer, client = `check()` call to return."
    )
    print(table + "\n\n" + note)
    (ns.out / "bench-client.json").write_text(json.dumps(steps, indent=2))
    if ns.docs:
        write_docs_section(
            Path(ns.docs),
            "bench-client",
            f"Command: `moderation bench client`.\n\n{table}\n\n{note}\n",
        )
    return 0
