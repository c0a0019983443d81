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


def test_a_perfectly_separated_split_gets_the_middle_threshold_not_the_lowest() -> None:
    from moderation.build.evaluate import choose_threshold

    # Every threshold in (0.02, 0.98) separates these: the lowest tie (0.05) would nudge
    # any look-alike scoring 0.06, the middle one leaves margin on both sides.
    y = np.array([0, 0, 0, 1, 1, 1])
    s = np.array([0.0, 0.01, 0.02, 0.98, 0.99, 1.0])
    benign = np.zeros(100)
    t = choose_threshold(y, s, benign, max_benign_rate=0.01, macro=False)
    assert t == pytest.approx(0.5)


def test_the_benign_chat_budget_bounds_the_threshold_from_below() -> None:
    from moderation.build.evaluate import choose_threshold

    y = np.array([0, 0, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.4])
    benign = np.array([0.35] * 5 + [0.0] * 95)  # 5% of chat scores 0.35
    free = choose_threshold(y, s, np.zeros(100), max_benign_rate=0.01, macro=True)
    bound = choose_threshold(y, s, benign, max_benign_rate=0.01, macro=True)
    assert 0.2 < free <= 0.3
    assert bound > 0.35  # the best F1 no longer fits the budget


def test_a_single_best_threshold_is_kept() -> None:
    from moderation.build.evaluate import choose_threshold

    y = np.array([0, 1, 0, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.6, 0.8])
    t = choose_threshold(y, s, np.zeros(10), max_benign_rate=0.0, macro=False)
    # F1 at t<=0.2: P 3/4 R 1 -> 0.857 (the best, tied over (0.1, 0.2]); above 0.3: 0.8
    assert 0.1 < t <= 0.2
