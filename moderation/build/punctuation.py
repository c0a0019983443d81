"""A final full stop that says nothing about the label.

Where full stops fall in training text is not neutral: none of the threat templates
ends in one (40% of the threat head's negatives do), and ToxiGen's hateful statements
end in one 5% of the time against its benign ones' 39%. A model trained on them learns
the full stop itself as a sign of harmlessness: the
shipped model allowed "I hate deaf people." (hate 0.00) and nudged "I hate deaf people"
(0.97); over the behaviour suite, 103 of 1,573 examples get one decision without a final
full stop and the other with one (docs/model.md, rule 10).

So a share of the training examples has its final full stop toggled at random (seeded):
removed where the text ends in one, added where it ends in a letter or digit. At a share
of one half every eligible example ends in a full stop by a coin's toss, whatever its
label. Labels, sources and the examples' order stay. Tried at one half on two seeds:
flips 103 -> 40 and 34, but fewer negated-hate and counter-speech lines allowed and four
validation splits lower; not shipped (rule 10). Where the ending carries the label is
in our own template sets and ToxiGen's statements (the tweets, chats and Davidson do not
differ by label): the toggle can be held to those sources, leaving real chat as written
(rule 11).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from moderation.build.datasets import Example, source_prefixes
from moderation.evaluation.invariance import with_final_period, without_final_period


def toggle_final_period(text: str) -> str:
    """``text`` without its final full stop if it ends in exactly one, with one added if
    it ends in a letter or digit, else unchanged (an ellipsis, ! or ?, an emoji, a quote)."""
    bare = without_final_period(text)
    if bare != text.rstrip():
        return bare
    dotted = with_final_period(text)
    return dotted if dotted != bare else text


def with_final_period_toggled(
    examples: Sequence[Example], share: float, seed: int, sources: str = ""
) -> list[Example]:
    """``examples`` with a ``share`` of them, drawn at random, their final full stop
    toggled (``toggle_final_period``); only examples whose source begins with one of the
    comma-separated ``sources`` when given (``templates`` takes every template set and
    its evasion and swapped copies)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"period toggle share {share}: give a share in [0, 1]")
    prefixes = source_prefixes(examples, sources, "period toggle")
    if share == 0.0:
        return list(examples)
    rng = random.Random(f"final-period-{seed}")
    out = []
    for e in examples:
        # One draw per example whatever its source, so the scope moves no other draw.
        draw = rng.random()
        if draw < share and (not prefixes or e.source.startswith(prefixes)):
            e = Example(toggle_final_period(e.text), e.targets, e.source)
        out.append(e)
    return out
