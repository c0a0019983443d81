import numpy as np
import pytest

from moderation.build.evaluate import SplitScores
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


def _scored_with_fp32_shifted(shift: float) -> tuple[dict[str, SplitScores], list[str]]:
    """Every threshold split with fp32 scores ``shift`` below int8's: the same ranking,
    another scale (a quantized model's scores can sit a little above or below)."""
    from moderation.build.datasets import LABELS, UNKNOWN, Example
    from moderation.build.evaluate import THRESHOLD_SPLIT

    rng = np.random.default_rng(3)
    scored: dict[str, SplitScores] = {}
    labels = list(LABELS)
    by_split = {split: label for label, split in THRESHOLD_SPLIT.items()}
    for split, label in {**by_split, "chitchat": "toxic"}.items():
        n = 400
        y = rng.integers(0, 2, n) if split != "chitchat" else np.zeros(n, int)
        j = labels.index(label)
        int8 = np.clip(0.3 + 0.4 * y + rng.normal(0, 0.15, n), 0, 1)[:, None].repeat(4, 1)
        targets = [tuple(int(v) if k == j else UNKNOWN for k in range(4)) for v in y]
        examples = [Example(f"{split} {i}", t, split) for i, t in enumerate(targets)]
        scored[split] = SplitScores(examples, np.clip(int8 - shift, 0, 1), int8)
    return scored, labels


def test_fp32_gets_thresholds_of_its_own_by_the_same_rule() -> None:
    from moderation.build.evaluate import choose_thresholds, split_metrics

    scored, labels = _scored_with_fp32_shifted(0.10)
    int8_t = choose_thresholds(scored, labels)
    fp32_t = choose_thresholds(scored, labels, "fp32")
    for label in labels:
        assert fp32_t[label] == pytest.approx(int8_t[label] - 0.10, abs=0.011)
    rows = split_metrics(scored, int8_t, labels, fp32_t)
    off = rows["tweeteval-offensive"]
    # At int8's threshold fp32 looks worse; at its own, it decides as int8 does.
    assert off["fp32"]["macro_f1"] < off["int8"]["macro_f1"] - 0.02
    assert off["fp32"]["macro_f1_own_threshold"] == pytest.approx(off["int8"]["macro_f1"], abs=0.01)
    assert (
        "macro_f1_own_threshold"
        not in split_metrics(scored, int8_t, labels)["tweeteval-offensive"]["fp32"]
    )


def test_the_card_sets_int8_against_fp32_at_its_own_threshold() -> None:
    from moderation.build.card import _accuracy_table

    row = {"label": "toxic", "n": 1324, "positives": 459}
    fp32 = {"macro_f1": 0.7641, "roc_auc": 0.8532}
    int8 = {"macro_f1": 0.7750, "f1": 0.7, "precision": 0.7, "recall": 0.72, "roc_auc": 0.8534}
    old = _accuracy_table({"tweeteval-offensive": {**row, "fp32": fp32, "int8": int8}})
    assert len(old) == 3 and "own" not in old[0]
    own = {**fp32, "own_threshold": 0.41, "macro_f1_own_threshold": 0.7712}
    new = _accuracy_table({"tweeteval-offensive": {**row, "fp32": own, "int8": int8}})
    assert new[0].endswith("| macro-F1 fp32, own threshold | int8 - fp32 (own) |")
    assert new[1].count("|---") == new[0].count("|") - 1
    assert new[2].endswith("| 0.7712 (0.41) | +0.38 |")


def test_f_beta_weighs_recall_by_beta() -> None:
    from moderation.build.metrics import f_beta

    y = np.array([1, 1, 1, 1, 0, 0])
    pred = np.array([1, 1, 0, 0, 0, 0])  # precision 1, recall 0.5
    assert f_beta(y, pred, 1.0) == pytest.approx(precision_recall_f1(y, pred)[2])
    assert f_beta(y, pred, 2.0) == pytest.approx(5 * 0.5 / (4 + 0.5))
    assert f_beta(y, np.zeros(6, dtype=bool), 2.0) == 0.0


def test_the_threat_threshold_takes_recall_where_f1_would_take_precision() -> None:
    from moderation.build.evaluate import label_threshold

    # Two threats score 0.1, among three benign lines at 0.2: F1 prefers to leave the two
    # (t above 0.2: P 1, R 0.8), F2 to catch them (t at most 0.1: P 0.77, R 1).
    y = np.array([1] * 8 + [1] * 2 + [0] * 3 + [0] * 7)
    s = np.array([0.9] * 8 + [0.1] * 2 + [0.2] * 3 + [0.0] * 7)
    benign = np.zeros(1000)
    assert label_threshold("insult", y, s, benign) > 0.2
    assert label_threshold("threat", y, s, benign) <= 0.1
    # The benign-chat budget still bounds it: 1% of chat at 0.15 lifts it past them.
    chat = np.array([0.15] * 10 + [0.0] * 990)
    assert label_threshold("threat", y, s, chat) > 0.15


def test_the_hate_threshold_is_chosen_for_macro_f1_as_toxic_is() -> None:
    from moderation.build.evaluate import label_threshold

    # Low (0.3) catches all three hateful lines and three of four others: the hate class's
    # F1 prefers it (0.67 against 0.5), macro-F1 the high one (0.65 against 0.53), which
    # is what rule 22 (docs/model.md) chose for hate; insult keeps the class's F1.
    y = np.array([1, 1, 1, 0, 0, 0, 0])
    s = np.array([0.9, 0.3, 0.3, 0.3, 0.3, 0.3, 0.0])
    benign = np.zeros(1000)
    assert label_threshold("hate", y, s, benign) > 0.3
    assert label_threshold("toxic", y, s, benign) > 0.3
    assert label_threshold("insult", y, s, benign) <= 0.3
