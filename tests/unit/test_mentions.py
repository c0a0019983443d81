"""Mentions put into training text that never had one (build/mentions.py)."""

from __future__ import annotations

import random
import re

import pytest

from moderation.build.datasets import Example
from moderation.build.mentions import handle, with_mention, with_mentions_inserted

MENTION = re.compile(r"@\w+")


def _examples(n: int) -> list[Example]:
    sources = ("templates-threat", "tweeteval-offensive", "chitchat")
    return [Example(f"message number {i}", (i % 2, -1, 0, 1), sources[i % 3]) for i in range(n)]


def test_a_handle_is_one_mention_and_never_a_probe_name() -> None:
    rng = random.Random(1)
    handles = [handle(rng) for _ in range(3000)]
    assert all(MENTION.fullmatch(h) for h in handles)
    assert 0.45 < handles.count("@user") / len(handles) < 0.55
    assert len(set(handles)) > 100
    # The probes that judge the lever use these names (docs/model.md, rule 14).
    assert not any(h.lower().startswith(("@sam", "@jess")) for h in handles)


def test_a_mention_goes_at_the_start_or_the_end_and_the_text_stays_whole() -> None:
    rng = random.Random(2)
    text = "I will find you."
    placed = [with_mention(text, rng) for _ in range(2000)]
    leading = [t for t in placed if t.startswith("@")]
    trailing = [t for t in placed if t.startswith(text)]
    assert len(leading) + len(trailing) == len(placed)
    assert all(MENTION.sub("", t).strip() == text for t in placed)
    assert all(MENTION.fullmatch(t.removeprefix(text + " ")) for t in trailing)
    two = [t for t in leading if len(MENTION.findall(t)) == 2]
    assert 0.6 < len(leading) / len(placed) < 0.8
    assert 0.05 < len(two) / len(placed) < 0.15


def test_a_share_of_the_named_sources_gets_one_whatever_the_label() -> None:
    examples = _examples(3000)
    out = with_mentions_inserted(examples, 0.5, seed=14, sources="templates,chitchat")
    assert [(e.targets, e.source) for e in out] == [(e.targets, e.source) for e in examples]
    changed = [(a, b) for a, b in zip(examples, out, strict=True) if a.text != b.text]
    assert all(MENTION.sub("", b.text).strip() == a.text for a, b in changed)
    assert not any(a.source == "tweeteval-offensive" for a, _ in changed)
    for label in (0, 1):
        named = [b for a, b in zip(examples, out, strict=True) if a.source != "tweeteval-offensive"]
        with_one = [e for e in named if e.targets[0] == label and "@" in e.text]
        share = len(with_one) / sum(e.targets[0] == label for e in named)
        assert 0.45 < share < 0.55


def test_the_draw_is_seeded_and_the_scope_moves_no_other_draw() -> None:
    examples = _examples(600)
    a = with_mentions_inserted(examples, 0.5, seed=14, sources="templates,chitchat")
    assert a == with_mentions_inserted(examples, 0.5, seed=14, sources="templates,chitchat")
    assert a != with_mentions_inserted(examples, 0.5, seed=13, sources="templates,chitchat")
    held = with_mentions_inserted(examples, 0.5, seed=14, sources="templates")
    for before, wide, narrow in zip(examples, a, held, strict=True):
        assert narrow == (before if before.source == "chitchat" else wide)


def test_a_share_of_zero_leaves_every_example_alone_and_empty_text_stays_empty() -> None:
    examples = _examples(30)
    assert with_mentions_inserted(examples, 0.0, seed=1) == examples
    blank = [Example("  ", (0, -1, 0, 0), "chitchat")] * 20
    assert with_mentions_inserted(blank, 1.0, seed=1, sources="chitchat") == blank


@pytest.mark.parametrize(
    ("share", "sources", "match"),
    [
        (1.5, "chitchat", "mention share 1.5"),
        (-0.1, "chitchat", "mention share"),
        (0.5, " , ", "name at least one source"),
        (0.5, "chitchat,toxigen", "toxigen: no training"),
    ],
)
def test_a_bad_share_or_scope_is_refused(share: float, sources: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        with_mentions_inserted(_examples(3), share, seed=1, sources=sources)


def test_with_no_placeholder_share_every_handle_is_a_real_one_and_the_draws_stay() -> None:
    examples = _examples(3000)
    mixed = with_mentions_inserted(examples, 0.5, seed=14, sources="templates,chitchat")
    real = with_mentions_inserted(examples, 0.5, 14, "templates,chitchat", placeholder=0.0)
    assert not any("@user" in e.text for e in real)
    assert sum("@user" in e.text for e in mixed) > 300
    # The same examples get a mention, in the same place: only which handle changes.
    for before, a, b in zip(examples, mixed, real, strict=True):
        assert (a.text == before.text) == (b.text == before.text)
        assert MENTION.sub("@h", a.text) == MENTION.sub("@h", b.text)


def test_a_bad_placeholder_share_is_refused() -> None:
    with pytest.raises(ValueError, match="placeholder share 2"):
        with_mentions_inserted(_examples(3), 0.5, seed=1, sources="chitchat", placeholder=2)
