"""`moderation bench e2e-ab`: worker settings compared end to end, interleaved in rounds.

One broker; each round runs every variant once, in turn, on fresh topics, at one
rate; so slow drift of this shared machine falls on all variants alike and the
spread between rounds shows how far one run can be trusted. Variants are worker
environments (the inference thread settings by default), beside the broker floor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from moderation.bench.e2e import Phase
from moderation.bench.e2e_report import Step
from moderation.bench.model import chat_messages
from moderation.bench.stats import markdown_table, write_docs_section
from moderation.embedded import EmbeddedBroker

WORKER = ["moderation.cli", "worker"]
SPIN = {"MODERATION_SPINNING": "true"}
# (label, module argv, worker environment)
VARIANTS: list[tuple[str, list[str], dict[str, str]]] = [
    ("floor (no model)", ["moderation.bench.echo_worker"], {}),
    ("worker, spinning off (shipped)", WORKER, {}),
    # On a CPU kind where the screen is on by default (moderation/screen.py): without it.
    ("worker, the model alone (no screen)", WORKER, {"MODERATION_SCREEN_DIR": "off"}),
    ("worker, spinning 3 ms", WORKER, {**SPIN, "MODERATION_SPIN_US": "3000"}),
    ("worker, spinning (ONNX Runtime's default)", WORKER, SPIN),
    ("worker, 1 inference thread", WORKER, {"MODERATION_THREADS": "1"}),
    (
        "worker, 2 threads for every length (no one-thread session)",
        WORKER,
        {"MODERATION_ONE_THREAD_UP_TO": "0"},
    ),
    (
        "worker, 1 thread for messages up to 32 tokens (not timed at load)",
        WORKER,
        {"MODERATION_ONE_THREAD_UP_TO": "32"},
    ),
    (
        "worker, long lane: over 64 tokens on a second thread",
        WORKER,
        {"MODERATION_LONG_LANE_TOKENS": "64"},
    ),
    (
        "worker, long lane over 64 tokens, niced 10",
        WORKER,
        {"MODERATION_LONG_LANE_TOKENS": "64", "MODERATION_LONG_LANE_NICE": "10"},
    ),
    (
        "worker, long lane over 64 tokens, 2 threads, niced 10",
        WORKER,
        {
            "MODERATION_LONG_LANE_TOKENS": "64",
            "MODERATION_LONG_LANE_NICE": "10",
            "MODERATION_LONG_LANE_THREADS": "2",
        },
    ),
    (
        "worker, 1 thread; long lane over 64 tokens, 2 threads, niced 10",
        WORKER,
        {
            "MODERATION_THREADS": "1",
            "MODERATION_LONG_LANE_TOKENS": "64",
            "MODERATION_LONG_LANE_NICE": "10",
            "MODERATION_LONG_LANE_THREADS": "2",
        },
    ),
]


def chosen(only: list[str] | None) -> list[tuple[str, list[str], dict[str, str]]]:
    """The variants whose label holds one of ``only`` (all when None); the floor always."""
    return [
        v
        for v in VARIANTS
        if only is None or v[0].startswith("floor") or any(o in v[0] for o in only)
    ]


async def run(ns: argparse.Namespace) -> list[list[Step]]:
    """Steps by round, each round every chosen variant in turn."""
    texts = chat_messages(2000, ns.long_fraction, ns.seed)
    rounds: list[list[Step]] = []
    with EmbeddedBroker() as broker:
        for _ in range(ns.rounds):
            steps = []
            for label, argv, env in chosen(ns.only):
                async with Phase(broker.bootstrap, argv, env, ns.budget_ms) as ph:
                    steps.append(await ph.run_rate(label, ns.rate, ns.seconds, texts))
            rounds.append(steps)
    return rounds


def main(argv: list[str] | None = None) -> int:
    """Run the rounds; print the table; write JSON and the docs section."""
    p = argparse.ArgumentParser(prog="moderation bench e2e-ab", description=__doc__)
    p.add_argument("--rate", type=float, default=100)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--budget-ms", type=int, default=50)
    p.add_argument("--long-fraction", type=float, default=0.02)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument(
        "--only", nargs="+", help="run the variants whose label holds one of these words"
    )
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    rounds = asyncio.run(run(ns))
    headers = [
        "variant",
        *[f"round {k + 1}: p50 / p99 ms (fallback, cut)" for k in range(len(rounds))],
        "median p99 ms",
        "median p99, all but long pastes",
        "median p50, long pastes",
    ]
    rows = []
    for i, (label, *_) in enumerate(chosen(ns.only)):
        steps = [r[i] for r in rounds]
        cells = [f"{s.p50_ms:.1f} / {s.p99_ms:.1f} ({s.fallback}, {s.cut_to_fit})" for s in steps]
        rows.append(
            [
                label,
                *cells,
                f"{np.median([s.p99_ms for s in steps]):.1f}",
                f"{np.median([s.others_p99_ms for s in steps]):.1f}",
                f"{np.median([s.long_p50_ms for s in steps]):.1f}",
            ]
        )
    table = markdown_table(headers, rows)
    note = (
        f"{ns.rate:g} msg/s for {ns.seconds:g} s per variant and round, {ns.long_fraction:.0%}"
        f" of messages long (up to 128 tokens), budget {ns.budget_ms} ms; broker, load "
        "generator and worker on the same machine. Latency: send to verdict arrival. "
        "*fallback*: answered without the model; *cut*: scored on the longest prefix the "
        "budget could fit."
    )
    print(table + "\n\n" + note)
    ns.out.mkdir(parents=True, exist_ok=True)
    (ns.out / "bench-e2e-ab.json").write_text(
        json.dumps([[asdict(s) for s in r] for r in rounds], indent=2)
    )
    if ns.docs:
        cmd = f"moderation bench e2e-ab --rate {ns.rate:g} --rounds {ns.rounds}"
        if ns.only:
            cmd += " --only " + " ".join(repr(o) if " " in o else o for o in ns.only)
        write_docs_section(
            Path(ns.docs), "bench-e2e-ab", f"Command: `{cmd}`.\n\n{table}\n\n{note}\n"
        )
    return 0
