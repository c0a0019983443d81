"""Settings fixed at process start, compared in alternating child processes.

Some settings cannot be switched inside one process: whether the kernel grants AMX
tiles (`bench amx`), whether the weights sit on huge pages (`bench hugepages`), which
code tokenizes ASCII text (`bench tokenizer`). Each
round starts one child process per arm, their order flipped every round, and each
child times the shipped classifier as the worker runs it: chat messages back to back
and after a pause (tokenization included), and fixed lengths (model only). Every arm
must give the same scores bit for bit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from moderation.bench.stats import markdown_table, write_docs_section

LENGTHS = (32, 128)


@dataclass(frozen=True)
class Arm:
    """One way to start the child: a command prefix (a wrapper script) and environment."""

    name: str
    prefix: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """What each child times: ``messages`` chat messages back to back, the first
    ``paused`` of them again each after ``pause_ms`` of sleep, and ``repeats`` runs at
    each fixed length."""

    messages: int
    seed: int
    repeats: int
    paused: int = 0
    pause_ms: float = 10.0

    def args(self) -> list[str]:
        """The child's command-line options."""
        return [
            *("--messages", str(self.messages), "--seed", str(self.seed)),
            *("--repeats", str(self.repeats), "--paused", str(self.paused)),
            *("--pause-ms", str(self.pause_ms)),
        ]


def parser(prog: str, description: str | None, paused: int) -> argparse.ArgumentParser:
    """The options every A/B of this kind takes (``paused``: the default count of
    messages timed after a pause)."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--messages", type=int, default=600, help="chat messages per round")
    p.add_argument("--paused", type=int, default=paused, help="of them, timed after a pause")
    p.add_argument("--pause-ms", type=float, default=10.0)
    p.add_argument("--repeats", type=int, default=100, help="runs per fixed length a round")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--seed", type=int, default=21)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return p


def plan_of(ns: argparse.Namespace) -> Plan:
    """The plan the parsed options describe."""
    return Plan(ns.messages, ns.seed, ns.repeats, ns.paused, ns.pause_ms)


def report(ns: argparse.Namespace, name: str, table: str, note: str, results: Any) -> None:
    """Print the table and note, save the JSON, and file them in the docs (unless
    ``--docs ''``) under the section ``bench-<name>``."""
    print(table + "\n\n" + note)
    ns.out.mkdir(parents=True, exist_ok=True)
    (ns.out / f"bench-{name}.json").write_text(json.dumps(results, indent=2))
    if ns.docs:
        cmd = f"moderation bench {name} --messages {ns.messages} --rounds {ns.rounds}"
        body = f"Command: `{cmd}`.\n\n{table}\n\n{note}\n"
        write_docs_section(Path(ns.docs), f"bench-{name}", body)


def conclude(
    ns: argparse.Namespace,
    name: str,
    table: str,
    results: dict[str, Any],
    timed: str,
    more: str = "",
) -> int:
    """Print and file the table with its note: ``timed`` (what each child timed), the
    rounds, ``more`` (a sentence or two of the A/B's own), and whether every arm gave
    the same scores; the exit status is 0 only if they did."""
    same = bool(results["scores_identical"])
    note = (
        f"{timed}; {ns.rounds} rounds of one child process per arm, their order flipped "
        f"every round.{' ' + more if more else ''} Scores of the two arms "
        + ("identical bit for bit." if same else "DIFFER (see the JSON).")
    )
    report(ns, name, table, note, results)
    return 0 if same else 1


def child(plan: Plan) -> dict[str, Any]:
    """Time this process's shipped classifier; what the parent reads from stdout."""
    from moderation.bench.model import chat_messages
    from moderation.classifier import Classifier, Encoded
    from moderation.config import classifier_settings
    from moderation.cpu import cpu_info
    from moderation.hugepages import huge_bytes

    clf = Classifier(classifier_settings())
    texts = chat_messages(plan.messages, 0.0, plan.seed)
    for t in texts[:50]:
        clf.scores(clf.encode(t))
    chat, digest = [], hashlib.sha256()
    for t in texts:
        start = time.perf_counter()
        row = clf.scores(clf.encode(t))
        chat.append(time.perf_counter() - start)
        digest.update(row.tobytes())
    paused = []
    for t in texts[: plan.paused]:
        time.sleep(plan.pause_ms / 1000)
        start = time.perf_counter()
        clf.scores(clf.encode(t))
        paused.append(time.perf_counter() - start)
    fixed: dict[str, list[float]] = {}
    for n in LENGTHS:
        ids = np.full((n,), 1000, dtype=np.int64)
        ids[0], ids[-1] = 101, 102
        enc = Encoded(ids, False)
        clf.scores(enc)
        times = []
        for _ in range(plan.repeats):
            start = time.perf_counter()
            clf.scores(enc)
            times.append(time.perf_counter() - start)
        fixed[str(n)] = times
    cpu = cpu_info()
    return {
        "amx": cpu.amx,
        "refused": cpu.amx_refused,
        "chat": chat,
        "paused": paused,
        "fixed": fixed,
        "scores_sha256": digest.hexdigest(),
        "one_thread_up_to": clf.one_thread_up_to,
        "screen_one_thread_up_to": clf.screen_one_thread_up_to,
        "huge_pages": clf.huge_pages is not None,
        "huge_bytes": huge_bytes(),
        "ascii_wordpiece": clf.ascii_wordpiece,
        "screened": clf.screen is not None,
    }


def run_child(module: str, arm: Arm, plan: Plan) -> dict[str, Any]:
    """One child process of ``module`` (its ``--child`` mode) for ``arm``."""
    python = [sys.executable] if not arm.prefix else ["python"]
    cmd = [*arm.prefix, *python, "-m", module, "--child", *plan.args()]
    env = {**os.environ, **arm.env}
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=900, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def ran_as_set(variable: str, field: str) -> Callable[[Arm, dict[str, Any]], None]:
    """A ``rounds`` check for arms that differ by one boolean environment variable: the
    child's ``field`` must say what the arm's ``variable`` asked for ("1": on)."""

    def check(arm: Arm, result: dict[str, Any]) -> None:
        if result[field] != (arm.env[variable] == "1"):
            raise RuntimeError(f"{arm.name}: the child ran with {field}={result[field]}")

    return check


def rounds(
    module: str,
    arms: Sequence[Arm],
    plan: Plan,
    n_rounds: int,
    check: Callable[[Arm, dict[str, Any]], None] = lambda arm, result: None,
) -> dict[str, list[dict[str, Any]]]:
    """``n_rounds`` rounds of one child per arm, the order reversed every other round;
    ``check`` raises if a child did not run as its arm says."""
    runs: dict[str, list[dict[str, Any]]] = {arm.name: [] for arm in arms}
    for r in range(n_rounds):
        for arm in arms if r % 2 == 0 else list(reversed(arms)):
            result = run_child(module, arm, plan)
            check(arm, result)
            runs[arm.name].append(result)
    return runs


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(values, q) * 1000)


def compare(
    runs: dict[str, list[dict[str, Any]]], base: str, first_column: str, against: str
) -> tuple[str, dict[str, Any]]:
    """The markdown table (p50 per measure and each arm's speed-up over ``base``) and
    the JSON results, every round's times pooled per arm."""
    with_pause = any(run["paused"] for arm_runs in runs.values() for run in arm_runs)
    measures = ["chat", *(["paused"] if with_pause else []), *(str(n) for n in LENGTHS)]

    def pooled(arm: str, key: str) -> list[float]:
        if key in ("chat", "paused"):
            return [t for run in runs[arm] for t in run[key]]
        return [t for run in runs[arm] for t in run["fixed"][key]]

    base_p50 = {k: _ms(pooled(base, k), 50) for k in measures}
    names = {"chat": "chat", "paused": "chat after a pause"}
    headers = [first_column]
    for k in measures:
        headers += [f"{names.get(k, k + ' tokens')} p50 ms", f"x {against}"]
    headers.insert(3, "chat p99 ms")
    rows: list[list[str]] = []
    results: dict[str, Any] = {}
    for arm in runs:
        p50 = {k: _ms(pooled(arm, k), 50) for k in measures}
        row = [arm]
        for k in measures:
            row += [f"{p50[k]:.3f}", f"{base_p50[k] / p50[k]:.2f}"]
        chat_p99 = _ms(pooled(arm, "chat"), 99)
        row.insert(3, f"{chat_p99:.3f}")
        rows.append(row)
        results[arm] = {"chat_p99_ms": chat_p99, **{f"{k}_p50_ms": p50[k] for k in measures}}
    results["scores_identical"] = (
        len({run["scores_sha256"] for arm_runs in runs.values() for run in arm_runs}) == 1
    )
    return markdown_table(headers, rows), results
