"""Undo the spellings people use to slip abuse past a filter, before tokenizing.

The tokenizer already folds full-width and styled letters (NFKC), drops zero-width
characters and lower-cases. What it cannot see through, and this does:

- look-alike letters from other scripts inside Latin words (Cyrillic ``а`` for ``a``,
  Greek ``ο`` for ``o``): folded to the Latin letter they imitate;
- digits and symbols inside alphabetic words (``1d10t``, ``h@te``, ``$tupid``): read
  as the letters they stand for, but never in numbers, times or units (``7pm``,
  ``2nd``, ``b12`` stay). A one, ``!`` or ``|`` stands for an i or an l: where the
  first reading is no word the vocabulary knows, the reading WordPiece splits least is
  taken (``ki1l``, ``|d|ot``, ``hom|c|des``), and letters then ones (``ki11``,
  ``contro1``) are read as a word of four letters or more the vocabulary knows, else
  left as they are (``a11``, ``player1``, ``too1``);
- single letters spaced or dotted out (``i d i o t``, ``i.d.i.o.t``, ``k-y-s``):
  joined, a spaced "a" or "i" kept apart when the rest is a word (``a c u n t``: the
  vocabulary's whole words, and words of abuse it splits into pieces, ``_SPLIT_WORDS``);
- a character repeated three or more times (``idiooot``, ``stuuupid``): squeezed to
  the spelling the vocabulary knows (one or two of it), else to one;
- letters that "fancy text" writes and NFKC leaves alone: small capitals (``ɪᴅɪᴏᴛ``),
  negative circled and negative squared capitals (``🅘🅓🅘🅞🅣``, ``🅸🅳🅸🅾🆃``), and a run
  of regional indicator letters that spells a word the vocabulary knows (``🇮🇩🇮🇴🇹``; a
  flag is two, and stays): folded to Latin;
- text turned upside down, as the web's generators write it (``ʇoᴉpᴉ uɐ ǝɹɐ noʎ``): a
  run of words whose every letter is turned or reads as one turned (``u``, ``p``, ``W``),
  holding two different characters only turned text writes, read backwards to its edges
  (``dn ʇnɥs``, "shut up"), each character as the one it shows (rules 91, 92); the dotless
  ``ı`` alone is Turkish, and stays;
- single letters one emoji or other symbol separates (``i😂d😂i😂o😂t``): joined;
- the raised middle finger (``🖕``): written as the word it stands for;
- an emoji or other symbol the vocabulary cannot read, glued to a word (``idiot😂``):
  dropped, so the message reads as written without it. Glued, WordPiece reads the whole
  word as ``[UNK]``; spaced off, the model reads an ``[UNK]`` beside the word, which the
  shipped file was seen to be diluted by (docs/model.md, rules 29-30, 35 and 38). Inside
  a word (``id🙂ot``, an emoji for a letter) it becomes the ``*`` mask tweets taught the
  model, not a space that splits the word (rule 39). A spaced-out emoji stays: the file
  was trained on it as ``[UNK]``. A model trained with glued symbols spaced off says so
  in its manifest, ``"normalizer": {"glued_symbols": "space"}``, and then they are spaced
  off instead (``space_glued_symbols``);
- chat abbreviations of abuse aimed at the reader (``kys``, ``stfu``): written out,
  because the vocabulary splits them into pieces that mean nothing (``ky ##s``), so
  the model never learned them (see ``_ABBREVIATIONS``); algospeak, words coined
  to slip filters (``unalive`` for "kill", ``sewer slide`` for "suicide"); and the
  f-word without its vowel (``fck``, ``fvck``, ``fkn``: "fuck", "fucking");
- chat shorthand (``u``, ``r``, ``urself``, ``ur``): read as the words it stands for
  (``ur`` as "you're" before an article, "not" or an adverb, else "your"), since the
  model learned threats and insults written with "you" (rule 48); single letters chat
  writes as words are not joined into one when spaced (``u r a loser``);
- a typo, two letters swapped or one left out, never the first (``btich``, ``fcuk``,
  ``klil``, ``clwon``, ``becuase``, ``hyopcrite``): read as the word, when the typo
  stands alone (an apostrophe's ending after it kept, rule 60), is no word of the
  vocabulary, and is a typo of no other word of it that the training text uses a tenth
  as often or more (``siht`` is "shit", not "sight"; rule 59): of a word of abuse or
  harm (rule 57), of an English word the training text uses and the vocabulary splits
  (rule 59), or of any word of the vocabulary of four letters or more when the typo is
  no English word either (SCOWL's list: "cant", "nosy"), no chat word ("bruh") and no
  word of the vocabulary made longer ("mens", "nicee"; rule 58); never a spelling the
  training text uses as often as the word ("dont"; rule 59); a word of three letters
  only as a four-letter word of abuse with one left out (``fuc``, ``shi``), when it is
  no English word of three ("sit"), no such word with two letters swapped ("hte" is
  "the") and no chat word ("ba dum tss"), and in capitals only when the whole message
  shouts ("HRT" stays; rules 61, 62); three letters left of a word of abuse and of other
  words too (``sht``: shit, shot, shut) read as the word of abuse only when the words
  beside it say so: the one the training text writes most after the word before and
  before the word after (``talks sht on``; ``sht up`` stays; rule 86);
- a capital I for an l in a word of small letters (``kilI``, ``sIut``, ``Ioser``): read
  with an l where that makes a known word and the word in small letters is none
  (``Idc``, ``McIntyre`` and ``keep it reaI``'s "real" aside, rule 93);
- a word of abuse with letters masked (``b*tch``, ``c**t``, an emoji for a letter once
  it is the mask): read as the word of abuse of its length whose letters it
  shows where it shows them, the only one or the one the training text uses ten times as
  often as any other (``sh*t``), else left; at least two letters shown and a mask before
  the last character (``shit*`` is a footnote's star; rule 88);
- words run together (``Ihatewomen``, ``you aresuch anidiot``, a message written
  without spaces): a run of five to 64 letters standing alone that no list knows is cut
  into the fewest words that hold every letter (English words the training text uses,
  words of abuse, short function words, common three-letter words: rule 82),
  the most used among as many; never a run one typo from a known word (``hering``), never
  a cut through a word of abuse (``dipshits``), never a word with an ending put on
  (``Stabby``), never inside a handle, hashtag or address, and a run in mixed case only
  at its capitals (``HackTheU``, not ``iTtabloid``; docs/model.md, rules 76-81); a word
  only hashtags write is no list's, so ``guncontrol`` in prose is cut (rule 85);
- for a model trained so (its manifest says ``"normalizer": {"leading_mentions":
  "drop"}``), the mentions a message opens with (``@sam I will find you``): dropped
  when words follow. Tweets open with one nine times in ten whatever their label, and
  no other training text does, so to a model trained on them a leading mention says "a
  tweet", with a tweet's base rate of abuse: it moved 175-246 of the behaviour suite's
  1,573 decisions on the shipped file. That file leans on the mention (TweetEval
  offensive -3 points without it), so it keeps reading it (docs/model.md, rules 12-13).
  A mention inside the message always stays.

It is cheap by construction: each pass runs only when a cheap test finds its cue (a
regular-expression search, or a substring test for the abbreviations), so ordinary
chat (the large majority) passes through a few searches and is returned as is.
The text's hash (``text_sha256``) is always of the original; only the model and the
cache key see the normalized text.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Container, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from moderation.idioms import read_idioms, reads_across, without_idiom_sentences

# Letters of other scripts that render like a Latin letter (a subset of Unicode's
# confusables.txt: the Cyrillic, Greek and Armenian ones seen in evasions).
_LOOKALIKES = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "ё": "e", "з": "3", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l",
    "ь": "b", "ɡ": "g",
    # Cyrillic upper case
    "А": "a", "В": "b", "Е": "e", "Ё": "e", "І": "i", "Ј": "j", "К": "k", "М": "m",
    "Н": "h", "О": "o", "Р": "p", "С": "c", "Т": "t", "У": "y", "Х": "x", "Ѕ": "s",
    "Һ": "h", "Ԁ": "d", "Ԛ": "q", "Ԝ": "w", "Ӏ": "l",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "Α": "a", "Β": "b",
    "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o",
    "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
    # Greek vowels with an accent or a diaeresis, read as the vowel without it: "ίδίοτ",
    # "lοsέr" (docs/model.md, rule 94). Look-alikes, they mark no text as genuinely Greek.
    "ά": "a", "έ": "e", "ή": "n", "ί": "i", "ό": "o", "ύ": "u", "ώ": "w", "ϊ": "i",
    "ΐ": "i", "ϋ": "u", "ΰ": "u", "Ά": "a", "Έ": "e", "Ή": "h", "Ί": "i", "Ό": "o",
    "Ύ": "y",
    # Armenian
    "օ": "o", "ս": "u", "ց": "g", "հ": "h", "ո": "n",
}  # fmt: skip
_LOOKALIKE_TABLE = str.maketrans(_LOOKALIKES)
_LOOKALIKE_CHARS = "".join(_LOOKALIKES)

# What digits and symbols stand for inside a word.
_LEET = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
         "@": "a", "$": "s", "!": "i", "|": "l", "€": "e", "+": "t"}  # fmt: skip
_LEET_TABLE = str.maketrans(_LEET)
_LEET_CHARS = re.escape("".join(_LEET))
# The characters that stand for either of two letters ("1337": a one is an l too), and
# the other letter, tried when the first reading is no word (docs/model.md, rule 41).
_EITHER = {"1": "l", "!": "l", "|": "i"}
_MAX_READINGS = 8
# Words of abuse WordPiece splits into pieces ("cunt" is "cu ##nt"): the vocabulary's
# whole words do not hold them, so without this list "you're a c u n t" was joined to
# "acunt" and "s1ut" read "siut". They count as words only where the normalizer checks
# a reading of letters spelled out or of a two-way character (docs/model.md, rule 43).
_SPLIT_WORDS = frozenset(
    {
        "cunt", "fag", "slut", "twat", "wanker", "retard", "dumbass", "asshat", "faggot",
        "nigger", "moron", "skank", "hoe", "thot", "tranny", "kike", "spic", "chink",
        "wetback", "coon", "retarded", "douche", "douchebag", "scumbag", "imbecile",
        "idiotic", "incel", "arsehole", "autistic",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Words:
    """The vocabulary's whole words and ``_SPLIT_WORDS``: what a reading may be."""

    vocab: Container[str]

    def __contains__(self, word: object) -> bool:
        return word in self.vocab or word in _SPLIT_WORDS


# A code of one or two letters and then ones ("ki11", "he11"): read as a word only when
# a reading is a word of at least this many letters ("a11", "b1" stay codes).
_LETTERS_THEN_ONES = re.compile(r"[a-z]{1,2}1+")
_CODE_WORD_MIN = 4
# Letters and then ones ending a word ("contro1", "wi11"): no fold pass reads them (a
# digit ending a word is a number: "player1"), so they are read as l or i only when
# that makes a whole word of at least ``_CODE_WORD_MIN`` letters (rule 47).
_ENDING_ONES = re.compile(r"(?<![^\W_])([^\W\d_]{3,})(1+)(?![^\W_])")

# A word holding something to fold: a look-alike letter, or a digit or symbol next to
# a letter. Anchored at word starts, so a failed match costs one scan of its word:
# linear in the text whatever it holds.
# (Letters and digits, or a leet symbol: disjoint branches, so no match is ambiguous
# and backtracking stays linear.)
_LEET_SYMBOLS = re.escape("".join(c for c in _LEET if not c.isalnum()))
_W = rf"(?:[^\W_]|[{_LEET_SYMBOLS}])"
_FOLDABLE = re.compile(
    rf"(?<!{_W}){_W}*?(?:[{_LOOKALIKE_CHARS}]|[{_LEET_CHARS}][^\W\d_]"
    rf"|[^\W\d_][{_LEET_CHARS}](?={_W})){_W}*"
)
# A word with a letter three or more times in a row, anchored likewise.
_STRETCHED = re.compile(r"(?<![^\W\d_])[^\W\d_]*?([^\W\d_])\1\1[^\W\d_]*")
# Numbers with units, ordinals, times, sizes, short codes: digits there mean numbers.
_NUMERIC = re.compile(
    r"\d+(?:[.,:]\d+)*(?:st|nd|rd|th|s|am|pm|h|hr|hrs|min|mins|m|k|kg|km|g|gb|mb|kb|x|p|d|"
    r"y|yr|yrs|ish|fps|hz|mph|kph|cm|mm|ml|lb|lbs|oz|v|w)?|[a-z]{1,2}\d+[a-z]?|v\d+(?:\.\d+)*"
)
# A zero or one between letters reads as a letter even in a short word ("y0u").
_O_OR_I_INSIDE = re.compile(r"[a-z]+[01]+[a-z]+")
_TRAILING = re.compile(r"[!|+]+$")
# Three or more single characters, each followed by the same kind of separator.
_SPELLED = re.compile(r"(?<![^\W_])[^\W_]([ .\-_*])(?:[^\W_]\1)+[^\W_](?![^\W_])")
# (Variation selectors too: "❤️" is "❤" and one; the tokenizer drops them anyway.)
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufe0e\ufe0f\ufeff]")
_REPEAT = re.compile(r"([^\W\d_])\1{2,}")  # letters only: 555-1234 stays
# The raised middle finger, any skin tone: it means one word, which the tokenizer,
# reading [UNK] for the emoji, never sees (docs/model.md, rule 46).
_MIDDLE_FINGER = re.compile("\U0001f595[\U0001f3fb-\U0001f3ff]?")

# Cheap tests that say whether a pass could change the text at all (most chat: no).
_LEET_HINT = re.compile(rf"[a-z][{_LEET_CHARS}][a-z0-9]|[{_LEET_CHARS}][a-z]", re.IGNORECASE)
_LOOKALIKE_ANY = re.compile(rf"[{_LOOKALIKE_CHARS}]")
_SPELLED_HINT = re.compile(r"[^\W_][ .\-_*][^\W_][ .\-_*][^\W_]")
# Cyrillic or Greek letters that imitate nothing Latin: the text is genuinely in that
# script, so only words that mix in Latin letters are folded.
_GENUINE_SCRIPT = re.compile(
    "["
    + "".join(
        c
        for c in map(chr, [*range(0x0391, 0x03CA), *range(0x0400, 0x0460)])
        if c.isalpha() and c not in _LOOKALIKES
    )
    + "]"
)
_TRIPLE = re.compile(r"([^\W\d_])\1\1")

# Letters "fancy text" generators write that NFKC does not fold (it folds circled,
# squared, parenthesized, full-width, mathematical and superscript ones): small
# capitals, negative circled capitals (U+1F150-1F169), negative squared (U+1F170-1F189).
# (No small capital reads as q or x.)
_FANCY = {
    **dict(zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnoprstuvwyz", strict=True)),
    **{chr(0x1F150 + i): chr(ord("a") + i) for i in range(26)},
    **{chr(0x1F170 + i): chr(ord("a") + i) for i in range(26)},
}
_FANCY_TABLE = str.maketrans(_FANCY)
# (As ranges: a class listing astral characters one by one is scanned one by one.)
_FANCY_ANY = re.compile(
    "[\U0001f150-\U0001f169\U0001f170-\U0001f189"
    + "".join(c for c in _FANCY if c <= "\uffff")
    + "]"
)
# Regional indicator letters: two in a row render as a flag, so only longer runs, and
# only when they spell a word the vocabulary knows, are read as letters.
_REGIONAL = re.compile("[\U0001f1e6-\U0001f1ff]{3,}")


# Three or more single characters, each followed by the same character outside ASCII
# that is no letter or digit; the replacement joins them only when that character is a
# symbol (``_is_symbol``). (One category test per match: a character class of every
# symbol would be scanned range by range at each letter.)
_SPELLED_ANY = re.compile(r"(?<![^\W_])[^\W_]([^\w\x00-\x7f])(?:[^\W_]\1)+[^\W_](?![^\W_])")
_SPELLED_ANY_HINT = re.compile(r"[^\x00-\x7f][^\W_][^\x00-\x7f]")  # its cheap cue


# Text turned upside down (docs/model.md, rule 91): what each turned character shows, as
# the web's "upside-down text" generators write it (their variants beside each other).
_TURNED = dict(
    zip(
        "ɐqɔpǝɟƃᵷɥᴉıɾʞlןꞁɯuodbɹsʇnʌʍxʎz∀ᗺ𐐒ƆᗡƎℲפ⅁HIſꓘ˥⅂WNOԀΌQᴚS┴⊥ꓕ∩ΛMX⅄ZƖᄅƐㄣϛ9ㄥ860˙',„¡¿)(][}{><⅋‾؛",
        "abcdefgghiijklllmnopqrstuvwxyzABBCDEFGGHIJKLLMNOPQQRSTTTUVWXYZ1234567890.,'\"!?()[]{}<>&_;",
        strict=True,
    )
)
_TURNED_TABLE = str.maketrans(_TURNED)
# The characters only turned text writes (not a letter that reads as another turned, nor
# a mark Spanish writes): the cue, and what a run must hold two different ones of.
_TURNED_ONLY = "".join(c for c in _TURNED if not c.isascii() and c not in "˙„¡¿‾؛⅋")
_TURNED_ANY = re.compile(f"[{_TURNED_ONLY}]")
_TURNED_LETTERS = "".join(c for c in _TURNED if c.isalpha())
_TURNED_MIN = 2
# A word whose every character is no letter or a letter turned text writes, possessive so
# that a word with another letter fails at once; a run is such words with only
# whitespace between them (rule 92: found in one scan, not word by word).
_TURNED_WORD = rf"(?:[^\w\s]|[\d_{re.escape(_TURNED_LETTERS)}])++(?!\S)"
_TURNED_RUN = re.compile(rf"(?<!\S){_TURNED_WORD}(?:\s+{_TURNED_WORD})*")


def reads_upside_down(text: str) -> bool:
    """Whether ``text`` may hold words turned upside down (the cue, a search)."""
    return _TURNED_ANY.search(text) is not None


def _turned_back(m: re.Match[str]) -> str:
    run = m.group(0)
    if len(set(_TURNED_ANY.findall(run))) < _TURNED_MIN:
        return run
    return run[::-1].translate(_TURNED_TABLE)


def read_upside_down(text: str) -> str:
    """``text`` with each run of words turned upside down read back the right way up
    (``ʇoᴉpᴉ uɐ ǝɹɐ noʎ`` -> ``you are an idiot``), the words at its edges too; the rest
    as written (rules 91, 92)."""
    return _TURNED_RUN.sub(_turned_back, text)


def _is_symbol(c: str) -> bool:
    """An emoji, dingbat, arrow or modifier symbol outside ASCII (Unicode So or Sk)."""
    return c > "\x7f" and unicodedata.category(c) in ("So", "Sk")


def _join_if_symbols(m: re.Match[str]) -> str:
    return m.group(0)[::2] if _is_symbol(m.group(1)) else m.group(0)


# A word character beside a character outside ASCII that is no letter, digit or space:
# where a glued symbol may be spaced off (``space_glued_symbols``).
_GLUED = re.compile(r"([^\W_])(?=[^\w\s\x00-\x7f])|([^\w\s\x00-\x7f])(?=[^\W_])")


def space_glued_symbols(text: str, vocab: Container[str]) -> str:
    """``text`` with a space between a word and a symbol glued to it that ``vocab``
    cannot read (``idiot😂`` -> ``idiot 😂``): glued, WordPiece reads the whole word as
    ``[UNK]``. For a model trained so (``build-model --space-glued-symbols``)."""

    def spaced(m: re.Match[str]) -> str:
        c = m.group(0)
        symbol = m.string[m.end()] if m.group(1) is not None else c
        if not _is_symbol(symbol) or symbol in vocab or "##" + symbol in vocab:
            return c
        return c + " "

    return _GLUED.sub(spaced, text)


# A run of characters outside ASCII that are no letter, digit or space; it may be dropped
# where it touches a word character on either side (``drop_glued_symbols``). One class
# scanned, the neighbours checked per run: a pattern with the neighbours in lookarounds
# tried them at every position (5.3 us on a chat message with an emoji, against 3.4).
_SYMBOL_RUN = re.compile(r"[^\x00-\x7f\w\s]+")  # ASCII first: most characters fail it at once
_WORD_CHAR = re.compile(r"[^\W_]")


def drop_glued_symbols(text: str, vocab: Container[str]) -> str:
    """``text`` with the symbols ``vocab`` cannot read dropped from a run glued to a word,
    a run left empty becoming a space (``idiot😂`` -> ``idiot ``): glued, WordPiece reads
    the whole word as ``[UNK]``; spaced off, the model would read an ``[UNK]`` beside it.
    Inside a word (a letter or digit on both sides) the emptied run becomes ``*``, the
    mask tweets taught the model: ``id🙂ot`` -> ``id*ot``, not the fragments ``id ot``
    (docs/model.md, rule 39). A spaced-out emoji stays. For a model trained with them
    glued (the shipped one)."""
    out: list[str] = []
    done = 0
    for m in _SYMBOL_RUN.finditer(text):
        start, end = m.span()
        before = bool(start) and _WORD_CHAR.match(text, start - 1) is not None
        after = _WORD_CHAR.match(text, end) is not None
        if not (before or after):
            continue
        run = m.group(0)
        kept = "".join(c for c in run if not _is_symbol(c) or c in vocab or "##" + c in vocab)
        out += (text[done:start], kept or ("*" if before and after else " "))
        done = end
    return "".join(out) + text[done:] if out else text


# Chat abbreviations written out. Only those that (a) say abuse or a death wish to the
# reader and nothing else, (b) the tokenizer breaks into meaningless pieces, and (c)
# are no ordinary word or name: "kms" (about oneself), "fu" (kung fu, a surname),
# "pos" (point of sale) and "wtf" (surprise as often as abuse) stay as written. None
# occurs in the 258,145 chitchat utterances (`moderation bench normalize` measures
# what the normalizer changes in ordinary chat). Algospeak and the vowel-less f-word
# below meet (b) and (c), not (a): they are read as their plain spellings would be.
_ABBREVIATIONS = {
    "kys": "kill yourself",
    "gkys": "go kill yourself",
    "foad": "fuck off and die",
    "diaf": "die in a fire",
    "stfu": "shut the fuck up",
    "gtfo": "get the fuck out",
    # Algospeak: words coined on video platforms to slip a filter, each meaning one thing
    # (docs/model.md, rule 33). "kms" and "unalive myself" are about oneself; the latter
    # is read "kill myself", as written plainly it would be.
    "unalive": "kill",
    "unalived": "killed",
    "unaliving": "killing",
    "unalives": "kills",
    "sewerslide": "suicide",
    "sewer slide": "suicide",
    "sewer-slide": "suicide",
    # Said to one person to tell them to kill themselves (rule 44). "An hero" alone is
    # also a learner's "a hero" ("you are an hero"), so only its imperatives.
    "go an hero": "go commit suicide",
    "an hero yourself": "kill yourself",
    "toaster bath": "suicide",
    "toasterbath": "suicide",
    # The f-word without its vowel, or with "v" or "ph" for its sounds (rule 37): the
    # tokenizer breaks "fck" into "fc ##k", which the model never learned; written out,
    # the model reads the word it knows and decides as it would on the plain spelling
    # ("fcking awesome" is read "fucking awesome"). Not "fk" alone (a club's prefix).
    "fck": "fuck",
    "fvck": "fuck",
    "phuck": "fuck",
    "fcking": "fucking",
    "fckin": "fucking",
    "fckn": "fucking",
    "fvcking": "fucking",
    "fkn": "fucking",
    "fking": "fucking",
    "fkin": "fucking",
    "phucking": "fucking",
    "fcked": "fucked",
    "fvcked": "fucked",
    "phucked": "fucked",
}
# Single letters chat writes as words: "u" (you), "r" (are), "y" (why), "c" (see), and
# the words "a" and "i". A spaced run of these alone is no word spelled out ("u r a
# loser", "y r u so mean", "i c u"). Up to three of ``_LEADING_WORDS`` starting a run are
# kept apart from the word the rest spells ("u r a b i t c h"); not "i" or "c", which
# begin words as prefixes do, as "u n" does ("i n c o m p e t e n t" is one word, and so
# is "u n a t t r a c t i v e": "n" is no word of chat). No word of abuse is spelled
# with these letters alone.
_CHAT_LETTERS = frozenset("aciruy")
_LEADING_WORDS = frozenset("aruy")


def _chat_words(letters: str) -> bool:
    return all(c in _LEADING_WORDS for c in letters.lower())


def _spelled_cuts(n: int) -> list[tuple[int, int]]:
    """Where a spelled run of ``n`` letters may be cut into letters kept apart and a
    word of at least three: up to three at the start and one at the end, the fewest
    apart first."""
    cuts = [(lo, n - tail) for lo in range(4) for tail in range(2) if lo + tail > 0]
    return sorted(
        ((lo, hi) for lo, hi in cuts if hi - lo >= 3), key=lambda c: (c[0] + n - c[1], -c[0])
    )


_SPELLED_CUTS = {n: _spelled_cuts(n) for n in range(3, 33)}

# Words of abuse, profanity and harm, read through a typo (rules 50 and 57): two adjacent letters
# swapped ("btich", "fcuk", "klil") or one left out ("idot", "stpid"), never the first
# letter. Written from general knowledge of chat abuse, with common inflections; a word
# of four letters or more as written, that is no whole word of the vocabulary, no word
# of this list, and the typo of only one of them ("moon" and "morn" are words: left).
_TYPO_WORDS = frozenset(
    {
        "fuck", "fucks", "fucking", "fucked", "fucker", "fuckers", "fuckin", "fuckface",
        "motherfucker", "shit", "shits", "shitty", "bullshit", "bitch", "bitches",
        "bitching", "bitchy", "asshole", "assholes", "bastard", "bastards", "cunt",
        "cunts", "dick", "dicks", "dickhead", "pussy", "crap", "crappy", "damn", "piss",
        "pissed", "whore", "whores", "slut", "sluts", "slutty", "twat", "wanker",
        "douche", "douchebag", "idiot", "idiots", "idiotic", "stupid", "stupidity",
        "moron", "morons", "moronic", "dumb", "dumbass", "retard", "retards", "retarded",
        "loser", "losers", "pathetic", "worthless", "useless", "disgusting", "ugly",
        "trash", "garbage", "scum", "scumbag", "freak", "imbecile", "coward",
        "hate", "hated", "hater", "hateful", "faggot", "faggots", "nigger", "niggers",
        "nigga", "niggas", "tranny", "kill", "kills", "killing", "killed", "murder",
        "murdered", "dead", "death", "stab", "stabbed", "shoot", "rape", "raped",
        "rapist", "suicide", "yourself", "yourselves", "hang", "hanged", "burn", "beat",
        "hurt", "destroy", "choke", "strangle", "drown", "slaughter", "behead",
        "lynch", "torture", "kidnap", "poison", "skank", "thot",
        "jerk", "prick", "arse", "arsehole", "bollocks", "bugger", "shithead", "shitface",
        # Rule 66: words of abuse the list lacked, from general knowledge, with their kin.
        "liar", "liars", "suck", "sucks", "sucker", "suckers", "shite", "brat", "brats",
        "creep", "pervert", "perverts", "thug", "thugs", "bimbo", "nazi", "nazis",
    }
)  # fmt: skip
_TYPO_MIN = 4
# A word of three letters is read only as a four-letter word of the list of abuse with
# one letter left out ("fuc", "shi"; rule 61).
_SHORT_TYPO = _TYPO_MIN - 1
# Words, names and other spellings that the vocabulary lacks but people write as they
# are, each one typo from a word of the list: English words (Debian's american-english-
# large list, checked when the list was written), names and words of other languages.
_NOT_TYPOS = frozenset(
    {
        "cnut", "crapy", "douce", "fagot", "fagots", "fats", "morn", "morns", "moro",
        "moros", "moroni", "psis", "puss", "retrad", "shoo", "soot", "choe", "drow",
        "dron", "brun", "raed", "cappy", "tanny", "frak", "lync", "lych", "dman", "tash",
        "tras", "skak",
    }
)  # fmt: skip


# A piece of one or two letters standing in a text in small letters (after an apostrophe
# it is a contraction's ending, never such a piece).
_SHORT_PLACE = re.compile(r"(?<![a-z'\u2019])[a-z]{1,2}(?![a-z])")


def _places(low: str, pieces: set[str]) -> Iterator[tuple[int, str]]:
    """Where each of ``pieces`` stands in ``low`` with no letter on either side: the short
    ones found in one search (a letter every word holds is not looked for in each word),
    the others one by one."""
    if any(len(piece) <= 2 for piece in pieces):
        for m in _SHORT_PLACE.finditer(low):
            if m.group(0) in pieces:
                yield m.start(), m.group(0)
    for piece in pieces:
        if len(piece) <= 2:
            continue
        at = low.find(piece)
        while at >= 0:
            after = at + len(piece)
            if (at == 0 or not _is_ascii_letter(low[at - 1])) and (
                after == len(low) or not _is_ascii_letter(low[after])
            ):
                yield at, piece
            at = low.find(piece, after)


def _is_ascii_letter(c: str) -> bool:
    return "a" <= c <= "z" or "A" <= c <= "Z"


def _one_case(word: str) -> bool:
    """All small, all capitals, or a capital and then small letters."""
    return word.islower() or word.isupper() or (word[0].isupper() and word[1:].islower())


def _typos(word: str) -> Iterator[str]:
    """``word`` with two adjacent letters swapped, or one left out; never the first."""
    for i in range(1, len(word) - 1):
        if word[i] != word[i + 1]:
            yield word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    for i in range(1, len(word)):
        yield word[:i] + word[i + 1 :]


# English words of three letters or more, lowercased: SCOWL's American and British
# large lists as Debian ships them (wamerican-large, wbritish-large; their notice in
# words/COPYING-SCOWL; written by scripts/english-words.sh). A word of it is a word as
# written, never another word's typo ("cant", "nosy", "shrek", "apologise"; rule 58;
# "sit", "cut": rule 61).
_ENGLISH_WORDS = "words/english.txt.gz"


@functools.cache
def english_words() -> frozenset[str]:
    """The English words a typo reading leaves as written (rule 58), and no cut of words
    run together touches (rule 76)."""
    data = resources.files("moderation").joinpath(_ENGLISH_WORDS).read_bytes()
    return frozenset(gzip.decompress(data).decode("ascii").split())


# Chat words, names and words of other languages no English list holds, that are one
# typo from a word of the vocabulary: the chitchat train split's most frequent words the
# wider reading changed, read by hand (rule 58). ("alot" is "a lot", not "alto".)
_CHAT_WORDS = frozenset(
    {
        "alot", "elon", "convo", "convos", "whos", "imma", "mens", "keena", "improv",
        "weve", "anex", "domo", "pero", "pito", "venmo", "bruh", "gifs", "ulta", "nior",
        "indes", "mele", "sams",
        # Read in the changed texts of the evaluation's validation splits (rule 58):
        # abuse and slang that a reading would make harmless ("pedo" is not "pedro").
        "fukn", "kunt", "pedo", "puta", "puto", "pinche", "libs", "carb", "gunna", "prez",
        "perp", "lense", "moma", "werd", "cavs", "tink", "dese",
        # Read in the chitchat train split's changed texts (rule 62): a drum's "ba dum tss".
        "dum",
    }
)  # fmt: skip
# Endings that make a word of a word ("mens", "chillin", "biter", "doer"): a word the
# vocabulary holds with one of them is a word as written, not a typo.
_ENDINGS = ("s", "es", "d", "ed", "r", "er", "y", "ly", "in", "ing")
_ENDINGS_BY_LAST = {
    last: tuple(end for end in _ENDINGS if end[-1] == last) for last in {e[-1] for e in _ENDINGS}
}
_DOUBLED = re.compile(r"(.)\1+")


def _made_from(word: str, vocab: Container[str]) -> bool:
    """Whether ``word`` is a word of ``vocab`` with an ending put on ("mens"), or with a
    letter doubled for stress ("nicee", "funn")."""
    for end in _ENDINGS_BY_LAST.get(word[-1], ()):
        if word.endswith(end) and word[: -len(end)] in vocab:
            return True
    if _DOUBLED.search(word) is None:
        return False
    return _DOUBLED.sub(r"\1", word) in vocab


# How often the training text uses each English word, each whole word of a shipped
# vocabulary, each word of the list of abuse and each other word it uses three times or
# more (moderation/build/word_counts.py, written by scripts/word-counts.sh; rule 59).
_WORD_COUNTS = "words/counts.txt.gz"
# A typo of two words or more is read as the one the training text uses most only when
# it is used at least this many times as often as the next (rule 59, fixed, not tuned).
_COMMON_RATIO = 10


def abuse_words() -> frozenset[str]:
    """The words of abuse a typo is read as (rule 57)."""
    return _TYPO_WORDS


@functools.cache
def word_counts() -> dict[str, int]:
    """How many times the training text uses each word counted (rule 59)."""
    data = resources.files("moderation").joinpath(_WORD_COUNTS).read_bytes()
    pairs = (line.split(" ") for line in gzip.decompress(data).decode("ascii").splitlines())
    return {word: int(n) for word, n in pairs}


def _common_source(words: set[str], counts: Mapping[str, int]) -> str | None:
    """Of the words a typo is one of, the one the training text uses at least
    ``_COMMON_RATIO`` times as often as any other (a word it never uses counts once)."""
    first, second = sorted(words, key=lambda w: counts.get(w, 1), reverse=True)[:2]
    if counts.get(first, 1) >= _COMMON_RATIO * counts.get(second, 1):
        return first
    return None


def _typo_sources(vocab: frozenset[str]) -> Iterator[str]:
    """The words a typo may be read as, in the order the tables take them: the
    vocabulary's whole words of four letters or more, the list of abuse, and the English
    words the training text uses that the vocabulary splits (rules 57-59)."""
    english = english_words()
    words = (w for w in vocab if len(w) >= _TYPO_MIN and w.isascii() and w.isalpha())
    split = (w for w in word_counts() if w in english and w not in vocab)
    return itertools.chain(words, _TYPO_WORDS, split)


@functools.lru_cache(maxsize=8)
def _typo_tables(vocab: frozenset[str]) -> tuple[dict[str, str], frozenset[str]]:
    """Every typo read with ``vocab`` -> its word, and those of words of abuse among them.

    A typo is read as a word among the vocabulary's whole words of four letters or more,
    the list of abuse and the English words the training text uses that the vocabulary
    splits into pieces (rule 59), only when it is no whole word of the vocabulary and no
    word of the list; when it is a typo of more than one of them, as the one the
    training text uses ten times as often as the next, or else as none ("haer" is "hear",
    not "hare"); and only when the training text uses the word more often than the typo
    itself ("dont" stays). A typo of a word of abuse is read so (rule 57); one
    of any other word (rule 58) only when it is no English word, no chat word, and no
    word of the vocabulary made longer. A typo of three letters is read only as a
    four-letter word of abuse with one left out, whole word of the vocabulary or not,
    when it is no English word of three, no such word with two letters swapped and no
    chat word (rules 61, 62). Built once for a vocabulary: a model and its screen share
    it."""
    english = english_words()
    counts = word_counts()
    # The first word each typo is of, and every word of those that are typos of more
    # than one (some 11,000: a set for each of the 374,000 typos cost 140 MB at load).
    first: dict[str, str] = {}
    shared: dict[str, set[str]] = {}
    for word in _typo_sources(vocab):
        for typo in _typos(word):
            if len(typo) >= _SHORT_TYPO and first.setdefault(typo, word) != word:
                shared.setdefault(typo, {first[typo]}).add(word)
    known: dict[str, str] = {}
    short: dict[str, str] = {}
    # A word of three with two adjacent letters swapped, the first two too, is that
    # word's typo: "hte" is "the", not "hate" (rule 62).
    swapped = {
        w[:i] + w[i + 1] + w[i] + w[i + 2 :] for w in english if len(w) == 3 for i in range(2)
    }
    for typo, word in first.items():
        of = shared.get(typo)
        read = word if of is None else _common_source(of, counts)
        if len(typo) == _SHORT_TYPO:
            # Three letters left of a word of four (rules 61, 62): the vocabulary holds
            # most strings of three ("shi"), so what stays is an English word of three
            # ("sit"), one with two letters swapped ("hte") or a chat word ("dum").
            kept = typo in english or typo in swapped or typo in _CHAT_WORDS
            if read in _TYPO_WORDS and not kept:
                short[typo] = read
            continue
        if typo in vocab or typo in _TYPO_WORDS or typo in _NOT_TYPOS:
            continue
        # A spelling the training text uses as often as the word or more is one people
        # write as it is ("dont" is not "donut"; "embarassing" is read; rule 59).
        if read is not None and counts.get(read, 1) > counts.get(typo, 0):
            known[typo] = read
    abuse = {typo: word for typo, word in known.items() if word in _TYPO_WORDS}
    wider = {
        typo: word
        for typo, word in known.items()
        if typo not in english and typo not in _CHAT_WORDS and not _made_from(typo, vocab)
    }
    return wider | abuse | short, frozenset(abuse) | frozenset(short)


def typos_for_vocab(vocab: frozenset[str]) -> dict[str, str]:
    """Every typo read with ``vocab`` (rules 57 to 62) -> the word it is read as."""
    return _typo_tables(vocab)[0]


# How often the training text writes each word a shared typo of three letters is of right
# before it and right after it (moderation/build/neighbours.py, written by
# scripts/neighbours.sh; rule 86).
_NEIGHBOURS = "words/neighbours.txt.gz"
# A word as the neighbour table counts it: a run of letters and apostrophes, lowercased.
_NEIGHBOUR_WORD = re.compile(r"[a-z']+")
# How far before and after a typo its neighbours are looked for (no word is longer).
_NEIGHBOUR_REACH = 64


@functools.lru_cache(maxsize=8)
def shared_short_typos(vocab: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Three letters left of more than one four-letter word the typo reading knows (the
    vocabulary's whole words, the list of abuse, the English words the training text uses
    that the vocabulary splits), a word of abuse among them, that rule 62 does not read
    and that is no English word, no chat word and no whole word of the vocabulary ("sht":
    shit, shot, shut; "suc": such, suck) -> those words, sorted (rule 86)."""
    english = english_words()
    read = _typo_tables(vocab)[0]
    words: dict[str, set[str]] = {}
    for word in _typo_sources(vocab):
        if len(word) != _TYPO_MIN:
            continue
        for i in range(1, len(word)):
            words.setdefault(word[:i] + word[i + 1 :], set()).add(word)
    return {
        typo: tuple(sorted(of))
        for typo, of in sorted(words.items())
        if len(of) > 1
        and not of.isdisjoint(_TYPO_WORDS)
        and typo not in read
        and typo not in english
        and typo not in _CHAT_WORDS
        and typo not in vocab
    }


@functools.cache
def neighbour_counts() -> dict[tuple[str, str, str], int]:
    """(word, "L" or "R", the word before or after it) -> how many times the training text
    writes them so (rule 86)."""
    data = resources.files("moderation").joinpath(_NEIGHBOURS).read_bytes()
    out: dict[tuple[str, str, str], int] = {}
    for line in gzip.decompress(data).decode("ascii").splitlines():
        word, side, other, n = line.split(" ")
        out[(word, side, other)] = int(n)
    return out


def read_by_neighbours(words: tuple[str, ...], before: str | None, after: str | None) -> str | None:
    """Of ``words`` (a shared typo's), the one the training text writes most often after
    ``before`` plus before ``after``, when it is a word of abuse, the count is above zero
    and no other ties it; else None (rule 86)."""
    table = neighbour_counts()
    score = {
        w: table.get((w, "L", before or ""), 0) + table.get((w, "R", after or ""), 0) for w in words
    }
    best = max(score.values())
    top = [w for w, n in score.items() if n == best]
    if best > 0 and len(top) == 1 and top[0] in _TYPO_WORDS:
        return top[0]
    return None


# Words run together ("ihatewomen", "youareanidiot"; docs/model.md, rule 76): a run of
# letters that no list knows is cut into the fewest words, when every letter then belongs
# to one. A run is cut only at these lengths (up to a chat message written without
# spaces, rule 82), and only while the message's budget of letters lasts, each run
# charged its length but at least ``_RUN_LEAST_COST``: at most 16 runs a message, eight of
# 64 letters (rule 83). The cost of a message is bounded by its runs, as the typo guard
# is asked of each run.
_RUN_MIN = 5
_RUN_MAX = 64
_RUN_LETTERS_PER_MESSAGE = 512
_RUN_LEAST_COST = 32


def _run_cost(run: str) -> int:
    """What a run a cut is tried on takes of its message's budget (rule 83)."""
    return max(len(run), _RUN_LEAST_COST)


# Words of one to three letters a cut may give (the counts file holds words of four or
# more): function words, common verbs and chat greetings, written from general knowledge,
# each counted as used this many times. Content words of three letters come from
# ``_THREE_WORDS`` instead (rule 82).
_SHORT_PIECES = frozenset(
    {
        "i", "a", "u",
        "am", "an", "as", "at", "be", "by", "do", "go", "he", "hi", "if", "in", "is", "it",
        "me", "my", "no", "of", "oh", "ok", "on", "or", "so", "to", "up", "us", "we", "ur",
        "ya", "yo",
        "all", "and", "any", "are", "but", "can", "did", "for", "get", "got", "had", "has",
        "her", "hey", "him", "his", "how", "its", "let", "may", "not", "now", "off", "one",
        "our", "out", "own", "put", "say", "see", "she", "the", "too", "two", "was", "way",
        "who", "why", "yes", "yet", "you",
    }
)  # fmt: skip
_SHORT_PIECE_COUNT = 1000
# Common three-letter words ("die", "gun", "hit"): wordfreq's English list at a Zipf
# frequency of 4.5 or more, English words all (scripts/three-letter-words.sh; rule 82),
# each counted as used this many times. Rule 76's revision kept them out for "assits" read
# "ass its"; rule 77's typo guard now leaves a typo of a known word as written.
_THREE_WORDS = "words/three.txt"
_THREE_PIECE_COUNT = 100


def three_letter_words() -> frozenset[str]:
    """The three-letter words a cut of words run together may give (rule 82)."""
    data = resources.files("moderation").joinpath(_THREE_WORDS).read_text("ascii")
    return frozenset(data.split())


@functools.cache
def _run_pieces() -> tuple[dict[str, float], int]:
    """What a run of words may be cut into -> the log of how often the training text uses
    it (rule 76): the English words of four letters or more it uses, the words of abuse of
    four or more (once, when it never does), the common three-letter words that are no
    word of abuse (rule 82) and ``_SHORT_PIECES``; and the longest piece's length."""
    english = english_words()
    counts = word_counts()
    pieces = {w: float(n) for w, n in counts.items() if w in english}
    for word in _TYPO_WORDS | _SPLIT_WORDS:
        if len(word) >= _TYPO_MIN:
            pieces.setdefault(word, float(counts.get(word, 1)))
    three = three_letter_words() - _TYPO_WORDS - _SPLIT_WORDS
    pieces.update(dict.fromkeys(three, float(_THREE_PIECE_COUNT)))
    pieces.update(dict.fromkeys(_SHORT_PIECES, float(_SHORT_PIECE_COUNT)))
    logs = {w: math.log(n) for w, n in pieces.items()}
    return logs, max(map(len, logs))


def _piece_made_longer(low: str) -> bool:
    """Whether ``low`` is a piece of four letters or more with an ending put on, its last
    letter doubled or not ("stabby", "stabbin"): a word as written, as rule 58 leaves a
    word of the vocabulary made longer, not words run together (rule 76's revision)."""
    logs = _run_pieces()[0]
    for end in _ENDINGS_BY_LAST.get(low[-1], ()):
        stem = low[: -len(end)]
        if not low.endswith(end) or len(stem) < _TYPO_MIN:
            continue
        if stem in logs or (stem[-1] == stem[-2] and len(stem) > _TYPO_MIN and stem[:-1] in logs):
            return True
    return False


_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
# Words of abuse a cut must not break apart ("dipshits" is no "dips hits"; rule 77).
_WHOLE_ABUSE = tuple(sorted(w for w in _TYPO_WORDS | _SPLIT_WORDS if len(w) >= _TYPO_MIN))


def _cuts_through_abuse(low: str, pieces: list[str]) -> bool:
    """Whether the cut of ``low`` into ``pieces`` puts a boundary inside a word of abuse
    of four letters or more that ``low`` holds (rule 77)."""
    bounds, at = set(), 0
    for piece in pieces[:-1]:
        at += len(piece)
        bounds.add(at)
    for word in _WHOLE_ABUSE:
        start = low.find(word)
        while start >= 0:
            if any(start < b < start + len(word) for b in bounds):
                return True
            start = low.find(word, start + 1)
    return False


def _against_its_capitals(run: str, pieces: list[str]) -> bool:
    """Whether ``run`` is in mixed case (past its first letter both a capital and a small
    letter: a name, a brand, a handle, "itTabloid") and a piece is written in no one case
    ("iT tabloid"): a cut the writer's capitals do not allow (rules 81 and 83). A piece
    all small, all capitals or a capital then small letters is in one case ("Gun Control
    bullshit", "for this SHIT then HANG")."""
    rest = run[1:]
    if rest.islower() or rest.isupper():
        return False
    return not all(p.islower() or p.isupper() or p.istitle() for p in pieces)


def cut_run(run: str) -> list[str] | None:
    """``run`` cut into the fewest pieces (``_run_pieces``) that hold all its letters,
    the most used among as many (the largest sum of log counts), keeping its case; None
    when no cut holds every letter or one piece is all of it (rule 76)."""
    logs, longest = _run_pieces()
    low = run.lower()
    n = len(low)
    # best[i]: (pieces, -sum of log counts, where the last piece starts) for low[:i].
    best: list[tuple[int, float, int] | None] = [None] * (n + 1)
    best[0] = (0, 0.0, 0)
    for end in range(1, n + 1):
        for start in range(max(0, end - longest), end):
            before = best[start]
            if before is None:
                continue  # no cut reaches here: no slice to look up (rule 82's long runs)
            log = logs.get(low[start:end])
            if log is None:
                continue
            option = (before[0] + 1, before[1] - log, start)
            now = best[end]
            if now is None or option[:2] < now[:2]:
                best[end] = option
    last = best[n]
    if last is None or last[0] < 2:
        return None
    cuts, end = [], n
    while end > 0:
        step = best[end]
        assert step is not None
        cuts.append(run[step[2] : end])
        end = step[2]
    return cuts[::-1]


# A cheap look for a run long enough to be cut, and what says a word is part of a URL,
# an address, a handle or a hashtag, which no cut touches (rule 76).
_RUN_LOOK = re.compile(rf"[A-Za-z]{{{_RUN_MIN},}}")
_NOT_PROSE = re.compile(r"[/@#:=&%_]|\w\.\w")
# Quotation marks a word may stand inside, as languages and keyboards write them (rule 87):
# „…“ and ‚…‘ (German, Polish, Czech), “…” and ‘…’, ”…” (Swedish), guillemets «…» and ‹…›
# either way round, corner brackets 「…」 and 『…』. ’ opens none: there it is an apostrophe
# ("o’clock"), and it closes a word as one ("btich’s", ‘btich’).
_OPENING_QUOTES = "\u201e\u201a\u201c\u2018\u201d\u00ab\u00bb\u2039\u203a\u300c\u300e"
_CLOSING_QUOTES = "\u201d\u201c\u2018\u00ab\u00bb\u2039\u203a\u300d\u300f"
# What may follow a word: the end of the text, a space, sentence punctuation or a closing
# quotation mark; and the endings of a contraction after its apostrophe ("you're", "Ain’t").
_AFTER_WORD = rf"$|[\s.,!?;:\"()\]{_CLOSING_QUOTES}]"
_CONTRACTION_ENDINGS = r"(?:s|ll|re|ve|d|t|m)"
# A contraction with words glued after it, standing alone ("you'rejustanidiot",
# "Ain’tmissingshit"): the word and its ending, then three letters or more (rule 83),
# after a full stop or a dash too ("safety...it'sabouthating", "-She’sjust"; rule 85).
# A word of one letter is "I" ("I'mfine"; "O'malleys" is a name, rule 84).
_GLUED_ENDING = re.compile(
    rf"(?<![^\s\"(\[{_OPENING_QUOTES}.\-])((?:[A-Za-z]{{2,}}|[Ii])['\u2019]"
    + _CONTRACTION_ENDINGS
    + r")([A-Za-z]{3,})"
    + f"(?={_AFTER_WORD})"
)


# A word a person spells, of at least ``_SHORT_TYPO`` letters, standing alone: between
# spaces or sentence punctuation (after "..." too, before "(" or an apostrophe's ending,
# "whoer's"; rule 60), not a handle's or hashtag's name, not part of a word a symbol
# cuts ("dau*hter", "bitc-", "douch'e").
_SHORT_PIECE = 2  # letters of a piece that is read as an abbreviation beside a short word
_JOIN_COUNT_MIN = 10  # uses in the training text of a word two pieces may make (rule 96)
_MOST_USED = 2000  # words of the training text looked up in a small table first
_WORD_ENDS = rf"(?={_AFTER_WORD}|['\u2019]{_CONTRACTION_ENDINGS}?(?![^\W_]))"
# Where a word the typo readings take may start: after a space, a quote or quotation
# mark, a bracket or a full stop (rules 60, 87).
_WORD_START = rf"(?<![^\s\"'{_OPENING_QUOTES}(\[.])"
_LONG_WORD = re.compile(_WORD_START + rf"[A-Za-z]{{{_SHORT_TYPO},}}" + _WORD_ENDS)
# Pieces of letters, and those standing alone as a word does: what a word cut in two by
# a space is cut into (rule 95).
# (A contraction's ending stands alone as no piece does: "it's not" is no "it snot".)
_PIECE = re.compile(r"[a-z]+")  # read in small letters
# A contraction's ending, a piece of its own to ``_PIECE`` ("it's" is "it" and "s"): no
# sign of a word cut in two, though a word cut in two may begin with one ("t his").
_ENDING_PIECES = frozenset({"s", "t", "m", "d", "ll", "re", "ve"})
# The piece of letters that ends where a search is made to end (``endpos``).
_PIECE_BEFORE = re.compile(r"(?<![a-z])[a-z]+$")
_STANDING_PIECE = re.compile(_WORD_START + r"(?<![A-Za-z]['\u2019])[A-Za-z]+" + _WORD_ENDS)
# The words of one and two letters (the English list holds none shorter than three).
_SHORT_PIECE_WORDS = frozenset(
    {
        "a", "i", "ad", "ah", "am", "an", "as", "at", "aw", "ax", "be", "by", "do", "eh",
        "em", "ex", "go", "ha", "he", "hi", "hm", "id", "if", "im", "in", "is", "it", "lo",
        "ma", "me", "mm", "my", "no", "of", "oh", "ok", "on", "or", "ow", "ox", "pa", "pi",
        "so", "to", "uh", "um", "up", "us", "we", "ya", "ye", "yo",
        # and what stands before a contraction's ending
        "aren", "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "mustn",
        "shouldn", "wasn", "weren", "wouldn", "ain", "won", "don",
    }
)  # fmt: skip
# A run the cut reads may also start after a comma, a semicolon, a colon, "!" or "?"
# ("watchyourback,Iknowwhereyoulive"; rule 84), or a dash ("Brat-andgoesberserkwhen";
# rule 85); the typo readings keep `_LONG_WORD`.
_RUN_WORD = re.compile(
    rf"(?<![^\s\"'{_OPENING_QUOTES}(\[.,;:!?\-])[A-Za-z]{{{_SHORT_TYPO},}}" + _WORD_ENDS
)
# A typo with one capital inside a sentence is read when the training text uses the
# word this many times or more and the typo under three times ("Republiacns"; rule 60).
_CAPITALISED_WORD_MIN = 100
# A word with letters masked by "*", standing alone as a typo does: a letter first, a mask
# before the last character ("b*tch", "c**t"; rule 88).
_MASKED_WORD = re.compile(_WORD_START + r"[A-Za-z][A-Za-z*]*\*[A-Za-z*]*[A-Za-z*]" + _WORD_ENDS)
_MASK_MIN_LETTERS = 2
# A capital I for an l inside a word in small letters (``kilI``, ``sIut``, ``Ioser``): in
# most fonts chat uses the two look alike (docs/model.md, rule 93).
_CAPITAL_I_HINT = re.compile(r"[a-z]I|I[a-z]")
_CAPITAL_I_WORD = re.compile(r"(?<![A-Za-z])[A-Za-z]*(?:[a-z]I|I[a-z])[A-Za-z]*(?![A-Za-z])")
_CAPITAL_I_MAX = 3


@functools.cache
def _abuse_index() -> dict[tuple[int, int, str], frozenset[str]]:
    """(length, place, letter) -> the words of abuse the typo readings know of that length
    with that letter in that place; (length, -1, "") -> all of that length (rule 89)."""
    out: dict[tuple[int, int, str], set[str]] = {}
    for word in _TYPO_WORDS:
        out.setdefault((len(word), -1, ""), set()).add(word)
        for i, letter in enumerate(word):
            out.setdefault((len(word), i, letter), set()).add(word)
    return {key: frozenset(words) for key, words in out.items()}


def unmask(word: str, counts: Mapping[str, int]) -> str | None:
    """The word of abuse ``word`` (letters and "*" masks) shows: the only one of its length
    with its letters where it shows them, or the one of those the training text uses ten
    times as often as any other; None when none or no such one (rules 88, 89)."""
    low = word.lower()
    if len(low) < _TYPO_MIN or sum(c != "*" for c in low) < _MASK_MIN_LETTERS:
        return None
    index = _abuse_index()
    empty: frozenset[str] = frozenset()
    fits = index.get((len(low), -1, ""), empty)
    for i, letter in enumerate(low):
        if letter != "*":
            fits = fits & index.get((len(low), i, letter), empty)
            if not fits:
                return None
    if len(fits) > 1:
        return _common_source(set(fits), counts)
    return next(iter(fits), None)


def _by_neighbours(m: re.Match[str], words: tuple[str, ...]) -> str | None:
    """The word of abuse a shared typo ``m`` stands for, by the words beside it (rule 86)."""
    text = m.string
    before = _NEIGHBOUR_WORD.findall(text[max(0, m.start() - _NEIGHBOUR_REACH) : m.start()].lower())
    after = _NEIGHBOUR_WORD.search(text[m.end() : m.end() + _NEIGHBOUR_REACH].lower())
    return read_by_neighbours(
        words, before[-1] if before else None, after.group(0) if after else None
    )


_BEFORE_SENTENCE = re.compile(rf"(?:^|[.!?\n]|(?:^|\s)@\w+)[\s\"'{_OPENING_QUOTES}(\[]*$")


# A handle: "@sam", "@jess_92", "@john.doe".
_HANDLE_PATTERN = r"@\w+(?:[.-]\w+)*"
_HANDLE = re.compile(_HANDLE_PATTERN)


def _shouts(text: str) -> bool:
    """Whether ``text`` has no lower case letter outside its handles (rule 66)."""
    return not any(map(str.islower, _HANDLE.sub("", text)))


def _starts_sentence(m: re.Match[str]) -> bool:
    """Whether the word ``m`` found opens a sentence (the text, a line, what follows ".",
    "!", "?" or a handle), where a capital says nothing of a name (rule 58)."""
    word = m.group(0)
    if not (word[0].isupper() and word[1:].islower()):
        return False
    # What is just before decides: never a scan of a long message's whole prefix.
    return _BEFORE_SENTENCE.search(m.string, max(0, m.start() - 64), m.start()) is not None


# Chat shorthand for "you" and its kin, read as the words (rule 48): the threat and
# insult rows learned from text written with "you", and read "u" as milder. Whole words
# only: not in a handle or hashtag, "U.S.", "R&B", "U-turn", "u2", "'u'" or a masked
# word ("f*u"); "u'll", "u're", "u've" and "u'd" are read. A capital "R" stays (the
# language, "Toys R Us").
_SHORTHAND = re.compile(
    r"(?<![\w@#'\u2019.&*-])(?:urselves|urself|ur|u|r)"
    r"(?![\w&*-]|['\u2019](?!(?:ll|re|ve|d)\b)|\.\w)",
    re.IGNORECASE,
)
_SHORT_FOR = {"u": "you", "r": "are", "urself": "yourself", "urselves": "yourselves"}
# "ur" is "you're" before these (an article or determiner, "not", an adverb of degree
# or time, "going to" and its kin: what follows "you're" and not "your"), else "your".
_YOU_ARE_BEFORE = re.compile(
    r"\s+(?:a|an|the|no|all|not|so|such|too|very|really|literally|just|always|never|"
    r"still|actually|probably|definitely|clearly|obviously|honestly|seriously|gonna|"
    r"going|being|kidding|joking|welcome)\b",
    re.IGNORECASE,
)


# A film's rating ("rated r", "r rated") and a university ("the U") are no shorthand.
_RATED_AFTER = re.compile(r"\s+rated\b", re.IGNORECASE)
_RATED_BEFORE = re.compile(r"\b(?:rated|the)\s+$", re.IGNORECASE)


def _read_shorthand(m: re.Match[str]) -> str:
    word = m.group(0)
    low = word.lower()
    if word == "R" or (
        len(low) == 1
        and (
            _RATED_BEFORE.search(m.string, max(0, m.start() - 7), m.start())
            or (low == "r" and _RATED_AFTER.match(m.string, m.end()))
        )
    ):
        return word
    if low == "ur":
        return "you're" if _YOU_ARE_BEFORE.match(m.string, m.end()) else "your"
    return _SHORT_FOR[low]


# Plain substring tests first (a case-insensitive alternation costs ~7 us a message;
# these, under 1.5): the keys that hold no shorter key ("gkys" holds "kys").
_ABBREVIATION_HINTS = tuple(
    k for k in _ABBREVIATIONS if not any(o in k for o in _ABBREVIATIONS if o != k)
)
# The run of mentions a message opens with, each with an optional ":" or ",".
_LEADING_MENTIONS = re.compile(rf"\s*(?:{_HANDLE_PATTERN}[:,]?(?:\s+|$))+")
_WORD = re.compile(r"\w")
_ABBREVIATED = re.compile(
    # (Not inside a word, nor a mention: "@kys" names someone.)
    r"(?<![^\W_])(?<!@)(?:" + "|".join(map(re.escape, _ABBREVIATIONS)) + r")(?![^\W_])",
    re.IGNORECASE,
)


def _readings(core: str) -> Iterator[str]:
    """``core`` read with each of its two-way characters (``_EITHER``) as the other
    letter: all of them first, then one at a time (at most ``_MAX_READINGS``)."""
    where = [i for i, c in enumerate(core) if c in _EITHER]
    flips = [where] + ([[i] for i in where] if len(where) > 1 else [])
    for flip in flips[:_MAX_READINGS]:
        chars = list(core)
        for i in flip:
            chars[i] = _EITHER[chars[i]]
        yield "".join(chars).translate(_LEET_TABLE)


_MAX_PIECES = 100  # more than any word has: "no split"
# Pieces are counted only for a word a person spells out (at most this long, with at
# most this many two-way characters, a few words a message), so that a hostile message
# full of bars costs little more than a plain one (a 900-character word took 1.3 s
# before these bounds).
_PIECES_WORD_MAX = 24
_PIECES_TWO_WAY_MAX = 3
_PIECES_PER_MESSAGE = 8


class _Budget:
    """How many more words of one message may have their pieces counted."""

    def __init__(self, left: int) -> None:
        self.left = left

    def take(self, cost: int = 1) -> bool:
        self.left -= cost
        return self.left >= 0


def _pieces(word: str, vocab: Container[str]) -> int:
    """How many pieces WordPiece splits ``word`` into with ``vocab`` (greedy longest
    match first, continuations as ``##``), or ``_MAX_PIECES`` if it cannot."""
    n, start = 0, 0
    while start < len(word):
        end = len(word)
        while end > start and ("##" if start else "") + word[start:end] not in vocab:
            end -= 1
        if end == start:
            return _MAX_PIECES
        n, start = n + 1, end
    return n


def _fold_word(
    word: str,
    genuine_script: bool,
    vocab: Container[str] = frozenset(),
    budget: _Budget | None = None,
) -> str:
    low = word.lower()
    if not low.isascii():
        # Words that mix in Latin letters; and words made entirely of look-alikes,
        # unless the text is genuinely Cyrillic or Greek ("как" in Russian stays).
        folded = low.translate(_LOOKALIKE_TABLE)
        if any("a" <= c <= "z" for c in low) or (folded.isascii() and not genuine_script):
            low = folded
    if low[0] == "@" or not any(c in _LEET for c in low) or not any(c.isalpha() for c in low):
        return low  # a mention, or nothing to read as letters
    tail = _TRAILING.search(low)
    core, end = (low[: tail.start()], tail.group(0)) if tail else (low, "")
    if not core:
        return low
    if _NUMERIC.fullmatch(core) and not _O_OR_I_INSIDE.fullmatch(core):
        if _LETTERS_THEN_ONES.fullmatch(core):
            for reading in (core.translate(_LEET_TABLE), *_readings(core)):
                if len(reading) >= _CODE_WORD_MIN and reading in vocab:
                    return reading + end
        return low
    reading = core.translate(_LEET_TABLE)
    if reading not in vocab and any(c in _EITHER for c in core):
        readings = (reading, *_readings(core))
        if (
            _TRIPLE.search(reading)
            or len(core) > _PIECES_WORD_MAX
            or sum(c in _EITHER for c in core) > _PIECES_TWO_WAY_MAX
            or budget is None
            or not budget.take()
        ):
            # A stretch ("talk!!ing" reads "talkiiing": the squeeze pass reads it) or no
            # word a person spells: a whole word among the readings wins (rule 41).
            reading = next((r for r in readings if r in vocab), reading)
        else:
            # The reading WordPiece splits least (a whole word: one piece), the first
            # on a tie (docs/model.md, rule 47).
            reading = min(readings, key=lambda r: _pieces(r, vocab))
    return reading + end


def without_leading_mentions(text: str, whole: str | None = None) -> str:
    """``text`` without the mentions it opens with, if words follow them (in ``whole``,
    the message ``text`` is a prefix of, when given)."""
    source = text if whole is None else whole
    m = _LEADING_MENTIONS.match(source)
    if m is None or not _WORD.search(source, m.end()):
        return text
    return text[m.end() :]


def drops_leading_mentions(manifest: Mapping[str, Any]) -> bool:
    """Whether the model ``manifest`` describes was trained without leading mentions."""
    return bool(manifest.get("normalizer", {}).get("leading_mentions") == "drop")


def spaces_glued_symbols(manifest: Mapping[str, Any]) -> bool:
    """Whether the model ``manifest`` describes was trained with glued symbols spaced off."""
    return bool(manifest.get("normalizer", {}).get("glued_symbols") == "space")


class Normalizer:
    """Text -> text, as the model should read it; ``vocab`` picks squeezed spellings;
    ``leading_mentions``: whether the mentions a message opens with are dropped (only for
    a model trained without them); ``glued_symbols``: whether a symbol glued to a word is
    spaced off (only for a model trained so); ``idioms``: whether chat's idioms of violent
    words are read as what they mean, last (moderation/idioms.py, rule 121)."""

    def __init__(
        self,
        vocab: frozenset[str] = frozenset(),
        leading_mentions: bool = False,
        glued_symbols: bool = False,
        idioms: bool = False,
    ) -> None:
        self.vocab = vocab
        self.idioms = idioms
        self._words = _Words(vocab)
        self.leading_mentions = leading_mentions
        self.glued_symbols = glued_symbols
        self._typos, self._abuse_typos = _typo_tables(vocab)
        # Typos of three letters a word of abuse shares, read by their neighbours (rule 86).
        self._shared_short = shared_short_typos(vocab)
        neighbour_counts()  # read at load, not at a message's first such typo
        _abuse_index()  # built at load, not at a message's first masked word (rule 89)
        self._counts = word_counts()
        self._english = english_words()
        # What a join may make: a word of abuse, or one of ``_known_word``'s words of four
        # letters or more that the training text uses at least ``_JOIN_COUNT_MIN`` times
        # (not "thais" of "tha is", a typo and a word; rule 96).
        self._join_words = (
            frozenset(
                w
                for w in itertools.chain(self._english & self._counts.keys(), vocab)
                if len(w) >= _TYPO_MIN and self._counts.get(w, 0) >= _JOIN_COUNT_MIN
            )
            | frozenset(_TYPO_WORDS)
            | _SPLIT_WORDS
        )
        # The pieces of letters that are words as written: what a word cut in two by a
        # space is not, on one side at least (rule 95).
        self._piece_words = frozenset(
            _SHORT_PIECE_WORDS
            | three_letter_words()
            | self._english
            | self._counts.keys()
            | {w for w in vocab if len(w) >= _TYPO_MIN}
            | _CHAT_WORDS
            | _TYPO_WORDS
            | _SPLIT_WORDS
            # and the chat shorthand read later: "to ur house" is no "tour" (rule 96)
            | _SHORT_FOR.keys()
            | {"ur"}
            | _ABBREVIATIONS.keys()
        )
        # The words of one and two letters, the three-letter words and the training
        # text's most used words of four letters or more: none is a typo the tables read
        # (taken out, were one ever to be), and each is a piece word.
        most_used = sorted(self._counts, key=self._counts.__getitem__, reverse=True)
        self._no_typos = (
            frozenset(_SHORT_PIECE_WORDS | three_letter_words() | set(most_used[:_MOST_USED]))
            - self._typos.keys()
            - self._shared_short.keys()
        )
        _run_pieces()  # built at load, not at a message's first cut (rule 78)
        # No typo of a run longer than this is a known word (``_known_word``; rule 82).
        self._longest_known = max(
            len(w) for words in (self._counts, vocab, _TYPO_WORDS, _SPLIT_WORDS) for w in words
        )

    def __call__(self, text: str, whole: str | None = None) -> str:
        """``text`` as the model should read it (``_passes``, then the idioms where read)."""
        text, low = self._passes(text, whole)
        # After everything else: "hit u up" is "hit you up" by now (rule 121).
        return read_idioms(text, low) if self.idioms else text

    def with_rest(self, text: str, whole: str | None = None) -> tuple[str, str | None]:
        """``text`` as the model should read it, and, where an idiom is read in it, the
        same without the sentences that hold one (None where there is no such rest;
        rule 122)."""
        text, low = self._passes(text, whole)
        if not self.idioms:
            return text, None
        read = read_idioms(text, low)
        return read, (None if read == text else without_idiom_sentences(text))

    def _passes(self, text: str, whole: str | None = None) -> tuple[str, str]:
        """``text`` with every evasion undone (every pass but the idioms'), and the same in
        lower case (made for the abbreviations; the idioms read it too, rule 124).

        ``whole``: the message ``text`` was cut from, at a word boundary, when only a
        prefix is read. Whether a message is genuinely Cyrillic or Greek is a
        property of all of it, so that is decided on ``whole``; every other pass
        works word by word.
        """
        if self.leading_mentions and text.lstrip()[:1] == "@":
            text = without_leading_mentions(text, whole)
        if not text.isascii():
            # The tokenizer does this too, but the passes below must see styled
            # digits as digits and words unbroken by invisible characters.
            if reads_upside_down(text):
                # First: NFKC would take a turned character apart ("˙" is a space and a
                # dot above), and a reading backwards must see the message as written.
                text = read_upside_down(text)
            text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
            if "\U0001f595" in text:
                text = _MIDDLE_FINGER.sub(" fuck ", text)
            text = self._read_symbols(text)
            if self.glued_symbols:
                text = space_glued_symbols(text, self.vocab)
            else:
                text = drop_glued_symbols(text, self.vocab)
        if _SPELLED_HINT.search(text):
            text = _SPELLED.sub(self._join_spelled, text)
        ascii_only = text.isascii()
        if _LEET_HINT.search(text) or (not ascii_only and _LOOKALIKE_ANY.search(text)):
            # (``whole`` as the passes above would have seen it: NFKC.)
            seen = text if whole is None or ascii_only else unicodedata.normalize("NFKC", whole)
            genuine = not ascii_only and _GENUINE_SCRIPT.search(seen) is not None
            budget = _Budget(_PIECES_PER_MESSAGE)
            text = _FOLDABLE.sub(
                lambda m: _fold_word(m.group(0), genuine, self._words, budget), text
            )
        if "1" in text:
            text = _ENDING_ONES.sub(self._ending_ones, text)
        if _TRIPLE.search(text):
            text = _STRETCHED.sub(self._squeeze_word, text)
        if "*" in text:
            text = _MASKED_WORD.sub(self._unmask, text)
        if "I" in text and _CAPITAL_I_HINT.search(text):
            text = _CAPITAL_I_WORD.sub(self._capital_i_read, text)
        # Every word `_LONG_WORD` takes is a run of letters: a cheap look first.
        # (The words chat writes most are no typo and no piece of a word cut in two: a
        # small table takes them out first, so that few of a message's pieces reach into
        # the large ones.)
        runs = set(_PIECE.findall(text.lower())) - self._no_typos
        if runs and not runs <= _ENDING_PIECES:
            unknown = runs - self._piece_words
            if unknown and not unknown <= _ENDING_PIECES:
                # A piece of letters that is no word: maybe a word cut in two by a space
                # ("idi ot", "be ast"; rule 95).
                joined = self._join_split(text, unknown)
                if joined is not text:
                    text = joined
                    runs = set(_PIECE.findall(text.lower())) - self._no_typos
        if not (self._typos.keys().isdisjoint(runs) and self._shared_short.keys().isdisjoint(runs)):
            # Whether the message shouts is asked once, not once a word: a message of
            # many capitalised typos would cost its length times their number.
            read = functools.partial(self._typo_read, shouts=_shouts(text))
            text = _LONG_WORD.sub(read, text)
        if any(map(self._cuttable, _RUN_LOOK.findall(text))):
            budget = _Budget(_RUN_LETTERS_PER_MESSAGE)
            if "'" in text or "\u2019" in text:
                text = _GLUED_ENDING.sub(lambda m: self._cut_after_ending(m, budget), text)
            text = _RUN_WORD.sub(lambda m: self._cut_run(m, budget), text)
        text = _SHORTHAND.sub(_read_shorthand, text)
        # Last, so that "k y s", "k.y.s", "kyyys" and a Cyrillic "кys" are written out too.
        low = text.lower()
        if any(hint in low for hint in _ABBREVIATION_HINTS):
            text = _ABBREVIATED.sub(lambda m: _ABBREVIATIONS[m.group(0).lower()], text)
            low = text.lower()
        return text, low

    def _read_symbols(self, text: str) -> str:
        """Fancy letters folded and letters spelled out between symbols joined. No space
        is taken out: a prefix cut at a space reads as before."""
        if _FANCY_ANY.search(text):
            text = text.translate(_FANCY_TABLE)
        if _REGIONAL.search(text):
            text = _REGIONAL.sub(self._regional_word, text)
        if _SPELLED_ANY_HINT.search(text):
            text = _SPELLED_ANY.sub(_join_if_symbols, text)
        return text

    def _ending_ones(self, m: re.Match[str]) -> str:
        letters, ones = m.group(1).lower(), m.group(2)
        if letters in self._words:
            return m.group(0)  # a word and a digit, or a slip for "!" ("too1")
        # (At least three letters and a one: always _CODE_WORD_MIN letters or more.)
        for letter in "li":
            word = letters + letter * len(ones)
            if word in self._words:
                return word
        return m.group(0)

    def _capital_i_read(self, m: re.Match[str]) -> str:
        """A word with a capital I beside a small letter, read with an l for it where that
        makes a known word and the word in small letters is none (rule 93)."""
        word = m.group(0)
        low = word.lower()
        if low in self._words or low in self._counts or low in self._english:
            return word
        places = [i for i, c in enumerate(word) if c == "I"]
        if len(places) > _CAPITAL_I_MAX:
            return word
        for n in range(1, len(places) + 1):
            for chosen in itertools.combinations(places, n):
                read = "".join("l" if i in chosen else c for i, c in enumerate(word))
                if self._known_word(read.lower()):
                    return read
        return word

    def _unmask(self, m: re.Match[str]) -> str:
        return unmask(m.group(0), self._counts) or m.group(0)

    def _typo_read(self, m: re.Match[str], shouts: bool) -> str:
        word = m.group(0)
        low = word.lower()
        read = self._typos.get(low)
        if read is None:
            shared = self._shared_short.get(low)
            if shared is None:
                return word
            read = _by_neighbours(m, shared)
            if read is None:
                return word
        if len(word) == _SHORT_TYPO:
            # Three letters: in capitals, an acronym ("HRT") unless the whole message
            # shouts ("WHAT THE FUC"; rule 61), its handles aside ("@user FUC"; rule 66).
            if word.islower() or _starts_sentence(m) or shouts:
                return read
            return word
        if low in self._abuse_typos or word.islower() or _starts_sentence(m):
            return read
        if (
            word[1:].islower()
            and low not in self._counts
            and self._counts.get(read, 0) >= _CAPITALISED_WORD_MIN
        ):
            return read  # "Republiacns" (rule 60); a name is rarely a common word's typo
        # Capitals elsewhere: a name ("Monson", "Arial"), an acronym ("NAMI") or a mixed
        # spelling ("heII"), read only when it is a typo of a word of abuse (rule 58).
        return word

    def joins_across(self, text: str, space: int) -> bool:
        """Whether the words either side of the space at ``space`` are read as one (a word
        cut in two by a space, rule 95): a prefix cut there would read the first piece
        alone. The two words are read as they stand, each at most 64 characters."""
        if text[space] != " ":
            return False
        if self.idioms and reads_across(text, space):
            return True  # an idiom read whole, or its condition, goes on past it (rule 121)
        start, end = space, space + 1
        while start > 0 and start > space - 64 and not text[start - 1].isspace():
            start -= 1
        while end < len(text) and end < space + 65 and not text[end].isspace():
            end += 1
        pair = text[start:end]
        return " " not in self(pair).strip()

    def _join_split(self, text: str, unknown: set[str]) -> str:
        """``text`` with each piece of letters that is no word (``unknown``: such pieces
        in small letters, standing alone or not) joined to the piece beside it, across
        one space, where the two make a word ``_join_words`` holds (a word of abuse, or a
        known word of four letters or more that the training text uses ten times or more)
        written in one case: to the one that makes the word the training text uses more,
        the piece before on a tie; pieces taken in the order the text has them (rules 95,
        96). ``text`` itself when nothing is joined. Only the unknown pieces are
        looked for, and only a join that makes a known word is looked at closely."""
        low = text.lower()
        size = len(low)
        found: list[tuple[int, int]] = []  # a piece's start, and the space it is read across
        for at, piece in _places(low, unknown):
            after = at + len(piece)
            if at >= 2 and low[at - 1] == " ":
                left = _PIECE_BEFORE.search(low, max(0, at - 65), at - 1)
                if left is not None and left.group(0) + piece in self._join_words:
                    found.append((at, at - 1))
            if after + 1 < size and low[after] == " ":
                right = _PIECE.match(low, after + 1)
                if right is not None and piece + right.group(0) in self._join_words:
                    found.append((at, after))
        if not found:
            return text
        found.sort()
        taken: set[int] = set()  # where the pieces already joined start
        spaces: list[int] = []  # the spaces taken out
        i = 0
        while i < len(found):
            at = found[i][0]
            best, best_count = None, -1
            while i < len(found) and found[i][0] == at:
                space = found[i][1]
                i += 1
                joined = self._joined_pieces(text, space)
                if joined is None or joined[0] in taken or joined[1] in taken:
                    continue
                count = self._counts.get(text[joined[0] : joined[2]].replace(" ", "").lower(), 0)
                if count > best_count:
                    best, best_count = joined, count
            if best is not None:
                taken.update(best[:2])
                spaces.append(best[1] - 1)
        if not spaces:
            return text
        out, last = [], 0
        for space in sorted(spaces):
            out.append(text[last:space])
            last = space + 1
        out.append(text[last:])
        return "".join(out)

    def _joined_pieces(self, text: str, space: int) -> tuple[int, int, int] | None:
        """The two pieces standing alone either side of ``space`` (where the first
        starts, where the second starts, where it ends), if they read as one word: a
        word ``_join_words`` holds, in one case."""
        start = space
        while start > 0 and _is_ascii_letter(text[start - 1]):
            start -= 1
        left = _STANDING_PIECE.match(text, start)
        right = _STANDING_PIECE.match(text, space + 1)
        if left is None or right is None or left.end() != space:
            return None
        word = left.group(0) + right.group(0)
        if not _one_case(word) or word.lower() not in self._join_words:
            return None
        # A letter or two that is no word, beside a word of three letters or fewer, is
        # an abbreviation or a name's letter as often ("in cs", "the y", "ed it", "per
        # se"): not joined (rule 96), unless the two make a word of abuse ("sh it", "bit
        # ch"; rule 97).
        a, b = left.group(0).lower(), right.group(0).lower()
        if a + b in _TYPO_WORDS:
            return start, space + 1, right.end()
        for short, other in ((a, b), (b, a)):
            if (
                len(short) <= _SHORT_PIECE
                and short not in self._piece_words
                and len(other) <= _SHORT_PIECE + 1
                and other in self._piece_words
            ):
                return None
        return start, space + 1, right.end()

    def _cuttable(self, word: str) -> bool:
        """Whether ``word`` is a run of letters no list knows, of a length a cut reads:
        no whole word of the vocabulary, English word, word of abuse, chat word, word of
        the counts file, typo, abbreviation or shorthand ("urself"; rule 76)."""
        low = word.lower()
        return (
            _RUN_MIN <= len(low) <= _RUN_MAX
            and low not in self.vocab
            and low not in self._counts
            and low not in self._typos
            and low not in self._english
            and low not in _TYPO_WORDS
            and low not in _SPLIT_WORDS
            and low not in _CHAT_WORDS
            and low not in _ABBREVIATIONS
            and low not in _SHORT_FOR
        )

    def _cut_run(self, m: re.Match[str], budget: _Budget) -> str:
        word = m.group(0)
        if not self._cuttable(word) or _piece_made_longer(word.lower()):
            return word
        text, start, end = m.string, m.start(), m.end()
        # The whitespace-delimited token it stands in (at most 64 characters each way).
        while start > 0 and start > m.start() - 64 and not text[start - 1].isspace():
            start -= 1
        while end < len(text) and end < m.end() + 64 and not text[end].isspace():
            end += 1
        if _NOT_PROSE.search(text, start, end) or not budget.take(_run_cost(word)):
            return word
        return self._read_run(word) or word

    def _read_run(self, word: str) -> str | None:
        """``word``'s pieces with spaces between, or None where no cut holds them or a
        guard refuses the cut."""
        low = word.lower()
        pieces = cut_run(word)
        # A typo ("hering", "Totall") is not words run together (rule 77). Asked last: it
        # tries 26 letters a place, and most runs no cut holds (rule 78).
        if (
            pieces is None
            or _against_its_capitals(word, pieces)
            or _cuts_through_abuse(low, pieces)
            or self._one_typo_from_a_word(low)
        ):
            return None
        return " ".join(pieces)

    def _cut_after_ending(self, m: re.Match[str], budget: _Budget) -> str:
        """A contraction and the words glued after it with a space put between, the glued
        letters cut as a run where they are more than one word: "I'mfine" is read "I'm
        fine", "you'rejustanidiot" "you're just an idiot" (rule 83)."""
        head, rest = m.group(1), m.group(2)
        if not budget.take(_run_cost(rest)):
            return m.group(0)
        if rest.lower() in _run_pieces()[0] and not _against_its_capitals(rest, [rest]):
            return f"{head} {rest}"
        if not self._cuttable(rest):
            return m.group(0)
        read = self._read_run(rest)
        return m.group(0) if read is None else f"{head} {read}"

    def _known_word(self, word: str) -> bool:
        """An English word the training text uses, a whole word of the vocabulary of four
        letters or more, or a word of abuse (rule 77)."""
        return (
            (word in self._counts and word in self._english)
            or (len(word) >= _TYPO_MIN and word in self.vocab)
            or word in _TYPO_WORDS
            or word in _SPLIT_WORDS
        )

    def _one_typo_from_a_word(self, low: str) -> bool:
        """Whether a letter put in past the first, or two adjacent letters swapped past the
        first, makes ``low`` a known word (``_known_word``; rule 77)."""
        if len(low) > self._longest_known:
            return False  # no typo of it is as short as a known word (rule 82)
        for i in range(1, len(low) + 1):
            head, tail = low[:i], low[i:]
            if any(self._known_word(head + c + tail) for c in _ALPHABET):
                return True
        return any(
            self._known_word(low[:i] + low[i + 1] + low[i] + low[i + 2 :])
            for i in range(1, len(low) - 1)
            if low[i] != low[i + 1]
        )

    def _regional_word(self, m: re.Match[str]) -> str:
        word = "".join(chr(ord(c) - 0x1F1E6 + ord("a")) for c in m.group(0))
        return word if word in self.vocab else m.group(0)

    def _join_spelled(self, m: re.Match[str]) -> str:
        letters = m.group(0)[::2]
        low = letters.lower()
        if m.group(1) != " " or low in self._words or low in _SHORT_FOR:
            return letters
        # Spaces are ambiguous: in "such a i d i o t" the "a" is a word of its own, and
        # in "u r a b i t c h" so are "u", "r" and "a" (rule 48). Keep a single letter
        # at either end apart, or up to three that chat writes as words at the start,
        # when the rest is a known word; the fewest kept apart first.
        n = len(letters)
        for lo, hi in _SPELLED_CUTS.get(n) or _spelled_cuts(n):
            if (lo < 2 or _chat_words(letters[:lo])) and low[lo:hi] in self._words:
                return " ".join([*letters[:lo], letters[lo:hi], *letters[hi:]])
        # Only letters that chat writes as words ("u r a loser", "y r u", "i c u"):
        # as written.
        return m.group(0) if all(c in _CHAT_LETTERS for c in low) else letters

    def _squeeze_word(self, m: re.Match[str]) -> str:
        word = m.group(0)
        runs = list(_REPEAT.finditer(word))
        if not runs:
            return word
        # Each stretched run becomes two of the letter or one (two first: people
        # stretch doubled letters, as in "kill", "good", "too"); the first spelling
        # the vocabulary knows wins, else all ones. At most 8 tries.
        for choice in itertools.islice(itertools.product((2, 1), repeat=len(runs)), 8):
            out, last = [], 0
            for run, n in zip(runs, choice, strict=False):
                out.append(word[last : run.start()] + run.group(1) * n)
                last = run.end()
            candidate = "".join(out) + word[last:]
            if candidate in self.vocab:
                return candidate
        return _REPEAT.sub(r"\1", word)


def normalizer_for_vocab(vocab: frozenset[str]) -> Callable[[str], str]:
    """A normalizer whose squeezing prefers spellings in ``vocab`` (whole words)."""
    return Normalizer(vocab)
