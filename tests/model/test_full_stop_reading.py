"""The shipped model with the threat head reading past a final full stop (rule 102,
moderation/full_stop.py), against the same file read as written: on every path a
message is scored by, the reading is the higher threat score of the two readings and
nothing else."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from moderation import metrics
from moderation.classifier import Classifier, Encoded
from moderation.config import ClassifierSettings
from moderation.full_stop import ID_SUFFIX, without_final_stop
from moderation.replay.scoring import model_facts

# Written for this test (not the behaviour suite's lines): threats with and without a
# full stop, violent words in chat, plain chat, an ellipsis, a message cut to fit.
TEXTS = [
    "i will find you and hurt you.",
    "go hang yourself.",
    "I'll make sure you never walk again.",
    "i will find you and hurt you",
    "this boss fight killed me.",
    "I'm going to kill this exam.",
    "lunch was great, thanks.",
    "see you at the gym tomorrow...",
    "you're dead meat.",
    "ok.",
    "word " * 200 + "hurt you.",
]


@pytest.fixture(scope="module")
def readers() -> tuple[Classifier, Classifier]:
    settings = ClassifierSettings(threads=1)
    off = Classifier(replace(settings, threat_past_full_stop=False))
    on = Classifier(replace(settings, threat_past_full_stop=True))
    return off, on


def _expected(off: Classifier, encoded: Encoded, first: np.ndarray) -> np.ndarray:
    """What the reading should give, from the file read as written (``off``)."""
    t = off.labels.index("threat")
    threshold = off.manifest["thresholds"]["threat"]
    stripped = without_final_stop(encoded.ids, off.vocabulary()["."])
    if encoded.truncated or first[t] >= threshold or stripped is None:
        return first
    out = first.copy()
    out[t] = max(first[t], off.scores(Encoded(stripped, False))[t])
    return out


def test_the_threat_head_reads_past_the_full_stop_and_no_other_head_moves(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, on = readers
    t = off.labels.index("threat")
    threshold = off.manifest["thresholds"]["threat"]
    crossed = 0
    for text in TEXTS:
        encoded = off.encode(text)
        first = off.scores(encoded)
        row = on.scores(on.encode(text))
        assert np.array_equal(row, _expected(off, encoded, first)), text[:60]
        crossed += int(first[t] < threshold <= row[t])
    # Some of these threats are nudged only with the reading (else this proves nothing).
    assert crossed >= 2, crossed


def test_batches_and_a_second_lane_read_past_it_too(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, on = readers
    t = off.labels.index("threat")
    batch = [on.encode(text) for text in TEXTS[:3]]
    padded, as_written = on.scores_padded(batch), off.scores_padded(batch)
    for i, encoded in enumerate(batch):
        assert np.array_equal(padded[i], _expected(off, encoded, as_written[i]))
    same = [on.encode("go hang yourself."), on.encode("lunch was great.")]
    assert same[0].tokens == same[1].tokens
    rows, written = on.scores_same_length(same), off.scores_same_length(same)
    for i, encoded in enumerate(same):
        assert np.array_equal(rows[i], _expected(off, encoded, written[i]))
    # The benchmark's row for the reading as written (`bench model`, e-screen-stop).
    for encoded in batch:
        assert np.array_equal(on.scores(encoded, past_full_stop=False), off.scores(encoded))
    lane = on.second_session(1)
    encoded = on.encode(TEXTS[0])
    assert lane(encoded)[t] == on.scores(encoded)[t] > off.scores(encoded)[t]


def test_the_model_id_and_the_info_metric_say_whether_it_reads_past_it(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, on = readers
    assert on.model_id == off.model_id + ID_SUFFIX
    assert on.threat_past_full_stop and not off.threat_past_full_stop
    metrics.describe_model(on)
    assert metrics.MODEL_INFO._value["threat_past_full_stop"] == "true"
    assert metrics.MODEL_INFO._value["id"] == on.model_id
    metrics.describe_model(off)
    assert metrics.MODEL_INFO._value["threat_past_full_stop"] == "false"
    # The replay names what it runs as the classifier does, without loading it.
    for c in readers:
        settings = replace(
            ClassifierSettings(threads=1), threat_past_full_stop=c.threat_past_full_stop
        )
        assert model_facts(settings)["id"] == c.model_id
