"""`moderation bench replay`: replay throughput against the live batch-of-one path, in one run.

Rows: (a) the live path as the worker runs it (one process, the shipped session, one
message at a time, tokenization included); (b) `moderation replay` exact mode with one
process; (c) exact mode with one process per core (the default); (d) equal-length
batches of 16 per process (not exact). The replay rows are whole runs of the tool:
reading JSONL, scoring, writing JSONL, checkpoints, process start-up included.
Chat messages are real chitchat utterances, sampled with their natural repeats.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson

from moderation.bench.stats import markdown_table, write_docs_section
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings
from moderation.cpu import usable_cores
from moderation.replay.run import Options, replay


def chat_corpus(n: int, seed: int) -> list[str]:
    """n utterances drawn from every chitchat split, repeats kept as chat has them."""
    from moderation.build.datasets import chitchat_utterances

    pool = chitchat_utterances("train") + chitchat_utterances("val") + chitchat_utterances("test")
    rng = random.Random(seed)
    start = rng.randrange(max(1, len(pool) - n))
    return pool[start : start + n] if len(pool) >= n else rng.choices(pool, k=n)


def write_history(path: Path, texts: list[str]) -> None:
    """The messages as replay input: one JSONL object per message, ids in order."""
    with path.open("wb") as fh:
        for i, t in enumerate(texts):
            fh.write(orjson.dumps({"id": str(i), "text": t}) + b"\n")


def live_rate(texts: list[str]) -> tuple[float, np.ndarray]:
    """(messages per second, scores) through the worker's own classifier, one at a time."""
    c = Classifier(ClassifierSettings())
    for t in texts[:200]:
        c.scores(c.encode(t))
    out = []
    start = time.perf_counter()
    for t in texts:
        out.append(c.scores(c.encode(t)))
    return len(texts) / (time.perf_counter() - start), np.stack(out)


def replay_rate(src: Path, out: Path, workers: int, batch: int) -> tuple[float, np.ndarray]:
    """(messages per second, scores) for one whole replay run."""
    start = time.perf_counter()
    s = replay(
        Options(
            [str(src)],
            str(out),
            workers=workers,
            batch_size=batch,
            chunk=1024,
            overwrite=True,
            report=False,
            progress=False,
        )
    )
    rate = s.scored / (time.perf_counter() - start)
    scores = np.array([list(orjson.loads(line)["scores"].values()) for line in out.open("rb")])
    return rate, scores


def main(argv: list[str] | None = None) -> int:
    """Run, print the table, write JSON and the docs section."""
    p = argparse.ArgumentParser(prog="moderation bench replay", description=__doc__)
    p.add_argument("--messages", type=int, default=100_000)
    p.add_argument("--live-messages", type=int, default=20_000, help="sample for row (a)")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    texts = chat_corpus(ns.messages, ns.seed)
    distinct = len(set(texts))
    cores = usable_cores()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "history.jsonl"
        write_history(src, texts)
        live, live_scores = live_rate(texts[: ns.live_messages])
        one, exact1 = replay_rate(src, Path(tmp) / "one.jsonl", 1, 1)
        many, exact = replay_rate(src, Path(tmp) / "many.jsonl", cores, 1)
        batched, approx = replay_rate(src, Path(tmp) / "batched.jsonl", cores, 16)
    n = live_scores.shape[0]

    def diff(scores: np.ndarray) -> float:
        return float(np.abs(scores[:n] - live_scores).max())

    drift_exact, drift_batched = diff(exact), diff(approx)
    rows = [
        ["(a) live path, batch of one (baseline)", f"{live:,.0f}", "1.00", "-"],
        ["(b) replay, exact, 1 process", f"{one:,.0f}", f"{one / live:.2f}", f"{diff(exact1):.1e}"],
        [
            f"(c) replay, exact, {cores} processes (default)",
            f"{many:,.0f}",
            f"{many / live:.2f}",
            f"{drift_exact:.1e}",
        ],
        [
            f"(d) replay, equal-length batches of 16, {cores} processes",
            f"{batched:,.0f}",
            f"{batched / live:.2f}",
            f"{drift_batched:.3f}",
        ],
    ]
    headers = ["configuration", "msg/s", "x (a)", f"max score diff vs (a), first {n:,}"]
    table = markdown_table(headers, rows)
    note = (
        f"{ns.messages:,} chitchat messages ({distinct:,} distinct), {cores} usable cores; "
        f"row (a) timed on the first {min(ns.live_messages, ns.messages):,}. Target: replay "
        f"at least 3x (a): {'met' if many / live >= 3 else 'MISSED'} by the exact default "
        f"({many / live:.2f}x)."
    )
    print(table + "\n\n" + note)
    result = {
        "live": live,
        "replay_1": one,
        "replay_exact": many,
        "replay_batched": batched,
        "max_diff_exact": drift_exact,
        "max_diff_batched": drift_batched,
        "messages": ns.messages,
        "distinct": distinct,
        "cores": cores,
    }
    (ns.out / "bench-replay.json").write_text(json.dumps(result, indent=2))
    if ns.docs:
        body = f"Command: `moderation bench replay`.\n\n{table}\n\n{note}\n"
        write_docs_section(Path(ns.docs), "bench-replay", body)
    return 0
