"""The invariance measures of `moderation eval` (evaluation/invariance.py): a final full
stop, a mention put in, chat shorthand, the spaces taken out."""

from __future__ import annotations

import re

import pytest

from moderation.evaluation.behaviour import suite
from moderation.evaluation.invariance import (
    MENTION_PROBES,
    final_period,
    mentions,
    shorthand,
    shorthand_flips,
    spaces_taken_out,
    with_final_period,
    without_final_period,
    without_spaces,
)


@pytest.mark.parametrize(
    ("text", "bare", "dotted"),
    [
        ("I hate mondays.", "I hate mondays", "I hate mondays."),
        ("see you at 7", "see you at 7", "see you at 7."),
        ("trailing space. ", "trailing space", "trailing space."),
        ("wait for it...", "wait for it...", "wait for it..."),
        ("really?", "really?", "really?"),
        ('he said "no"', 'he said "no"', 'he said "no"'),
    ],
)
def test_the_two_forms_of_a_text(text: str, bare: str, dotted: str) -> None:
    assert (without_final_period(text), with_final_period(text)) == (bare, dotted)


def test_a_judge_blind_to_the_full_stop_flips_nothing() -> None:
    answers = {without_final_period(t): cap.expected for cap in suite() for t in cap.examples}
    report = final_period(lambda text: answers[without_final_period(text)])
    assert report["flips"] == 0
    for cap in suite():
        row = report["capabilities"][cap.name]
        assert row == {"n": len(cap.examples), "flips": 0, "passed_both_forms": 2 * row["n"]}
    assert report["n"] == sum(len(cap.examples) for cap in suite())


def test_a_judge_that_reads_the_full_stop_as_harmless_flips_every_example_it_can() -> None:
    report = final_period(lambda text: "allow" if text.endswith(".") else "nudge")
    for cap in suite():
        can_flip = sum(with_final_period(t) != without_final_period(t) for t in cap.examples)
        row = report["capabilities"][cap.name]
        assert row["flips"] == can_flip
        # Each example passes in exactly one form where it flips, in both or neither where not.
        assert row["passed_both_forms"] >= can_flip
    assert report["flips"] > 1000


def test_a_judge_blind_to_mentions_flips_nothing_under_any_probe() -> None:
    answers = {t: cap.expected for cap in suite() for t in cap.examples}

    def example(text: str) -> str:
        # The example a probe was put around (the fourteenth set's lines carry handles
        # of their own, so the probe is taken off by its own shape).
        for probe in ("{}", *MENTION_PROBES):
            before, _, after = probe.partition("{}")
            inner = text.removeprefix(before).removesuffix(after)
            if text.startswith(before) and text.endswith(after) and inner in answers:
                return inner
        raise KeyError(text)

    report = mentions(lambda text: answers[example(text)])
    n = sum(len(cap.examples) for cap in suite())
    assert report["n"] == n and list(report["probes"]) == list(MENTION_PROBES)
    for row in report["probes"].values():
        assert (row["flips"], row["passed"]) == (0, n)
        assert set(row["capabilities"].values()) == {0}


def test_a_judge_that_reads_a_mention_as_abuse_flips_what_it_allowed() -> None:
    probe_handle = re.compile(r"@(?:user|sam|jess_92)\b")

    def judge(text: str) -> str:
        # A probe's mention, not the handles the fourteenth set's lines are written with.
        return "nudge" if probe_handle.search(text) else "allow"

    report = mentions(judge)
    allowed = {cap.name: len(cap.examples) for cap in suite() if cap.expected == "allow"}
    nudged = sum(len(cap.examples) for cap in suite() if cap.expected == "nudge")
    for row in report["probes"].values():
        # Every example flips to a nudge: towards the expected decision where it was one.
        assert row["flips"] == report["n"]
        assert row["toward_expected"] == row["passed"] == nudged
        assert row["away_from_expected"] == sum(allowed.values())
        assert all(row["capabilities"][name] == k for name, k in allowed.items())


@pytest.mark.parametrize(
    ("text", "short"),
    [
        ("I will find you and hurt you", "I will find u and hurt u"),
        ("You are dead to me", "U r dead to me"),
        ("you're a loser, watch your back", "ur a loser, watch ur back"),
        ("go hang yourself", "go hang urself"),
        ("Yourselves first. ARE you sure?", "Urselves first. R u sure?"),
        ("youth square, bayou, aren't", "youth square, bayou, aren't"),
    ],
)
def test_shorthand_rewrites_whole_words_and_keeps_a_first_capital(text: str, short: str) -> None:
    assert shorthand(text) == short


def test_a_judge_blind_to_shorthand_flips_nothing_and_counts_only_changed_examples() -> None:
    answers = {shorthand(t): cap.expected for cap in suite() for t in cap.examples}
    report = shorthand_flips(lambda text: answers[shorthand(text)])
    changed = {cap.name: sum(shorthand(t) != t for t in cap.examples) for cap in suite()}
    assert report["capabilities"] == {name: {"n": n, "flips": 0} for name, n in changed.items()}
    assert report["n"] == sum(changed.values()) > 500
    assert (report["flips"], report["passed"]) == (0, report["n"])


def test_a_judge_that_reads_shorthand_as_harmless_flips_what_it_nudged() -> None:
    short = re.compile(r"\b(?:u|ur|urself|r)\b", re.IGNORECASE)
    report = shorthand_flips(lambda text: "allow" if short.search(text) else "nudge")
    nudge_caps = {cap.name for cap in suite() if cap.expected == "nudge"}
    # Unless the example holds shorthand as written: then it was allowed already.
    held = sum(
        1
        for cap in suite()
        for t in cap.examples
        if shorthand(t) != t and short.search(t) and cap.name in nudge_caps
    )
    flipped_nudges = sum(r["n"] for name, r in report["capabilities"].items() if name in nudge_caps)
    assert report["away_from_expected"] == flipped_nudges - held
    assert report["toward_expected"] == report["flips"] - report["away_from_expected"]


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("I hope you die in a fire", "Ihopeyoudieinafire"),
        ("  watch your back, I know where you live. ", "watchyourback,Iknowwhereyoulive."),
        ("kys", "kys"),
        ("go\thang\n yourself", "gohangyourself"),
    ],
)
def test_without_spaces_takes_out_every_space_and_keeps_punctuation(text: str, joined: str) -> None:
    assert without_spaces(text) == joined


def test_a_judge_blind_to_missing_spaces_flips_nothing_and_passes_what_it_passed() -> None:
    answers = {without_spaces(t): cap.expected for cap in suite() for t in cap.examples}
    report = spaces_taken_out(lambda text: answers[without_spaces(text)])
    changed = {cap.name: sum(without_spaces(t) != t for t in cap.examples) for cap in suite()}
    assert report["capabilities"] == {
        name: {"n": n, "flips": 0, "passed": n} for name, n in changed.items()
    }
    assert report["n"] == sum(changed.values()) > 2000
    assert (report["flips"], report["passed"]) == (0, report["n"])


def test_a_judge_that_reads_a_spaceless_message_as_harmless_flips_every_nudge() -> None:
    report = spaces_taken_out(lambda text: "allow" if " " not in text.strip() else "nudge")
    for cap in suite():
        row = report["capabilities"][cap.name]
        # Every changed example was nudged as written and is allowed joined.
        assert row["flips"] == row["n"]
        assert row["passed"] == (row["n"] if cap.expected == "allow" else 0)
    towards = sum(r["n"] for c, r in report["capabilities"].items() if _expects(c) == "allow")
    assert report["toward_expected"] == towards
    assert report["away_from_expected"] == report["flips"] - towards


def _expects(name: str) -> str:
    return next(cap.expected for cap in suite() if cap.name == name)
