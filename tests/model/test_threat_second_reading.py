"""The shipped model with the threat head's further readings (rules 102-120,
moderation/threat_reading.py) against the same file read as written: on every path a
message is scored by, the threat score is the higher of the two readings and nothing
else moves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from moderation import metrics
from moderation.classifier import Classifier, Encoded
from moderation.config import ClassifierSettings
from moderation.config.model import DEFAULT_THREAT_READING_FLOOR as FLOOR
from moderation.config.model import DEFAULT_THREAT_SENTENCE_ASIDE_WORDS as ASIDES
from moderation.replay.scoring import model_facts
from moderation.threat_reading import (
    CHAT_WORDS_SUFFIX,
    CLOSING_SUFFIX,
    COMMA_SENTENCES_SUFFIX,
    EMOJI_SENTENCES_SUFFIX,
    EMOJI_SUFFIX,
    FINAL_MARKS_SUFFIX,
    FLOOR_SUFFIX,
    INNER_MENTION_SUFFIX,
    LINES_SUFFIX,
    MENTION_SUFFIX,
    SENTENCES_SUFFIX,
    STOP_SUFFIX,
    ChatWords,
    FinalMarks,
    Handles,
    Lines,
    Sentences,
    TokenKinds,
    past_final_stop,
)

# Written for this test (not the behaviour suite's lines): threats with and without a
# full stop, a mention (opening, after a greeting, at the end), a greeting or a laugh, an
# emoji or an emoticon, a final "!" or "?!", a sentence of chat before or after, violent
# words in chat, plain chat, an ellipsis, an address, a mention alone, a message cut to fit,
# a threat with a line of chat before or after it, chat over two lines, a threat beside
# chat with an emoji between, and chat with one between; a threat beside chat with a comma
# between, and chat with one between; threats and chat closing on a word of address or a
# hedge.
TEXTS = [
    "i will find you and hurt you.",
    "go hang yourself.",
    "I'll make sure you never walk again.",
    "i will find you and hurt you",
    "@sam i will find you and hurt you",
    "@jess_92 @user you won't see tomorrow.",
    "hey @sam i will find you and hurt you",
    "i will find you and hurt you @sam",
    "yo @jess_92 you won't see tomorrow. @user",
    "mail me at sam@example.com, I'll make sure you never walk again",
    "hey, i will find you and hurt you",
    "you won't see tomorrow lol",
    "ok listen, you're dead meat haha!",
    "i will stab you :)",
    "😡 go hang yourself",
    "hey i will find you and hurt you lol 😂",
    "this boss fight killed me 😂",
    "i will find you and hurt you!",
    "i'll make you bleed?!",
    "nice game everyone. go hang yourself",
    "thanks for the help! i will end you",
    "i will find you and hurt you. see you tomorrow",
    "this boss fight killed me!!!",
    "this boss fight killed me lol",
    "this boss fight killed me.",
    "@sam this boss fight killed me",
    "I'm going to kill this exam.",
    "lunch was great, thanks.",
    "see you tomorrow. bring snacks!",
    "what time is the meeting? i'll be there at 5",
    "see you at the gym tomorrow...",
    "you're dead meat.",
    "@sam",
    "ok.",
    "@sam " + "word " * 200 + "hurt you.",
    "thanks for the help\ni will end you",
    "nice game everyone\r\n\ngo hang yourself.",
    "i will find you and hurt you\nsee you tomorrow lol",
    "see you tomorrow\nbring snacks!",
    "this boss fight killed me\nso hard",
    "thanks for the help 🙂 i will end you",
    "good morning 🌞 have a nice day",
    "thanks for the help, i will end you",
    "nice game everyone, go hang yourself",
    "good morning, have a nice day",
    "i will find you and hurt you bro",
    "you should hang yourself, ngl.",
    "see you tomorrow bro",
    "nice game everyone\ngo hang yourself fr",
]


@pytest.fixture(scope="module")
def readers() -> tuple[Classifier, Classifier]:
    settings = ClassifierSettings(threads=1)
    off = Classifier(
        replace(
            settings,
            threat_past_full_stop=False,
            threat_past_mentions=False,
            threat_past_inner_mentions=False,
            threat_past_chat_words=False,
            threat_past_emoji=False,
            threat_past_final_marks=False,
            threat_sentences_alone=False,
            threat_lines_alone=False,
            threat_sentences_past_emoji=False,
            threat_sentences_past_commas=False,
            threat_past_closing_words=False,
        )
    )
    on = Classifier(
        replace(
            settings,
            threat_past_full_stop=True,
            threat_past_mentions=True,
            threat_past_inner_mentions=True,
            threat_past_chat_words=True,
            threat_past_emoji=True,
            threat_past_final_marks=True,
            threat_sentences_alone=True,
            threat_lines_alone=True,
            threat_sentences_past_emoji=True,
            threat_sentences_past_commas=True,
            threat_past_closing_words=True,
        )
    )
    return off, on


def _spell(c: Classifier) -> Callable[[str], list[int]]:
    """A word in the model's token ids, without [CLS] and [SEP]."""
    return lambda word: c.encode(word).ids[1:-1].tolist()


def _expected(
    off: Classifier,
    encoded: Encoded,
    first: np.ndarray,
    floor: float = FLOOR,
    lines: tuple[int, ...] = (),
) -> np.ndarray:
    """What the readings should give, from the file read as written (``off``): where the
    first threat score is under the threshold but not under ``floor`` (rule 110), the
    message's further readings (``_further``), then, where it holds two lines or more
    (``lines``, where each after the first starts), each line alone beside short asides,
    as written and then in its own further readings; the highest threat score of them."""
    t = off.labels.index("threat")
    threshold = off.manifest["thresholds"]["threat"]
    if encoded.truncated or first[t] >= threshold or first[t] < floor:
        return first
    threat = _further(off, encoded.ids, first[t])
    each_line = list(Lines(TokenKinds(off.vocabulary()), ASIDES).alone(encoded.ids, lines))
    for line in each_line:
        if threat < threshold:
            threat = max(threat, off.scores(Encoded(line, False))[t])
        threat = _further(off, line, threat)
    # Rule 119: after all those, the parts a comma ends, of the message and of each line.
    for ids in (encoded.ids, *each_line):
        threat = _further(off, ids, threat, parts=True)
    # Rule 120: after those, the latest narrower reading past its closing words, of the
    # message and of each line.
    closing = ChatWords(off.vocabulary(), _spell(off), emoji=True, closing=True)
    for ids in (encoded.ids, *each_line):
        past = closing.without(_narrower(off, ids)[1])
        if past is not None and threat < threshold:
            stop = off.vocabulary()["."]
            threat = max(threat, off.scores(Encoded(past_final_stop(past, stop), False))[t])
    out = first.copy()
    out[t] = threat
    return out


def _further(off: Classifier, ids: np.ndarray, threat: float, parts: bool = False) -> float:
    """The threat score after a message's further readings, each read while the score is
    under the threshold: without its mentions and final full stop, then without its chat
    words (and a full stop they left last), then without its emoji and emoticons, then
    without a final run of exclamation marks or an ellipsis, then each sentence of the
    latest of those alone, beside short asides (an emoji between words ending one too).
    With ``parts``, instead of all those, the latest's parts that a comma ends too, each
    alone where it was not read as a sentence (rule 119)."""
    t = off.labels.index("threat")
    threshold = off.manifest["thresholds"]["threat"]
    narrower, latest = _narrower(off, ids)
    sentences = list(Sentences(off.vocabulary(), aside_words=ASIDES, emoji=True).alone(latest))
    readings = narrower + sentences
    if parts:
        commas = Sentences(off.vocabulary(), aside_words=ASIDES, emoji=True, commas=True)
        seen = [sentence.tolist() for sentence in sentences]
        readings = [part for part in commas.alone(latest) if part.tolist() not in seen]
    for reading in readings:
        if threat < threshold:
            threat = max(threat, off.scores(Encoded(reading, False))[t])
    return threat


def _narrower(off: Classifier, ids: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """A message's readings before its sentences', and the latest of them (the message
    where there is none)."""
    stop = off.vocabulary()["."]
    plain = Handles(off.vocabulary()).without(ids, leading=True, inner=True)
    second = past_final_stop(ids if plain is None else plain, stop)
    chat = ChatWords(off.vocabulary(), _spell(off)).without(second)
    third = None if chat is None else past_final_stop(chat, stop)
    emoji = ChatWords(off.vocabulary(), _spell(off), emoji=True)
    fourth = emoji.without(second if third is None else third)
    fourth = None if fourth is None else past_final_stop(fourth, stop)
    latest = next((r for r in (fourth, third) if r is not None), second)
    fifth = FinalMarks(off.vocabulary()).without(latest)
    made = [r for r in (None if second is ids else second, third, fourth, fifth) if r is not None]
    return made, latest if fifth is None else fifth


def test_the_threat_head_reads_past_the_full_stop_and_mentions_and_no_other_head_moves(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, on = readers
    t = off.labels.index("threat")
    threshold = off.manifest["thresholds"]["threat"]
    crossed = []
    for text in TEXTS:
        encoded, read = off.encode(text), on.encode(text)
        assert np.array_equal(encoded.ids, read.ids) and not encoded.lines, text[:60]
        assert bool(read.lines) == ("\n" in text), text[:60]  # only where it holds two lines
        first = off.scores(encoded)
        row = on.scores(read)
        assert np.array_equal(row, _expected(off, encoded, first, lines=read.lines)), text[:60]
        if first[t] < threshold <= row[t]:
            crossed.append(text)
    # Some threats are nudged only with the reading, with a full stop, with an opening
    # mention and with one elsewhere (else this proves nothing of them).
    assert any(c.endswith(".") and "@" not in c for c in crossed), crossed
    assert any(c.startswith("@") for c in crossed), crossed
    assert any(" @" in c and not c.endswith(".") for c in crossed), crossed
    assert any(c.startswith(("hey", "ok")) or c.endswith("lol") for c in crossed), crossed
    assert any(c.endswith(":)") for c in crossed), crossed
    assert any(c.startswith("😡") for c in crossed), crossed
    assert any(c.endswith(("!", "?!")) for c in crossed), crossed
    assert any(". " in c or "! " in c for c in crossed), crossed
    assert any("\n" in c for c in crossed), crossed
    assert any("🙂 i" in c for c in crossed), crossed
    assert any(", go hang" in c for c in crossed), crossed
    assert any(c.endswith((" bro", " fr")) for c in crossed), crossed


def test_under_the_floor_a_message_is_read_once_as_written(
    readers: tuple[Classifier, Classifier],
) -> None:
    # Rules 109-110: a floor on the first threat score under which no further reading is
    # made; here one far above the shipped one, so that threats lie under it.
    off, _ = readers
    high = 0.01
    every_reading = replace(
        ClassifierSettings(threads=1),
        threat_past_emoji=True,
        threat_past_final_marks=True,
        threat_sentences_alone=True,
        threat_lines_alone=True,
        threat_sentences_past_emoji=True,
        threat_sentences_past_commas=True,
        threat_past_closing_words=True,
    )
    floored = Classifier(replace(every_reading, threat_reading_floor=high))
    unfloored = Classifier(replace(every_reading, threat_reading_floor=0.0))
    assert floored.threat_reading_floor == high and unfloored.threat_reading_floor == 0.0
    t = off.labels.index("threat")
    kept = 0
    for text in TEXTS:
        encoded = off.encode(text)
        first = off.scores(encoded)
        row = floored.scores(encoded)
        assert np.array_equal(row, _expected(off, encoded, first, high)), text[:60]
        every = unfloored.scores(encoded)
        assert np.array_equal(every, _expected(off, encoded, first, 0.0)), text[:60]
        if first[t] < high:
            assert np.array_equal(row, first), text[:60]
            kept += every[t] > first[t]
    # Messages under it a further reading would have scored higher (else this proves
    # nothing of the floor): "@jess_92 @user you won't see tomorrow." among them, the
    # kind of threat rule 109's floor of 0.005 lost.
    assert kept > 0


def test_batches_and_a_second_lane_read_past_them_too(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, on = readers
    t = off.labels.index("threat")
    batch = [on.encode(text) for text in TEXTS[:6]]
    padded, as_written = on.scores_padded(batch), off.scores_padded(batch)
    for i, encoded in enumerate(batch):
        assert np.array_equal(padded[i], _expected(off, encoded, as_written[i]))
    same = [on.encode("go hang yourself."), on.encode("lunch was great.")]
    assert same[0].tokens == same[1].tokens
    rows, written = on.scores_same_length(same), off.scores_same_length(same)
    for i, encoded in enumerate(same):
        assert np.array_equal(rows[i], _expected(off, encoded, written[i]))
    # The benchmark's row for the reading as written (`bench model`, e-screen-written).
    for encoded in batch:
        assert np.array_equal(on.scores(encoded, second_reading=False), off.scores(encoded))
    lane = on.second_session(1)
    for text in (TEXTS[0], TEXTS[4]):
        encoded = on.encode(text)
        assert lane(encoded)[t] == on.scores(encoded)[t] > off.scores(encoded)[t]


def test_the_model_id_and_the_info_metric_say_which_readings_are_on(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, on = readers
    suffixes = (
        STOP_SUFFIX
        + MENTION_SUFFIX
        + INNER_MENTION_SUFFIX
        + CHAT_WORDS_SUFFIX
        + EMOJI_SUFFIX
        + FINAL_MARKS_SUFFIX
        + SENTENCES_SUFFIX
        + f":{ASIDES}"
        + EMOJI_SENTENCES_SUFFIX
        + COMMA_SENTENCES_SUFFIX
        + LINES_SUFFIX
        + f":{ASIDES}"
        + CLOSING_SUFFIX
    )
    assert on.model_id == off.model_id + suffixes + FLOOR_SUFFIX.format(FLOOR)
    switches = (
        "threat_past_full_stop",
        "threat_past_mentions",
        "threat_past_inner_mentions",
        "threat_past_chat_words",
        "threat_past_emoji",
        "threat_past_final_marks",
        "threat_sentences_alone",
        "threat_lines_alone",
        "threat_sentences_past_emoji",
        "threat_sentences_past_commas",
        "threat_past_closing_words",
    )
    assert all(getattr(on, s) and not getattr(off, s) for s in switches)
    metrics.describe_model(on)
    assert all(metrics.MODEL_INFO._value[s] == "true" for s in switches)
    assert metrics.MODEL_INFO._value["threat_reading_floor"] == str(FLOOR)
    assert metrics.MODEL_INFO._value["id"] == on.model_id
    metrics.describe_model(off)
    assert all(metrics.MODEL_INFO._value[s] == "false" for s in switches)
    # The replay names what it runs as the classifier does, without loading it.
    for c in readers:
        settings = replace(
            ClassifierSettings(threads=1),
            threat_past_full_stop=c.threat_past_full_stop,
            threat_past_mentions=c.threat_past_mentions,
            threat_past_inner_mentions=c.threat_past_inner_mentions,
            threat_past_chat_words=c.threat_past_chat_words,
            threat_past_emoji=c.threat_past_emoji,
            threat_past_final_marks=c.threat_past_final_marks,
            threat_sentences_alone=c.threat_sentences_alone,
            threat_sentence_aside_words=c.threat_sentence_aside_words,
            threat_lines_alone=c.threat_lines_alone,
            threat_sentences_past_emoji=c.threat_sentences_past_emoji,
            threat_sentences_past_commas=c.threat_sentences_past_commas,
            threat_past_closing_words=c.threat_past_closing_words,
            threat_reading_floor=c.threat_reading_floor,
        )
        assert model_facts(settings)["id"] == c.model_id


def test_the_shipped_vocabulary_reads_handles_as_the_tests_vocabulary_does(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, _ = readers
    handles = Handles(off.vocabulary())
    for text, rest in [
        ("@sam hurt you", "hurt you"),
        ("@jess_92 @user hurt you", "hurt you"),
        ("@Sam_Lee99 hurt you.", "hurt you."),
    ]:
        out = handles.without(off.encode(text).ids, leading=True, inner=False)
        assert out is not None and out.tolist() == off.encode(rest).ids.tolist(), text
    assert handles.without(off.encode("hurt @sam").ids, leading=True, inner=False) is None
    for text, rest in [
        ("hey @sam hurt you", "hey hurt you"),
        ("hurt you @Sam_Lee99", "hurt you"),
        ("@sam hurt @jess_92 you.", "@sam hurt you."),
    ]:
        out = handles.without(off.encode(text).ids, leading=False, inner=True)
        assert out is not None and out.tolist() == off.encode(rest).ids.tolist(), text


# What each later reading leaves out, on the shipped tokenizer's ids: texts with what it
# reads them as, and texts it leaves alone (None).
_LEFT_OUT: list[tuple[str, list[tuple[str, str]], tuple[str, ...]]] = [
    (
        "chat words",
        [
            ("hey, i will hurt you", "i will hurt you"),
            ("Bruh ok... i will hurt you", "i will hurt you"),
            ("i will hurt you LOL", "i will hurt you"),
            ("i will hurt you!! hahaha, lmfao.", "i will hurt you!!"),
            ("omg i will hurt you lol", "i will hurt you"),
        ],
        ("heys i will hurt you", "i will hurt you lolly", "lol", "hey lol", "jk lol jk"),
    ),
    (
        "emoji",
        [
            ("i will hurt you 😂", "i will hurt you"),
            ("i will hurt you 😂😂 😂", "i will hurt you"),  # glued to a word it is dropped
            ("🔪 🔪 i will hurt you", "i will hurt you"),
            ("i will hurt you :) :-) :( :D :P ;) ;-) xD <3 :/", "i will hurt you"),
            ("i will hurt you XD!!", "i will hurt you"),
            ("i will hurt you lol 😂 haha", "i will hurt you"),
            ("😂 hey, i will hurt you", "i will hurt you"),
            ("i will hurt you. 😂", "i will hurt you."),
        ],
        ("i will 🔪 you", "i will hurt you x", "i will hurt you ^_^", "😂", "lol 😂 :)"),
    ),
    (
        "final marks",
        [
            ("i will hurt you!", "i will hurt you"),
            ("i will hurt you !!!", "i will hurt you"),
            ("i will hurt you…", "i will hurt you"),
            ("i will hurt you?!", "i will hurt you"),
            ("i will hurt you！", "i will hurt you"),
        ],
        ("will you hurt me?", "i will hurt you.", "i will hurt you", "!!!", "hi! you"),
    ),
]


def test_the_shipped_tokenizer_splits_a_message_into_the_sentences_read_alone(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, _ = readers
    sentences = Sentences(off.vocabulary())

    def alone(text: str) -> list[list[int]]:
        return [out.tolist() for out in sentences.alone(off.encode(text).ids)]

    def written(*texts: str) -> list[list[int]]:
        return [off.encode(text).ids.tolist() for text in texts]

    for text, read in [
        ("nice game everyone. go hang yourself", ("go hang yourself", "nice game everyone")),
        ("thanks!! i will hurt you...", ("i will hurt you", "thanks")),
        ("what time is it? i will hurt you?", ("i will hurt you?", "what time is it?")),
        ("hi. i will hurt you. bye.", ("bye", "hi", "i will hurt you")),
        ("a. b. c. d. e. f", ("f", "a", "e", "b")),
    ]:
        assert alone(text) == written(*read), text
    for text in ("i will hurt you.", "i will hurt you!!!", "will you hurt me?", "😂. 😂"):
        assert alone(text) == [], text


def test_the_shipped_tokenizer_splits_a_message_into_the_lines_read_alone(
    readers: tuple[Classifier, Classifier],
) -> None:
    off, on = readers
    lines = Lines(TokenKinds(on.vocabulary()))

    def alone(text: str) -> list[list[int]]:
        encoded = on.encode(text)
        return [out.tolist() for out in lines.alone(encoded.ids, encoded.lines)]

    def written(*texts: str) -> list[list[int]]:
        return [off.encode(text).ids.tolist() for text in texts]

    for text, read in [
        ("nice game everyone\ngo hang yourself", ("go hang yourself", "nice game everyone")),
        ("thanks!!\r\n\r\ni will hurt you...", ("i will hurt you...", "thanks!!")),
        ("hi\u2028i will hurt you\u2029bye", ("bye", "hi", "i will hurt you")),
        ("a\nb\nc\nd\ne\nf", ("f", "a", "e", "b")),
        # Lines are of the normalized text: letters spelled out over a line are one line.
        ("i d i o t\nyou", ("you", "idiot")),
    ]:
        assert alone(text) == written(*read), text
    for text in ("i will hurt you\n", "\n\ni will hurt you", "😂\n", "one line", "\u200b\nhi"):
        assert alone(text) == [], text
    # The tokenizer deletes a vertical tab and glues the words around it ("hi##you"): the
    # lines' tokens are not the message's, so it is read as one line, as without R10.
    glued = on.encode("hi\vyou")
    assert glued.lines == () and glued.ids.tolist() == off.encode("hi\vyou").ids.tolist()
    # A message cut to fit is never read line by line (its last line is not the message's).
    cut = on.encode("hi\n" + "word " * 300)
    assert cut.truncated and cut.lines == ()


@pytest.mark.parametrize(("what", "read", "left"), _LEFT_OUT)
def test_the_shipped_tokenizer_spells_what_each_later_reading_leaves_out(
    readers: tuple[Classifier, Classifier],
    what: str,
    read: list[tuple[str, str]],
    left: tuple[str, ...],
) -> None:
    off, _ = readers
    vocab, spell = off.vocabulary(), _spell(off)
    reader: ChatWords | FinalMarks = {
        "chat words": ChatWords(vocab, spell),
        "emoji": ChatWords(vocab, spell, emoji=True),
        "final marks": FinalMarks(vocab),
    }[what]
    for text, rest in read:
        out = reader.without(off.encode(text).ids)
        assert out is not None and out.tolist() == off.encode(rest).ids.tolist(), text
    for text in left:
        assert reader.without(off.encode(text).ids) is None, text


# Rules 108, 111, 113, 114, 116, 117, 118 and 120: chat words, emoji, final marks and closing
# words are each left out in a reading of their own, each sentence and line read alone (an
# emoji or a comma between words ending a sentence), after the earlier ones, so leaving them
# out never costs
# a nudge an earlier reading gave. Each switch on against off, the readings before it on and those
# after it off in both (as each rule was scored), under frames that hold what it reads
# past (a suite line's final full stop taken off first). A later reading reads what the
# latest earlier one left, so with it on, an earlier switch can lower the score ("listen
# go hang yourself!": chat words on 0.313, off 0.364, both over the threshold); how often
# that moves a decision was counted after rule 113 (docs/model.md): 7 of 133,623 for the
# chat words, 1 for the full stop, none for the emoji.
_LATER_READINGS = [
    (
        "threat_past_chat_words",
        ("bro {}", "{} lol", "hey, {}.", "ok @sam {} haha", "{}. lmao", "listen {}!"),
    ),
    ("threat_past_emoji", ("{} 😂", "😡 {}", "{} :)", "hey {} lol 😂", "{}. xD", "@sam {} 🙂")),
    ("threat_past_final_marks", ("{}!", "{}...", "{}?!", "hey {}!! lol", "{}! 😂", "@sam {}!!!")),
    (
        "threat_sentences_alone",
        (
            "ok. {}",
            "nice game! {}",
            "{}. see you",
            "hey, long day. {}!",
            "what? {} lol",
            "{}... ok",
        ),
    ),
    (
        "threat_lines_alone",
        (
            "ok\n{}",
            "nice game!\n{}",
            "{}\nsee you",
            "hey, long day\n{}!",
            "what?\n{} lol",
            "{}\nok",
        ),
    ),
    (
        "threat_sentences_past_emoji",
        (
            "ok 🙂 {}",
            "nice game 👍 {}",
            "{} 😡 see you",
            "hey, long day 😩 {}!",
            "what? 🤔 {}",
            "{} 💀 ok",
        ),
    ),
    (
        "threat_sentences_past_commas",
        (
            "ok, {}",
            "nice game, {}",
            "{}, see you",
            "hey, long day, {}!",
            "what, {}",
            "{}, ok",
        ),
    ),
    (
        "threat_past_closing_words",
        (
            "{} bro",
            "{} trust me",
            "{}, dude!",
            "ok\n{} tbh",
            "{} lol fr",
            "{} no cap 😂",
        ),
    ),
]


@pytest.mark.parametrize(("switch", "frames"), _LATER_READINGS)
def test_a_later_reading_never_lowers_the_threat_score_nor_moves_another_on_any_path(
    switch: str, frames: tuple[str, ...]
) -> None:
    names = [name for name, _ in _LATER_READINGS]
    later = names[names.index(switch) + 1 :]
    upto = replace(ClassifierSettings(threads=1), **dict.fromkeys(later, False), **{switch: True})
    on, without = Classifier(upto), Classifier(replace(upto, **{switch: False}))
    assert getattr(on, switch) and not getattr(without, switch)
    t = on.labels.index("threat")
    texts = [f.format(x.rstrip(".")) for f in frames for x in TEXTS[:4] + TEXTS[7:9]]
    batch = [on.encode(text) for text in texts]
    rows, fewer = on.scores_padded(batch), without.scores_padded(batch)
    lane = on.second_session(1)
    raised = 0
    for i, encoded in enumerate(batch):
        one, one_fewer = on.scores(encoded), without.scores(encoded)
        for row, base in ((one, one_fewer), (rows[i], fewer[i]), (lane(encoded), one_fewer)):
            assert row[t] >= base[t], texts[i]
            assert np.array_equal(np.delete(row, t), np.delete(base, t)), texts[i]
        raised += one[t] > one_fewer[t]
    assert raised > 0  # else this proves nothing of the reading
