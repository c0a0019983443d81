"""The words beside each word a shared typo of three letters is of: the table the typo
reading ships with to choose among them (moderation/normalize.py, docs/model.md rule 86).

"sht" is three letters left of "shit", "shot" and "shut"; rule 62 reads it as none of
them, since the training text uses "shot" and "shut" more than "shit". This module counts,
in the same training text as the counts file (``word_counts.training_texts``), how many
times each such word is written right after each word and right before each word, so
that "talks sht on" can be read "talks shit on" and "sht up" left alone. Words are runs
of letters and apostrophes, lowercased, as ``normalize._NEIGHBOUR_WORD`` reads them.

    python -m moderation.build.neighbours ../shared/data    (scripts/neighbours.sh)

The same data files give the same bytes (sorted, gzip without a timestamp).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from moderation import normalize
from moderation.build.word_counts import data_arguments, training_texts, write_lines

NEIGHBOURS_FILE = Path(__file__).resolve().parents[1] / "words" / "neighbours.txt.gz"
_VOCAB = (
    Path(__file__).resolve().parents[2] / "models" / "moderation-minilm-int8" / "tokenizer.json"
)


def count_neighbours(texts: Iterable[str], words: frozenset[str]) -> Counter[tuple[str, str, str]]:
    """(word, "L", the word before it) and (word, "R", the word after it) -> how many
    times ``texts`` write them so, for each word of ``words``."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for text in texts:
        tokens = normalize._NEIGHBOUR_WORD.findall(text.lower())
        for left, right in itertools.pairwise(tokens):
            if right in words:
                counts[(right, "L", left)] += 1
            if left in words:
                counts[(left, "R", right)] += 1
    return counts


def write_neighbours(counts: Counter[tuple[str, str, str]], path: Path) -> None:
    """``word side neighbour count`` lines, sorted."""
    write_lines((f"{w} {side} {other} {n}" for (w, side, other), n in sorted(counts.items())), path)


def main(argv: list[str] | None = None) -> None:
    args = data_arguments(__doc__, NEIGHBOURS_FILE, argv)
    vocab = frozenset(json.loads(_VOCAB.read_text(encoding="utf-8"))["model"]["vocab"])
    shared = normalize.shared_short_typos(vocab)
    words = frozenset(w for of in shared.values() for w in of)
    counts = count_neighbours(training_texts(args.data_dir), words)
    write_neighbours(counts, args.out)
    print(f"{len(shared)} typos, {len(words)} words, {len(counts)} neighbour counts -> {args.out}")


if __name__ == "__main__":
    main()
