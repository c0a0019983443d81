"""Which chitchat utterances count as passing mentions of a training group."""

import pytest

from moderation.build.identity_chat import (
    identity_chat,
    names_evaluation_group,
    names_training_group_only,
)
from moderation.build.templates import TRAIN_GROUPS
from moderation.evaluation.behaviour import GROUPS


@pytest.mark.parametrize("term", [t for pair in GROUPS for t in pair])
def test_every_evaluation_group_term_is_recognised(term: str) -> None:
    assert names_evaluation_group(f"we talked about {term} yesterday")
    assert not names_training_group_only(f"my {TRAIN_GROUPS[0][1]} friend and {term}")


@pytest.mark.parametrize("term", [t for pair in TRAIN_GROUPS for t in pair])
def test_every_training_group_term_is_recognised(term: str) -> None:
    assert names_training_group_only(f"I met some {term} at the party")


def test_ambiguous_words_and_word_parts_do_not_count() -> None:
    assert not names_training_group_only("I need to polish my old shoes")
    assert not names_training_group_only("she translated the Arabica coffee menu")
    assert not names_evaluation_group("the transport was late and the gayety museum shut")


def test_selection_keeps_order_and_drops_evaluation_groups() -> None:
    lines = [
        "I love Chinese food",
        "the Muslim and Hindu festivals overlap",
        "nothing here",
        "my deaf cousin signs faster than I talk",
    ]
    assert identity_chat(lines) == [lines[0], lines[3]]
