import numpy as np
import pytest

from moderation.build.metrics import best_f1_threshold, macro_f1, precision_recall_f1, roc_auc


def test_macro_f1_by_hand() -> None:
    y = np.array([1, 1, 0, 0, 0])
    pred = np.array([1, 0, 0, 0, 1])
    # positive: tp1 fp1 fn1 -> 0.5; negative: tp2 fp1 fn1 -> 2/3
    assert macro_f1(y, pred) == pytest.approx((0.5 + 2 / 3) / 2)
    assert precision_recall_f1(y, pred) == pytest.approx((0.5, 0.5, 0.5))


def test_roc_auc_with_ties_matches_pair_counting() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    s = np.round(rng.random(200), 1)  # many ties
    pos, neg = s[y == 1], s[y == 0]
    pairs = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    assert roc_auc(y, s) == pytest.approx(pairs / (len(pos) * len(neg)))


def test_best_threshold_separates_separable_scores() -> None:
    y = np.array([0, 0, 0, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.7, 0.9])
    t = best_f1_threshold(y, s)
    assert 0.3 < t <= 0.7
    assert macro_f1(y, s >= t) == 1.0
