"""Pure pieces of the replay tool: labels, points in time, quality numbers, reading rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from moderation.policy import Policy
from moderation.replay.report import quality
from moderation.replay.sources import BadRow, Fields, Row, parse_labels, parse_point, read_jsonl


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        (1, {"nudge": 1}),
        (False, {"nudge": 0}),
        ("true", {"nudge": 1}),
        ("0", {"nudge": 0}),
        ({"toxic": 1, "hate": 0}, {"toxic": 1, "hate": 0}),
        ('{"insult": 1}', {"insult": 1}),
        (None, None),
        ("", None),
    ],
)
def test_labels(raw: object, want: object) -> None:
    assert parse_labels(raw) == want


@pytest.mark.parametrize("raw", [2, "maybe", {"toxic": 3}, [1]])
def test_bad_labels_say_why(raw: object) -> None:
    with pytest.raises(ValueError, match="label"):
        parse_labels(raw)


def test_points() -> None:
    assert parse_point("offset:42") == ("offset", 42)
    assert parse_point("1700000000000") == ("time", 1700000000000)
    assert parse_point("2023-11-14T22:13:20+00:00") == ("time", 1700000000000)
    assert parse_point(None) is None
    with pytest.raises(ValueError, match="ISO-8601"):
        parse_point("yesterday")


def test_jsonl_rows_keep_line_numbers(tmp_path: Path) -> None:
    p = tmp_path / "h.jsonl"
    p.write_bytes(b'{"id": 7, "text": "hi"}\n\n[1]\n{"text": 5}\n{"text": "x", "label": 9}\n')
    items = list(read_jsonl(p, Fields()))
    assert items[0] == Row("h.jsonl:1", "7", "hi", None)
    assert [(i.ref, i.error) for i in items[1:] if isinstance(i, BadRow)] == [
        ("h.jsonl:3", "not_an_object"),
        ("h.jsonl:4", "wrong_type"),
        ("h.jsonl:5", "bad_label"),
    ]


def test_quality_counts_and_sweep() -> None:
    thresholds = {"toxic": 0.5, "insult": 0.5}
    rows = [
        ({"toxic": 1}, {"toxic": 0.9, "insult": 0.1}),  # TP
        ({"toxic": 1}, {"toxic": 0.3, "insult": 0.1}),  # FN at 0.5, TP at 0.3
        ({"toxic": 0}, {"toxic": 0.6, "insult": 0.1}),  # FP
        ({"toxic": 0}, {"toxic": 0.1, "insult": 0.1}),  # TN
    ]
    (q,) = quality(rows, thresholds)
    assert (q.tp, q.fp, q.fn, q.tn) == (1, 1, 1, 1)
    assert q.precision == 0.5 and q.recall == 0.5
    at_030 = next(s for s in q.sweep if abs(s["threshold"] - 0.3) < 1e-9)
    assert at_030["recall"] == 1.0 and at_030["precision"] == pytest.approx(2 / 3)


def test_quality_of_any_label_agrees_with_the_live_policy() -> None:
    thresholds = {"toxic": 0.5, "insult": 0.2}
    rows = [
        ({"nudge": 1}, {"toxic": 0.1, "insult": 0.3}),  # insult over its threshold
        ({"nudge": 0}, {"toxic": 0.4, "insult": 0.1}),
        ({"nudge": 1}, {"toxic": 0.5, "insult": 0.0}),  # exactly at a threshold nudges
        ({"nudge": 0}, {"toxic": 0.49999, "insult": 0.19999}),
    ]
    (q,) = quality(rows, thresholds)
    assert (q.tp, q.fp, q.fn, q.tn) == (2, 0, 0, 2)
    # The report's "nudge" at ratio 1.0 is the worker's decision, row by row.
    policy = Policy(thresholds)
    assert [policy.decide(s) == "nudge" for _, s in rows] == [bool(t["nudge"]) for t, _ in rows]


def test_batched_scoring_warns_once_and_exact_scoring_never(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from moderation.replay.scoring import warn_if_batched

    with caplog.at_level("WARNING", logger="moderation.replay"):
        warn_if_batched(1)
        assert not caplog.records
        warn_if_batched(16)
    (record,) = caplog.records
    assert "batch size 16" in record.getMessage() and "live path" in record.getMessage()


def test_replay_processes_keep_every_live_setting_but_the_threads() -> None:
    from moderation.config import ClassifierSettings
    from moderation.replay.scoring import one_thread

    live = ClassifierSettings(
        model_dir=Path("/m"),
        threads=4,
        max_tokens=64,
        spinning=True,
        thresholds={"toxic": 0.3},
        normalize=False,
    )
    one = one_thread(live)
    assert (one.threads, one.spinning) == (1, False)
    assert (one.model_dir, one.max_tokens, one.thresholds, one.normalize) == (
        Path("/m"),
        64,
        {"toxic": 0.3},
        False,
    )
