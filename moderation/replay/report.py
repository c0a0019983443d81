"""Quality on labelled history: precision, recall, F1, confusion, a threshold sweep, a PR plot.

A truth label is either one of the model's labels (scored by that label's score) or
``nudge`` (any label at or above its threshold; swept on the highest score/threshold
ratio, which is what the policy decides on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

SWEEP = tuple(round(float(t), 2) for t in np.arange(0.05, 0.96, 0.05))


@dataclass
class LabelQuality:
    """One truth label's numbers."""

    label: str
    threshold: float
    support: int
    rows: int
    tp: int
    fp: int
    fn: int
    tn: int
    sweep: list[dict[str, float]] = field(default_factory=list)
    curve: tuple[list[float], list[float]] = ((), ())  # type: ignore[assignment]

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def _prf(truth: np.ndarray, pred: np.ndarray) -> tuple[int, int, int, int]:
    tp = int(np.sum(truth & pred))
    fp = int(np.sum(~truth & pred))
    fn = int(np.sum(truth & ~pred))
    return tp, fp, fn, int(truth.size - tp - fp - fn)


def quality(
    rows: list[tuple[dict[str, int], dict[str, float]]], thresholds: dict[str, float]
) -> list[LabelQuality]:
    """Per truth label, over the rows that carry it: (labels, scores) pairs."""
    names = sorted({k for labels, _ in rows for k in labels})
    out = []
    for name in names:
        pairs = [(labels[name], scores) for labels, scores in rows if name in labels]
        truth = np.array([t == 1 for t, _ in pairs], dtype=bool)
        if name == "nudge":
            score = np.array([max(s[k] / thresholds[k] for k in thresholds) for _, s in pairs])
            current = 1.0
            sweep_scale = {t: float(t) / 0.5 for t in SWEEP}  # ratio threshold 1.0 == shipped
        elif name in thresholds:
            score = np.array([s[name] for _, s in pairs])
            current = float(thresholds[name])
            sweep_scale = {t: float(t) for t in SWEEP}
        else:
            continue
        confusion = _prf(truth, score >= current)
        q = LabelQuality(name, current, int(truth.sum()), len(pairs), *confusion)
        for cut in sweep_scale.values():
            tp, fp, fn, _ = _prf(truth, score >= cut)
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            f1 = 2 * p * r / (p + r) if p + r else 0.0
            q.sweep.append({"threshold": cut, "precision": p, "recall": r, "f1": f1})
        order = np.argsort(-score)
        hits = np.cumsum(truth[order])
        k = np.arange(1, truth.size + 1)
        q.curve = ((hits / max(1, truth.sum())).tolist(), (hits / k).tolist())
        out.append(q)
    return out


def markdown(results: list[LabelQuality], model: str, rows: int) -> str:
    """The report operators read."""
    lines = [
        f"# Replay quality report\n\nModel `{model}`, {rows} labelled rows.\n",
        "| label | threshold | rows | positives | precision | recall | F1 | TP | FP | FN | TN |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for q in results:
        lines.append(
            f"| {q.label} | {q.threshold:g} | {q.rows} | {q.support} | {q.precision:.3f} | "
            f"{q.recall:.3f} | {q.f1:.3f} | {q.tp} | {q.fp} | {q.fn} | {q.tn} |"
        )
    for q in results:
        unit = " (score/threshold ratio)" if q.label == "nudge" else ""
        lines += [
            f"\n## Threshold sweep: {q.label}{unit}\n",
            "| threshold | precision | recall | F1 |",
            "|---|---|---|---|",
        ]
        best = max(q.sweep, key=lambda s: s["f1"]) if q.sweep else None
        for s in q.sweep:
            mark = " **best F1**" if s is best else ""
            lines.append(
                f"| {s['threshold']:.2f} | {s['precision']:.3f} | {s['recall']:.3f} | "
                f"{s['f1']:.3f}{mark} |"
            )
    return "\n".join(lines) + "\n"


def plot(results: list[LabelQuality], path: Path) -> bool:
    """Precision-recall curves as PNG; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for q in results:
        recall, precision = q.curve
        ax.plot(recall, precision, label=f"{q.label} (F1 {q.f1:.2f} at {q.threshold:g})")
        ax.scatter([q.recall], [q.precision], marker="o")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    ax.set_title("Precision-recall on replayed history (dots: current thresholds)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def as_json(results: list[LabelQuality]) -> list[dict[str, Any]]:
    """Machine-readable report rows."""
    return [
        {
            "label": q.label,
            "threshold": q.threshold,
            "rows": q.rows,
            "positives": q.support,
            "precision": q.precision,
            "recall": q.recall,
            "f1": q.f1,
            "confusion": {"tp": q.tp, "fp": q.fp, "fn": q.fn, "tn": q.tn},
            "sweep": q.sweep,
        }
        for q in results
    ]
