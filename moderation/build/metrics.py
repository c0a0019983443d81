"""Classification metrics with numpy alone (the card's numbers, threshold sweeps)."""

from __future__ import annotations

import numpy as np


def _f1(tp: np.ndarray | int, fp: np.ndarray | int, fn: np.ndarray | int) -> np.ndarray:
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)


def macro_f1(y: np.ndarray, pred: np.ndarray) -> float:
    """Mean of the positive- and negative-class F1 (TweetEval's offensive metric)."""
    y = np.asarray(y).astype(bool)
    pred = np.asarray(pred).astype(bool)
    tp, fp, fn, tn = _confusion(y, pred)
    return float((_f1(tp, fp, fn) + _f1(tn, fn, fp)) / 2)


def _confusion(y: np.ndarray, pred: np.ndarray) -> tuple[int, int, int, int]:
    tp = int(np.sum(y & pred))
    fp = int(np.sum(~y & pred))
    fn = int(np.sum(y & ~pred))
    tn = int(np.sum(~y & ~pred))
    return tp, fp, fn, tn


def precision_recall_f1(y: np.ndarray, pred: np.ndarray) -> tuple[float, float, float]:
    """Positive-class precision, recall and F1."""
    tp, fp, fn, _ = _confusion(np.asarray(y).astype(bool), np.asarray(pred).astype(bool))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def f_beta(y: np.ndarray, pred: np.ndarray, beta: float) -> float:
    """Positive-class F-beta: recall weighs ``beta`` times as much as precision (F1 at 1)."""
    p, r, _ = precision_recall_f1(y, pred)
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if p + r else 0.0


def roc_auc(y: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve by the rank statistic (ties share their mean rank)."""
    y = np.asarray(y).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    n_pos = int(y.sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores), dtype=np.float64)
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def best_f1_threshold(y: np.ndarray, scores: np.ndarray, metric: str = "macro") -> float:
    """The score threshold that maximises macro-F1 (or positive F1) over a grid."""
    y = np.asarray(y).astype(bool)
    best_t, best_v = 0.5, -1.0
    for t in np.linspace(0.02, 0.98, 97):
        pred = scores >= t
        v = macro_f1(y, pred) if metric == "macro" else precision_recall_f1(y, pred)[2]
        if v > best_v:
            best_t, best_v = float(t), v
    return best_t
