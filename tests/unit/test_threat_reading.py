"""The threat head's second reading (moderation/threat_reading.py), on token ids, score
rows and a vocabulary of our own: which messages are read again, without what, and what
the reading keeps."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from moderation.threat_reading import (
    CHAT_WORDS_SUFFIX,
    CLOSING_SUFFIX,
    COMMA_SENTENCES_SUFFIX,
    EMOJI_SENTENCES_SUFFIX,
    EMOJI_SUFFIX,
    FINAL_MARKS_SUFFIX,
    INNER_MENTION_SUFFIX,
    LINES_SUFFIX,
    MENTION_SUFFIX,
    SENTENCES_SUFFIX,
    STOP_SUFFIX,
    ChatWords,
    FinalMarks,
    Handles,
    Lines,
    Readings,
    Sentences,
    ThreatReading,
    TokenKinds,
    model_id,
    past_final_stop,
    without_final_stop,
)

VOCAB = {
    "[CLS]": 101,
    "[SEP]": 102,
    ".": 1012,
    "!": 999,
    "@": 1030,
    "_": 1035,
    "you": 2017,
    "hurt": 3480,
    "sam": 3520,
    "jess": 6203,
    "92": 6227,
    "##y": 2100,
    "##92": 2683,
    "user": 5310,
    "##!": 3000,  # a piece that is not a letter or digit: no part of a handle
    ",": 1010,
    "?": 1029,
    "hey": 4931,
    "lo": 8840,
    "##l": 2140,
    "ha": 5292,
    "##ha": 3270,
    "##s": 2015,
    "##lly": 9000,
    "[UNK]": 100,
    ":": 1024,
    ")": 1007,
    "x": 1060,
    "##d": 2094,
    "bro": 22953,
    "trust": 3404,
    "me": 2033,
}
CLS, SEP, STOP, BANG, AT, UND = 101, 102, 1012, 999, 1030, 1035
YOU, HURT, SAM, JESS, N92, Y, P92, USER = 2017, 3480, 3520, 6203, 6227, 2100, 2683, 5310
COMMA, QUERY, HEY, LO, L, HA, PHA, S, LLY = 1010, 1029, 4931, 8840, 2140, 5292, 3270, 2015, 9000
UNK, COLON, CLOSE, X, PD = 100, 1024, 1007, 1060, 2094
BRO, TRUST, ME = 22953, 3404, 2033
# How this vocabulary spells the chat words and emoticons it has ("lol" is "lo" "##l",
# "xD" is "x" "##d", as in the shipped one); the others it cannot spell.
SPELLED = {
    "hey": [HEY],
    "lol": [LO, L],
    "haha": [HA, PHA],
    "hahaha": [HA, PHA, PHA],
    ":)": [COLON, CLOSE],
    "xD": [X, PD],
    "bro": [BRO],
    "trust me": [TRUST, ME],
}


def _spell(word: str) -> list[int]:
    return SPELLED.get(word, [])


LABELS = ("toxic", "insult", "hate", "threat")


def _ids(*middle: int) -> np.ndarray:
    return np.array([CLS, *middle, SEP], dtype=np.int64)


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (_ids(HURT, YOU, STOP), [CLS, HURT, YOU, SEP]),
        (_ids(HURT, STOP), [CLS, HURT, SEP]),
        (_ids(HURT, YOU), None),  # no full stop
        (_ids(HURT, STOP, STOP, STOP), None),  # an ellipsis
        (_ids(HURT, STOP, STOP), None),
        (_ids(HURT, BANG), None),
        (_ids(STOP), None),  # nothing else to read
        (_ids(STOP, HURT), None),  # not at the end
    ],
)
def test_only_one_final_full_stop_is_taken_off(ids: np.ndarray, expected: list[int] | None) -> None:
    out = without_final_stop(ids, STOP)
    assert (None if out is None else out.tolist()) == expected
    # The same, or the ids themselves where there is none to take off.
    assert past_final_stop(ids, STOP).tolist() == (ids.tolist() if expected is None else expected)


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (_ids(AT, USER, HURT, YOU), [CLS, HURT, YOU, SEP]),  # "@user hurt you"
        (_ids(AT, SAM, Y, HURT, YOU), [CLS, HURT, YOU, SEP]),  # "@samy hurt you"
        (_ids(AT, JESS, UND, N92, HURT), [CLS, HURT, SEP]),  # "@jess_92 hurt"
        (_ids(AT, JESS, UND, N92, P92, YOU), [CLS, YOU, SEP]),  # "@jess_9292 you"
        (_ids(AT, SAM, AT, USER, YOU), [CLS, YOU, SEP]),  # two mentions
        (_ids(AT, SAM, STOP, YOU), [CLS, STOP, YOU, SEP]),  # "@sam. you": the "." stays
        # Tokens keep no spaces: "@sam_ you" reads as the handle "@sam_you", and then
        # nothing follows it.
        (_ids(AT, SAM, UND, YOU), None),
        (_ids(AT, SAM, UND, YOU, HURT), [CLS, HURT, SEP]),
        (_ids(AT, SAM), None),  # a mention alone: nothing follows
        (_ids(AT, SAM, STOP), None),  # no word follows
        (_ids(AT, STOP, HURT), None),  # "@" and no handle
        (_ids(AT, BANG, HURT), None),
        (_ids(HURT, AT, SAM), None),  # not at the start
        (_ids(HURT, YOU), None),
    ],
)
def test_opening_mentions_are_taken_off_where_words_follow(
    ids: np.ndarray, expected: list[int] | None
) -> None:
    out = Handles(VOCAB).without(ids, leading=True, inner=False)
    assert (None if out is None else out.tolist()) == expected


@pytest.mark.parametrize(
    ("ids", "leading", "expected"),
    [
        (_ids(YOU, AT, SAM, HURT), False, [CLS, YOU, HURT, SEP]),  # "you @sam hurt"
        (_ids(HURT, YOU, AT, SAM), False, [CLS, HURT, YOU, SEP]),  # at the end
        (_ids(HURT, AT, JESS, UND, N92, P92), False, [CLS, HURT, SEP]),
        (_ids(HURT, AT, SAM, AT, USER, YOU), False, [CLS, HURT, YOU, SEP]),  # two
        (_ids(HURT, AT, SAM, STOP), False, [CLS, HURT, STOP, SEP]),  # the "." stays
        # The opening mentions stay unless the opening reading is on as well.
        (_ids(AT, SAM, HURT, AT, USER), False, [CLS, AT, SAM, HURT, SEP]),
        (_ids(AT, SAM, HURT, AT, USER), True, [CLS, HURT, SEP]),
        (_ids(AT, SAM, YOU), False, None),  # only an opening one
        # After an "@" with no handle, the next mention no longer opens the message.
        (_ids(AT, STOP, AT, SAM, HURT), False, [CLS, AT, STOP, HURT, SEP]),
        (_ids(HURT, AT, STOP), False, None),  # "@" and no handle
        (_ids(HURT, AT), False, None),  # "@" last
        (_ids(STOP, AT, SAM), False, None),  # no word remains
        (_ids(HURT, YOU), False, None),
    ],
)
def test_other_mentions_are_taken_off_where_a_word_remains(
    ids: np.ndarray, leading: bool, expected: list[int] | None
) -> None:
    out = Handles(VOCAB).without(ids, leading=leading, inner=True)
    assert (None if out is None else out.tolist()) == expected


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (_ids(HEY, HURT, YOU), [CLS, HURT, YOU, SEP]),
        (_ids(HEY, COMMA, HURT, YOU), [CLS, HURT, YOU, SEP]),  # "hey, hurt you"
        (_ids(HEY, BANG, HEY, STOP, HURT), [CLS, HURT, SEP]),  # "hey! hey. hurt"
        (_ids(LO, L, HEY, HURT), [CLS, HURT, SEP]),  # "lol hey hurt"
        (_ids(HURT, YOU, LO, L), [CLS, HURT, YOU, SEP]),  # "hurt you lol"
        (_ids(HURT, YOU, LO, L, STOP), [CLS, HURT, YOU, SEP]),  # "hurt you lol."
        # The marks before the first laugh stay: "hurt you!! lol" reads "hurt you!!".
        (_ids(HURT, YOU, BANG, BANG, LO, L), [CLS, HURT, YOU, BANG, BANG, SEP]),
        (_ids(HURT, LO, L, COMMA, HA, PHA, QUERY), [CLS, HURT, SEP]),  # "hurt lol, haha?"
        (_ids(HURT, HA, PHA, PHA), [CLS, HURT, SEP]),  # "hahaha", not "haha" and a piece
        (_ids(HEY, HURT, YOU, LO, L), [CLS, HURT, YOU, SEP]),  # both ends
        (_ids(HEY, S, HURT), None),  # "heys": not the word
        (_ids(HURT, LO, LLY), None),  # "lolly": not a laugh
        (_ids(HURT, PHA, PHA), None),  # pieces alone are no laugh
        (_ids(HURT, HEY), None),  # a greeting at the end
        (_ids(HURT, LO, L, YOU), None),  # a laugh inside
        (_ids(HEY), None),  # nothing remains
        (_ids(HEY, LO, L), None),
        (_ids(HEY, STOP, LO, L), None),
        (_ids(HURT, YOU), None),
    ],
)
def test_chat_words_are_taken_off_at_the_start_and_laughs_at_the_end(
    ids: np.ndarray, expected: list[int] | None
) -> None:
    out = ChatWords(VOCAB, _spell).without(ids)
    assert (None if out is None else out.tolist()) == expected
    # Without emoji on, an emoji or an emoticon is no chat word.
    assert ChatWords(VOCAB, _spell).without(_ids(HURT, YOU, UNK)) is None
    assert ChatWords(VOCAB, _spell).without(_ids(HURT, YOU, COLON, CLOSE)) is None


@pytest.mark.parametrize(
    ("words", "ids", "expected"),
    [
        (True, _ids(HURT, YOU, UNK), [CLS, HURT, YOU, SEP]),  # "hurt you 😂"
        (True, _ids(HURT, YOU, UNK, UNK), [CLS, HURT, YOU, SEP]),  # "hurt you 😂 😂"
        (True, _ids(UNK, HURT, YOU), [CLS, HURT, YOU, SEP]),  # "😡 hurt you"
        (True, _ids(UNK, COMMA, HURT), [CLS, HURT, SEP]),  # "😡, hurt"
        (True, _ids(HURT, YOU, COLON, CLOSE), [CLS, HURT, YOU, SEP]),  # "hurt you :)"
        (True, _ids(HURT, X, PD, BANG), [CLS, HURT, SEP]),  # "hurt xD!"
        (True, _ids(HURT, UNK, STOP), [CLS, HURT, SEP]),  # "hurt 😂."
        (True, _ids(HURT, LO, L, UNK), [CLS, HURT, SEP]),  # "hurt lol 😂"
        (True, _ids(HURT, UNK, LO, L), [CLS, HURT, SEP]),  # "hurt 😂 lol"
        (True, _ids(UNK, HEY, HURT), [CLS, HURT, SEP]),  # "😂 hey hurt"
        # Without the chat words, the laughs stay where they are read with the emoji.
        (False, _ids(HURT, LO, L, UNK), [CLS, HURT, LO, L, SEP]),
        (False, _ids(HEY, HURT, UNK), [CLS, HEY, HURT, SEP]),
        (True, _ids(HURT, UNK, YOU), None),  # inside: not at an edge
        (True, _ids(HURT, COLON, YOU), None),  # half an emoticon
        (True, _ids(HURT, X), None),  # "x" alone is no emoticon
        (True, _ids(HURT, X, PD, S), None),  # "xds": no whole emoticon
        (True, _ids(COLON, CLOSE, HURT), None),  # an emoticon opening: not read past
        (True, _ids(UNK, UNK), None),  # nothing remains
        (True, _ids(UNK, COLON, CLOSE), None),
        (True, _ids(HURT, YOU), None),
    ],
)
def test_emoji_are_taken_off_at_both_edges_and_emoticons_at_the_end(
    words: bool, ids: np.ndarray, expected: list[int] | None
) -> None:
    out = ChatWords(VOCAB, _spell, words=words, emoji=True).without(ids)
    assert (None if out is None else out.tolist()) == expected


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (_ids(HURT, YOU, BANG), [CLS, HURT, YOU, SEP]),  # "hurt you!"
        (_ids(HURT, YOU, BANG, BANG, BANG), [CLS, HURT, YOU, SEP]),
        (_ids(HURT, YOU, STOP, STOP, STOP), [CLS, HURT, YOU, SEP]),  # an ellipsis
        (_ids(HURT, YOU, STOP, STOP), [CLS, HURT, YOU, SEP]),
        (_ids(HURT, YOU, QUERY, BANG), [CLS, HURT, YOU, SEP]),  # "?!"
        (_ids(HURT, YOU, BANG, QUERY), [CLS, HURT, YOU, SEP]),  # "!?"
        (_ids(HURT, YOU, STOP, BANG), [CLS, HURT, YOU, SEP]),
        (_ids(HURT, BANG, YOU, BANG), [CLS, HURT, BANG, YOU, SEP]),  # only the final run
        (_ids(HURT, YOU, QUERY), None),  # a question
        (_ids(HURT, YOU, QUERY, QUERY), None),
        (_ids(HURT, YOU, STOP), None),  # one full stop is rule 102's
        (_ids(HURT, YOU, STOP, QUERY), None),
        (_ids(HURT, YOU), None),
        (_ids(BANG, BANG), None),  # nothing remains
        (_ids(STOP, BANG), None),
        (_ids(HURT, YOU, UNK, BANG), [CLS, HURT, YOU, UNK, SEP]),  # an emoji is no mark
    ],
)
def test_a_final_run_of_exclamation_marks_or_an_ellipsis_is_taken_off(
    ids: np.ndarray, expected: list[int] | None
) -> None:
    out = FinalMarks(VOCAB).without(ids)
    assert (None if out is None else out.tolist()) == expected


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        # "hey. hurt you": the last sentence first, then the first.
        (_ids(HEY, STOP, HURT, YOU), [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]]),
        # A closing run read past ("!!", "...", one "."), a question's "?" kept.
        (_ids(HEY, BANG, BANG, HURT, YOU), [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]]),
        (_ids(HEY, STOP, STOP, STOP, HURT), [[CLS, HURT, SEP], [CLS, HEY, SEP]]),
        (_ids(HEY, QUERY, HURT, YOU), [[CLS, HURT, YOU, SEP], [CLS, HEY, QUERY, SEP]]),
        (_ids(HEY, QUERY, QUERY, HURT), [[CLS, HURT, SEP], [CLS, HEY, QUERY, QUERY, SEP]]),
        # The last sentence's own closing run as well.
        (_ids(HEY, STOP, HURT, YOU, BANG), [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]]),
        (_ids(HEY, STOP, HURT, YOU, QUERY), [[CLS, HURT, YOU, QUERY, SEP], [CLS, HEY, SEP]]),
        # A sentence without a word is not read; one sentence is none.
        (_ids(UNK, STOP, HURT, YOU), [[CLS, HURT, YOU, SEP]]),
        (_ids(HURT, YOU, STOP), []),
        (_ids(HURT, YOU, BANG, BANG), []),
        (_ids(HURT, YOU), []),
        (_ids(STOP, HURT), [[CLS, HURT, SEP]]),  # a mark first: an empty first sentence
        # Five sentences: four from the edges in (last, first, second last, second).
        (
            _ids(HEY, STOP, HURT, STOP, YOU, STOP, SAM, STOP, JESS),
            [[CLS, JESS, SEP], [CLS, HEY, SEP], [CLS, SAM, SEP], [CLS, HURT, SEP]],
        ),
        # Three: the middle one last.
        (
            _ids(HEY, STOP, HURT, STOP, YOU),
            [[CLS, YOU, SEP], [CLS, HEY, SEP], [CLS, HURT, SEP]],
        ),
    ],
)
def test_each_sentence_is_read_alone_from_the_edges_in(
    ids: np.ndarray, expected: list[list[int]]
) -> None:
    assert [out.tolist() for out in Sentences(VOCAB).alone(ids)] == expected


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        # Asides of at most two words: every sentence is read.
        (_ids(HEY, SAM, STOP, HURT, YOU), [[CLS, HURT, YOU, SEP], [CLS, HEY, SAM, SEP]]),
        # One sentence longer: only it, beside its asides.
        (_ids(HEY, STOP, HURT, YOU, SAM), [[CLS, HURT, YOU, SAM, SEP]]),
        (_ids(HURT, YOU, SAM, BANG, HEY, STOP, JESS), [[CLS, HURT, YOU, SAM, SEP]]),
        # Two longer: none ("hey sam jess. hurt you sam").
        (_ids(HEY, SAM, JESS, STOP, HURT, YOU, SAM), []),
        # Pieces go on a word and are no word of their own: "hey##y" is one.
        (_ids(HEY, Y, SAM, STOP, HURT, YOU, SAM), [[CLS, HURT, YOU, SAM, SEP]]),
    ],
)
def test_beside_asides_only_a_sentence_with_short_ones_around_it_is_read_alone(
    ids: np.ndarray, expected: list[list[int]]
) -> None:
    assert [out.tolist() for out in Sentences(VOCAB, aside_words=2).alone(ids)] == expected


@pytest.mark.parametrize(
    ("ids", "expected", "off"),
    [
        # "hey 😂 hurt you": the emoji ends the first sentence and is left out; off (rules
        # 114-115) it is part of one sentence.
        (_ids(HEY, UNK, HURT, YOU), [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]], []),
        # Among marks, a run that holds an emoji is left out, a question's "?" with it.
        (
            _ids(HEY, QUERY, UNK, HURT, YOU),
            [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]],
            [[CLS, UNK, HURT, YOU, SEP], [CLS, HEY, QUERY, SEP]],
        ),
        (
            _ids(HURT, YOU, UNK, BANG, SAM),
            [[CLS, SAM, SEP], [CLS, HURT, YOU, SEP]],
            [[CLS, SAM, SEP], [CLS, HURT, YOU, UNK, SEP]],
        ),
        # Without an emoji the marks are read as before: "?" stays.
        (
            _ids(HEY, QUERY, HURT, YOU),
            [[CLS, HURT, YOU, SEP], [CLS, HEY, QUERY, SEP]],
            [[CLS, HURT, YOU, SEP], [CLS, HEY, QUERY, SEP]],
        ),
        # An emoji that opens or ends the message ends no sentence with a word before it.
        (_ids(UNK, HURT, YOU), [[CLS, HURT, YOU, SEP]], []),
        (_ids(HURT, YOU, UNK), [], []),
    ],
)
def test_an_emoji_between_words_ends_a_sentence_where_that_is_on(
    ids: np.ndarray, expected: list[list[int]], off: list[list[int]]
) -> None:
    assert [out.tolist() for out in Sentences(VOCAB, emoji=True).alone(ids)] == expected
    assert [out.tolist() for out in Sentences(VOCAB).alone(ids)] == off


@pytest.mark.parametrize(
    ("ids", "expected", "off"),
    [
        # "hey, hurt you": the comma ends the first part and is left out; off (rules
        # 114-117) it is part of one sentence.
        (_ids(HEY, COMMA, HURT, YOU), [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]], []),
        # A run of commas is one end, left out whole.
        (_ids(HURT, YOU, COMMA, COMMA, SAM), [[CLS, SAM, SEP], [CLS, HURT, YOU, SEP]], []),
        # Among marks, a run that holds a comma is left out, a question's "?" with it.
        (
            _ids(HEY, QUERY, COMMA, HURT, YOU),
            [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]],
            [[CLS, COMMA, HURT, YOU, SEP], [CLS, HEY, QUERY, SEP]],
        ),
        # Without a comma the marks are read as before: "?" stays.
        (
            _ids(HEY, QUERY, HURT, YOU),
            [[CLS, HURT, YOU, SEP], [CLS, HEY, QUERY, SEP]],
            [[CLS, HURT, YOU, SEP], [CLS, HEY, QUERY, SEP]],
        ),
        # A comma that opens or ends the message ends no part with a word before it.
        (_ids(COMMA, HURT, YOU), [[CLS, HURT, YOU, SEP]], []),
        (_ids(HURT, YOU, COMMA), [], []),
        # An emoji is no end where only the comma is on.
        (_ids(HEY, UNK, HURT, COMMA, YOU), [[CLS, YOU, SEP], [CLS, HEY, UNK, HURT, SEP]], []),
    ],
)
def test_a_comma_between_words_ends_a_sentence_where_that_is_on(
    ids: np.ndarray, expected: list[list[int]], off: list[list[int]]
) -> None:
    assert [out.tolist() for out in Sentences(VOCAB, commas=True).alone(ids)] == expected
    assert [out.tolist() for out in Sentences(VOCAB).alone(ids)] == off


def test_beside_asides_a_comma_splits_only_where_the_other_parts_are_short() -> None:
    # "hey sam jess, hurt you sam": two parts of three words, asides of at most two: none;
    # "hey, hurt you sam": the longer part alone.
    commas = Sentences(VOCAB, aside_words=2, commas=True)
    assert list(commas.alone(_ids(HEY, SAM, JESS, COMMA, HURT, YOU, SAM))) == []
    assert [out.tolist() for out in commas.alone(_ids(HEY, COMMA, HURT, YOU, SAM))] == [
        [CLS, HURT, YOU, SAM, SEP]
    ]
    # With emoji and commas both on, either ends a part.
    both = Sentences(VOCAB, emoji=True, commas=True)
    assert [out.tolist() for out in both.alone(_ids(HEY, UNK, HURT, COMMA, YOU))] == [
        [CLS, YOU, SEP],
        [CLS, HEY, SEP],
        [CLS, HURT, SEP],
    ]


def test_a_sentence_ends_only_where_a_token_follows_its_marks() -> None:
    sentences = Sentences(VOCAB)
    assert sentences.bounds(_ids(HEY, STOP, HURT, YOU, BANG)) == [(1, 3), (3, 6)]
    assert sentences.bounds(_ids(HEY, BANG, QUERY, HURT)) == [(1, 4), (4, 5)]
    assert sentences.bounds(_ids(HEY, HURT, STOP, STOP)) == []


@pytest.mark.parametrize(
    ("ids", "starts", "expected"),
    [
        # One line, or starts that name no line inside the message: none.
        (_ids(HEY, HURT, YOU), (), []),
        (_ids(HEY, HURT, YOU), (1,), []),
        (_ids(HEY, HURT, YOU), (4,), []),
        # Two lines ("hey⏎hurt you"): the last first; a line's own marks stay with it.
        (_ids(HEY, HURT, YOU), (2,), [[CLS, HURT, YOU, SEP], [CLS, HEY, SEP]]),
        (
            _ids(HEY, STOP, HURT, YOU, STOP),
            (3,),
            [[CLS, HURT, YOU, STOP, SEP], [CLS, HEY, STOP, SEP]],
        ),
        # Five lines: four from the edges in, the middle one never alone.
        (
            _ids(HEY, HURT, YOU, SAM, JESS),
            (2, 3, 4, 5),
            [[CLS, JESS, SEP], [CLS, HEY, SEP], [CLS, SAM, SEP], [CLS, HURT, SEP]],
        ),
        # A line of marks alone holds no word: not read.
        (_ids(HURT, YOU, BANG, BANG), (3,), [[CLS, HURT, YOU, SEP]]),
    ],
)
def test_each_line_is_read_alone_from_the_edges_in(
    ids: np.ndarray, starts: tuple[int, ...], expected: list[list[int]]
) -> None:
    assert [out.tolist() for out in Lines(TokenKinds(VOCAB)).alone(ids, starts)] == expected


@pytest.mark.parametrize(
    ("ids", "starts", "expected"),
    [
        # Asides of at most two words: every line is read.
        (_ids(HEY, SAM, HURT, YOU), (3,), [[CLS, HURT, YOU, SEP], [CLS, HEY, SAM, SEP]]),
        # One line longer: only it.
        (_ids(HEY, HURT, YOU, SAM), (2,), [[CLS, HURT, YOU, SAM, SEP]]),
        # Two longer: none.
        (_ids(HEY, SAM, JESS, HURT, YOU, SAM), (4,), []),
    ],
)
def test_beside_asides_only_a_line_with_short_ones_around_it_is_read_alone(
    ids: np.ndarray, starts: tuple[int, ...], expected: list[list[int]]
) -> None:
    lines = Lines(TokenKinds(VOCAB), aside_words=2)
    assert [out.tolist() for out in lines.alone(ids, starts)] == expected


def test_each_line_gets_its_own_further_readings_after_the_whole_messages() -> None:
    reading = _reading(chat_words=True, sentences=True, lines=True)
    further = _Scorer([0.0, 0.0, 0.0, 0.02])  # never reaches the threshold: all are read
    # "hey hurt you.⏎lol" with its line break after the full stop.
    ids = _ids(HEY, HURT, YOU, STOP, LO, L)
    reading.apply(ids, False, np.array([0.0, 0.0, 0.0, 0.01]), further, (5,))
    assert further.read == [
        [CLS, HURT, YOU, SEP],  # the whole message past its chat words and the stop left last
        [CLS, LO, L, SEP],  # the last line as written (only a chat word: nothing further)
        [CLS, HEY, HURT, YOU, STOP, SEP],  # the first line as written
        [CLS, HEY, HURT, YOU, SEP],  # its own readings: past its full stop
        [CLS, HURT, YOU, SEP],  # past its chat word
    ]
    # The same message without its line break: only the whole message's readings.
    once = _Scorer([0.0, 0.0, 0.0, 0.02])
    reading.apply(ids, False, np.array([0.0, 0.0, 0.0, 0.01]), once)
    assert once.read == further.read[:1]
    # Lines off: the line starts change nothing.
    off = _Scorer([0.0, 0.0, 0.0, 0.02])
    _reading(chat_words=True, sentences=True).apply(
        ids, False, np.array([0.0, 0.0, 0.0, 0.01]), off, (5,)
    )
    assert off.read == further.read[:1]


def test_a_line_that_crosses_the_threshold_ends_the_readings() -> None:
    reading = _reading(lines=True)

    class _Line(_Scorer):
        def __call__(self, ids: np.ndarray) -> np.ndarray:
            super().__call__(ids)
            return np.array([0.9, 0.9, 0.9, 0.6 if ids.tolist() == [CLS, HURT, YOU, SEP] else 0.0])

    scorer = _Line([0.0] * 4)
    first = np.array([0.1, 0.1, 0.1, 0.05])
    out = reading.apply(_ids(HEY, HURT, YOU), False, first, scorer, (2,))
    assert out.tolist() == [0.1, 0.1, 0.1, 0.6]
    assert scorer.read == [[CLS, HURT, YOU, SEP]]  # the last line first; the first not read
    # Cut to fit: no line is read (its last line is not the message's).
    cut = _Line([0.0] * 4)
    assert reading.apply(_ids(HEY, HURT, YOU), True, first, cut, (2,)).tolist() == first.tolist()
    assert cut.read == []


def test_a_commas_parts_are_read_after_every_other_reading_never_in_their_place() -> None:
    # Rule 119: "hey sam, hurt you jess. lol⏎you": the sentences are read as without the
    # comma (the first one, beside its short aside, whole), then the lines, and only then
    # the parts a comma ends, each not read before, then each line's.
    every = _Scorer([0.0, 0.0, 0.0, 0.02])  # never reaches the threshold: all are read
    ids = _ids(HEY, SAM, COMMA, HURT, YOU, JESS, STOP, LO, L, YOU)
    first = np.array([0.0, 0.0, 0.0, 0.01])
    _reading(sentences=True, lines=True, aside_words=5, commas=True).apply(
        ids, False, first, every, (10,)
    )
    without = _Scorer([0.0, 0.0, 0.0, 0.02])
    _reading(sentences=True, lines=True, aside_words=5).apply(ids, False, first, without, (10,))
    assert every.read[: len(without.read)] == without.read
    assert [CLS, HEY, SAM, COMMA, HURT, YOU, JESS, SEP] in without.read
    assert every.read[len(without.read) :] == [
        # The whole message's parts: the last, "lol you", was read as a sentence (skipped);
        # the first; the second, its full stop read past.
        [CLS, HEY, SAM, SEP],
        [CLS, HURT, YOU, JESS, SEP],
        # The first line's ("hey sam, hurt you jess. lol"; "lol" read as a sentence).
        [CLS, HEY, SAM, SEP],
        [CLS, HURT, YOU, JESS, SEP],
    ]

    # So the threat score with the comma on is never under the one without: a score that
    # the whole first sentence alone reaches is reached first.
    class _Whole(_Scorer):
        def __call__(self, ids: np.ndarray) -> np.ndarray:
            super().__call__(ids)
            whole = ids.tolist() == [CLS, HEY, SAM, COMMA, HURT, YOU, JESS, SEP]
            return np.array([0.0, 0.0, 0.0, 0.5 if whole else 0.0])

    for commas in (False, True):
        out = _reading(sentences=True, aside_words=5, commas=commas).apply(
            ids, False, first, _Whole([0.0] * 4)
        )
        assert out[3] == 0.5, commas


def test_closing_words_are_read_past_after_every_other_reading_never_in_their_place() -> None:
    # Rule 120: "hurt you trust me bro lol.": the full stop, then the laugh, are read past
    # as before (rules 102 and 108); only then the closing words and the laughs among them.
    ids = _ids(HURT, YOU, TRUST, ME, BRO, LO, L, STOP)
    first = np.array([0.0, 0.0, 0.0, 0.01])
    on, off = _Scorer([0.0, 0.0, 0.0, 0.02]), _Scorer([0.0, 0.0, 0.0, 0.02])
    _reading(chat_words=True, closing=True).apply(ids, False, first, on)
    _reading(chat_words=True).apply(ids, False, first, off)
    assert off.read == [
        [CLS, HURT, YOU, TRUST, ME, BRO, LO, L, SEP],
        [CLS, HURT, YOU, TRUST, ME, BRO, SEP],
    ]
    assert on.read == [*off.read, [CLS, HURT, YOU, SEP]]
    # A laugh after the closing word is read past with it, where chat words are read past.
    after = _Scorer([0.0] * 4)
    _reading(chat_words=True, closing=True).apply(_ids(HURT, YOU, LO, L, BRO), False, first, after)
    assert after.read[-1] == [CLS, HURT, YOU, SEP]


@pytest.mark.parametrize(
    ("middle", "expected"),
    [
        ((HURT, YOU, BRO), [CLS, HURT, YOU, SEP]),
        ((HURT, YOU, COMMA, BRO, BANG), [CLS, HURT, YOU, SEP]),  # the marks around it too
        ((HURT, YOU, BRO, STOP), [CLS, HURT, YOU, SEP]),
        ((HEY, BRO), [CLS, HEY, SEP]),  # no opening word is read past here
        ((BRO, HURT, YOU), None),  # not at the end
        ((HURT, YOU, BRO, S), None),  # "bros": not the whole word
        ((BRO,), None),  # no word would remain
        ((TRUST, ME), None),
        ((HURT, ME), None),  # "me" alone is no closing word
    ],
)
def test_closing_words_are_taken_off_at_the_end_as_whole_words(
    middle: tuple[int, ...], expected: list[int] | None
) -> None:
    scorer = _Scorer([0.0] * 4)
    _reading(closing=True).apply(_ids(*middle), False, np.array([0.0, 0.0, 0.0, 0.01]), scorer)
    # Where it ends in a full stop, the reading past it comes first (rule 102).
    closing = scorer.read[1:] if STOP in middle else scorer.read
    assert closing == ([] if expected is None else [expected])


def test_each_lines_closing_words_are_read_after_the_whole_messages() -> None:
    # "hey⏎hurt you bro": the whole message closes on "bro", then its second line does.
    scorer = _Scorer([0.0] * 4)
    first = np.array([0.0, 0.0, 0.0, 0.01])
    ids = _ids(HEY, HURT, YOU, BRO)
    _reading(lines=True, aside_words=5, closing=True).apply(ids, False, first, scorer, (2,))
    assert scorer.read[-2:] == [[CLS, HEY, HURT, YOU, SEP], [CLS, HURT, YOU, SEP]]


def _reading(
    threshold: float = 0.28,
    *,
    full_stop: bool = True,
    mentions: bool = False,
    inner_mentions: bool = False,
    chat_words: bool = False,
    emoji: bool = False,
    final_marks: bool = False,
    sentences: bool = False,
    floor: float = 0.0,
    lines: bool = False,
    aside_words: int = 0,
    commas: bool = False,
    closing: bool = False,
) -> ThreatReading:
    thresholds = np.array([0.38, 0.38, 0.41, threshold])
    readings = Readings(
        full_stop,
        mentions,
        inner_mentions,
        chat_words,
        emoji,
        final_marks,
        sentences,
        floor,
        aside_words,
        lines=lines,
        sentence_commas=commas,
        closing_words=closing,
    )
    reading = ThreatReading.for_model(LABELS, thresholds, VOCAB, readings, _spell)
    assert reading is not None
    return reading


class _Scorer:
    """Scores token ids with a fixed row; remembers what it was asked to read."""

    def __init__(self, row: list[float]) -> None:
        self.row = np.array(row)
        self.read: list[list[int]] = []

    def __call__(self, ids: np.ndarray) -> np.ndarray:
        self.read.append(ids.tolist())
        return self.row


def test_the_threat_score_is_the_higher_of_the_two_readings_and_nothing_else_moves() -> None:
    first = np.array([0.10, 0.20, 0.05, 0.03])
    second = _Scorer([0.90, 0.90, 0.90, 0.70])
    out = _reading().apply(_ids(HURT, STOP), False, first, second)
    assert second.read == [[CLS, HURT, SEP]]
    assert out.tolist() == [0.10, 0.20, 0.05, 0.70]
    assert first.tolist() == [0.10, 0.20, 0.05, 0.03]  # the caller's row is not changed
    lower = _reading().apply(_ids(HURT, STOP), False, first, _Scorer([0.0, 0.0, 0.0, 0.01]))
    assert lower.tolist() == first.tolist()


@pytest.mark.parametrize(
    ("on", "ids", "reads"),
    [
        ((True, False, False), _ids(AT, SAM, HURT, STOP), [[CLS, AT, SAM, HURT, SEP]]),
        ((True, False, False), _ids(AT, SAM, HURT), []),
        ((False, True, False), _ids(AT, SAM, HURT, STOP), [[CLS, HURT, STOP, SEP]]),
        ((False, True, False), _ids(HURT, STOP), []),
        ((False, True, False), _ids(HURT, AT, SAM, YOU), []),
        ((True, True, False), _ids(AT, SAM, HURT, STOP), [[CLS, HURT, SEP]]),  # both out
        ((True, True, False), _ids(AT, SAM, HURT), [[CLS, HURT, SEP]]),
        ((True, True, False), _ids(HURT, STOP), [[CLS, HURT, SEP]]),
        ((True, True, False), _ids(HURT, YOU), []),
        ((False, False, True), _ids(HURT, AT, SAM, YOU), [[CLS, HURT, YOU, SEP]]),
        ((False, False, True), _ids(AT, SAM, HURT, AT, USER), [[CLS, AT, SAM, HURT, SEP]]),
        ((False, False, True), _ids(AT, SAM, HURT), []),
        ((True, True, True), _ids(AT, SAM, HURT, AT, USER, STOP), [[CLS, HURT, SEP]]),
        ((True, True, True), _ids(HURT, AT, SAM, STOP), [[CLS, HURT, SEP]]),
        ((True, True, True, False), _ids(HEY, HURT, LO, L), []),
        # Chat words in a third reading of their own, after the second's.
        ((False, False, False, True), _ids(HEY, HURT), [[CLS, HURT, SEP]]),
        ((False, False, False, True), _ids(HURT, STOP, LO, L), [[CLS, HURT, STOP, SEP]]),
        (
            (False, False, True, True),
            _ids(HEY, AT, SAM, HURT),
            [[CLS, HEY, HURT, SEP], [CLS, HURT, SEP]],
        ),
        (
            (True, False, False, True),
            _ids(HEY, HURT, STOP),
            [[CLS, HEY, HURT, SEP], [CLS, HURT, SEP]],
        ),
        # The laugh gone, the full stop is last: the third reading leaves it out too.
        ((True, False, False, True), _ids(HURT, STOP, LO, L), [[CLS, HURT, SEP]]),
        ((True, True, True, True), _ids(HURT, STOP), [[CLS, HURT, SEP]]),
        (
            (True, True, True, True),
            _ids(HEY, AT, SAM, HURT, YOU, LO, L, STOP),
            [[CLS, HEY, HURT, YOU, LO, L, SEP], [CLS, HURT, YOU, SEP]],
        ),
        # Emoji and emoticons in a fourth reading of their own, after the third's.
        ((False, False, False, False, True), _ids(HURT, YOU, UNK), [[CLS, HURT, YOU, SEP]]),
        ((False, False, False, False, True), _ids(HURT, YOU, LO, L), []),
        ((True, True, True, True, False), _ids(HURT, YOU, UNK), []),
        (
            (True, False, False, False, True),
            _ids(HURT, YOU, COLON, CLOSE, STOP),
            [[CLS, HURT, YOU, COLON, CLOSE, SEP], [CLS, HURT, YOU, SEP]],
        ),
        (
            (True, True, True, True, True),
            _ids(HEY, HURT, YOU, UNK, LO, L),
            [[CLS, HURT, YOU, UNK, SEP], [CLS, HURT, YOU, SEP]],
        ),
        (
            (True, True, True, True, True),
            _ids(UNK, HURT, YOU, STOP),
            [[CLS, UNK, HURT, YOU, SEP], [CLS, HURT, YOU, SEP]],
        ),
        # Where the third reading left out every emoji there is no fourth.
        ((True, True, True, True, True), _ids(HEY, HURT, LO, L), [[CLS, HURT, SEP]]),
        # A final run of marks in a fifth reading of its own, of the latest reading.
        ((False,) * 5 + (True,), _ids(HURT, YOU, BANG, BANG), [[CLS, HURT, YOU, SEP]]),
        ((False,) * 5 + (True,), _ids(HURT, YOU, QUERY), []),
        ((True,) * 5 + (False,), _ids(HURT, YOU, BANG), []),
        (
            (True,) * 6,
            _ids(HURT, YOU, BANG, UNK),
            [[CLS, HURT, YOU, BANG, SEP], [CLS, HURT, YOU, SEP]],
        ),
        (
            (True,) * 6,
            _ids(AT, SAM, HURT, STOP, STOP, STOP),
            [[CLS, HURT, STOP, STOP, STOP, SEP], [CLS, HURT, SEP]],
        ),
        (
            (True,) * 6,
            _ids(HURT, YOU, BANG, LO, L),
            [[CLS, HURT, YOU, BANG, SEP], [CLS, HURT, YOU, SEP]],
        ),
        # Each sentence alone, after the other readings, of the latest of them.
        ((False,) * 6 + (True,), _ids(HEY, STOP, HURT), [[CLS, HURT, SEP], [CLS, HEY, SEP]]),
        ((False,) * 6 + (True,), _ids(HEY, HURT, STOP), []),
        ((True,) * 6 + (False,), _ids(HEY, STOP, HURT, YOU), [[CLS, HURT, YOU, SEP]]),
        ((True,) * 7, _ids(HEY, STOP, HURT, YOU), [[CLS, HURT, YOU, SEP]]),  # one sentence left
        (
            (True,) * 7,
            _ids(HEY, STOP, HURT, STOP, YOU, BANG),
            [
                [CLS, HURT, STOP, YOU, BANG, SEP],  # "hey." left out, chat words
                [CLS, HURT, STOP, YOU, SEP],  # the final "!", final marks
                [CLS, YOU, SEP],  # then each sentence of that, the last first
                [CLS, HURT, SEP],
            ],
        ),
        (
            (True,) * 7,
            _ids(AT, SAM, HURT, YOU, STOP, LO, L, BANG),
            [[CLS, HURT, YOU, STOP, LO, L, BANG, SEP], [CLS, HURT, YOU, SEP]],
        ),
    ],
)
def test_each_further_reading_leaves_out_what_is_on(
    on: tuple[bool, ...], ids: np.ndarray, reads: list[list[int]]
) -> None:
    reading = _reading(
        full_stop=on[0],
        mentions=on[1],
        inner_mentions=on[2],
        chat_words=on[3:4] == (True,),
        emoji=on[4:5] == (True,),
        final_marks=on[5:6] == (True,),
        sentences=on[6:] == (True,),
    )
    further = _Scorer([0.0, 0.0, 0.0, 0.02])  # never reaches the threshold: all are read
    reading.apply(ids, False, np.array([0.0, 0.0, 0.0, 0.01]), further)
    assert further.read == reads


def test_the_threat_score_is_the_highest_reading_and_reading_stops_at_the_threshold() -> None:
    reading = _reading(chat_words=True)
    ids = _ids(HEY, HURT, STOP)  # a second reading ("hey hurt") and a third ("hurt")
    first = np.array([0.1, 0.1, 0.1, 0.05])

    class _Two(_Scorer):
        def __init__(self, second: float, third: float) -> None:
            super().__init__([0.0] * 4)
            self.threats = [second, third]

        def __call__(self, ids: np.ndarray) -> np.ndarray:
            super().__call__(ids)
            return np.array([0.9, 0.9, 0.9, self.threats[len(self.read) - 1]])

    # The third reading lower than the second: the second's score stands (never falls).
    lower = _Two(0.2, 0.1)
    assert reading.apply(ids, False, first, lower).tolist() == [0.1, 0.1, 0.1, 0.2]
    assert len(lower.read) == 2
    # The second reaches the threshold: no third reading.
    crossed = _Two(0.5, 0.1)
    assert reading.apply(ids, False, first, crossed)[3] == 0.5 and len(crossed.read) == 1
    # Both under the first: the row as it was.
    none = _Two(0.01, 0.02)
    assert reading.apply(ids, False, first, none).tolist() == first.tolist()


@pytest.mark.parametrize(
    ("ids", "truncated", "threat"),
    [
        (_ids(HURT, YOU), False, 0.03),  # nothing to leave out
        (_ids(HURT, STOP), True, 0.03),  # cut to fit: its end is not the message's
        (_ids(AT, SAM, HURT), True, 0.03),
        (_ids(HURT, STOP), False, 0.28),  # already at the threshold
        (_ids(AT, SAM, HURT, STOP), False, 0.95),
    ],
)
def test_no_second_reading_where_it_cannot_change_the_verdict_or_does_not_apply(
    ids: np.ndarray, truncated: bool, threat: float
) -> None:
    first = np.array([0.1, 0.1, 0.1, threat])
    second = _Scorer([0.9, 0.9, 0.9, 0.99])
    reading = _reading(mentions=True)
    assert reading.apply(ids, truncated, first, second).tolist() == first.tolist()
    assert second.read == []


@pytest.mark.parametrize(
    ("threat", "reads"), [(0.0, 0), (0.0049, 0), (0.005, 2), (0.05, 2), (0.27, 2)]
)
def test_no_further_reading_under_the_floor_and_every_one_from_it_up(
    threat: float, reads: int
) -> None:
    # Rule 109: a message the threat head scores as written under the floor is read once.
    first = np.array([0.1, 0.1, 0.1, threat])
    further = _Scorer([0.9, 0.9, 0.9, 0.2])
    out = _reading(chat_words=True, floor=0.005).apply(_ids(HEY, HURT, STOP), False, first, further)
    assert len(further.read) == reads
    assert out[3] == (max(threat, 0.2) if reads else threat) and out[:3].tolist() == [0.1, 0.1, 0.1]
    # A floor of 0 reads them all, even at a threat score of 0.
    unfloored = _Scorer([0.9, 0.9, 0.9, 0.2])
    _reading(chat_words=True).apply(_ids(HEY, HURT, STOP), False, first, unfloored)
    assert len(unfloored.read) == 2


def test_the_threshold_in_force_decides_whether_to_read_again() -> None:
    first = np.array([0.1, 0.1, 0.1, 0.5])
    second = _Scorer([0.0, 0.0, 0.0, 0.8])
    assert _reading(0.6).apply(_ids(HURT, STOP), False, first, second)[3] == 0.8
    assert _reading(0.4).apply(_ids(HURT, STOP), False, first, second)[3] == 0.5


def test_the_model_id_names_each_reading_on_and_a_model_without_a_threat_head_keeps_its_own() -> (
    None
):
    two = np.array([0.5, 0.5])
    every = Readings(True, True, True, True, True, True, True, lines=True)
    assert ThreatReading.for_model(("toxic", "insult"), two, VOCAB, every) is None
    assert ThreatReading.for_model(LABELS, np.array([0.5] * 4), VOCAB, Readings()) is None
    assert model_id("m@1", ("toxic", "insult"), every) == "m@1"
    assert model_id("m@1", LABELS, Readings()) == "m@1"
    assert model_id("m@1", LABELS, Readings(full_stop=True)) == "m@1" + STOP_SUFFIX
    assert model_id("m@1", LABELS, Readings(mentions=True)) == "m@1" + MENTION_SUFFIX
    assert model_id("m@1", LABELS, Readings(inner_mentions=True)) == "m@1" + INNER_MENTION_SUFFIX
    assert model_id("m@1", LABELS, Readings(chat_words=True)) == "m@1" + CHAT_WORDS_SUFFIX
    assert model_id("m@1", LABELS, every) == (
        "m@1"
        + STOP_SUFFIX
        + MENTION_SUFFIX
        + INNER_MENTION_SUFFIX
        + CHAT_WORDS_SUFFIX
        + EMOJI_SUFFIX
        + FINAL_MARKS_SUFFIX
        + SENTENCES_SUFFIX
        + LINES_SUFFIX
    )
    assert model_id("m@1", LABELS, Readings(emoji=True)) == "m@1" + EMOJI_SUFFIX
    assert model_id("m@1", LABELS, Readings(final_marks=True)) == "m@1" + FINAL_MARKS_SUFFIX
    assert model_id("m@1", LABELS, Readings(sentences=True)) == "m@1" + SENTENCES_SUFFIX
    asides = Readings(sentences=True, aside_words=5)
    assert model_id("m@1", LABELS, asides) == "m@1" + SENTENCES_SUFFIX + ":5"
    assert model_id("m@1", LABELS, Readings(aside_words=5)) == "m@1"
    assert model_id("m@1", LABELS, Readings(lines=True)) == "m@1" + LINES_SUFFIX
    closing = Readings(lines=True, aside_words=5, closing_words=True)
    assert model_id("m@1", LABELS, closing) == "m@1" + LINES_SUFFIX + ":5" + CLOSING_SUFFIX
    assert model_id("m@1", LABELS, Readings(closing_words=True)) == "m@1" + CLOSING_SUFFIX
    # An emoji ends a sentence only where sentences are read alone, and says so there.
    emoji = Readings(sentences=True, aside_words=5, sentence_emoji=True)
    assert (
        model_id("m@1", LABELS, emoji) == "m@1" + SENTENCES_SUFFIX + ":5" + EMOJI_SENTENCES_SUFFIX
    )
    assert model_id("m@1", LABELS, Readings(sentence_emoji=True)) == "m@1"
    # So does a comma, after the emoji where both are on.
    commas = Readings(sentences=True, aside_words=5, sentence_commas=True)
    assert (
        model_id("m@1", LABELS, commas) == "m@1" + SENTENCES_SUFFIX + ":5" + COMMA_SENTENCES_SUFFIX
    )
    both_ends = Readings(sentences=True, aside_words=5, sentence_emoji=True, sentence_commas=True)
    assert model_id("m@1", LABELS, both_ends) == (
        "m@1" + SENTENCES_SUFFIX + ":5" + EMOJI_SENTENCES_SUFFIX + COMMA_SENTENCES_SUFFIX
    )
    assert model_id("m@1", LABELS, Readings(sentence_commas=True)) == "m@1"
    both = Readings(sentences=True, aside_words=5, lines=True)
    assert model_id("m@1", LABELS, both) == "m@1" + SENTENCES_SUFFIX + ":5" + LINES_SUFFIX + ":5"
    # A floor is named where a reading is on, and only there.
    floored = Readings(True, True, True, True, True, True, True, 0.005, lines=True)
    assert (
        model_id("m@1", LABELS, floored) == model_id("m@1", LABELS, every) + "+threat-floor:0.005"
    )
    assert model_id("m@1", LABELS, Readings(floor=0.005)) == "m@1"
    assert model_id("m@1", ("toxic", "insult"), floored) == "m@1"
    # Every reading on or off names a model id of its own.
    ids = {
        model_id("m@1", LABELS, Readings(*on[:7], lines=on[7]))
        for on in itertools.product((False, True), repeat=8)
    }
    assert len(ids) == 256


@pytest.mark.parametrize(
    "readings", [Readings(chat_words=True), Readings(emoji=True), Readings(closing_words=True)]
)
def test_reading_past_chat_words_or_emoji_needs_the_models_spelling(readings: Readings) -> None:
    with pytest.raises(ValueError, match="tokens"):
        ThreatReading.for_model(LABELS, np.array([0.4] * 4), VOCAB, readings)


def test_a_vocabulary_without_a_full_stop_never_reads_past_one() -> None:
    vocab = {k: v for k, v in VOCAB.items() if k != "."}
    reading = ThreatReading.for_model(LABELS, np.array([0.4] * 4), vocab, Readings(full_stop=True))
    assert reading is not None
    second = _Scorer([0.9] * 4)
    first = np.array([0.0] * 4)
    assert reading.apply(_ids(HURT, STOP), False, first, second).tolist() == first.tolist()
    assert second.read == []
