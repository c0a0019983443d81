"""Identity words a source names only in its positives are swapped out of training."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from moderation.build.datasets import Example, _targets
from moderation.build.templates import TRAIN_GROUPS
from moderation.build.term_balance import (
    MIN_MENTIONS,
    REPLACEMENTS,
    balance_terms,
    skews,
)
from moderation.evaluation.behaviour import GROUPS

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _hateful(text: str) -> Example:
    return Example(text, _targets(toxic=1, hate=1, threat=0), "toxigen")


def _benign(text: str) -> Example:
    return Example(text, _targets(toxic=0, hate=0, threat=0), "toxigen")


def _source() -> list[Example]:
    trans = [_hateful(f"trans people are a problem number {i}") for i in range(MIN_MENTIONS)]
    gay = [_hateful(f"gay people ruin thing {i}") for i in range(MIN_MENTIONS)]
    gay += [_benign(f"my gay friend cooked dinner {i}") for i in range(3)]
    return [*trans, *gay, _benign("the weather is fine")]


def test_a_family_named_only_in_positives_is_swapped_and_keeps_its_label() -> None:
    examples = _source()
    out = balance_terms(examples, seed=13)
    assert len(out) == len(examples)
    for before, after in zip(examples, out, strict=True):
        assert after.targets == before.targets
        if before.text.startswith("trans"):
            assert not re.search(r"\btrans\b", after.text, re.IGNORECASE)
            assert after.text.split(" ", 1)[0] in REPLACEMENTS
            assert after.text.split(" ", 1)[1] == before.text.split(" ", 1)[1]
            assert after.source == "toxigen+swapped"
        else:
            # gay is named on both sides (10 of 13 positive, under 90%): untouched.
            assert after == before


def test_too_few_mentions_leave_a_family_alone() -> None:
    few = [_hateful(f"trans people are a problem number {i}") for i in range(MIN_MENTIONS - 1)]
    assert balance_terms(few, seed=13) == few
    assert next(s for s in skews(few) if s.family == "trans").mentions == MIN_MENTIONS - 1


def test_the_swap_is_seeded_and_uses_more_than_one_group() -> None:
    examples = _source()
    a = balance_terms(examples, seed=13)
    assert a == balance_terms(examples, seed=13)
    assert len({e.text.split(" ", 1)[0] for e in a if e.source.endswith("+swapped")}) > 1


def test_replacements_are_training_groups_never_evaluation_terms() -> None:
    held_out = {w.lower() for plural, single in GROUPS for w in (*plural.split(), single)}
    training = " ".join(f"{p} {s}" for p, s in TRAIN_GROUPS).lower().split()
    for word in REPLACEMENTS:
        assert word.lower() not in held_out, word
        assert word.lower() in training, word


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
def test_toxigen_names_trans_people_only_in_hate_and_training_no_longer_does() -> None:
    from moderation.build import datasets

    train = datasets.toxigen(DATA, "train")
    trans = next(s for s in skews(train) if s.family == "trans")
    assert trans.one_sided and trans.positives == trans.mentions
    assert not any(s.one_sided for s in skews(balance_terms(train, seed=13)))
    full = datasets.training_set(
        DATA, 10, 13, sets=datasets.TrainingSets(balance_identity_terms=True)
    )
    statements = [e for e in full if e.source.startswith("toxigen")]
    assert len(statements) == len(train)
    assert not any(re.search(r"\btrans\b", e.text, re.IGNORECASE) for e in statements)
    # Validation is the source's own text.
    val = datasets.toxigen(DATA, "val")
    assert any(re.search(r"\btrans\b", e.text, re.IGNORECASE) for e in val)
