import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.normalize import Normalizer, drops_leading_mentions

VOCAB = frozenset({"idiot", "stupid", "kill", "good", "hello", "so", "no", "you", "hate"})
norm = Normalizer(VOCAB)


@pytest.mark.parametrize(
    ("evasive", "plain"),
    [
        ("1d10t", "idiot"),
        ("you are an 1d10t!", "you are an idiot!"),
        ("st00p1d", "stoopid"),
        ("$tupid", "stupid"),
        ("sh!t", "shit"),
        ("h4te", "hate"),
        ("I HATE Y0U", "I HATE you"),
        ("i d i o t", "idiot"),
        ("i.d.i.o.t", "idiot"),
        ("k-y-s", "kill yourself"),
        ("i_d_i_o_t", "idiot"),
        ("idiooooot", "idiot"),
        ("killll yourself", "kill yourself"),
        ("goooood morning", "good morning"),
        ("\u0456d\u0456\u043et", "idiot"),  # Cyrillic і, о
        ("st\u03c5pid", "stupid"),  # Greek upsilon
        ("\U0001d7cf\U0001d41d\U0001d7cf\U0001d428\U0001d42d", "idiot"),  # math bold
        ("1\u200bd10t", "idiot"),  # a zero-width space inside
    ],
)
def test_evasions_read_as_the_plain_word(evasive: str, plain: str) -> None:
    assert norm(evasive) == plain


@pytest.mark.parametrize(
    ("abbreviated", "written_out"),
    [
        ("kys", "kill yourself"),
        ("just KYS already", "just kill yourself already"),
        ("you should kys!", "you should kill yourself!"),
        ("k y s", "kill yourself"),
        ("k.y.s", "kill yourself"),
        ("kyyys", "kill yourself"),
        ("\u043ays", "kill yourself"),  # a Cyrillic к
        ("gkys", "go kill yourself"),
        ("foad", "fuck off and die"),
        ("diaf loser", "die in a fire loser"),
        ("omg stfu", "omg shut the fuck up"),
        ("stfuuuu", "shut the fuck up"),
        ("Gtfo, @user", "get the fuck out, @user"),
    ],
)
def test_abuse_abbreviations_are_written_out(abbreviated: str, written_out: str) -> None:
    assert norm(abbreviated) == written_out


@pytest.mark.parametrize(
    "text",
    [
        "thanks @kys for the invite",  # a user's name
        "kms this exam is brutal",  # about oneself: not abuse of the reader
        "blue skys ahead",
        "stfuu",  # two of a letter is a spelling, not a stretch: left alone
        "kys2",
        "kung fu panda",
    ],
)
def test_abbreviation_lookalikes_stay(text: str) -> None:
    assert norm(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "see you at 7pm",
        "we came 2nd!",
        "take b12 and an mp3 player",
        "call me at 555-1234",
        "it costs $5, ok?",
        "thanks @user!",
        "hey @sam you there?",
        "@sam",  # nothing but mentions: kept, there is nothing else to read
        "@sam @bob 😂",
        "email me @ home",
        "hello! how are you?",
        "I am 100% sure",
        "version v1.2.3 is out",
        "привет, как дела",  # a whole word in Cyrillic is not pretending
        "A-ha",
        "well... ok",
    ],
)
def test_ordinary_chat_is_left_as_written(text: str) -> None:
    assert norm(text) == text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_bounded_text(text: str) -> None:
    once = norm(text)
    assert isinstance(once, str)
    # NFKC may expand a few characters, and an abbreviation be written out; no more.
    assert len(once) <= len(text) * 5 + 1


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("@sam I will find you", "I will find you"),
        ("@user @user @user If he is from AZ", "If he is from AZ"),
        ("  @jess_92: you ok?", "you ok?"),
        ("@sam, kys", "kill yourself"),
        ("@sam.jones hi", "hi"),
        ("@sam\n\nno", "no"),
    ],
)
def test_the_mentions_a_message_opens_with_are_read_past(text: str, read: str) -> None:
    assert Normalizer(VOCAB, leading_mentions=True)(text) == read
    # A model trained with them (the shipped one) reads them as written.
    assert norm(text).lstrip().startswith(text.strip()[:4])


def test_the_manifest_says_whether_leading_mentions_are_dropped() -> None:
    assert drops_leading_mentions({"normalizer": {"leading_mentions": "drop"}})
    assert not drops_leading_mentions({"normalizer": {"leading_mentions": "keep"}})
    assert not drops_leading_mentions({"labels": ["toxic"]})


def test_a_prefix_of_mentions_is_dropped_when_the_whole_message_has_words() -> None:
    # A long paste is read from a prefix (classifier._encode_prefix): whether words
    # follow the mentions is a property of the whole message, as for the whole.
    drop = Normalizer(VOCAB, leading_mentions=True)
    whole = "@a @b @c then words"
    assert drop("@a @b ", whole=whole) == ""
    assert drop("@a @b ", whole="@a @b @c") == "@a @b "
    assert drop(whole) == "then words"
