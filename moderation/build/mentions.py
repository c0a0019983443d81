"""Mentions put into training text that never had one.

In the recipe's training set a mention ("@user") is a tweet's mark: TweetEval offensive
opens with one nine times in ten, TweetEval hate a fifth to a third of the time (more
often when hateful), while our templates, ToxiGen, ConvAbuse and the chitchat pool never
carry one, and the threat head sees none at all. A model trained on that reads "@sam I
will find you" as a tweet, and a prefix alone moved 197 of the shipped model's suite
decisions (docs/model.md, rule 13). So a share of the examples from the sources without
mentions gets one, drawn at random whatever its label: at the start (now and then two)
or at the end. The handle is TweetEval's "@user" half the time, else one of our own
shapes; "sam" and "jess" are kept out of the pool, because the prefix probes that judge
the lever use them (rule 14). With the placeholder's share at 0 every handle is one of
ours: "@user" keeps saying "a tweet" as in the tweets, where it predicts their labels,
and only a real handle is taught to say nothing (rule 28).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from moderation.build.datasets import Example, source_prefixes

# The training sources no text of which carries a mention (counted, stop 51).
WITHOUT_MENTIONS = "templates,toxigen,convabuse,chitchat,insults"

_NAMES = (
    "alex", "maria", "dan", "priya", "tom", "lena", "chris", "omar", "kate", "leo", "nina",
    "raj", "zoe", "ben", "ivy", "max", "ana", "joe", "mia", "eli", "noah", "tariq", "yuki",
    "carlos", "fatima", "ollie", "grace", "dev", "hana", "luis", "rosa", "kwame", "ingrid",
)  # fmt: skip
# Shares of the draws: placements, and how often the handle is TweetEval's placeholder.
LEADING, TWO_LEADING = 0.6, 0.1  # the rest: at the end
PLACEHOLDER = 0.5


def handle(rng: random.Random, placeholder: float = PLACEHOLDER) -> str:
    """A mention: "@user" (a ``placeholder`` share of the draws), or one of our names in
    a handle's shape (bare, with digits, with an underscore, capitalised)."""
    if rng.random() < placeholder:
        return "@user"
    name = rng.choice(_NAMES)
    shape = rng.randrange(4)
    if shape == 1:
        name += str(rng.randrange(1, 100))
    elif shape == 2:
        name += "_" + rng.choice(_NAMES)[:3]
    elif shape == 3:
        name = name.capitalize()
    return "@" + name


def with_mention(text: str, rng: random.Random, placeholder: float = PLACEHOLDER) -> str:
    """``text`` with a mention at its start (one or two) or at its end."""
    place = rng.random()
    if place < LEADING:
        return f"{handle(rng, placeholder)} {text}"
    if place < LEADING + TWO_LEADING:
        return f"{handle(rng, placeholder)} {handle(rng, placeholder)} {text}"
    return f"{text.rstrip()} {handle(rng, placeholder)}"


def with_mentions_inserted(
    examples: Sequence[Example],
    share: float,
    seed: int,
    sources: str = WITHOUT_MENTIONS,
    placeholder: float = PLACEHOLDER,
) -> list[Example]:
    """``examples`` with a ``share`` of those whose source begins with one of the
    comma-separated ``sources``, drawn at random (seeded), given a mention
    (``with_mention``; "@user" for a ``placeholder`` share of the handles). Labels,
    sources and the order stay; an empty text stays empty."""
    for name, x in (("mention share", share), ("placeholder share", placeholder)):
        if not 0.0 <= x <= 1.0:
            raise ValueError(f"{name} {x}: give a share in [0, 1]")
    if not sources.strip():
        raise ValueError("mention sources: name at least one source (the tweets have theirs)")
    if share == 0.0:
        return list(examples)
    prefixes = source_prefixes(examples, sources, "mention")
    # Two draws per example whatever its source (whether, and the seed of what it gets),
    # so the scope moves no other example's mention.
    rng = random.Random(f"mentions-{seed}")
    out = []
    for e in examples:
        draw, shape = rng.random(), rng.getrandbits(32)
        if draw < share and e.source.startswith(prefixes) and e.text.strip():
            text = with_mention(e.text, random.Random(shape), placeholder)
            e = Example(text, e.targets, e.source)
        out.append(e)
    return out
