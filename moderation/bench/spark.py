"""`moderation bench spark`: Spark replay against the native replay and the live path, one run.

All rows score the same chat messages (JSONL in): (a) the live path as the worker
runs it (one process, the shipped session, one message at a time, tokenization
included); (b) `moderation replay`, exact, one process per usable core; (c) Spark
`local[N]` with N the usable cores; (d) Spark `local[1]` with the whole application
(JVM and Python workers) pinned to one core: what one executor core does, so (c)/(d)
is the scaling a cluster sees per core. Each Spark row runs in its own process and is
a whole `replay --engine spark` run (reading, numbering rows, scoring, writing
Parquet and the errors file), timed two ways: the job alone, with the Spark
application already up (as on a cluster, where it is up before the job starts), and
with the application's start-up (JVM, executors) in.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from moderation.bench.replay import chat_corpus, live_rate, replay_rate, write_history
from moderation.bench.stats import markdown_table, write_docs_section
from moderation.cpu import cpu_info, usable_cores


def _spark_run(src: str, out: str, cores: list[int], result: str) -> None:
    """Child process: pinned to ``cores`` (the JVM it starts inherits that), one replay."""
    os.sched_setaffinity(0, set(cores))
    from moderation.spark import session
    from moderation.spark.replay import SparkOptions, replay_spark

    start = time.perf_counter()
    spark = session(f"local[{len(cores)}]", app="moderation-bench")
    # Executors' Python workers start with the first task; on a cluster they are up
    # before a job is submitted, so start them with a throwaway job before timing.
    spark.sparkContext.parallelize(range(64), len(cores)).count()
    up = time.perf_counter()
    summary = replay_spark(SparkOptions([src], out, overwrite=True, report=False))
    done = time.perf_counter()
    spark.stop()
    Path(result).write_text(
        json.dumps({"scored": summary.scored, "job": done - up, "all": done - start})
    )


def spark_rate(src: Path, out: Path, cores: list[int]) -> tuple[float, float, np.ndarray]:
    """(msg/s for the job, msg/s with application start-up, scores in id order)."""
    import multiprocessing

    import pyarrow.parquet as pq

    result = out.with_suffix(".json")
    ctx = multiprocessing.get_context("spawn")
    child = ctx.Process(target=_spark_run, args=(str(src), str(out), cores, str(result)))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise RuntimeError(f"the Spark run on cores {cores} failed (exit {child.exitcode})")
    r = json.loads(result.read_text())
    table = pq.read_table(out).sort_by([("id", "ascending")])
    labels = [c for c in table.column_names if c.startswith("score_")]
    ids = [int(i) for i in table.column("id").to_pylist()]
    order = np.argsort(ids)
    scores = np.stack([table.column(c).to_numpy() for c in labels], axis=1)[order]
    return r["scored"] / r["job"], r["scored"] / r["all"], scores


def main(argv: list[str] | None = None) -> int:
    """Run, print the table, write JSON and the docs section."""
    p = argparse.ArgumentParser(prog="moderation bench spark", description=__doc__)
    p.add_argument("--messages", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    ns.out.mkdir(parents=True, exist_ok=True)
    texts = chat_corpus(ns.messages, ns.seed)
    cores = usable_cores()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "history.jsonl"
        write_history(src, texts)
        live, live_scores = live_rate(texts)
        native, _ = replay_rate(src, Path(tmp) / "native.jsonl", cores, 1)
        mine = sorted(os.sched_getaffinity(0))[:cores]
        many_job, many_all, many_scores = spark_rate(src, Path(tmp) / "s.parquet", mine)
        one_job, one_all, one_scores = spark_rate(src, Path(tmp) / "s1.parquet", mine[:1])

    def diff(scores: np.ndarray) -> float:
        return float(np.abs(scores - live_scores).max())

    d_many, d_one = diff(many_scores), diff(one_scores)
    rows = [
        ["(a) live path, batch of one", f"{live:,.0f}", "-", "1.00", "-", "-"],
        [f"(b) native replay, exact, {cores} processes", f"{native:,.0f}", "-",
         f"{native / live:.2f}", "1.00", "-"],
        [f"(c) Spark local[{cores}]", f"{many_job:,.0f}", f"{many_all:,.0f}",
         f"{many_job / live:.2f}", f"{many_job / native:.2f}", f"{d_many:.1e}"],
        ["(d) Spark local[1], pinned to one core", f"{one_job:,.0f}", f"{one_all:,.0f}",
         f"{one_job / live:.2f}", f"{one_job / native:.2f}", f"{d_one:.1e}"],
    ]  # fmt: skip
    headers = [
        "configuration",
        "msg/s (job)",
        "msg/s (with app start-up)",
        "x (a)",
        "x (b)",
        "max score diff vs (a)",
    ]
    table = markdown_table(headers, rows)
    scaling = many_job / one_job
    note = (
        f"{ns.messages:,} chitchat messages ({len(set(texts)):,} distinct), {cores} usable "
        f"cores, JSONL in. Spark local[{cores}] / native replay: {many_job / native:.2f}x "
        f"(target at least 0.8x: {'met' if many_job / native >= 0.8 else 'MISSED'}); "
        f"with application start-up {many_all / native:.2f}x. Spark 1 -> {cores} cores: "
        f"{scaling:.2f}x (target at least 1.7x: {'met' if scaling >= 1.7 else 'MISSED'}). "
        f"Scores {'identical to' if max(d_many, d_one) == 0 else 'DIFFERENT from'} the live path."
    )
    print(table + "\n\n" + note)
    result = {
        "cpu": cpu_info().describe(),
        "live": live,
        "native_replay": native,
        "spark_job": many_job,
        "spark_with_startup": many_all,
        "spark_1_job": one_job,
        "spark_1_with_startup": one_all,
        "max_diff": max(d_many, d_one),
        "messages": ns.messages,
        "cores": cores,
    }
    (ns.out / "bench-spark.json").write_text(json.dumps(result, indent=2))
    if ns.docs:
        body = f"Command: `moderation bench spark`.\n\n{table}\n\n{note}\n"
        write_docs_section(Path(ns.docs), "bench-spark", body)
    return 0
