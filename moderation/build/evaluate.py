"""Score the validation splits with fp32 (PyTorch) and int8 (ONNX), pick thresholds, report."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from moderation.build import datasets
from moderation.build.metrics import f_beta, macro_f1, precision_recall_f1, roc_auc
from moderation.errors import EmptyTextError

log = logging.getLogger(__name__)

# Which label each validation split supervises (the one its metrics are about).
SPLIT_LABEL = {
    "tweeteval-offensive": "toxic",
    "davidson": "toxic",
    "convabuse": "toxic",
    "insults": "insult",
    "tweeteval-hate": "hate",
    "toxigen": "hate",
    "templates": "threat",
}
# Per label, the share of benign chat (validation) it may nudge on its own.
MAX_BENIGN_RATE_PER_LABEL = {"toxic": 0.008, "insult": 0.004, "hate": 0.004, "threat": 0.002}
# The validation split each label's threshold is chosen on (never a test split).
THRESHOLD_SPLIT = {
    "toxic": "tweeteval-offensive",
    "insult": "insults",
    "hate": "tweeteval-hate",
    "threat": "templates",
}
# F-beta each positive-F label's threshold maximises (1: F1). Threat is recall-weighted
# (F2): a nudge asks the sender to rethink, a missed threat reaches the person it names,
# and the threat row's F1 over its validation templates is flat across a wide range
# (0.970-0.976 from 0.21 to 0.67 on the shipped file), so F1's argmax there is close to
# arbitrary; the benign-chat budget still bounds it from below (docs/model.md, stop 45).
THRESHOLD_BETA = {"insult": 1.0, "threat": 2.0}
# The labels whose threshold maximises macro-F1 on their split (the figure the card
# reports) rather than a positive F-beta. Hate joined toxic after rule 22 (docs/model.md,
# stop 55): chosen on half of HatEval validation and scored on the other half, macro-F1
# beat the hate class's F1 on all five files tried (+0.5 to +2.2 points), and at those
# thresholds the five files passed more of the suite with fewer flips under every probe.
MACRO_F1_LABELS = frozenset({"toxic", "hate"})
THRESHOLD_GRID = np.round(np.linspace(0.05, 0.95, 91), 2)
Precision = Literal["fp32", "int8"]


@dataclass
class SplitScores:
    """fp32 and int8 scores for one split, rows aligned with its examples."""

    examples: list[datasets.Example]
    fp32: np.ndarray
    int8: np.ndarray


def int8_scores(classifier: Any, texts: list[str]) -> np.ndarray:
    """Scores from the shipped path: batch of one, no padding (empty texts score 0)."""
    out = np.zeros((len(texts), len(classifier.labels)), dtype=np.float32)
    for i, text in enumerate(texts):
        with contextlib.suppress(EmptyTextError):
            out[i] = classifier.scores(classifier.encode(text))
    return out


def fp32_scores(checkpoint: Path, classifier: Any, texts: list[str]) -> np.ndarray:
    """Scores from the PyTorch fp32 checkpoint on the same token ids."""
    import torch
    from transformers import DistilBertForSequenceClassification

    torch.set_num_threads(2)
    model: Any = DistilBertForSequenceClassification.from_pretrained(str(checkpoint))
    model.eval()
    from moderation.build.train import predict_scores

    ids = []
    for text in texts:
        try:
            ids.append(classifier.encode(text).ids.tolist())
        except EmptyTextError:
            ids.append([101, 102])
    return predict_scores(model, ids, pad_id=0)


def score_splits(
    checkpoint: Path, classifier: Any, splits: dict[str, list[datasets.Example]]
) -> dict[str, SplitScores]:
    """Both precisions on every split."""
    out = {}
    for name, examples in splits.items():
        texts = [e.text for e in examples]
        log.info("scoring %s (%d texts)", name, len(texts))
        out[name] = SplitScores(
            examples, fp32_scores(checkpoint, classifier, texts), int8_scores(classifier, texts)
        )
    return out


def choose_threshold(
    y: np.ndarray,
    scores: np.ndarray,
    benign: np.ndarray,
    max_benign_rate: float,
    macro: bool,
    beta: float = 1.0,
) -> float:
    """Best macro-F1 (or positive F-beta) threshold whose benign-chat nudge rate stays in
    bounds; where several tie for best, the middle one (the widest margin on both sides:
    a split that separates perfectly, like the templates' threats, would otherwise get
    the lowest, and nudge look-alikes just above it)."""
    feasible = [t for t in THRESHOLD_GRID if float(np.mean(benign >= t)) <= max_benign_rate]
    if not feasible:
        return float(THRESHOLD_GRID[-1])
    values = []
    for t in feasible:
        pred = scores >= t
        values.append(macro_f1(y, pred) if macro else f_beta(y, pred, beta))
    best = max(values)
    tied = [t for t, v in zip(feasible, values, strict=True) if v >= best - 1e-12]
    return float(tied[len(tied) // 2])


def label_threshold(label: str, y: np.ndarray, scores: np.ndarray, benign: np.ndarray) -> float:
    """``label``'s threshold by the build's rule: macro-F1 for MACRO_F1_LABELS, F-beta
    (THRESHOLD_BETA) for the others, within the label's benign-chat budget."""
    return choose_threshold(
        y,
        scores,
        benign,
        MAX_BENIGN_RATE_PER_LABEL[label],
        macro=label in MACRO_F1_LABELS,
        beta=THRESHOLD_BETA.get(label, 1.0),
    )


def choose_thresholds(
    scored: dict[str, SplitScores], labels: list[str], precision: Precision = "int8"
) -> dict[str, float]:
    """Thresholds on validation scores (int8's, the shipped ones; or fp32's, by the same
    rule): toxic and hate for macro-F1 on TweetEval offensive and hate, the others for
    F-beta on their own splits (label_threshold), each within its benign-chat budget."""
    benign = getattr(scored["chitchat"], precision)
    out = {}
    for j, label in enumerate(labels):
        split = scored[THRESHOLD_SPLIT[label]]
        y = np.array([e.targets[j] for e in split.examples])
        known = y >= 0
        out[label] = label_threshold(
            label, y[known], getattr(split, precision)[known, j], benign[:, j]
        )
    return out


def nudge_rate(scores: np.ndarray, thresholds: dict[str, float], labels: list[str]) -> float:
    """Share of rows on which any label reaches its threshold."""
    t = np.array([thresholds[label] for label in labels])
    return float(np.mean((scores >= t).any(axis=1)))


def split_metrics(
    scored: dict[str, SplitScores],
    thresholds: dict[str, float],
    labels: list[str],
    fp32_thresholds: dict[str, float] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per split: macro-F1, positive P/R/F1 and ROC AUC of its label, fp32 and int8, at
    the shipped (int8-chosen) thresholds; with ``fp32_thresholds`` (the same rule on
    fp32's scores), fp32's macro-F1 at those too. The shipped thresholds were picked on
    int8's scores of the very splits some rows are measured on, which favours int8 there:
    fp32 at its own thresholds against int8 at its own is what quantization costs."""
    out: dict[str, dict[str, Any]] = {}
    for name, label in SPLIT_LABEL.items():
        if name not in scored:
            continue
        j = labels.index(label)
        s = scored[name]
        y = np.array([e.targets[j] for e in s.examples])
        known = y >= 0
        row: dict[str, Any] = {
            "label": label,
            "n": int(known.sum()),
            "positives": int((y[known] == 1).sum()),
        }
        for precision, sc in (("fp32", s.fp32), ("int8", s.int8)):
            pred = sc[known, j] >= thresholds[label]
            p, r, f = precision_recall_f1(y[known], pred)
            row[precision] = {
                "macro_f1": macro_f1(y[known], pred),
                "precision": p,
                "recall": r,
                "f1": f,
                "roc_auc": roc_auc(y[known], sc[known, j]),
            }
        if fp32_thresholds is not None:
            own = fp32_thresholds[label]
            row["fp32"]["own_threshold"] = own
            row["fp32"]["macro_f1_own_threshold"] = macro_f1(y[known], s.fp32[known, j] >= own)
        out[name] = row
    for name in ("chitchat", "chitchat-test"):
        if name in scored:
            s = scored[name]
            out[name] = {
                "n": len(s.examples),
                "fp32": {"nudge_rate": nudge_rate(s.fp32, thresholds, labels)},
                "int8": {"nudge_rate": nudge_rate(s.int8, thresholds, labels)},
            }
    return out
