"""The end-to-end benchmark's steps and what is said of them: held or not, the
summary lines, the plot."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from moderation.bench.model import chat_messages
from moderation.bench.stats import summarize


@dataclass
class Step:
    """One rate held for a while."""

    phase: str
    rate: float
    sent: int
    answered: int
    fallback: int
    cut_to_fit: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    # By length: the long pastes (LONG_CHARS and up; the model reads 128 tokens of
    # each) at p50, every other message at p99. With long pastes over 1% of the load,
    # the p99 of all is one of theirs.
    long_p50_ms: float = float("nan")
    others_p99_ms: float = float("nan")


# A message this long or longer is a long paste (several chat turns joined).
LONG_CHARS = 1000


def held(step: Step, budget_ms: int) -> bool:
    """Every message answered, p99 within budget, at most 1% answered by the fallback."""
    return (
        step.answered == step.sent
        and step.p99_ms <= budget_ms
        and step.fallback <= 0.01 * step.sent
    )


def summary_lines(steps: list[Step], ns: argparse.Namespace, ramps: list[str]) -> str:
    lines = []
    floor = {s.rate: s for s in steps if s.phase.startswith("floor")}
    worker = {s.rate: s for s in steps if s.phase == "worker"}
    model_p50, what = measure_model_p50()
    for rate in sorted(set(floor) & set(worker)):
        f, w = floor[rate], worker[rate]
        lines.append(
            f"- At {rate:.0f} msg/s: end-to-end p50 {w.p50_ms:.1f} ms, p99 {w.p99_ms:.1f} ms; "
            f"broker floor p50 {f.p50_ms:.1f} ms; {what} p50 {model_p50:.2f} ms; worker's own "
            f"overhead at p50 = {w.p50_ms:.1f} - {f.p50_ms:.1f} - {model_p50:.2f} = "
            f"{w.p50_ms - f.p50_ms - model_p50:.2f} ms."
        )
    for rate in sorted(worker):
        w = worker[rate]
        lines.append(
            f"- At {rate:.0f} msg/s, by length: long pastes (128 tokens read) p50 "
            f"{w.long_p50_ms:.1f} ms; every other message p99 {w.others_p99_ms:.1f} ms "
            f"(the p99 of all, {w.p99_ms:.1f} ms, is the long pastes' when they are over 1% "
            "of messages)."
        )
    off = {s.rate: s for s in steps if s.phase == "worker, cut to fit off"}
    for rate in sorted(set(off) & set(worker)):
        o, w = off[rate], worker[rate]
        lines.append(
            f"- At {rate:.0f} msg/s, long messages: with cutting to fit {w.fallback} of "
            f"{w.sent} answered by the fallback and {w.cut_to_fit} scored on a prefix; with it "
            f"off, {o.fallback} of {o.sent} answered by the fallback."
        )
    for label in ramps:
        ok = [
            s.rate for s in steps if s.phase in (label, f"{label} (ramp)") and held(s, ns.budget_ms)
        ]
        best = f"{max(ok):.0f} msg/s" if ok else "none"
        lines.append(f"- Highest rate held, {label}: {best}")
    return "\n".join(lines)


def measure_model_p50() -> tuple[float, str]:
    """Tokenize + infer p50 on the same kind of messages, in this process, idle worker,
    with the classifier loaded as the worker loads it (the same environment: the screen
    in front where it ships); and what was timed, for the summary."""
    from moderation.classifier import Classifier
    from moderation.config.model import classifier_settings

    clf = Classifier(classifier_settings())
    texts = chat_messages(400, 0.02, 3)
    secs = []
    for t in texts:
        start = time.perf_counter()
        clf.scores(clf.encode(t))
        secs.append(time.perf_counter() - start)
    what = "model (screen in front)" if clf.screen is not None else "model"
    return summarize(secs)["p50_ms"], what


def plot(steps: list[Step], budget_ms: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5))
    configs = list(dict.fromkeys(s.phase.removesuffix(" (ramp)") for s in steps))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for color, config in zip(colors, configs, strict=False):
        ss = sorted(
            (s for s in steps if s.phase.removesuffix(" (ramp)") == config), key=lambda s: s.rate
        )
        rates = [s.rate for s in ss]
        ax.plot(rates, [s.p99_ms for s in ss], marker="o", color=color, label=f"{config} p99")
        ax.plot(
            rates,
            [s.p50_ms for s in ss],
            marker=".",
            linestyle="--",
            color=color,
            label=f"{config} p50",
        )
    ax.axhline(budget_ms, color="red", linewidth=0.8, label="budget")
    ax.set_xlabel("offered rate (msg/s)")
    ax.set_ylabel("send-to-verdict latency (ms)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
