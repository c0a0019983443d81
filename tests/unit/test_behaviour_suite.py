import unicodedata

import pytest

from moderation.evaluation.behaviour import GROUPS, suite
from moderation.evaluation.evasions import EVASIONS, evade

# The capabilities written as frames over every evaluation group.
GROUP_FRAMED = (
    "benign_identity_mention",
    "positive_statement_about_group",
    "worth_denied_to_group",
    "negated_hate",
    "counter_speech",
    "hate_said_as_opinion",
    "praise_said_as_opinion",
)


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
        if c.name in GROUP_FRAMED:
            for plural, member in GROUPS:
                assert any(plural in e or member in e for e in c.examples), (c.name, plural)


def test_evasions_change_the_text_and_are_reproducible() -> None:
    text = "you are a stupid idiot"
    sample = text + " and a loser"  # an l for the capital I's kind
    for kind in EVASIONS:
        once = evade(sample, kind, 1)
        assert once != sample and once == evade(sample, kind, 1), kind
    # Spacing every word would run words together: only the longest is spaced.
    assert evade(text, "spaced letters", 1) == "you are a s t u p i d idiot"
    assert evade(text, "small capitals", 1) == "you are a ꜱᴛᴜᴘɪᴅ ɪᴅɪᴏᴛ"
    assert evade(text, "boxed letters", 1) == "you are a 🆂🆃🆄🅿🅸🅳 🅸🅳🅸🅾🆃"
    glued = evade(text, "emoji after words", 1)
    assert glued.startswith("you are a stupid") and len(glued) == len(text) + 2, glued
    between = evade(text, "emoji between letters", 1)
    assert between[10:21:2] == "stupid" and len(set(between[11:21:2])) == 1, between
    assert between[:10] + between[21:] == "you are a  idiot", between
    # One interior letter of each long word in emoji: the word's ends stay, length too.
    masked = evade(text, "emoji for a letter", 1)
    words = masked.split()
    assert words[:3] == ["you", "are", "a"] and len(words) == 5, masked
    for plain, evaded in zip(["stupid", "idiot"], words[3:], strict=True):
        assert len(evaded) == len(plain), masked
        assert evaded[0] == plain[0] and evaded[-1] == plain[-1], masked
        assert sum(a != b for a, b in zip(plain, evaded, strict=True)) == 1, masked


def test_typos_keep_the_first_letter_and_leave_handles_alone() -> None:
    text = "@user you are a stupid idiot"
    swapped = evade(text, "two letters swapped", 1).split()
    assert swapped[:4] == ["@user", "you", "are", "a"], swapped
    for plain, typed in zip(["stupid", "idiot"], swapped[4:], strict=True):
        assert typed[0] == plain[0] and sorted(typed) == sorted(plain), swapped
        moved = [i for i, (a, b) in enumerate(zip(plain, typed, strict=True)) if a != b]
        assert len(moved) == 2 and moved[1] == moved[0] + 1, swapped
    left = evade(text, "a letter left out", 1).split()
    assert left[:4] == ["@user", "you", "are", "a"], left
    for plain, typed in zip(["stupid", "idiot"], left[4:], strict=True):
        assert typed[0] == plain[0] and len(typed) == len(plain) - 1, left
        assert any(plain[:i] + plain[i + 1 :] == typed for i in range(1, len(plain))), left
    # Past its first letter, "hmmm" has no two letters that differ to swap.
    assert evade("hmmm", "two letters swapped", 1) == "hmmm"


def test_words_run_together_join_long_words_to_the_word_before_never_to_a_handle() -> None:
    kind = "words run together"
    assert evade("you are such an idiot", kind, 1) == "you aresuch anidiot"
    # Joined in a chain; never to a handle, a number or across punctuation or two spaces.
    assert evade("I hate women", kind, 1) == "Ihatewomen"
    assert evade("@user idiot go away", kind, 1) == "@user idiot goaway"
    assert evade("@jess_92 stupid, idiot  loser", kind, 1) == "@jess_92 stupid, idiot  loser"
    assert evade("in 2020 Bucky lost", kind, 1) == "in 2020 Buckylost"
    # Words of three letters or fewer are only ever joined to.
    assert evade("go to bed", kind, 1) == "go to bed"


def test_a_capital_i_for_an_l_changes_every_small_l_of_a_long_word() -> None:
    kind = "a capital I for an l"
    assert evade("you loser, kill yourself lol", kind, 1) == "you Ioser, kiII yourseIf lol"
    # Capitals stay, and a word of three letters or fewer too.
    assert evade("HELL no, old pal", kind, 1) == "HELL no, old pal"


def test_upside_down_turns_every_character_and_reads_the_text_backwards() -> None:
    kind = "upside down"
    assert evade("you are an idiot", kind, 1) == "ʇoᴉpᴉ uɐ ǝɹɐ noʎ"
    assert evade("@user Go to hell (now)!", kind, 1) == "¡(ʍou) llǝɥ oʇ oפ ɹǝsn@"
    # Each small letter has its own turned character, so no two words become one.
    letters = "abcdefghijklmnopqrstuvwxyz"
    assert len(set(evade(letters, kind, 1))) == 26
    # What no generator turns (an emoji, a letter with an accent) is kept, in its place
    # backwards.
    assert evade("café 😂", kind, 1) == "😂 éɟɐɔ"


def test_training_draws_only_the_evasions_it_was_built_with() -> None:
    from moderation.build.datasets import Example, with_evasions
    from moderation.evaluation.evasions import TRAINED_EVASIONS

    assert set(TRAINED_EVASIONS) < set(EVASIONS)
    # The five the shipped model was trained with, in the order it drew them from.
    assert list(TRAINED_EVASIONS) == sorted(TRAINED_EVASIONS) and len(TRAINED_EVASIONS) == 5
    examples = [Example(f"you stupid idiot number {i}", (1, 1, 0, 0), "t") for i in range(400)]
    for e in with_evasions(examples, 1.0, 3):
        assert e.text.isascii() or any(c in e.text for c in "аеоіс"), e.text


def test_typo_copies_are_drawn_from_either_label_and_from_both_typo_kinds() -> None:
    from moderation.build.datasets import Example, with_typos
    from moderation.evaluation.evasions import TYPO_KINDS

    toxic = [Example(f"you stupid idiot number {i}", (1, 1, 0, 0), "t") for i in range(300)]
    benign = [Example(f"see you tomorrow evening {i}", (0, 0, 0, 0), "c") for i in range(300)]
    copies = with_typos(toxic + benign, 0.2, 5)
    assert copies == with_typos(toxic + benign, 0.2, 5)  # seeded
    assert not with_typos(toxic + benign, 0.0, 5)
    by_label = {t: [e for e in copies if e.targets[0] == t] for t in (0, 1)}
    # A typo is no sign of abuse: both labels are copied, at about the share asked.
    counts = {k: len(v) for k, v in by_label.items()}
    assert all(30 < n < 90 for n in counts.values()), counts
    assert all(e.source.endswith("+typo") for e in copies)
    kinds = set()
    for e in by_label[1]:
        plain = next(x for x in toxic if x.text.split()[-1] == e.text.split()[-1])
        assert e.text != plain.text and e.targets == plain.targets
        kinds |= {k for k in TYPO_KINDS if evade(plain.text, k, 5) == e.text}
    assert kinds == set(TYPO_KINDS)
    with pytest.raises(ValueError, match="typo copies"):
        with_typos(toxic, 1.5, 5)


def test_every_identity_example_names_the_one_group_it_was_filled_with() -> None:
    from collections import Counter

    from moderation.evaluation.behaviour import group_named

    for c in suite():
        named = [group_named(e) for e in c.examples]
        if c.name in GROUP_FRAMED:
            counts = Counter(named)
            # Every frame swapped over every group: each group names n / 10 examples.
            assert counts == dict.fromkeys([p for p, _ in GROUPS], len(c.examples) // 10)
    assert group_named("Her colleague is a trans person.") == "trans people"
    assert group_named("I love Muslims.") == group_named("No Muslim deserves to die.") == "Muslims"
    # Women are not "woman" inside another word; two groups, or none, name no one group.
    assert group_named("Immigrant women are welcome.") is None
    assert group_named("see you on monday") is None
    assert group_named("Jewsharp players unite") is None


def test_greek_look_alikes_write_each_letter_that_has_one_and_leave_handles_alone() -> None:
    kind = "Greek look-alike letters"
    out = evade("@user you are an idiot, kill yourself", kind, 1)
    assert out.startswith("@user you are an "), out
    words = out.split()[4:]
    # Every letter with a Greek look-alike is written with it, a vowel with or without
    # its accent; the letters without one (d, l, r, s, f) stay Latin.
    for plain, written in zip(["idiot,", "kill", "yourself"], words, strict=True):
        assert len(plain) == len(written), out
        for a, b in zip(plain, written, strict=True):
            assert (a == b) == (a in "dlrsf,"), (a, b)
            assert a == b or unicodedata.name(b).startswith("GREEK"), (a, b)
    seen = "".join(evade("idiot " * 40, kind, 2))
    assert "ι" in seen and "ί" in seen, seen  # both spellings drawn


def test_a_space_inside_a_word_cuts_each_spelled_long_word_once() -> None:
    kind = "a space inside a word"
    text = "@user you are a stupid idiot"
    out = evade(text, kind, 1).split()
    assert out[:4] == ["@user", "you", "are", "a"], out
    assert len(out) == 8 and "".join(out[4:]) == "stupididiot", out
    assert out[4] + out[5] == "stupid" and out[6] + out[7] == "idiot", out
    assert evade("go to bed", kind, 1) == "go to bed"
