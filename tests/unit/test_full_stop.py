"""The threat head's reading past a final full stop (moderation/full_stop.py), on token
ids and score rows of our own: which messages get a second reading, and what it keeps."""

from __future__ import annotations

import numpy as np
import pytest

from moderation.full_stop import ID_SUFFIX, PastFullStop, model_id, without_final_stop

CLS, SEP, STOP, WORD, BANG = 101, 102, 1012, 2000, 999
LABELS = ("toxic", "insult", "hate", "threat")


def _ids(*middle: int) -> np.ndarray:
    return np.array([CLS, *middle, SEP], dtype=np.int64)


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (_ids(WORD, WORD, STOP), [CLS, WORD, WORD, SEP]),
        (_ids(WORD, STOP), [CLS, WORD, SEP]),
        (_ids(WORD, WORD), None),  # no full stop
        (_ids(WORD, STOP, STOP, STOP), None),  # an ellipsis
        (_ids(WORD, STOP, STOP), None),
        (_ids(WORD, BANG), None),
        (_ids(STOP), None),  # nothing else to read
        (_ids(STOP, WORD), None),  # not at the end
    ],
)
def test_only_one_final_full_stop_is_taken_off(ids: np.ndarray, expected: list[int] | None) -> None:
    out = without_final_stop(ids, STOP)
    assert (None if out is None else out.tolist()) == expected


def _reading(threshold: float = 0.28) -> PastFullStop:
    thresholds = np.array([0.38, 0.38, 0.41, threshold])
    reading = PastFullStop.for_model(LABELS, thresholds, {".": STOP, "[SEP]": SEP})
    assert reading is not None
    return reading


class _Scorer:
    """Scores token ids with a fixed row; remembers what it was asked to read."""

    def __init__(self, row: list[float]) -> None:
        self.row = np.array(row)
        self.read: list[list[int]] = []

    def __call__(self, ids: np.ndarray) -> np.ndarray:
        self.read.append(ids.tolist())
        return self.row


def test_the_threat_score_is_the_higher_of_the_two_readings_and_nothing_else_moves() -> None:
    first = np.array([0.10, 0.20, 0.05, 0.03])
    second = _Scorer([0.90, 0.90, 0.90, 0.70])
    out = _reading().apply(_ids(WORD, STOP), False, first, second)
    assert second.read == [[CLS, WORD, SEP]]
    assert out.tolist() == [0.10, 0.20, 0.05, 0.70]
    assert first.tolist() == [0.10, 0.20, 0.05, 0.03]  # the caller's row is not changed
    lower = _reading().apply(_ids(WORD, STOP), False, first, _Scorer([0.0, 0.0, 0.0, 0.01]))
    assert lower.tolist() == first.tolist()


@pytest.mark.parametrize(
    ("ids", "truncated", "threat"),
    [
        (_ids(WORD, WORD), False, 0.03),  # no final full stop
        (_ids(WORD, STOP), True, 0.03),  # cut to fit: its end is not the message's
        (_ids(WORD, STOP), False, 0.28),  # already at the threshold
        (_ids(WORD, STOP), False, 0.95),
    ],
)
def test_no_second_reading_where_it_cannot_change_the_verdict_or_does_not_apply(
    ids: np.ndarray, truncated: bool, threat: float
) -> None:
    first = np.array([0.1, 0.1, 0.1, threat])
    second = _Scorer([0.9, 0.9, 0.9, 0.99])
    assert _reading().apply(ids, truncated, first, second).tolist() == first.tolist()
    assert second.read == []


def test_the_threshold_in_force_decides_whether_to_read_again() -> None:
    first = np.array([0.1, 0.1, 0.1, 0.5])
    second = _Scorer([0.0, 0.0, 0.0, 0.8])
    assert _reading(0.6).apply(_ids(WORD, STOP), False, first, second)[3] == 0.8
    assert _reading(0.4).apply(_ids(WORD, STOP), False, first, second)[3] == 0.5


def test_a_model_without_a_threat_head_is_read_as_written_and_keeps_its_id() -> None:
    thresholds = np.array([0.5, 0.5])
    assert PastFullStop.for_model(("toxic", "insult"), thresholds, {".": STOP}) is None
    assert model_id("m@1", True, ("toxic", "insult")) == "m@1"
    assert model_id("m@1", False, LABELS) == "m@1"
    assert model_id("m@1", True, LABELS) == "m@1" + ID_SUFFIX


def test_a_vocabulary_without_a_full_stop_never_reads_again() -> None:
    reading = PastFullStop.for_model(LABELS, np.array([0.4] * 4), {"[SEP]": SEP})
    assert reading is not None
    second = _Scorer([0.9] * 4)
    first = np.array([0.0] * 4)
    assert reading.apply(_ids(WORD, STOP), False, first, second).tolist() == first.tolist()
    assert second.read == []
