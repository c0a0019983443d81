"""Identity terms a source names only in its positives, swapped out of its training text.

ToxiGen's statements about trans people are all hateful: 54 of its hateful statements
are filed under that group and none of its benign ones, and "trans" appears in about a
hundred hateful statements and no benign one. A model trained on it learns the word as
the hate: the shipped model nudged "Trans people deserve respect." at 0.95. That is
the issue's rule (every head sees negatives from text like its positives) broken one
word at a time rather than one source at a time.

So before training, in a source's training split only: for each family of identity
words, count the statements that name it; where at least ``MIN_MENTIONS`` do and at
least ``MAX_POSITIVE_SHARE`` of them are positives, every occurrence of the family in
that source is replaced by an identity adjective of the training templates' groups,
chosen at random per statement (seeded). The statement keeps its label: its hate lies
in what it says about the group, which now names a group the source also shows in
benign statements. Validation splits are left as they are, so the measurement of the
source is of its own text.

The replacement words come from the training groups (templates.TRAIN_GROUPS), never
from the evaluation suite's held-out identity terms.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from moderation.build.datasets import Example

# Families of identity adjectives, each a whole-word pattern (case-insensitive).
FAMILIES: dict[str, str] = {
    "trans": r"trans|transgender|transgendered|transsexual",
    "gay": r"gay",
    "lesbian": r"lesbian",
    "bisexual": r"bisexual|bi",
    "queer": r"queer",
    "muslim": r"muslim|islamic",
    "jewish": r"jewish",
    "black": r"black",
    "asian": r"asian",
    "chinese": r"chinese",
    "mexican": r"mexican",
    "latino": r"latino|latina|latinx",
    "disabled": r"disabled",
    "native": r"native",
    "arab": r"arab",
}
# Adjectives of the training templates' groups (templates.TRAIN_GROUPS), none of them
# an evaluation term (tests/unit/test_term_balance.py checks both).
REPLACEMENTS: tuple[str, ...] = (
    "Hindu",
    "Sikh",
    "Catholic",
    "Buddhist",
    "Mormon",
    "nonbinary",
    "autistic",
    "deaf",
    "Polish",
    "Somali",
    "Filipino",
    "Nigerian",
    "Pakistani",
    "Indian",
)
MIN_MENTIONS = 10
MAX_POSITIVE_SHARE = 0.9


@dataclass(frozen=True)
class Skew:
    """One family's mentions in a source: how many statements, how many positive."""

    family: str
    mentions: int
    positives: int

    @property
    def positive_share(self) -> float:
        return self.positives / self.mentions if self.mentions else 0.0

    @property
    def one_sided(self) -> bool:
        return self.mentions >= MIN_MENTIONS and self.positive_share >= MAX_POSITIVE_SHARE


def _pattern(families: Sequence[str]) -> re.Pattern[str]:
    """Whole words of any of ``families``, case-insensitive."""
    return re.compile(rf"\b(?:{'|'.join(FAMILIES[f] for f in families)})\b", re.IGNORECASE)


def skews(examples: Sequence[Example], label: int = 0) -> list[Skew]:
    """Each family's statements in ``examples`` and how many are positive on ``label``
    (a target index; examples with that target unknown are not counted)."""
    out = []
    for family in FAMILIES:
        pattern = _pattern([family])
        named = [e for e in examples if e.targets[label] >= 0 and pattern.search(e.text)]
        out.append(Skew(family, len(named), sum(1 for e in named if e.targets[label] == 1)))
    return out


def balance_terms(examples: Sequence[Example], seed: int, label: int = 0) -> list[Example]:
    """``examples`` with every one-sided family's words replaced (see the module doc).
    The order, labels and sources stay; a replaced example's source gains ``+swapped``."""
    one_sided = [s.family for s in skews(examples, label) if s.one_sided]
    if not one_sided:
        return list(examples)
    pattern = _pattern(one_sided)
    rng = random.Random(seed)
    out = []
    for e in examples:
        if not pattern.search(e.text):
            out.append(e)
            continue
        word = rng.choice(REPLACEMENTS)
        out.append(Example(pattern.sub(word, e.text), e.targets, e.source + "+swapped"))
    return out
