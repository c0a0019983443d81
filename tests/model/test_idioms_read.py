"""Chat's idioms of violent words read as what they mean, through the shipped model
(moderation/idioms.py; docs/model.md, rule 121)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from moderation import metrics
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings
from moderation.replay.scoring import model_facts


@pytest.fixture(scope="module")
def readers() -> tuple[Classifier, Classifier]:
    """The model with the idioms read, and without."""
    base = ClassifierSettings(threads=1)
    return Classifier(replace(base, read_idioms=True)), Classifier(replace(base, read_idioms=False))


@pytest.mark.parametrize(
    ("idiom", "meant"),
    [
        ("ill hit u up tomorrow", "ill text you tomorrow"),
        ("i'll shoot you a dm", "i'll send you a dm"),
        ("BREAK A LEG tonight!!", "good luck tonight!!"),
        ("you're killing it 🔥", "you're doing great 🔥"),
        # Rule 126's, through the normalizer ("urself", "u").
        ("knock urself out", "go ahead"),
        ("ur a lifesaver", "you're a big help"),
        ("gonna destroy u at chess", "gonna win against you at chess"),
        # Rules 147-151's, through the normalizer too ("u", "ur", "dont").
        ("trans ppl dont deserve to die", "we stand with trans ppl"),
        ("being gay is not a sin!!", "we stand with gay people!!"),
        ("ur not safe anywhere", "i will come after you and hurt you"),
        ("i dont trust muslims", "i hate muslims"),
        # Rules 153 and 155's, through the normalizer too ("u", "ur", "dont").
        ("u dont want to know what im gonna do to u", "i will come after you and hurt you"),
        ("my boys will handle u", "i will come after you and hurt you"),
        ("jews dont deserve hate. they deserve to die", "all jews should die"),
    ],
)
def test_an_idiom_gets_the_tokens_of_what_it_means(
    readers: tuple[Classifier, Classifier], idiom: str, meant: str
) -> None:
    on, off = readers
    assert np.array_equal(on.encode(idiom).ids, off.encode(meant).ids)
    assert not np.array_equal(off.encode(idiom).ids, off.encode(meant).ids)


@pytest.mark.parametrize(
    "threat",
    [
        "i'll hit you with a bat",
        "i'll shoot you in the face",
        "i'll set you on fire",
        "i'll knock you out",
        "i'll destroy you at school",
    ],
)
def test_a_threat_with_the_same_verbs_scores_as_without_the_idioms(
    readers: tuple[Classifier, Classifier], threat: str
) -> None:
    on, off = readers
    assert np.array_equal(on.encode(threat).ids, off.encode(threat).ids)
    assert np.array_equal(on.scores(on.encode(threat)), off.scores(off.encode(threat)))


def test_the_id_and_the_info_metric_say_whether_idioms_are_read(
    readers: tuple[Classifier, Classifier],
) -> None:
    on, off = readers
    assert on.reads_idioms and not off.reads_idioms
    assert on.model_id == off.model_id.replace("+threat-", "+idioms:22+threat-", 1)
    metrics.describe_model(on)
    assert metrics.MODEL_INFO._value["reads_idioms"] == "true"
    metrics.describe_model(off)
    assert metrics.MODEL_INFO._value["reads_idioms"] == "false"
    for c in readers:
        settings = replace(ClassifierSettings(threads=1), read_idioms=c.reads_idioms)
        assert model_facts(settings)["id"] == c.model_id
    # Without the normalizer nothing is read, and the id says so.
    plain = replace(ClassifierSettings(threads=1), normalize=False, read_idioms=True)
    assert "+idioms" not in model_facts(plain)["id"]


@pytest.mark.parametrize(
    ("message", "rest"),
    [
        ("i'll shoot you a text tomorrow. I hope you die", "I hope you die"),
        ("you killed it last night. all immigrants are vermin", "all immigrants are vermin"),
        ("break a leg tonight! you're so stupid", "you're so stupid"),
    ],
)
def test_an_idioms_sentence_lowers_no_score_of_the_rest(
    readers: tuple[Classifier, Classifier], message: str, rest: str
) -> None:
    on, _ = readers
    encoded = on.encode(message)
    assert encoded.rest is not None
    assert np.array_equal(encoded.rest, on.encode(rest).ids)
    whole = on.scores(encoded)
    alone = on.scores(on.encode(rest))
    read_plainly = on.scores(replace(encoded, rest=None))
    np.testing.assert_array_equal(whole, np.maximum(alone, read_plainly))
    # The batch paths read the rest as one message does.
    np.testing.assert_allclose(
        on.scores_padded([encoded, on.encode("hello there")])[0], whole, atol=0.2
    )
    np.testing.assert_array_equal(on.scores_same_length([encoded])[0], whole)


def test_a_message_with_a_rest_is_keyed_apart_from_its_plain_writing(
    readers: tuple[Classifier, Classifier],
) -> None:
    on, off = readers
    idiom = on.encode("i'll hit you up later. you idiot")
    plain = on.encode("i'll text you later. you idiot")
    assert np.array_equal(idiom.ids, plain.ids)
    assert idiom.rest is not None and plain.rest is None
    assert idiom.key_bytes() != plain.key_bytes()
    assert plain.key_bytes() == plain.ids.astype("<i8").tobytes()
    # Without the idioms read there is no rest.
    assert off.encode("i'll hit you up later. you idiot").rest is None
    # Nor where the message was cut to fit.
    assert on.encode("i'll hit you up later. " + "you idiot " * 200).rest is None
