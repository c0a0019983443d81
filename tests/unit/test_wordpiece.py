"""moderation/wordpiece.py gives the tokenizers library's ids for the text it takes."""

from __future__ import annotations

import copy
import functools
import json
import random
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from moderation.config import default_model_dir
from moderation.wordpiece import AsciiWordPiece

_CONFIG: dict[str, Any] = json.loads(
    (default_model_dir() / "tokenizer.json").read_text(encoding="utf-8")
)
_ASCII = string.printable.replace("\x0b", "").replace("\x0c", "").replace("[", "")
# The typographic quotes, dashes and ellipsis of a phone's keyboard, several times over
# so that random text holds them often.
_DOMAIN = _ASCII + "\u2018\u2019\u201c\u201d\u2013\u2014\u2026" * 4

# Words WordPiece splits ("unaffable", "cunt", "killyourself"), words no piece can start
# (whole-word [UNK]), 100 and 101 letters (the limit), digits glued to letters,
# punctuation runs, every kind of space the domain holds, a trailing "##".
_TRICKY = [
    "",
    " ",
    "\t\n\r",
    "Hello, World!",
    "unaffable killyourself cu nt cunt",
    "a" * 100,
    "a" * 101,
    "b" * 100 + "ing",
    "1d10t h@te $tupid 7pm 2nd",
    "you're a ... idiot!!! ?!?! ---",
    "I'LL FIND YOU",
    "## ##a a## #",
    "x" * 3000,
    "ok " * 200,
    "é",
    "{}|\\^_`~",
    "don\u2019t \u201cquote\u201d \u2018x\u2019 a\u2013b c\u2014d wait\u2026 \u2026\u2026.",
]


@functools.cache
def _library(max_tokens: int) -> Tokenizer:
    tok = Tokenizer.from_str(json.dumps(_CONFIG))
    tok.no_padding()
    tok.enable_truncation(max_tokens)
    return tok


def _agree(tok: Tokenizer, wp: AsciiWordPiece, text: str) -> bool:
    """True when ``wp`` gives the library's ids and cut flag; False when it refuses."""
    mine = wp.encode(text)
    if mine is None:
        return False
    enc = tok.encode(text)
    assert mine == (enc.ids, bool(enc.overflowing)), repr(text[:120])
    return True


@pytest.mark.parametrize("max_tokens", [128, 8])
def test_tricky_and_random_ascii_get_the_librarys_ids(max_tokens: int) -> None:
    tok, wp = _library(max_tokens), AsciiWordPiece.from_config(_CONFIG, max_tokens)
    assert wp is not None
    rng = random.Random(5)
    texts = list(_TRICKY)
    for _ in range(3000):
        texts.append("".join(rng.choice(_DOMAIN) for _ in range(rng.randrange(0, 200))))
    # Words that run past the vocabulary's whole words, from its pieces.
    pieces = [k for k in _CONFIG["model"]["vocab"] if k.isascii() and k.isalpha()]
    for _ in range(1000):
        texts.append(" ".join("".join(rng.sample(pieces, 3)) for _ in range(rng.randrange(1, 9))))
    taken = sum(_agree(tok, wp, t) for t in texts)
    assert taken == len(texts) - 1  # all but "é"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_DOMAIN, max_size=300))
def test_any_text_of_the_domain_gets_the_librarys_ids(text: str) -> None:
    wp = AsciiWordPiece.from_config(_CONFIG, 128)
    assert wp is not None
    assert _agree(_library(128), wp, text)


@pytest.mark.parametrize(
    "text",
    [
        *("é", "naïve", "idіot", "\x0b", "\x0c", "\x00", "\x7f", "say [MASK]", "[CLS]"),
        *("a [ b", "😀", "\u201e", "\u2032", "\ufe0f", "\u200d", "\u00a0"),
    ],
)
def test_text_outside_the_domain_is_left_to_the_library(text: str) -> None:
    wp = AsciiWordPiece.from_config(_CONFIG, 128)
    assert wp is not None
    assert wp.encode(text) is None


def _changed(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    config = copy.deepcopy(_CONFIG)
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return config


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("normalizer", "normalizers", 1, "lowercase"), False),
        (("normalizer", "normalizers", 1, "clean_text"), False),
        (("normalizer", "normalizers", 0, "type"), "NFD"),
        (("normalizer",), None),
        (("pre_tokenizer",), {"type": "Whitespace"}),
        (("model", "type"), "BPE"),
        (("model", "continuing_subword_prefix"), "@@"),
        (("model", "unk_token"), "<unk>"),
        (("post_processor",), None),
        (("post_processor", "single"), [{"Sequence": {"id": "A", "type_id": 0}}]),
        (("post_processor", "special_tokens", "[CLS]", "ids"), [101, 7]),
        (("added_tokens", 0, "content"), ""),
    ],
)
def test_a_pipeline_other_than_berts_uncased_is_refused(path: tuple[Any, ...], value: Any) -> None:
    assert AsciiWordPiece.from_config(_changed(path, value), 128) is None


def test_the_file_as_shipped_is_taken_and_a_bare_bert_normalizer_too() -> None:
    assert AsciiWordPiece.from_file(default_model_dir() / "tokenizer.json", 128) is not None
    bare = _changed(("normalizer",), _CONFIG["normalizer"]["normalizers"][1])
    assert AsciiWordPiece.from_config(bare, 128) is not None


def test_an_added_token_of_another_opening_keeps_its_text_away() -> None:
    config = copy.deepcopy(_CONFIG)
    config["added_tokens"].append({"id": 5, "content": "<user>", "special": True})
    wp = AsciiWordPiece.from_config(config, 128)
    assert wp is not None
    assert wp.encode("hi <user>") is None
    assert wp.encode("hi [MASK]") is None
    assert wp.encode("hi user") is not None


def test_a_limit_that_leaves_no_room_for_the_text_is_refused() -> None:
    with pytest.raises(ValueError, match="max_tokens must exceed 2"):
        AsciiWordPiece.from_config(_CONFIG, 2)


def test_a_word_with_a_part_no_piece_matches_is_one_unknown_as_in_the_library() -> None:
    # The shipped vocabulary has every letter and digit as a piece, so this needs a
    # vocabulary of its own: no "##z", no "z", no "##a".
    config = copy.deepcopy(_CONFIG)
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "ab", "##b", "##c"]
    config["model"]["vocab"] = {t: i for i, t in enumerate(tokens)}
    config["added_tokens"] = [
        {**t, "id": tokens.index(t["content"])} for t in config["added_tokens"]
    ]
    for name in ("[CLS]", "[SEP]"):
        config["post_processor"]["special_tokens"][name]["ids"] = [tokens.index(name)]
    tok = Tokenizer.from_str(json.dumps(config))
    tok.no_padding()
    wp = AsciiWordPiece.from_config(config, 128)
    assert wp is not None
    texts = ["abz", "abc", "zab", "cab", "bbb", "ab ba", "abcb z", "a,b"]
    assert all(_agree(tok, wp, t) for t in texts)
    assert wp.encode("abz") == ([2, 1, 3], False)
