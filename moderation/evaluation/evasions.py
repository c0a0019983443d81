"""Evasive rewrites of a text, as people write them to slip past a filter.

Used to measure how much of the plain text's recall survives each evasion. Seeded,
so a report is reproducible.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "$", "t": "7"}
# The other way round for the two letters a one or a bar can stand for (docs/model.md,
# rule 41): "1oser", "|d|ot".
_TWO_WAY = {"l": "1", "i": "|"}
_LOOKALIKE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "i": "\u0456", "c": "\u0441"}
# Greek letters that pass for Latin ones, as "Greek" fancy-text generators write them:
# each vowel with or without its accent (tonos) at random, so that a word is sometimes
# written in letters of modern Greek's own spelling ("ίδίοτ"; docs/model.md, rule 94).
_GREEK = {"a": "αά", "b": "β", "e": "εέ", "i": "ιί", "k": "κ", "n": "ηή", "o": "οό", "p": "ρ",
          "t": "τ", "u": "υύ", "v": "ν", "w": "ωώ", "x": "χ", "y": "γ"}  # fmt: skip
_WORD = re.compile(r"[A-Za-z]{4,}")
# A word a person spells: not a handle's name (the tweets' "@user" is a placeholder).
_SPELLED_WORD = re.compile(r"(?<![@\w])[A-Za-z]{4,}")
# Emoji as chat glues them on, one code point each (no variation selector).
_EMOJI = ("\U0001f602", "\U0001f921", "\U0001f480", "\U0001f644", "\U0001f621", "\U0001f525")
# Small capitals ("fancy text"); q and x have none that reads as the letter.
_SMALL_CAPS = dict(zip("abcdefghijklmnoprstuvwyz", "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", strict=True))
# Text turned upside down, as the web's "upside-down text" generators write it: each
# character by the one that looks like it turned half a circle (a few capitals by a
# small letter, where no capital does), the whole text then read backwards.
_UPSIDE_DOWN = str.maketrans(
    dict(
        zip(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890.,'\"!?()[]{}<>&_;",
            "ɐqɔpǝɟƃɥᴉɾʞlɯuodbɹsʇnʌʍxʎz∀qƆpƎℲפHIſʞ˥WNOԀQɹS┴∩ΛMXʎZƖᄅƐㄣϛ9ㄥ860˙',„¡¿)(][}{><⅋‾؛",
            strict=True,
        )
    )
)


def _leet(word: str, rng: random.Random) -> str:
    return "".join(_LEET.get(c, c) if rng.random() < 0.7 else c for c in word)


def _two_way(word: str, rng: random.Random) -> str:
    return "".join(_TWO_WAY.get(c, c) if rng.random() < 0.7 else c for c in word)


def _lookalike(word: str, rng: random.Random) -> str:
    return "".join(_LOOKALIKE.get(c, c) for c in word)


def _greek(word: str, rng: random.Random) -> str:
    return "".join(rng.choice(_GREEK[c]) if c in _GREEK else c for c in word)


def _split(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word))  # one space, anywhere inside: "idi ot", "f uck"
    return word[:i] + " " + word[i:]


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


def _emoji_after(word: str, rng: random.Random) -> str:
    return word + rng.choice(_EMOJI)


def _emoji_between(word: str, rng: random.Random) -> str:
    return rng.choice(_EMOJI).join(word)


def _emoji_for_letter(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)  # an interior letter: "id🙂ot", "f🦆ck"
    return word[:i] + rng.choice(_EMOJI) + word[i + 1 :]


def _swapped(word: str, rng: random.Random) -> str:
    # Never the first letter ("btich", "idoit"), and two that differ ("kill" has one pair).
    at = [i for i in range(1, len(word) - 1) if word[i] != word[i + 1]]
    if not at:
        return word
    i = rng.choice(at)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def _left_out(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word))  # never the first letter: "idot", "stupd"
    return word[:i] + word[i + 1 :]


def _run_together(text: str) -> str:
    """``text`` with each spelled word of four letters or more joined to the spelled word
    before it, across one space ("you are such an idiot" -> "you aresuch anidiot"); never
    to a handle (docs/model.md, rule 76)."""
    cut: list[int] = []
    for m in _SPELLED_WORD.finditer(text):
        space = m.start() - 1
        if space < 1 or text[space] != " " or not text[space - 1].isalpha():
            continue
        start = space - 1
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        if start > 0 and text[start - 1] == "@":
            continue  # the word before is a handle's name
        cut.append(space)
    for space in reversed(cut):
        text = text[:space] + text[space + 1 :]
    return text


def _capital_i_for_l(word: str, rng: random.Random) -> str:
    # In most fonts chat uses, a capital I looks like a small l (docs/model.md, rule 93).
    return word.replace("l", "I")


def _small_caps(word: str, rng: random.Random) -> str:
    return "".join(_SMALL_CAPS.get(c, c) for c in word.lower())


def _boxed(word: str, rng: random.Random) -> str:
    # Negative squared Latin capitals, U+1F170 (A) to U+1F189 (Z).
    return "".join(chr(0x1F170 + ord(c) - ord("a")) for c in word.lower())


def _upside_down(text: str) -> str:
    """The whole text turned upside down ("you are an idiot" -> "ʇoᴉpᴉ uɐ ǝɹɐ noʎ"),
    handles and hashtags too, as a generator turns what is pasted into it."""
    return text.translate(_UPSIDE_DOWN)[::-1]


# One kind of evasion: the text and a seeded generator -> the text rewritten.
Evasion = Callable[[str, random.Random], str]


def _in_words(
    rewrite: Callable[[str, random.Random], str],
    every_word: bool = True,
    words: re.Pattern[str] = _WORD,
) -> Evasion:
    """An evasion that rewrites every word ``words`` finds (four letters or more), or
    (spacing: words would run together) only the longest."""

    def evasion(text: str, rng: random.Random) -> str:
        found = list(words.finditer(text))
        if not found:
            return text
        if not every_word:
            found = [max(found, key=lambda m: len(m.group(0)))]
        out, last = [], 0
        for m in found:
            out.append(text[last : m.start()] + rewrite(m.group(0), rng))
            last = m.end()
        return "".join(out) + text[last:]

    return evasion


EVASIONS: dict[str, Evasion] = {
    "leetspeak": _in_words(_leet),
    "look-alike letters": _in_words(_lookalike),
    "Greek look-alike letters": _in_words(_greek, words=_SPELLED_WORD),
    "stretched letters": _in_words(_stretched),
    "dotted letters": _in_words(_dotted),
    "spaced letters": _in_words(_spaced, every_word=False),
    "emoji after words": _in_words(_emoji_after),
    "emoji between letters": _in_words(_emoji_between, every_word=False),
    "small capitals": _in_words(_small_caps),
    "boxed letters": _in_words(_boxed),
    "emoji for a letter": _in_words(_emoji_for_letter),
    "a one for l, a bar for i": _in_words(_two_way),
    "a capital I for an l": _in_words(_capital_i_for_l),
    # A word cut in two by a space, in the words a person spells (rule 94).
    "a space inside a word": _in_words(_split, words=_SPELLED_WORD),
    # Typos: made in the words a person spells, never in a handle (docs/model.md, rule 50).
    "two letters swapped": _in_words(_swapped, words=_SPELLED_WORD),
    "a letter left out": _in_words(_left_out, words=_SPELLED_WORD),
    # Spaces taken out between words (rule 76).
    "words run together": lambda text, rng: _run_together(text),
    # The whole message turned upside down (rule 91).
    "upside down": lambda text, rng: _upside_down(text),
}
TYPO_KINDS = ("two letters swapped", "a letter left out")
# The kinds the build's random perturbations draw from (``datasets.with_evasions``): the
# five the shipped model was trained with. Kinds added later are measured by ``moderation
# eval`` only, so that a rebuild of a recipe stays what it was.
TRAINED_EVASIONS = (
    "dotted letters",
    "leetspeak",
    "look-alike letters",
    "spaced letters",
    "stretched letters",
)


def evade(text: str, kind: str, seed: int) -> str:
    """``text`` rewritten with one kind of evasion."""
    return EVASIONS[kind](text, random.Random(f"{seed}:{kind}:{text}"))
