"""The suite's label counts (evaluation/labels.py), on judges whose answers are known."""

from __future__ import annotations

from moderation.evaluation.behaviour import suite
from moderation.evaluation.labels import OFF_LABELS, labels_tripped
from moderation.evaluation.run import markdown

LABELS = ["toxic", "insult", "hate", "threat"]


def test_a_judge_that_trips_every_label_on_every_nudge_counts_each_once_per_example() -> None:
    expected = {t: cap.expected for cap in suite() for t in cap.examples}
    report = labels_tripped(lambda t: LABELS if expected[t] == "nudge" else [], LABELS)
    assert report["labels"] == LABELS
    for cap in suite():
        row = report["capabilities"][cap.name]
        want = len(cap.examples) if cap.expected == "nudge" else 0
        assert row == {"n": len(cap.examples), **dict.fromkeys(LABELS, want)}
    insults = len(next(c for c in suite() if c.name == "insult_to_person").examples)
    assert report["off_label"]["insult_to_person: threat"] == insults
    assert set(report["off_label"]) == {f"{c}: {x}" for c, xs in OFF_LABELS.items() for x in xs}


def test_a_judge_that_calls_only_threats_threats_has_no_off_label_count() -> None:
    threats = set(next(c for c in suite() if c.name == "threat_to_person").examples)
    report = labels_tripped(lambda t: ["threat"] if t in threats else ["toxic"], LABELS)
    assert report["capabilities"]["threat_to_person"]["threat"] == len(threats)
    assert report["capabilities"]["insult_to_person"]["toxic"] > 0
    assert set(report["off_label"].values()) == {0}


def test_the_card_tables_the_counts_and_names_the_off_label_ones() -> None:
    tripped = labels_tripped(lambda t: ["threat"] if "you" in t else [], LABELS)
    report = {
        "model": "m@a",
        "cpu_kind": "avx2",
        "splits": {},
        "behaviour": {},
        "evasion": {},
        "benign_chat": {"n": 1, "nudge_rate": 0.0},
        "labels": tripped,
    }
    text = markdown(report)
    assert "| labels tripped (suite, as written) | n | toxic | insult | hate | threat |" in text
    row = tripped["capabilities"]["insult_to_person"]
    assert f"| insult_to_person | {row['n']} | 0 | 0 | 0 | {row['threat']} |" in text
    assert f"insult_to_person: threat {row['threat']}; insult_to_person: hate 0" in text
