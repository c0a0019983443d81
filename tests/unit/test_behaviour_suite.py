from moderation.evaluation.behaviour import GROUPS, suite
from moderation.evaluation.evasions import EVASIONS, evade


def test_every_capability_has_examples_and_no_duplicates() -> None:
    caps = suite()
    assert len({c.name for c in caps}) == len(caps)
    for c in caps:
        assert c.expected in ("nudge", "allow")
        assert len(c.examples) >= 10, c.name
        assert len(set(c.examples)) == len(c.examples), c.name
        assert all("{" not in e for e in c.examples), c.name  # every slot filled


def test_identity_capabilities_swap_every_group() -> None:
    for c in suite():
        if c.name in ("benign_identity_mention", "negated_hate", "counter_speech"):
            for plural, member in GROUPS:
                assert any(plural in e or member in e for e in c.examples), (c.name, plural)


def test_evasions_change_the_text_and_are_reproducible() -> None:
    text = "you are a stupid idiot"
    for kind in EVASIONS:
        once = evade(text, kind, 1)
        assert once != text and once == evade(text, kind, 1), kind
    # Spacing every word would run words together: only the longest is spaced.
    assert evade(text, "spaced letters", 1) == "you are a s t u p i d idiot"
