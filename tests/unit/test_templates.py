"""Training templates stay apart from the evaluation suite, and the recipe's data
gives every head negatives from text like its positives."""

import re
from collections import Counter
from pathlib import Path

import pytest

from moderation.build import datasets
from moderation.build.datasets import TrainingSets
from moderation.build.templates import (
    BENIGN_WORD_SWAPS,
    HATE_FRAMES,
    QUOTE_WRAPPERS,
    TRAIN_GROUPS,
    frame_of,
    quoted_hate,
    template_examples,
)
from moderation.evaluation.behaviour import GROUPS, suite

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _words(texts: list[str]) -> set[str]:
    return {w.strip(".,!?\"'").lower() for t in texts for w in t.split()}


EVERY_SET = {"broad": True, "counterfactuals": True, "threat_corpus": True, "things": True}
# Every template a build can train on, for the tests that keep training and the suite apart.
EVERY_TEXT_SET = {**EVERY_SET, "quoted_hate_frames": True, "praise": True, "denial": True}


def test_training_and_evaluation_identity_terms_are_disjoint() -> None:
    train = {t.lower() for pair in TRAIN_GROUPS for t in pair}
    evaluation = {t.lower() for pair in GROUPS for t in pair}
    assert not train & evaluation


def test_no_evaluation_example_is_a_training_example() -> None:
    train = {e.text.lower() for e in template_examples(**EVERY_TEXT_SET)}
    evaluation = {t.lower() for c in suite() for t in c.examples}
    assert not train & evaluation


def _four_grams(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z']+", text.lower())
    return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}


def test_no_training_template_shares_four_words_in_a_row_with_the_suite() -> None:
    # Exact copies are not the only leak: "I will end you" trained on makes "I will end
    # you" tested a memory check. Identity terms differ between the two, so any shared
    # run of four words is a shared frame.
    suite_grams = {g for c in suite() for t in c.examples for g in _four_grams(t)}
    shared = {
        e.text: sorted(_four_grams(e.text) & suite_grams)[0]
        for e in template_examples(**EVERY_TEXT_SET)
        if _four_grams(e.text) & suite_grams
    }
    assert not shared, list(shared.items())[:5]


# The suite's held-out words of harm in every form a template could use.
HELD_OUT_FORMS = {
    *("hurt", "hurts", "hurting", "stab", "stabs", "stabbed", "stabbing"),
    *("beat", "beats", "beating", "beaten", "kill", "kills", "killed", "killing", "killer"),
    *("die", "dies", "died", "dying", "choke", "chokes", "choked", "choking"),
    *("hang", "hangs", "hanged", "hanging", "bleach", "kys", "gun", "guns", "knife"),
    *("knives", "school", "house", "office"),  # with gun and knife: armed-threat slots
}


def test_threat_verbs_of_the_evaluation_suite_are_not_trained_on() -> None:
    threats = [
        e.text for e in template_examples(broad=True, threat_corpus=True) if e.targets[3] == 1
    ]
    assert not _words(threats) & HELD_OUT_FORMS


def test_the_verb_swap_leaves_no_held_out_word_of_harm_on_either_side() -> None:
    before = template_examples(**EVERY_SET, insults=True)
    after = template_examples(**EVERY_SET, insults=True, benign_verb_swap=True)
    # Without the swap the benign side holds them ("I'll beat you at chess next time").
    assert {e.text for e in before if _words([e.text]) & HELD_OUT_FORMS}
    assert not [e.text for e in after if _words([e.text]) & HELD_OUT_FORMS]
    # Line for line: the same labels and sources, only benign lines rewritten.
    assert [(e.targets, e.source) for e in before] == [(e.targets, e.source) for e in after]
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b.text != a.text]
    assert changed and all(b.targets[3] == 0 for b, _ in changed)
    # Every swap is used, and none writes a suite example or frame.
    for old, _ in BENIGN_WORD_SWAPS:
        assert any(old in b.text for b, _ in changed), old
    evaluation = {t.lower() for c in suite() for t in c.examples}
    suite_grams = {g for t in evaluation for g in _four_grams(t)}
    assert not [a.text for _, a in changed if a.text.lower() in evaluation]
    assert not [a.text for _, a in changed if _four_grams(a.text) & suite_grams]
    # A rewritten line keeps its frame (a refit holds frames out together); a line
    # written whole is its own frame either way.
    frames = frame_of()
    framed = [(b, a) for b, a in changed if b.text in frames]
    assert framed and all(frames[a.text] == frames[b.text] for b, a in framed)


def test_hate_predicates_of_the_evaluation_suite_are_not_trained_on() -> None:
    # On neither side: a held-out predicate trained only inside benign counter-speech
    # ('Saying "I hate {group}" is never okay.') teaches that it is harmless; "I hate
    # disabled people." scored 0.00 on every head of the model trained so.
    texts = [e.text.lower() for e in template_examples(**EVERY_TEXT_SET)]
    assert "animals" not in _words(texts)
    assert not [t for t in texts if "i hate " in t]


def test_every_template_head_sees_both_classes() -> None:
    ex = template_examples(broad=True)
    for j, label in enumerate(datasets.LABELS):
        seen = Counter(e.targets[j] for e in ex if e.targets[j] >= 0)
        if label != "insult":
            assert seen[0] and seen[1], (label, seen)


def test_template_split_is_stable_and_disjoint() -> None:
    train, val = datasets.templates("train"), datasets.templates("val")
    assert not {e.text for e in train} & {e.text for e in val}
    assert len(train) + len(val) == len(template_examples())
    assert any(e.targets[3] == 1 for e in val)  # the threat threshold has positives


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
def test_hateval_negatives_supervise_the_toxic_head() -> None:
    hate = datasets.tweeteval(DATA, "hate", "train")
    negatives = [e for e in hate if e.targets[2] == 0]
    assert negatives and all(e.targets[0] == 0 for e in negatives)


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
def test_toxigen_and_convabuse_read_both_classes() -> None:
    tg = datasets.toxigen(DATA, "train") + datasets.toxigen(DATA, "val")
    assert Counter(e.targets[2] for e in tg) == Counter({1: 425, 0: 297})
    ca = datasets.convabuse(DATA, "train")
    assert 0.05 < sum(e.targets[0] for e in ca) / len(ca) < 0.3


def test_insults_validation_is_carved_from_train_not_the_test_file() -> None:
    train, val = datasets.insults("train"), datasets.insults("val")
    test = datasets.insults("test")
    assert not {e.text for e in train} & {e.text for e in val}
    assert not {e.text for e in val} & {e.text for e in test}
    assert len(test) == 2647


def test_evasion_copies_keep_their_targets() -> None:
    ex = [datasets.Example("you stupid idiot", datasets._targets(toxic=1), "x")] * 50
    extra = datasets.with_evasions(ex, 0.5, 1)
    assert 10 < len(extra) < 40
    assert all(e.targets == ex[0].targets and e.text != ex[0].text for e in extra)


def test_the_second_recipe_only_adds_frames() -> None:
    # The soup's two fine-tunes see the same templates but for the second set's frames,
    # in the same order (the seeded shuffle, and so each checkpoint, depends on it).
    narrow = [e.text for e in template_examples()]
    broad = [e.text for e in template_examples(broad=True)]
    assert len(broad) > len(narrow)
    assert [t for t in broad if t in set(narrow)] == narrow
    # Trained alone (--broad-templates), the threshold's split holds their share too.
    extra = set(broad) - set(narrow)
    val = {e.text for e in datasets.templates("val", TrainingSets(broad_templates=True))}
    train = {e.text for e in datasets.templates("train", TrainingSets(broad_templates=True))}
    assert val & extra and train & extra and not val & train
    assert not extra & {e.text for e in datasets.templates("val")}


def test_threat_frames_have_benign_counterfactuals_with_the_harm_swapped_out() -> None:
    from moderation.build.templates import (
        ARMED_FRAMES,
        MENACE_IN_FRAME,
        THREAT_FRAMES,
        counterfactual_benign,
    )

    examples = template_examples(counterfactuals=True)
    benign = {e.text for e in examples if e.source == "templates-counterfactual"}
    assert not any(e.source == "templates-counterfactual" for e in template_examples())
    threats = {e.text for e in examples if e.targets[3] == 1}
    assert benign == set(counterfactual_benign())
    assert not benign & threats
    assert all(e.targets == (0, 0, 0, 0) for e in examples if e.text in benign)
    # The threshold's split holds its share of them as the training set holds the rest.
    val = {e.text for e in datasets.templates("val", TrainingSets(counterfactuals=True))}
    train = {e.text for e in datasets.templates("train", TrainingSets(counterfactuals=True))}
    assert val & benign and train & benign and not val & train
    for frame in [f for f in THREAT_FRAMES if f not in MENACE_IN_FRAME] + ARMED_FRAMES:
        head = frame.split("{")[0]
        assert any(t.startswith(head) for t in benign), frame


def test_insult_templates_are_threat_and_hate_negatives_disjoint_from_the_suite() -> None:
    assert not [e for e in template_examples() if e.source == "templates-insult"]
    insults = [e for e in template_examples(insults=True) if e.source == "templates-insult"]
    assert len(insults) == 100
    # toxic, insult, hate, threat
    assert {e.targets for e in insults} == {(1, 1, 0, 0)}
    held_out = {t.lower() for cap in suite() for t in cap.examples}
    assert not {e.text.lower() for e in insults} & held_out


def test_every_filled_template_knows_its_frame_and_a_counterfactual_shares_it() -> None:
    from moderation.build.templates import (
        KIND_VERBS,
        PLACES,
        THREAT_FRAMES,
        THREAT_VERBS,
        counterfactual_benign,
    )

    frames = frame_of()
    written_whole = {"templates-benign-violent"}
    examples = template_examples(broad=True, counterfactuals=True, insults=True)
    assert all(e.text in frames for e in examples if e.source not in written_whole)
    assert all(t in frames for t in counterfactual_benign())
    frame = next(f for f in THREAT_FRAMES if "{verb}" in f)
    slots = {"place": PLACES[0]}
    threat = frame.format(verb=THREAT_VERBS[0], **slots)
    harmless = frame.format(verb=KIND_VERBS[0], **slots)
    assert frames[threat] == frames[harmless] == frame
    # Frames are groups, not sentences: far fewer of them than examples.
    assert len(set(frames.values())) * 10 < len(examples)


def test_threat_corpus_pairs_each_harmless_frame_with_its_twin() -> None:
    from moderation.build import threat_corpus as tc

    assert not [e for e in template_examples() if e.source.startswith("templates-threat-corpus")]
    examples = template_examples(threat_corpus=True)
    threats = {e.text for e in examples if e.source == "templates-threat-corpus"}
    twins = {e.text for e in examples if e.source == "templates-threat-corpus-twin"}
    plans = {e.text for e in examples if e.source == "templates-threat-corpus-plan"}
    assert {e.targets for e in examples if e.text in threats} == {(1, -1, -1, 1)}
    assert {e.targets for e in examples if e.text in twins | plans} == {(0, 0, 0, 0)}
    assert not threats & (twins | plans)
    # Far more frames than the first sets, each with many fills: breadth, not repeats.
    threat_frames = {frame for _, frame in tc.threats()}
    assert len(threat_frames) > 60 and len(threats) > 500
    # Every frame with a harmless reading has a harmless twin in the same frame, so a
    # fold of frame cross-validation holds out a threat with its look-alike.
    frames = frame_of()
    twin_frames = {frames[t] for t in twins}
    for frame in tc.ACT_FRAMES + tc.WISH_FRAMES + tc.SELF_HARM_FRAMES:
        assert frame in twin_frames, frame
    for threat, lookalike in tc.IMPLICIT_PAIRS:
        assert frames[threat] == frames[lookalike] == threat
    # Menace that lives in the frame gets no twin ("keep this up and I'll give you a hug").
    for frame in tc.ACT_FRAMES_MENACING + tc.WISH_FRAMES_MENACING:
        assert frame not in twin_frames, frame


def test_threat_corpus_group_frames_are_identity_negatives_and_hate() -> None:
    from moderation.build.templates import HATE_WISH_FRAMES, NEGATED_VIOLENCE_FRAMES

    examples = {e.text: e for e in template_examples(threat_corpus=True)}
    group, member = TRAIN_GROUPS[0]
    rejected = NEGATED_VIOLENCE_FRAMES[0].format(group=group, member=member)
    wished_gone = HATE_WISH_FRAMES[0].format(group=group, member=member)
    assert examples[rejected].targets == (0, 0, 0, 0)
    assert examples[wished_gone].targets[0] == examples[wished_gone].targets[2] == 1
    assert rejected not in {e.text for e in template_examples()}


def test_thing_subjects_are_no_group_of_people_and_are_benign() -> None:
    from moderation.build.templates import THINGS, thing_examples

    groups = {t.lower() for pair in TRAIN_GROUPS + GROUPS for t in pair}
    assert not groups & {t.lower() for pair in THINGS for t in pair}
    lines = thing_examples()
    assert len(lines) == len(THINGS) * 16
    assert all(e.targets == (0, 0, 0, 0) for e in lines)


def test_thing_frames_are_hate_frames_word_for_word() -> None:
    # Written out (their order fixes a build's batches), but never a frame of their own.
    from moderation.build.templates import HATE_FRAMES, HATE_WISH_FRAMES, THING_FRAMES

    assert set(THING_FRAMES) <= set(HATE_FRAMES + HATE_WISH_FRAMES)


def test_each_hate_frame_is_quoted_once_per_group_in_a_fixed_wrapper() -> None:
    quoted = quoted_hate()
    assert len(quoted) == len(HATE_FRAMES) * len(TRAIN_GROUPS)
    assert quoted == quoted_hate()  # no seed: a rebuild trains on the same lines
    frames = frame_of()
    for line, frame in quoted:
        wrapper = next(w for w in QUOTE_WRAPPERS if re.fullmatch(_as_pattern(w), line))
        statement = re.fullmatch(_as_pattern(wrapper), line).group(1)  # type: ignore[union-attr]
        assert any(
            statement == frame.format(group=g, member=m).rstrip(".") for g, m in TRAIN_GROUPS
        )
        assert frames[line] == frame  # held out with the frame it quotes
    assert {
        w for w in QUOTE_WRAPPERS if any(re.fullmatch(_as_pattern(w), t) for t, _ in quoted)
    } == set(QUOTE_WRAPPERS)


def test_quoted_hate_is_benign_and_only_added_when_asked() -> None:
    plain = template_examples(threat_corpus=True)
    more = template_examples(threat_corpus=True, quoted_hate_frames=True)
    assert more[: len(plain)] == plain  # the recipe without it trains as before
    added = more[len(plain) :]
    assert [e.text for e in added] == [t for t, _ in quoted_hate()]
    assert {e.targets for e in added} == {(0, 0, 0, 0)}


def _as_pattern(wrapper: str) -> str:
    return re.escape(wrapper).replace(re.escape("{q}"), "(.+)")


# Words every sentence about a group may use; any other word is the praise itself.
_FRAME_WORDS = {"are", "is", "and", "for", "to", "our", "the", "a", "just", "like"}


def _praise_words(lines: list[str] | tuple[str, ...]) -> set[str]:
    groups = {w.lower() for pair in (*TRAIN_GROUPS, *GROUPS) for t in pair for w in t.split()}
    return _words(list(lines)) - groups - _FRAME_WORDS


def test_praise_is_benign_only_added_when_asked_and_praises_in_words_the_suite_holds_out() -> None:
    from moderation.build.templates import PRAISE_FRAMES

    plain = template_examples(threat_corpus=True)
    more = template_examples(threat_corpus=True, praise=True)
    assert more[: len(plain)] == plain  # the recipe without it trains as before
    added = more[len(plain) :]
    assert len(added) == len(PRAISE_FRAMES) * len(TRAIN_GROUPS)
    assert {e.targets for e in added} == {(0, 0, 0, 0)}
    assert {e.source for e in added} == {"templates-praise"}
    frames = frame_of()
    assert {frames[e.text] for e in added} == set(PRAISE_FRAMES)  # held out by frame
    (praised,) = [c for c in suite() if c.name == "positive_statement_about_group"]
    held_out = _praise_words(praised.examples)
    assert {"human", "amazing", "valid", "matter", "best"} <= held_out
    assert not _praise_words([e.text for e in added]) & held_out


def test_denials_are_hateful_only_added_when_asked_and_use_no_word_the_suite_judges_by() -> None:
    from moderation.build.templates import DENIAL_FRAMES

    plain = template_examples(threat_corpus=True, praise=True)
    more = template_examples(threat_corpus=True, praise=True, denial=True)
    assert more[: len(plain)] == plain  # the recipe without it trains as before
    added = more[len(plain) :]
    assert len(added) == len(DENIAL_FRAMES) * len(TRAIN_GROUPS)
    assert {(e.targets[0], e.targets[2], e.targets[3]) for e in added} == {(1, 1, 0)}
    assert {e.source for e in added} == {"templates-denial"}
    frames = frame_of()
    assert {frames[e.text] for e in added} == set(DENIAL_FRAMES)  # held out by frame
    # No word that says what the suite's praise, worth denied or hate toward a group
    # says: only the words any sentence about a group may use are shared.
    judged = {"positive_statement_about_group", "worth_denied_to_group", "hate_toward_group"}
    held_out = set().union(*(_praise_words(c.examples) for c in suite() if c.name in judged))
    assert {"human", "worth", "matter", "useless", "vermin"} <= held_out
    shared = _praise_words([e.text for e in added]) & held_out
    frame_words = {"not", "no", "don't", "all", "else", "ever", "everyone", "get", "of", "rest"}
    assert shared <= frame_words | {"should"}
