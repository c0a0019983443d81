"""The list `moderation eval` reads chat that names an identity group by
(moderation/evaluation/identity_words.py)."""

import pytest

from moderation.evaluation.identity_words import names_a_group


@pytest.mark.parametrize(
    "text",
    [
        "i've been here and queer since august lol",
        "Gay rights.",
        "my neighbours are Muslims",
        "a Jewish friend invited me",
        "Black people in my town",
        "trans women are women",
        "I love when they bring in powerful women for their own movie",
        "my cousin is autistic",
        "the refugees arrived last week",
        "LGBTQ+ pride",
        "white folks",
    ],
)
def test_a_group_named_is_found(text: str) -> None:
    assert names_a_group(text)


@pytest.mark.parametrize(
    "text",
    [
        "Trans fats are very bad for you",
        "a black and white movie",
        "white wine please",
        "the blacksmith was busy",
        "my gaming rig",
        "the jewellery store",
        "he is a roman general",
        "hello there",
    ],
)
def test_a_word_that_names_no_group_is_not(text: str) -> None:
    assert not names_a_group(text)
