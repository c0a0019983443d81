"""`moderation screen-ratio`: which ratio a screen may answer alone at, on validation data.

A screen (moderation/screen.py) allows a message alone when every head scores below
``ratio`` times its own threshold. A ratio is safe when, on every labelled validation
split, the screen would allow alone at most a small share of the messages the model
nudges (docs/model.md, rules 56, 99 and 100: at most 1%); among the safe ratios the
largest answers the most chat alone, which is what makes the pair fast. The share of
ordinary chat (chitchat validation) the screen answers alone is reported beside each
ratio. Validation splits only: no test split picks a ratio (rule 75).

The model's nudges are its decisions at the thresholds the worker would use (its card's,
with ``MODERATION_THRESHOLDS`` over them), so an operator who moves a threshold can see
whether the screen's ratio still holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from moderation.errors import ModerationError
from moderation.screen import check_ratio

if TYPE_CHECKING:
    from moderation.classifier import Classifier
    from moderation.policy import Policy

# The ratios rules 56, 99 and 100 chose among.
RATIOS = (0.05, 0.1, 0.2, 0.3)
# The most a labelled split may lose of the model's nudges to the screen.
MAX_LOST_SHARE = 0.01
# The labelled validation splits a ratio is held to (each supervises a label; the
# templates' split is left out: its held-out fifth of the training templates is easy).
LABELLED_SPLITS = (
    "tweeteval-offensive",
    "tweeteval-hate",
    "davidson",
    "insults",
    "convabuse",
    "toxigen",
)


@dataclass(frozen=True)
class RatioRow:
    """One ratio: per labelled split (messages the model nudges that the screen would
    allow alone, messages the model nudges), the share of chat answered alone, and
    whether every split stays within the allowed loss."""

    ratio: float
    lost: dict[str, tuple[int, int]]
    answered_alone: float
    holds: bool


def relative(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Each row's highest score as a share of its head's threshold: the screen answers a
    message alone at ``ratio`` when this is below it (as ``Screen.allowed_row`` does)."""
    out: np.ndarray = (scores / thresholds).max(axis=1)
    return out


def ratio_rows(
    model_nudged: Mapping[str, np.ndarray],
    screen_relative: Mapping[str, np.ndarray],
    chat_relative: np.ndarray,
    ratios: Sequence[float] = RATIOS,
    max_lost_share: float = MAX_LOST_SHARE,
) -> list[RatioRow]:
    """A row per ratio, from the model's decisions (True: nudged) and the screen's
    relative scores on the same messages of each labelled split, and the screen's relative
    scores on ordinary chat."""
    if not 0.0 <= max_lost_share < 1.0:
        raise ModerationError(f"max lost share {max_lost_share}: expected a share in [0, 1)")
    if set(model_nudged) != set(screen_relative):
        raise ModerationError(
            f"the model was read on {sorted(model_nudged)} and the screen on "
            f"{sorted(screen_relative)}: the same splits are needed"
        )
    if len(chat_relative) == 0:
        raise ModerationError("no chat messages: the share answered alone needs some")
    rows = []
    for ratio in sorted(check_ratio(r) for r in ratios):
        lost = {}
        for name, nudged in model_nudged.items():
            screened = screen_relative[name] < ratio
            if screened.shape != nudged.shape:
                raise ModerationError(
                    f"{name}: {nudged.shape[0]} decisions of the model against "
                    f"{screened.shape[0]} of the screen"
                )
            lost[name] = (int((screened & nudged).sum()), int(nudged.sum()))
        holds = all(n == 0 or k / n <= max_lost_share for k, n in lost.values())
        answered = float((chat_relative < ratio).mean())
        rows.append(RatioRow(ratio, lost, answered, holds))
    return rows


def chosen(rows: Sequence[RatioRow]) -> float | None:
    """The largest ratio that holds (None: none does)."""
    return max((row.ratio for row in rows if row.holds), default=None)


def table(rows: Sequence[RatioRow]) -> list[str]:
    """The rows as a markdown table: lost nudges per split, chat answered alone."""
    if not rows:
        return []
    names = list(rows[0].lost)
    lines = [
        "| ratio | holds | " + " | ".join(names) + " | chat answered alone |",
        "|---" * (len(names) + 3) + "|",
    ]
    for row in rows:
        cells = [f"{k}/{n}" for k, n in (row.lost[name] for name in names)]
        lines.append(
            f"| {row.ratio:g} | {'yes' if row.holds else 'no'} | "
            + " | ".join(cells)
            + f" | {row.answered_alone:.2%} |"
        )
    return lines


def validation_texts(data_dir: Path) -> tuple[dict[str, list[str]], list[str]]:
    """The texts of every labelled validation split (the splits thresholds are chosen on,
    ``datasets.validation_sets``, but the templates'), and chitchat validation's, all of
    it, in the pool's order: one read of each file."""
    from moderation.build import datasets

    sets = datasets.validation_sets(data_dir, chitchat_limit=None, seed=0)
    labelled = {name: [e.text for e in sets[name]] for name in LABELLED_SPLITS}
    return labelled, [e.text for e in sets["chitchat"]]


def measure(
    model: Classifier,
    policy: Policy,
    screen: Classifier,
    texts: Mapping[str, list[str]],
    chat: list[str],
    ratios: Sequence[float] = RATIOS,
) -> list[RatioRow]:
    """Read every text with the model alone and with the screen alone (each as the live
    path reads it: normalizer, tokenizer, int8, a batch of one) and build the rows."""
    from moderation.build.evaluate import int8_scores

    if screen.labels != model.labels:
        raise ModerationError(
            f"the screen's labels {list(screen.labels)} are not the model's {list(model.labels)}"
        )
    screen_thresholds = np.array([float(screen.manifest["thresholds"][x]) for x in screen.labels])
    nudged = {}
    screened = {}
    for name, split in texts.items():
        decisions = [
            policy.decide(model.label_scores(row)) == "nudge" for row in int8_scores(model, split)
        ]
        nudged[name] = np.array(decisions, dtype=bool)
        screened[name] = relative(int8_scores(screen, split), screen_thresholds)
    chat_relative = relative(int8_scores(screen, chat), screen_thresholds)
    return ratio_rows(nudged, screened, chat_relative, ratios)
