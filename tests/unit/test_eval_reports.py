"""`moderation eval --write` keeps one report, and one card section, per CPU kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from moderation.evaluation import run


def _report(kind: str, rate: float) -> dict[str, Any]:
    return {
        "model": "m@abc",
        "cpu_kind": kind,
        "thresholds": {"toxic": 0.5},
        "splits": {"davidson": {"label": "toxic", "n": 10, "positives": 4, "macro_f1": rate}},
        "behaviour": {"threat_to_person": {"expected": "nudge", "rate": rate, "n": 10}},
        "evasion": {"leetspeak": {"retention": 1.0, "still_caught": 4, "n": 4}},
        "benign_chat": {"n": 100, "nudge_rate": 0.01},
    }


def test_a_second_kind_adds_its_section_and_keeps_the_first(tmp_path: Path) -> None:
    (tmp_path / "MODEL_CARD.md").write_text("# Model card\n\n## Limits\n\n- English only.\n")
    run.write(_report("avx2", 0.9), tmp_path)
    run.write(_report("avx512-vnni", 0.8), tmp_path)
    card = (tmp_path / "MODEL_CARD.md").read_text()
    assert card.count("## Evaluation (`moderation eval`)") == 1
    assert run.markdown(_report("avx2", 0.9)) in card
    assert run.markdown(_report("avx512-vnni", 0.8)) in card
    assert card.index("eval-avx2:end") < card.index("eval-avx512-vnni:start")
    assert sorted(p.name for p in tmp_path.glob("eval-*.json")) == [
        "eval-avx2.json",
        "eval-avx512-vnni.json",
    ]
    assert {
        k: r["behaviour"]["threat_to_person"]["rate"] for k, r in run.reports(tmp_path).items()
    } == {
        "avx2": 0.9,
        "avx512-vnni": 0.8,
    }


def test_rewriting_a_kind_replaces_only_its_own_section(tmp_path: Path) -> None:
    run.write(_report("avx2", 0.9), tmp_path)
    run.write(_report("avx512-vnni", 0.8), tmp_path)
    run.write(_report("avx2", 0.7), tmp_path)
    card = (tmp_path / "MODEL_CARD.md").read_text()
    assert run.markdown(_report("avx2", 0.9)) not in card
    assert run.markdown(_report("avx2", 0.7)) in card
    assert run.markdown(_report("avx512-vnni", 0.8)) in card
    assert card.count("<!-- eval-avx2:start -->") == 1


class _Named:
    """All the refusal reads of a classifier: its model id."""

    model_id = "m@abc"


@pytest.mark.parametrize("part", run.RESCORABLE)
def test_rescoring_a_part_refuses_a_report_of_another_model_kind_or_thresholds(part: str) -> None:
    from moderation.classifier import Classifier
    from moderation.cpu import cpu_info
    from moderation.errors import ModerationError
    from moderation.policy import Policy

    classifier = cast(Classifier, _Named())
    policy = Policy({"toxic": 0.5})
    here = cpu_info().kind
    other = "avx2" if here != "avx2" else "avx512-vnni"
    cases = {
        "model 'm@old'": {**_report(here, 0.9), "model": "m@old"},
        f"CPU kind '{other}'": _report(other, 0.9),
        "thresholds {'toxic': 0.4}": {**_report(here, 0.9), "thresholds": {"toxic": 0.4}},
    }
    for says, stored in cases.items():
        with pytest.raises(ModerationError, match="run the whole") as caught:
            run.rescored(stored, classifier, policy, part, Path("data"))
        assert says in str(caught.value)
        assert f"eval --only {part}:" in str(caught.value)


def test_rescoring_names_what_it_cannot_do() -> None:
    from moderation.classifier import Classifier
    from moderation.cpu import cpu_info
    from moderation.errors import ModerationError
    from moderation.policy import Policy

    classifier = cast(Classifier, _Named())
    policy = Policy({"toxic": 0.5})
    stored = {**_report(cpu_info().kind, 0.9), "model": _Named.model_id}
    with pytest.raises(ModerationError, match="choose one of behaviour, evasion"):
        run.rescored(stored, classifier, policy, "splits", Path("data"))
    with pytest.raises(ModerationError, match="--only evasion needs --data"):
        run.rescored(stored, classifier, policy, "evasion")


def test_identity_capabilities_are_counted_per_group_and_tabled_in_the_card() -> None:
    examples = ["I love Muslims.", "No Muslim deserves to die.", "I love women.", "Hi women."]
    by_group = run._by_group(examples, [True, False, True, True])
    assert by_group == {"Muslims": {"passed": 1, "n": 2}, "women": {"passed": 2, "n": 2}}
    # A capability with any example that names no one group gets no breakdown.
    assert run._by_group([*examples, "see you on monday"], [True] * 5) == {}
    report = _report("avx2", 0.9)
    report["behaviour"]["negated_hate"] = {
        "expected": "allow",
        "rate": 0.75,
        "n": 4,
        "by_group": by_group,
    }
    text = run.markdown(report)
    assert "| identity group (examples passed) | negated_hate |" in text
    assert "| Muslims | 1/2 |" in text and "| women | 2/2 |" in text
    assert "identity group" not in run.markdown(_report("avx2", 0.9))
