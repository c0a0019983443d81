"""How often the training text uses each word: the counts the typo reading ships with.

The typo reading (moderation/normalize.py, docs/model.md rule 59) reads a typo of an
English word the vocabulary splits into pieces when the training text uses that word,
and reads a typo two words share as the one the training text uses far more often. Both
need the counts this module writes into ``moderation/words/counts.txt.gz``: every word
of four ascii letters or more, lowercased, that is an English word (rule 58's list), a
whole word of a shipped model's vocabulary or a word of the typo reading's list of
abuse, with how many times the training splits use it; and every other word the
training splits use at least ``OTHER_FLOOR`` times outside a hashtag or a handle, a
spelling people write as it is ("dont", "probs", "maga") that the reading must leave as
written. A rarer word of the texts (a name, a handle, a slip) is not written, nor one
that only hashtags write ("#GunControl"): in prose, "guncontrol" is words run together
(docs/model.md, rule 85).

    python -m moderation.build.word_counts ../shared/data    (scripts/word-counts.sh)

The same data files give the same bytes (sorted, gzip without a timestamp).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from moderation import normalize
from moderation.build import datasets

COUNTS_FILE = Path(__file__).resolve().parents[1] / "words" / "counts.txt.gz"
_MODELS = Path(__file__).resolve().parents[2] / "models"
_WORD = re.compile(r"[A-Za-z]{4,}")
# A word as prose writes it: not a hashtag's or a handle's body (rule 85).
_PROSE_WORD = re.compile(r"(?<![#@\w])[A-Za-z]{4,}")
# A word that is no English word, no word of a vocabulary and no word of abuse is written
# when the training splits use it at least this many times in prose.
OTHER_FLOOR = 3


def training_texts(data_dir: Path) -> list[str]:
    """The training splits' texts as the build's readers give them (TweetEval offensive
    and hate, Davidson with its offensive class thinned, ConvAbuse, ToxiGen, the
    insults) and the chitchat pool's whole train split. No validation or test text."""
    examples = (
        datasets.tweeteval(data_dir, "offensive", "train")
        + datasets.tweeteval(data_dir, "hate", "train")
        + datasets.davidson(data_dir, "train")
        + datasets.convabuse(data_dir, "train")
        + datasets.toxigen(data_dir, "train")
        + datasets.insults("train")
    )
    return [e.text for e in examples] + datasets.chitchat_utterances("train")


def count_words(texts: Iterable[str], known: frozenset[str]) -> Counter[str]:
    """How many times ``texts`` use each word (a run of four letters or more, lowercased):
    a word of ``known`` at any count, any other only when ``OTHER_FLOOR`` or more of its
    uses are prose's, not a hashtag's or a handle's body (rule 85)."""
    counts: Counter[str] = Counter()
    prose: Counter[str] = Counter()
    for text in texts:
        counts.update(map(str.lower, _WORD.findall(text)))
        prose.update(map(str.lower, _PROSE_WORD.findall(text)))
    return Counter({w: n for w, n in counts.items() if w in known or prose[w] >= OTHER_FLOOR})


def shipped_vocabularies(models: Path = _MODELS) -> frozenset[str]:
    """Every whole word of four ascii letters or more in a shipped model's vocabulary."""
    words: set[str] = set()
    for path in sorted(models.glob("*/tokenizer.json")):
        vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
        words.update(w for w in vocab if len(w) >= 4 and w.isascii() and w.isalpha())
    return frozenset(words)


def write_lines(lines: Iterable[str], path: Path) -> None:
    """ASCII lines, gzip without a timestamp or a file name: the same lines, the same
    bytes (the counts file here, the neighbours table of build/neighbours.py)."""
    text = "".join(f"{line}\n" for line in lines)
    path.write_bytes(gzip.compress(text.encode("ascii"), mtime=0))


def write_counts(counts: Counter[str], path: Path) -> None:
    """``word count`` lines, sorted by word."""
    write_lines((f"{word} {n}" for word, n in sorted(counts.items())), path)


def data_arguments(doc: str | None, out: Path, argv: list[str] | None) -> argparse.Namespace:
    """A word table's command line: the shared data folder, and ``--out`` (default
    ``out``)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=out)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = data_arguments(__doc__, COUNTS_FILE, argv)
    known = normalize.english_words() | shipped_vocabularies() | normalize.abuse_words()
    counts = count_words(training_texts(args.data_dir), known)
    write_counts(counts, args.out)
    print(f"{len(counts)} words, {sum(counts.values())} uses -> {args.out}")


if __name__ == "__main__":
    main()
