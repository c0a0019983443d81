"""The threat head's second reading: past a final full stop (docs/model.md, rule 102),
past the mentions a message opens with (rule 103) and past every other mention in it
(rule 104).

None of the shipped recipe's threat positives ends in a full stop, against 40% of the
threat head's negatives, and none holds a mention ("@sam ...", "hey @sam ...", "...
@sam"), which only tweets the head is not supervised on carry. So the head learned both
as signs of harmlessness: "I will find you." can be allowed where "I will find you" is
nudged. Training them away cost negated hate, counter-speech and validation splits
(rules 10-13), which the other heads read with their full stops and mentions. So only
the threat head reads past them, at inference: a message whose tokens end in one full
stop or hold mentions, and whose threat score is under the threshold in force, is scored
a second time without them, and its threat score is the higher of the two readings.
Every other head keeps the message as written. It works on token ids, so the verdict
cache (keyed by ids) stays exact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

LABEL = "threat"
# Verdicts and cache entries differ with each reading on, so the model id says so.
STOP_SUFFIX = "+threat-past-stop"
MENTION_SUFFIX = "+threat-past-mention"
INNER_MENTION_SUFFIX = "+threat-past-inner-mention"
STOP = "."
AT = "@"
UNDERSCORE = "_"


class _ReadingSettings(Protocol):
    @property
    def threat_past_full_stop(self) -> bool: ...

    @property
    def threat_past_mentions(self) -> bool: ...

    @property
    def threat_past_inner_mentions(self) -> bool: ...


@dataclass(frozen=True)
class Readings:
    """Which parts of a message the threat head's second reading leaves out: a final full
    stop (rule 102), the mentions it opens with (rule 103), every other mention (rule 104)."""

    full_stop: bool = False
    mentions: bool = False
    inner_mentions: bool = False

    @classmethod
    def of(cls, settings: _ReadingSettings) -> Readings:
        """The readings a classifier's settings switch on."""
        return cls(
            settings.threat_past_full_stop,
            settings.threat_past_mentions,
            settings.threat_past_inner_mentions,
        )

    @property
    def any(self) -> bool:
        return self.full_stop or self.mentions or self.inner_mentions

    @property
    def suffix(self) -> str:
        """What the model id gains: one part per reading on, so that verdicts and cache
        entries of different readings never mix."""
        return (
            (STOP_SUFFIX if self.full_stop else "")
            + (MENTION_SUFFIX if self.mentions else "")
            + (INNER_MENTION_SUFFIX if self.inner_mentions else "")
        )


def model_id(base: str, labels: Sequence[str], readings: Readings) -> str:
    """The id of ``base`` as the classifier runs it: with a suffix for each reading on
    (where the model has a threat head)."""
    return base + readings.suffix if LABEL in labels else base


def without_final_stop(ids: np.ndarray, stop_id: int) -> np.ndarray | None:
    """``[CLS] ... [SEP]`` without the one full stop before ``[SEP]``; None where the
    message does not end in exactly one (an ellipsis is three) or is nothing else."""
    if ids.shape[0] < 4 or ids[-2] != stop_id or ids[-3] == stop_id:
        return None
    return np.concatenate([ids[:-2], ids[-1:]])


class Handles:
    """What a mention's tokens are, from a vocabulary: "@", then a handle made of a word
    piece, its "##" pieces, and any "_" with the piece after it and that one's pieces
    ("@jess_92" is "@", "jess", "_", "92")."""

    def __init__(self, vocab: Mapping[str, int]) -> None:
        self.at = vocab.get(AT, -1)
        self.underscore = vocab.get(UNDERSCORE, -1)
        self.words = np.zeros(max(vocab.values(), default=0) + 1, dtype=bool)
        self.pieces = np.zeros_like(self.words)
        for token, i in vocab.items():
            if token.startswith("##") and token[2:].isalnum():
                self.pieces[i] = True
            elif token.isalnum():
                self.words[i] = True

    def _word(self, i: int) -> bool:
        return 0 <= i < self.words.shape[0] and bool(self.words[i])

    def _piece(self, i: int) -> bool:
        return 0 <= i < self.pieces.shape[0] and bool(self.pieces[i])

    def _handle_end(self, ids: np.ndarray, j: int, end: int) -> int:
        """Where the handle starting at ``j`` ends; ``j`` if no handle starts there."""
        if j >= end or not self._word(int(ids[j])):
            return j
        j += 1
        while True:
            while j < end and self._piece(int(ids[j])):
                j += 1
            if j + 1 < end and ids[j] == self.underscore and self._word(int(ids[j + 1])):
                j += 2
                continue
            return j

    def without(self, ids: np.ndarray, *, leading: bool, inner: bool) -> np.ndarray | None:
        """``[CLS] ... [SEP]`` without the mentions it opens with (``leading``) and every
        other mention in it (``inner``: after a word, at the end), where a word remains;
        None where nothing is left out. On ids an address's "@" ("bob@example.com") is a
        mention too: no space tells them apart (docs/model.md, rule 104)."""
        end = ids.shape[0] - 1  # [SEP]
        ats = np.flatnonzero(ids[:end] == self.at)
        if ats.size == 0:
            return None
        keep = np.ones(ids.shape[0], dtype=bool)
        opening_end = 1  # where the run of mentions the message opens with ends
        for at in ats.tolist():
            after = self._handle_end(ids, at + 1, end)
            if after == at + 1:
                continue  # "@" and no handle: not a mention, and no longer the opening
            opening = at == opening_end
            if opening:
                opening_end = after
            if leading if opening else inner:
                keep[at:after] = False
        if keep.all():
            return None
        out = ids[keep]
        if not any(self._word(int(i)) for i in out[1:-1]):
            return None
        return out


class ThreatReading:
    """Rules 102-104 for one model: its threat column, the threshold in force, and what
    the second reading leaves out."""

    def __init__(
        self,
        column: int,
        threshold: float,
        stop_id: int | None,
        handles: Handles | None,
        readings: Readings,
    ) -> None:
        self.column = column
        self.threshold = threshold
        self.stop_id = stop_id
        self.handles = handles
        self.readings = readings

    @classmethod
    def for_model(
        cls,
        labels: Sequence[str],
        thresholds: np.ndarray,
        vocab: Mapping[str, int],
        readings: Readings,
    ) -> ThreatReading | None:
        """The reading for a model with these labels, thresholds in force (one per label)
        and vocabulary; None where no reading is on or it has no threat head
        (``model_id``'s rule). A vocabulary without a full stop never reads past one."""
        if LABEL not in labels or not readings.any:
            return None
        column = list(labels).index(LABEL)
        stop_id = vocab.get(STOP, -1) if readings.full_stop else None
        handles = Handles(vocab) if readings.mentions or readings.inner_mentions else None
        return cls(column, float(thresholds[column]), stop_id, handles, readings)

    def second_ids(self, ids: np.ndarray) -> np.ndarray | None:
        """The ids the second reading scores; None where nothing is left out."""
        out: np.ndarray | None = None
        if self.handles is not None:
            out = self.handles.without(
                ids, leading=self.readings.mentions, inner=self.readings.inner_mentions
            )
        if self.stop_id is not None:
            stripped = without_final_stop(ids if out is None else out, self.stop_id)
            if stripped is not None:
                out = stripped
        return out

    def apply(
        self,
        ids: np.ndarray,
        truncated: bool,
        row: np.ndarray,
        score: Callable[[np.ndarray], np.ndarray],
    ) -> np.ndarray:
        """``row`` (the message's scores as written) with the threat score of the second
        reading where that applies; ``score`` scores token ids as one message."""
        if truncated or row[self.column] >= self.threshold:
            return row  # cut to fit: its last token is not the message's end
        second_ids = self.second_ids(ids)
        if second_ids is None:
            return row
        second = score(second_ids)
        if second[self.column] <= row[self.column]:
            return row
        out = row.copy()
        out[self.column] = second[self.column]
        return out
