"""Which ratio a screen may answer alone at (moderation/evaluation/screen_ratio.py): the
arithmetic over the model's decisions and the screen's scores."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from moderation.errors import ModelLoadError, ModerationError
from moderation.evaluation.screen_ratio import chosen, ratio_rows, relative, table


def test_relative_is_each_rows_highest_share_of_its_heads_threshold() -> None:
    scores = np.array([[0.02, 0.10, 0.0, 0.0], [0.30, 0.0, 0.0, 0.0]])
    thresholds = np.array([0.2, 0.5, 0.5, 0.25])
    np.testing.assert_allclose(relative(scores, thresholds), [0.2, 1.5])


def test_a_split_may_lose_one_percent_of_the_models_nudges_and_no_more() -> None:
    nudged = np.zeros(300, dtype=bool)
    nudged[:200] = True
    screen = np.ones(300)
    screen[:2] = 0.07  # two of the 200 nudges read as plainly benign by the screen
    screen[2:4] = 0.15  # two more, only below a ratio of 0.2
    screen[250:] = 0.01  # messages the model allows, screened at every ratio
    chat = np.array([0.01, 0.06, 0.12, 0.5])
    rows = ratio_rows({"split": nudged}, {"split": screen}, chat, ratios=(0.1, 0.05, 0.2))
    assert [r.ratio for r in rows] == [0.05, 0.1, 0.2]
    assert [r.lost["split"] for r in rows] == [(0, 200), (2, 200), (4, 200)]
    assert [r.holds for r in rows] == [True, True, False]  # 1% holds, 2% does not
    assert [r.answered_alone for r in rows] == [0.25, 0.5, 0.75]
    assert chosen(rows) == 0.1


def test_every_split_must_hold_and_a_split_the_model_never_nudges_holds() -> None:
    rows = ratio_rows(
        {"a": np.array([True, False]), "b": np.array([True, True]), "none": np.zeros(3, bool)},
        {"a": np.array([0.5, 0.0]), "b": np.array([0.04, 0.5]), "none": np.zeros(3)},
        np.array([0.0]),
        ratios=(0.05, 0.3),
    )
    assert [r.lost for r in rows] == [
        {"a": (0, 1), "b": (1, 2), "none": (0, 0)},
        {"a": (0, 1), "b": (1, 2), "none": (0, 0)},
    ]
    assert not any(r.holds for r in rows)
    assert chosen(rows) is None


def test_the_share_allowed_can_be_set() -> None:
    nudged = np.array([True] * 10)
    screen = np.array([0.0] + [1.0] * 9)
    strict = ratio_rows({"s": nudged}, {"s": screen}, np.zeros(1), (0.1,))
    loose = ratio_rows({"s": nudged}, {"s": screen}, np.zeros(1), (0.1,), max_lost_share=0.1)
    assert (strict[0].holds, loose[0].holds) == (False, True)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"ratios": (0.0,)}, ModelLoadError, "between 0 and 1"),
        ({"ratios": (1.0,)}, ModelLoadError, "between 0 and 1"),
        ({"max_lost_share": 1.0}, ModerationError, "expected a share in [0, 1)"),
        ({"max_lost_share": -0.1}, ModerationError, "expected a share in [0, 1)"),
    ],
)
def test_a_bad_ratio_or_share_is_refused(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=re.escape(message)):
        ratio_rows({"s": np.array([True])}, {"s": np.array([0.0])}, np.zeros(1), **kwargs)


def test_the_model_and_the_screen_must_have_read_the_same_messages() -> None:
    with pytest.raises(ModerationError, match="the same splits are needed"):
        ratio_rows({"a": np.array([True])}, {"b": np.array([0.0])}, np.zeros(1))
    with pytest.raises(ModerationError, match="a: 2 decisions of the model against 1"):
        ratio_rows({"a": np.array([True, False])}, {"a": np.array([0.0])}, np.zeros(1))
    with pytest.raises(ModerationError, match="no chat messages"):
        ratio_rows({"a": np.array([True])}, {"a": np.array([0.0])}, np.zeros(0))


def test_the_table_has_a_line_per_ratio_with_each_splits_loss() -> None:
    rows = ratio_rows(
        {"tweets": np.array([True, True]), "chat": np.array([True, False])},
        {"tweets": np.array([0.08, 0.9]), "chat": np.array([0.9, 0.0])},
        np.array([0.01, 0.9]),
        ratios=(0.05, 0.1),
    )
    assert table(rows) == [
        "| ratio | holds | tweets | chat | chat answered alone |",
        "|---|---|---|---|---|",
        "| 0.05 | yes | 0/2 | 0/1 | 50.00% |",
        "| 0.1 | no | 1/2 | 0/1 | 50.00% |",
    ]
    assert table([]) == []
