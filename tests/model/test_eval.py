"""The shipped model may not regress below what its card says `moderation eval` measured.

Re-runs the behaviour suite, the evasion variants and benign chat on the shipped
path and compares pass rates with the ``eval-<cpu kind>.json`` reports beside the
model (the card's tables are rendered from them). int8 arithmetic differs a little
between CPU kinds (AVX2 and AVX-512 VNNI kernels): against the report of this CPU's
kind no example may flip; against another kind's (when this kind has none), one per
row may.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from moderation.classifier import Classifier
from moderation.config import default_model_dir
from moderation.cpu import cpu_info
from moderation.evaluation import run
from moderation.policy import Policy

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
pytestmark = pytest.mark.slow


class _Remembering:
    """The shipped classifier, each distinct text classified once for this module: five
    tests read the whole suite (as written, with and without a full stop, with mentions
    put in), and scoring it costs some twenty seconds each time. The model is
    deterministic on one machine, so a remembered verdict is the one it would give again.
    """

    def __init__(self, classifier: Classifier) -> None:
        self._classifier = classifier
        self._seen: dict[str, Any] = {}

    def classify(self, text: str) -> Any:
        if text not in self._seen:
            self._seen[text] = self._classifier.classify(text)
        return self._seen[text]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._classifier, name)


@pytest.fixture(scope="module")
def remembering(classifier: Classifier) -> Classifier:
    return cast(Classifier, _Remembering(classifier))


@pytest.fixture(scope="module")
def reports() -> dict[str, dict]:
    return run.reports(default_model_dir())


@pytest.fixture(scope="module")
def card(reports: dict[str, dict]) -> dict:
    """The report to hold this machine to: its own kind's, else the first one kept."""
    assert reports, "no eval-<cpu kind>.json beside the model: run `moderation eval --write`"
    return reports.get(cpu_info().kind) or next(iter(reports.values()))


@pytest.fixture(scope="module")
def policy(classifier: Classifier) -> Policy:
    return Policy(classifier.manifest["thresholds"])


def _slack(card: dict, n: int) -> float:
    return 0.0 if card["cpu_kind"] == cpu_info().kind else 1 / n


def test_the_card_measured_this_model(classifier: Classifier, reports: dict[str, dict]) -> None:
    text = (default_model_dir() / "MODEL_CARD.md").read_text()
    for kind, report in reports.items():
        assert report["model"] == classifier.model_id, (
            f"eval-{kind}.json measured {report['model']}, not this model: run"
            f" `moderation eval --write` on a {kind} machine, or delete the file"
        )
        assert run.markdown(report) in text, kind


def test_behaviour_pass_rates_hold(remembering: Classifier, policy: Policy, card: dict) -> None:
    now = run.behaviour(remembering, policy)
    assert set(now) == set(card["behaviour"]), "the suite changed: re-run `moderation eval`"
    for name, row in now.items():
        floor = card["behaviour"][name]["rate"] - _slack(card, row["n"])
        assert row["rate"] >= floor - 1e-9, (name, row["rate"], floor, row["failures"])
        # No identity group may fall behind where the card has it.
        for group, was in card["behaviour"][name].get("by_group", {}).items():
            got = row["by_group"][group]
            assert got["n"] == was["n"], (name, group)
            floor = was["passed"] / was["n"] - _slack(card, was["n"])
            assert got["passed"] / got["n"] >= floor - 1e-9, (name, group, got, was)


def test_benign_chat_nudge_rate_holds(classifier: Classifier, policy: Policy, card: dict) -> None:
    was = card["benign_chat"]
    now = run.benign_chat(classifier, policy, was["n"])
    assert now["nudge_rate"] <= was["nudge_rate"] + _slack(card, was["n"]) + 1e-9


def test_benign_chat_naming_a_group_nudge_rate_holds(
    classifier: Classifier, policy: Policy, card: dict
) -> None:
    if "benign_chat_groups" not in card:
        pytest.skip("the card's report predates the measure")
    was = card["benign_chat_groups"]
    now = run.benign_chat_groups(classifier, policy)
    assert now["n"] == was["n"]
    assert now["nudge_rate"] <= was["nudge_rate"] + _slack(card, was["n"]) + 1e-9


@pytest.fixture(scope="module")
def evasion_now(classifier: Classifier, policy: Policy) -> dict:
    if not DATA.is_dir():
        pytest.skip(f"no shared data at {DATA}")
    return run.evasion_rows(classifier, policy, DATA)


def test_evasions_keep_recall(evasion_now: dict, card: dict) -> None:
    for kind, row in evasion_now["evasion"].items():
        assert kind in card["evasion"], f"{kind}: not in the card: `moderation eval --only evasion`"
        floor = card["evasion"][kind]["retention"] - _slack(card, row["n"])
        assert row["n"] == card["evasion"][kind]["n"] or card["cpu_kind"] != cpu_info().kind
        assert row["retention"] >= floor - 1e-9, (kind, row["retention"], floor)


def test_rescoring_only_a_part_reproduces_the_stored_rows(
    remembering: Classifier,
    policy: Policy,
    reports: dict[str, dict],
    evasion_now: dict,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stored = reports.get(cpu_info().kind)
    if stored is None:
        pytest.skip(f"no eval-{cpu_info().kind}.json: nothing stored to update")
    suite_rows = (
        "behaviour",
        "final_period",
        "mentions",
        "shorthand",
        "spaces_taken_out",
        "labels",
    )
    emptied = {k: v for k, v in stored.items() if k not in suite_rows}
    rescored = run.rescored(emptied, remembering, policy, "behaviour")
    assert rescored["behaviour"] == stored["behaviour"]
    for row in ("final_period", "mentions", "shorthand", "spaces_taken_out", "labels"):
        if row in stored:
            assert rescored[row] == stored[row], row
    assert {k: v for k, v in rescored.items() if k not in suite_rows} == emptied
    # The evasion part, from the rows test_evasions_keep_recall scored (the same call).
    monkeypatch.setattr(run, "evasion_rows", lambda *_: evasion_now)
    sources = set(run.EVASION_SOURCES)
    emptied = {k: v for k, v in stored.items() if k != "evasion"}
    emptied["splits"] = {k: v for k, v in stored["splits"].items() if k not in sources}
    assert run.rescored(emptied, remembering, policy, "evasion", DATA) == {
        **stored,
        "splits": {**emptied["splits"], **evasion_now["splits"]},
    }
    assert evasion_now["evasion"] == stored["evasion"]
    for name in sources:
        assert evasion_now["splits"][name] == stored["splits"][name], name


def test_a_final_full_stop_flips_no_more_decisions_than_the_card_says(
    remembering: Classifier, policy: Policy, card: dict
) -> None:
    if "final_period" not in card:
        pytest.skip(f"eval-{card['cpu_kind']}.json predates the final full stop's measure")
    now = run.final_period(remembering, policy)
    # Against another CPU kind's report, int8's other rounding may move one example's
    # two forms apart (one flip more, one decision fewer passed) or one form of two.
    allowance = 0 if card["cpu_kind"] == cpu_info().kind else 2
    for name, row in now["capabilities"].items():
        was = card["final_period"]["capabilities"][name]
        assert row["n"] == was["n"], name
        assert row["flips"] <= was["flips"] + allowance, (name, row, was)
        assert row["passed_both_forms"] >= was["passed_both_forms"] - allowance, (name, row, was)


def test_a_mention_flips_no_more_decisions_than_the_card_says(
    remembering: Classifier, policy: Policy, card: dict
) -> None:
    if "mentions" not in card:
        pytest.skip(f"eval-{card['cpu_kind']}.json predates the mention measure")
    now = run.mentions(remembering, policy)
    assert now["n"] == card["mentions"]["n"] and set(now["probes"]) == set(
        card["mentions"]["probes"]
    )
    # Against another CPU kind's report, int8's other rounding may move a few decisions
    # of the 1,500-odd under each probe.
    allowance = 0 if card["cpu_kind"] == cpu_info().kind else 5
    for probe, row in now["probes"].items():
        was = card["mentions"]["probes"][probe]
        assert row["flips"] <= was["flips"] + allowance, (probe, row["flips"], was["flips"])
        assert row["passed"] >= was["passed"] - allowance, (probe, row["passed"], was["passed"])


def test_chat_shorthand_flips_no_more_decisions_than_the_card_says(
    remembering: Classifier, policy: Policy, card: dict
) -> None:
    assert "shorthand" in card, "no shorthand rows: `moderation eval --only behaviour --write`"
    now = run.shorthand(remembering, policy)
    was = card["shorthand"]
    assert now["n"] == was["n"], "the suite changed: re-run `moderation eval`"
    # Against another CPU kind's report, as for the mentions.
    allowance = 0 if card["cpu_kind"] == cpu_info().kind else 5
    assert now["flips"] <= was["flips"] + allowance, (now["flips"], was["flips"])
    assert now["away_from_expected"] <= was["away_from_expected"] + allowance
    assert now["passed"] >= was["passed"] - allowance, (now["passed"], was["passed"])


def test_missing_spaces_flip_no_more_decisions_than_the_card_says(
    remembering: Classifier, policy: Policy, card: dict
) -> None:
    assert "spaces_taken_out" in card, (
        "no rows for the spaces taken out: `moderation eval --only behaviour --write`"
    )
    now = run.spaces_taken_out(remembering, policy)
    was = card["spaces_taken_out"]
    assert now["n"] == was["n"], "the suite changed: re-run `moderation eval`"
    # Against another CPU kind's report, as for the mentions.
    allowance = 0 if card["cpu_kind"] == cpu_info().kind else 5
    assert now["flips"] <= was["flips"] + allowance, (now["flips"], was["flips"])
    assert now["away_from_expected"] <= was["away_from_expected"] + allowance
    assert now["passed"] >= was["passed"] - allowance, (now["passed"], was["passed"])


def test_no_label_trips_on_more_examples_it_is_not_about_than_the_card_says(
    remembering: Classifier, policy: Policy, card: dict
) -> None:
    if "labels" not in card:
        pytest.skip(f"eval-{card['cpu_kind']}.json predates the label counts")
    now = run.suite_rows(remembering, policy)["labels"]
    assert set(now["off_label"]) == set(card["labels"]["off_label"])
    # Against another CPU kind's report, int8's other rounding may move a score or two
    # across its threshold.
    allowance = 0 if card["cpu_kind"] == cpu_info().kind else 2
    for key, n in now["off_label"].items():
        assert n <= card["labels"]["off_label"][key] + allowance, (key, n)


def test_validation_only_prints_the_stored_splits_but_the_insults_test_file(
    reports: dict[str, dict],
) -> None:
    import os
    import subprocess
    import sys

    stored = reports.get(cpu_info().kind)
    if stored is None or not DATA.is_dir():
        pytest.skip("needs this CPU kind's stored report and the shared data")
    proc = subprocess.run(
        [sys.executable, "-m", "moderation.cli", "eval", "--data", str(DATA), "--validation-only"],
        capture_output=True,
        timeout=300,
        check=True,
        # The model's own report is of the model alone.
        env={**os.environ, "MODERATION_SCREEN_DIR": "off"},
    )
    out = proc.stdout.decode()
    assert out.startswith(f"{stored['model']} (CPU kind {cpu_info().kind})")
    picking = {name: stored["splits"][name] for name in run.PICKING_SPLITS}
    assert "\n".join(run.split_lines(picking)) in out
    assert "insults-test" not in out and "insults-test" not in run.PICKING_SPLITS
