"""`moderation bench prometheus`: do Prometheus's p50/p99 agree with what was measured?

Starts the embedded broker, a worker process with its metrics port, a real
Prometheus scraping it with the project's recording rules, and a short open-loop
load. Prints the p50/p99 that Prometheus computes from the worker's histogram
beside the exact quantiles of the latencies the worker stamped on the verdicts
(the same quantity, sent_at to verdict), and the load generator's own
send-to-receive latency for context. They must agree within one histogram bucket.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import time

import numpy as np

from moderation.bench.e2e import Phase
from moderation.bench.model import chat_messages
from moderation.bench.stats import markdown_table
from moderation.embedded import EmbeddedBroker, free_port
from moderation.metrics import LATENCY_BUCKETS
from moderation.promcheck import Prometheus


def bucket_index(seconds: float) -> int:
    """Index of the histogram bucket whose upper bound holds ``seconds``."""
    return bisect.bisect_left(LATENCY_BUCKETS, seconds)


async def _run(ns: argparse.Namespace) -> int:
    texts = chat_messages(1000, 0.02, 3)
    metrics_port = free_port()
    with EmbeddedBroker() as broker:
        env = {"MODERATION_METRICS_PORT": str(metrics_port)}
        async with Phase(broker.bootstrap, ["moderation.cli", "worker"], env, ns.budget_ms) as ph:
            with Prometheus([f"127.0.0.1:{metrics_port}"]) as prom:
                await asyncio.sleep(2)  # a first scrape before the load
                ph.worker_latencies_ms = []
                start = time.time()
                step = await ph.run_rate("load", ns.rate, ns.seconds, texts)
                worker_ms = np.array(ph.worker_latencies_ms)
                await asyncio.sleep(3)  # the last scrapes and rule evaluations
                window = f"{int(time.time() - start) + 2}s"
                rows = []
                agree = True
                for q in (0.5, 0.99):
                    expr = (
                        f"histogram_quantile({q}, sum by (le) "
                        f"(increase(moderation_verdict_latency_seconds_bucket[{window}])))"
                    )
                    prom_s = await asyncio.to_thread(prom.scalar, expr)
                    rule = "p50_1m" if q == 0.5 else "p99_1m"
                    rule_s = await asyncio.to_thread(
                        prom.scalar, f"moderation:verdict_latency_seconds:{rule}"
                    )
                    exact_s = float(np.percentile(worker_ms, 100 * q)) / 1000
                    client_ms = step.p50_ms if q == 0.5 else step.p99_ms
                    ok = (
                        prom_s is not None
                        and abs(bucket_index(prom_s) - bucket_index(exact_s)) <= 1
                    )
                    agree &= ok
                    rows.append(
                        [
                            f"p{int(q * 100)}",
                            f"{prom_s * 1000:.2f}" if prom_s is not None else "none",
                            f"{rule_s * 1000:.2f}" if rule_s is not None else "none",
                            f"{exact_s * 1000:.2f}",
                            f"{client_ms:.2f}",
                            "yes" if ok else "NO",
                        ]
                    )
    print(
        markdown_table(
            [
                "quantile",
                "Prometheus over the run (ms)",
                "recording rule, 1m (ms)",
                "measured: worker-stamped (ms)",
                "load generator send-to-receive (ms)",
                "within one bucket",
            ],
            rows,
        )
    )
    print(f"\n{step.answered}/{step.sent} answered at {ns.rate:.0f} msg/s for {ns.seconds:.0f} s")
    return 0 if agree else 1


def main(argv: list[str] | None = None) -> int:
    """Run the check; exit 1 when Prometheus and the measurement disagree."""
    p = argparse.ArgumentParser(prog="moderation bench prometheus", description=__doc__)
    p.add_argument("--rate", type=float, default=100)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--budget-ms", type=int, default=50)
    return asyncio.run(_run(p.parse_args(argv)))
