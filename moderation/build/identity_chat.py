"""Real chat that names an identity group in passing: benign negatives of its own shape.

The hate and toxic heads nudge benign mentions of a group ("Our new neighbours down
the street are immigrants.") because most text in training that names a group is hate
or talk about hate (HatEval, ToxiGen, the templates). Template twins teach that too, but
every template lever so far cost the real-data splits. This set is real text instead:
the chitchat training pool's utterances that name one of the training groups (a Mormon
class, Chinese poetry, deaf people driving), labelled benign like all chitchat.

Utterances that name an evaluation group in any form are left out, so the suite's
identity capabilities still measure what the model carries over to groups it was not
shown benign chat about.
"""

from __future__ import annotations

import re
from functools import cache

# Words that name an evaluation group (moderation/evaluation/behaviour.py, GROUPS) in
# any inflection; tests/unit/test_identity_chat.py checks that every GROUPS term is hit.
_EVALUATION_WORDS = re.compile(
    r"\b(immigra\w*|muslims?|islam\w*|jews?|jewish|gays?|wom[ae]n|black\w*|mexic\w*"
    r"|trans|transgender\w*|refugees?|disab\w*)\b",
    re.IGNORECASE,
)

# Forms of a training group that are too common in other senses to mean the group alone
# ("old", "Polish" as in polish).
_AMBIGUOUS = {"old", "polish"}


@cache
def _training_group_words() -> re.Pattern[str]:
    from moderation.build.templates import TRAIN_GROUPS

    terms: set[str] = set()
    for plural, singular in TRAIN_GROUPS:
        terms |= {plural, singular}
        for form in (plural, singular):
            for suffix in (" people", " person"):
                head = form.removesuffix(suffix)
                if head != form and head.lower() not in _AMBIGUOUS:
                    terms.add(head)
    terms |= {"Latina", "Latinas", "Filipina", "Filipinas"}
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"\b({alternatives})\b", re.IGNORECASE)


def names_training_group_only(text: str) -> bool:
    """True when ``text`` names a training group and no evaluation group."""
    return bool(_training_group_words().search(text)) and not _EVALUATION_WORDS.search(text)


def names_evaluation_group(text: str) -> bool:
    """True when ``text`` names an evaluation group in any form."""
    return bool(_EVALUATION_WORDS.search(text))


def identity_chat(utterances: list[str]) -> list[str]:
    """The utterances that name a training group and no evaluation group, in order."""
    return [u for u in utterances if names_training_group_only(u)]
