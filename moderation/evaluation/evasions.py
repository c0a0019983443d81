"""Evasive rewrites of a text, as people write them to slip past a filter.

Used to measure how much of the plain text's recall survives each evasion. Seeded,
so a report is reproducible.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "$", "t": "7"}
_LOOKALIKE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "i": "\u0456", "c": "\u0441"}
_WORD = re.compile(r"[A-Za-z]{4,}")


def _leet(word: str, rng: random.Random) -> str:
    return "".join(_LEET.get(c, c) if rng.random() < 0.7 else c for c in word)


def _lookalike(word: str, rng: random.Random) -> str:
    return "".join(_LOOKALIKE.get(c, c) for c in word)


def _stretched(word: str, rng: random.Random) -> str:
    vowels = [i for i, c in enumerate(word) if c in "aeiouy"]
    if not vowels:
        return word
    i = rng.choice(vowels)
    return word[:i] + word[i] * rng.randint(3, 5) + word[i + 1 :]


def _dotted(word: str, rng: random.Random) -> str:
    return ".".join(word)


def _spaced(word: str, rng: random.Random) -> str:
    return " ".join(word)


# Every word of four letters or more, or (spacing: words would run together) only the
# longest.
EVASIONS: dict[str, tuple[Callable[[str, random.Random], str], bool]] = {
    "leetspeak": (_leet, True),
    "look-alike letters": (_lookalike, True),
    "stretched letters": (_stretched, True),
    "dotted letters": (_dotted, True),
    "spaced letters": (_spaced, False),
}


def evade(text: str, kind: str, seed: int) -> str:
    """``text`` rewritten with one kind of evasion."""
    fn, every_word = EVASIONS[kind]
    rng = random.Random(f"{seed}:{kind}:{text}")
    words = list(_WORD.finditer(text))
    if not words:
        return text
    if not every_word:
        words = [max(words, key=lambda m: len(m.group(0)))]
    out, last = [], 0
    for m in words:
        out.append(text[last : m.start()] + fn(m.group(0), rng))
        last = m.end()
    return "".join(out) + text[last:]
