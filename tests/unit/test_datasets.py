import random

from moderation.build.datasets import clean_insult_comment, clean_tweet
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
