"""`moderation eval-diff`: two stored reports of one CPU kind, row by row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from moderation.cli import main
from moderation.errors import ModerationError
from moderation.evaluation.compare import diff_table


def _report(model: str, threats: int, trans: int, f1: float, kind: str = "avx2") -> dict[str, Any]:
    return {
        "model": model,
        "cpu_kind": kind,
        "thresholds": {"toxic": 0.5, "threat": 0.3},
        "splits": {"convabuse": {"label": "toxic", "macro_f1": f1}},
        "behaviour": {
            "threat_to_person": {"passed": threats, "n": 100},
            "negated_hate": {
                "passed": 100 + trans,
                "n": 120,
                "by_group": {
                    "women": {"passed": 12, "n": 12},
                    "trans people": {"passed": trans, "n": 12},
                },
            },
        },
        "evasion": {"leetspeak": {"retention": 0.99}},
        "benign_chat": {"nudge_rate": 0.005},
    }


def test_each_row_shows_both_values_and_the_change() -> None:
    text = diff_table(_report("m@a", 87, 5, 0.8873), _report("m@b", 84, 12, 0.9034))
    assert "| row | m@a | m@b | change |" in text
    assert "| threat_to_person (passed) | 87 | 84 | -3 |" in text
    assert "| negated_hate (passed) | 105 | 112 | +7 |" in text
    assert "| negated_hate: trans people | 5 | 12 | +7 |" in text
    assert "| negated_hate: women | 12 | 12 | = |" in text
    assert "| convabuse macro-F1 | 0.8873 | 0.9034 | +1.61 pt |" in text
    assert "| benign chat nudged | 0.50% | 0.50% | = |" in text
    changed = diff_table(
        _report("m@a", 87, 5, 0.8873), _report("m@b", 84, 12, 0.9034), changed_only=True
    )
    assert "women" not in changed and "benign chat" not in changed
    assert "| threat_to_person (passed) | 87 | 84 | -3 |" in changed


def test_a_row_one_report_lacks_is_shown_empty_not_dropped() -> None:
    old = _report("m@a", 87, 5, 0.88)
    del old["behaviour"]["negated_hate"]["by_group"]
    text = diff_table(old, _report("m@b", 84, 12, 0.88), changed_only=True)
    assert "| negated_hate: trans people | - | 12 |  |" in text


def test_final_full_stop_flips_show_where_a_report_has_them_and_not_where_neither_does() -> None:
    old, new = _report("m@a", 87, 5, 0.88), _report("m@b", 84, 12, 0.88)
    assert "final full stop" not in diff_table(old, new)
    new["final_period"] = {"capabilities": {}, "n": 1573, "flips": 40}
    assert "| final full stop: flips | - | 40 |  |" in diff_table(old, new)
    old["final_period"] = {"capabilities": {}, "n": 1573, "flips": 103}
    assert "| final full stop: flips | 103 | 40 | -63 |" in diff_table(old, new)


def test_mention_flips_show_per_probe_either_report_has() -> None:
    old, new = _report("m@a", 87, 5, 0.88), _report("m@b", 84, 12, 0.88)
    assert "mention" not in diff_table(old, new)
    old["mentions"] = {"n": 1573, "probes": {"@user {}": {"flips": 197}}}
    new["mentions"] = {"n": 1573, "probes": {"@user {}": {"flips": 60}, "{} @sam": {"flips": 9}}}
    text = diff_table(old, new)
    assert "| mention `@user {}`: flips | 197 | 60 | -137 |" in text
    assert "| mention `{} @sam`: flips | - | 9 |  |" in text


def test_shorthand_flips_show_where_a_report_has_them() -> None:
    old, new = _report("m@a", 87, 5, 0.88), _report("m@b", 84, 12, 0.88)
    assert "shorthand" not in diff_table(old, new)
    old["shorthand"] = {"n": 1028, "flips": 158, "away_from_expected": 110}
    new["shorthand"] = {"n": 1028, "flips": 3, "away_from_expected": 3}
    text = diff_table(old, new)
    assert "| chat shorthand: flips | 158 | 3 | -155 |" in text
    assert "| chat shorthand: away from expected | 110 | 3 | -107 |" in text


def test_off_label_counts_show_per_capability_and_label() -> None:
    old, new = _report("m@a", 87, 5, 0.88), _report("m@b", 84, 12, 0.88)
    assert "off-label" not in diff_table(old, new)
    old["labels"] = {"off_label": {"insult_to_person: threat": 54}}
    new["labels"] = {"off_label": {"insult_to_person: threat": 9, "insult_to_person: hate": 40}}
    text = diff_table(old, new)
    assert "| off-label insult_to_person: threat | 54 | 9 | -45 |" in text
    assert "| off-label insult_to_person: hate | - | 40 |  |" in text


def test_reports_of_two_cpu_kinds_are_refused() -> None:
    with pytest.raises(ModerationError, match="measured on avx2 and avx512-vnni"):
        diff_table(_report("m@a", 87, 5, 0.88), _report("m@b", 84, 12, 0.88, "avx512-vnni"))


def test_the_command_reads_the_stored_reports_and_names_a_missing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = tmp_path / "base", tmp_path / "cand"
    base.mkdir()
    cand.mkdir()
    (base / "eval-avx2.json").write_text(json.dumps(_report("m@a", 87, 5, 0.88)))
    (cand / "eval-avx2.json").write_text(json.dumps(_report("m@b", 90, 5, 0.88)))
    assert main(["eval-diff", str(base), str(cand), "--kind", "avx2", "--changed"]) == 0
    out = capsys.readouterr().out
    assert "| threat_to_person (passed) | 87 | 90 | +3 |" in out
    assert "convabuse" not in out
    assert main(["eval-diff", str(base), str(cand), "--kind", "avx512-vnni"]) == 2
    assert "no eval-avx512-vnni.json in " in capsys.readouterr().err
