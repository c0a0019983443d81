"""The final full stop toggled in training text (build/punctuation.py)."""

from __future__ import annotations

import pytest

from moderation.build.datasets import Example
from moderation.build.punctuation import toggle_final_period, with_final_period_toggled


@pytest.mark.parametrize(
    ("text", "toggled"),
    [
        ("I hate mondays.", "I hate mondays"),
        ("I hate mondays", "I hate mondays."),
        ("see you at 7", "see you at 7."),
        ("ends in a space. ", "ends in a space"),
        ("wait for it...", "wait for it..."),
        ("really?", "really?"),
        ("stop!", "stop!"),
        ('he said "no"', 'he said "no"'),
        ("nice 🙂", "nice 🙂"),
        ("", ""),
    ],
)
def test_a_final_full_stop_is_removed_or_added_and_other_endings_are_left(
    text: str, toggled: str
) -> None:
    assert toggle_final_period(text) == toggled


def test_toggling_twice_gives_the_text_back_where_it_changed() -> None:
    for text in ("I hate mondays.", "see you at 7", "Ünïcode wörd"):
        assert toggle_final_period(toggle_final_period(text)) == text


def _examples(n: int) -> list[Example]:
    return [
        Example(f"message {i}{'.' if i % 2 else ''}", (i % 2, -1, 0, 1), f"src{i % 3}")
        for i in range(n)
    ]


def test_a_share_of_zero_leaves_every_example_alone() -> None:
    examples = _examples(50)
    assert with_final_period_toggled(examples, 0.0, seed=1) == examples


def test_about_the_share_is_toggled_and_labels_sources_and_order_stay() -> None:
    examples = _examples(2000)
    out = with_final_period_toggled(examples, 0.5, seed=14)
    assert [(e.targets, e.source) for e in out] == [(e.targets, e.source) for e in examples]
    changed = [(a, b) for a, b in zip(examples, out, strict=True) if a.text != b.text]
    assert 900 < len(changed) < 1100
    assert all(b.text == toggle_final_period(a.text) for a, b in changed)
    # Whatever the label, about half of the examples now end in a full stop.
    for label in (0, 1):
        ends = [e.text.endswith(".") for e in out if e.targets[0] == label]
        assert 0.45 < sum(ends) / len(ends) < 0.55


def test_the_draw_is_seeded() -> None:
    examples = _examples(300)
    a = with_final_period_toggled(examples, 0.5, seed=14)
    assert a == with_final_period_toggled(examples, 0.5, seed=14)
    assert a != with_final_period_toggled(examples, 0.5, seed=13)


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_share_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="period toggle share"):
        with_final_period_toggled(_examples(3), share, seed=1)


def test_the_toggle_can_be_held_to_sources_and_moves_no_other_draw() -> None:
    examples = _examples(600)
    everywhere = with_final_period_toggled(examples, 0.5, seed=14)
    held = with_final_period_toggled(examples, 0.5, seed=14, sources="src1, src2")
    for before, all_sources, only in zip(examples, everywhere, held, strict=True):
        if before.source == "src0":
            assert only == before
        else:
            # The same examples are drawn as when every source is toggled.
            assert only == all_sources
    assert sum(a.text != b.text for a, b in zip(examples, held, strict=True)) > 150


def test_a_source_prefix_matches_the_copies_of_a_source() -> None:
    examples = [Example("kill them all", (1, -1, 0, 1), "templates-threat+evasion")] * 40
    held = with_final_period_toggled(examples, 1.0, seed=3, sources="templates")
    assert all(e.text == "kill them all." for e in held)


@pytest.mark.parametrize(("sources", "match"), [("srcX", "srcX: no training"), (" , ", "at least")])
def test_a_source_no_example_has_is_refused(sources: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        with_final_period_toggled(_examples(3), 0.5, seed=1, sources=sources)
