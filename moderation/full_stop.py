"""The threat head reads a message past its final full stop (docs/model.md, rule 102).

None of the shipped recipe's threat positives ends in a full stop, against 40% of the
threat head's negatives, so the head learned the full stop as a sign of harmlessness:
"I will find you." can be allowed where "I will find you" is nudged. Training the full
stop away cost negated hate and counter-speech (rules 10-11), whose lines the other heads
read with their full stops. So only the threat head reads past it, at inference: a
message whose tokens end in one full stop, and whose threat score is under the threshold
in force, is scored a second time without that token, and its threat score is the higher
of the two readings. Every other head keeps the message as written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

LABEL = "threat"
# Verdicts and cache entries differ with the reading on, so the model id says so.
ID_SUFFIX = "+threat-past-stop"
STOP = "."


def model_id(base: str, on: bool, labels: Sequence[str]) -> str:
    """The id of ``base`` as the classifier runs it: with the suffix where it reads past
    a final full stop (on, and the model has a threat head)."""
    return base + ID_SUFFIX if on and LABEL in labels else base


def without_final_stop(ids: np.ndarray, stop_id: int) -> np.ndarray | None:
    """``[CLS] ... [SEP]`` without the one full stop before ``[SEP]``; None where the
    message does not end in exactly one (an ellipsis is three) or is nothing else."""
    if ids.shape[0] < 4 or ids[-2] != stop_id or ids[-3] == stop_id:
        return None
    return np.concatenate([ids[:-2], ids[-1:]])


class PastFullStop:
    """Rule 102 for one model: its threat column, threshold and full stop's token id."""

    def __init__(self, column: int, threshold: float, stop_id: int) -> None:
        self.column = column
        self.threshold = threshold
        self.stop_id = stop_id

    @classmethod
    def for_model(
        cls, labels: Sequence[str], thresholds: np.ndarray, vocab: dict[str, int]
    ) -> PastFullStop | None:
        """The reading for a model with these labels, thresholds in force (one per label)
        and vocabulary; None where it has no threat head (``model_id``'s rule). A
        vocabulary without a full stop never reads one."""
        if LABEL not in labels:
            return None
        column = list(labels).index(LABEL)
        return cls(column, float(thresholds[column]), vocab.get(STOP, -1))

    def apply(
        self,
        ids: np.ndarray,
        truncated: bool,
        row: np.ndarray,
        score: Callable[[np.ndarray], np.ndarray],
    ) -> np.ndarray:
        """``row`` (the message's scores as written) with the threat score read past a
        final full stop where that applies; ``score`` scores token ids as one message."""
        if truncated or row[self.column] >= self.threshold:
            return row  # cut to fit: its last token is not the message's end
        stripped = without_final_stop(ids, self.stop_id)
        if stripped is None:
            return row
        second = score(stripped)
        if second[self.column] <= row[self.column]:
            return row
        out = row.copy()
        out[self.column] = second[self.column]
        return out
