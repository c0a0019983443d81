"""BERT's uncased WordPiece for plain ASCII text, in Python, id for id the library's.

Most chat messages are printable ASCII, with at most a phone's typographic quotes,
dashes and ellipsis. For such text the shipped tokenizer's pipeline
(NFKC, BERT's normalizer: lowercase, accents stripped, control characters dropped;
BERT's pre-tokenizer: split at whitespace, every punctuation mark a word of its own;
WordPiece with ``##`` continuations; ``[CLS] ... [SEP]``; truncation to the longest
length) reduces to lowercasing, one regular expression and dictionary lookups. The
`tokenizers` library does the same work through its general machinery (an Encoding
with offsets, masks and type ids for every token), and reading it after a session run
costs a chat message some 0.05 ms of cold caches (docs/benchmarks.md, "Stop 94").

``AsciiWordPiece.encode`` answers only for text it reads exactly as the library does
and returns None for anything else (a character outside printable ASCII, tab, newline,
carriage return, ``_TYPOGRAPHIC`` and the ellipsis; a character that opens one of the
tokenizer's added tokens, such as ``[`` of ``[MASK]``), which the caller then hands to
the library. ``from_file`` returns None unless the tokenizer file's pipeline is the one
mirrored here. The ids are compared with the library's on random and tricky text of the
domain in tests/unit/test_wordpiece.py.
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

# BERT's pre-tokenizer on the domain: runs of letters and digits, and each other visible
# character alone (Rust's is_ascii_punctuation is every ASCII one of them; the
# typographic marks are Unicode punctuation).
_WORDS = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")
_CONTINUATION = "##"
_SPECIAL_TOKENS = 2  # [CLS] ... [SEP]
# Printable ASCII, space, tab, newline and carriage return: the characters BERT's
# normalizer keeps as they are (lowercased) or reads as a space. Beside them the
# typographic quotes and dashes a phone's keyboard puts in (U+2019 in "don't"): no NFKC
# decomposition, punctuation to the pre-tokenizer (Unicode P*), so each is a word of
# its own, as "'" is; and the ellipsis, which NFKC writes as three full stops.
_ASCII_READABLE = string.printable.replace("\x0b", "").replace("\x0c", "")
_TYPOGRAPHIC = "\u2018\u2019\u201c\u201d\u2013\u2014"
_ELLIPSIS = "\u2026"


class AsciiWordPiece:
    """WordPiece over a vocabulary, for text in its domain (``encode``): the ids of
    ``unk``, ``cls`` and ``sep`` given, as the tokenizer file names them."""

    def __init__(
        self,
        vocab: dict[str, int],
        *,
        unk: int,
        cls: int,
        sep: int,
        max_word_chars: int,
        max_tokens: int,
        refused: str = "",
    ) -> None:
        if max_tokens <= _SPECIAL_TOKENS:
            raise ValueError(f"max_tokens must exceed {_SPECIAL_TOKENS}, got {max_tokens}")
        self._whole = dict(vocab)
        self._pieces = {
            k[len(_CONTINUATION) :]: v for k, v in vocab.items() if k.startswith(_CONTINUATION)
        }
        self._unk = unk
        self._cls = cls
        self._sep = sep
        self._max_word_chars = max_word_chars
        self._keep = max_tokens - _SPECIAL_TOKENS
        allowed = "".join(c for c in _ASCII_READABLE + _TYPOGRAPHIC + _ELLIPSIS if c not in refused)
        self._domain = re.compile(f"[{re.escape(allowed)}]*")

    @classmethod
    def from_file(cls, path: Path, max_tokens: int) -> AsciiWordPiece | None:
        """From a `tokenizers` JSON file, or None when its pipeline is not BERT's uncased
        WordPiece (this class would then read some text differently)."""
        return cls.from_config(json.loads(path.read_text(encoding="utf-8")), max_tokens)

    @classmethod
    def from_config(cls, config: dict[str, Any], max_tokens: int) -> AsciiWordPiece | None:
        """As ``from_file``, from the file's parsed JSON."""
        model = config.get("model") or {}
        if not (
            _bert_uncased(config.get("normalizer"))
            and (config.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer"
            and model.get("type") == "WordPiece"
            and model.get("continuing_subword_prefix") == _CONTINUATION
            and isinstance(model.get("max_input_chars_per_word"), int)
            and isinstance(model.get("vocab"), dict)
            and model.get("unk_token") in model["vocab"]
        ):
            return None
        template = _cls_sep(config.get("post_processor"))
        if template is None:
            return None
        added = [str(t.get("content", "")) for t in config.get("added_tokens") or []]
        if not all(added):
            return None
        return cls(
            model["vocab"],
            unk=model["vocab"][model["unk_token"]],
            cls=template[0],
            sep=template[1],
            max_word_chars=model["max_input_chars_per_word"],
            max_tokens=max_tokens,
            # An added token is matched in the raw text before anything else: text
            # holding the first character of one goes to the library.
            refused="".join(sorted({t[0] for t in added})),
        )

    def encode(self, text: str) -> tuple[list[int], bool] | None:
        """``[CLS]`` + the text's ids + ``[SEP]``, at most ``max_tokens`` in all, and
        whether the text was cut to fit; None when the text is outside the domain."""
        if self._domain.fullmatch(text) is None:
            return None
        if _ELLIPSIS in text:
            text = text.replace(_ELLIPSIS, "...")
        ids = [self._cls]
        whole = self._whole
        for word in _WORDS.findall(text.lower()):
            i = whole.get(word)
            if i is not None:
                ids.append(i)
            else:
                ids.extend(self._split(word))
        overflowing = len(ids) - 1 > self._keep
        if overflowing:
            del ids[self._keep + 1 :]
        ids.append(self._sep)
        return ids, overflowing

    def _split(self, word: str) -> list[int]:
        """Greedy longest-match WordPiece of a word not in the vocabulary whole; [UNK]
        for the whole word when a part of it matches no piece, or when it is too long."""
        n = len(word)
        if n > self._max_word_chars:
            return [self._unk]
        out: list[int] = []
        table = self._whole
        start = 0
        while start < n:
            end = n
            while end > start:
                i = table.get(word[start:end])
                if i is not None:
                    break
                end -= 1
            else:
                return [self._unk]
            out.append(i)
            start = end
            table = self._pieces
        return out


def _bert_uncased(normalizer: Any) -> bool:
    """BERT's normalizer, lowercasing and cleaning control characters, optionally after
    NFKC: on the ASCII domain (which has no accents to strip) both leave every
    character as it is but for case."""
    if not isinstance(normalizer, dict):
        return False
    steps = normalizer.get("normalizers") if normalizer.get("type") == "Sequence" else [normalizer]
    if not isinstance(steps, list) or not steps:
        return False
    *before, bert = steps
    return (
        all(isinstance(s, dict) and s.get("type") == "NFKC" for s in before)
        and isinstance(bert, dict)
        and bert.get("type") == "BertNormalizer"
        and bert.get("lowercase") is True
        and bert.get("clean_text") is True
    )


def _cls_sep(post: Any) -> tuple[int, int] | None:
    """The ids of the two special tokens of a ``[CLS] A [SEP]`` template, or None."""
    if not isinstance(post, dict) or post.get("type") != "TemplateProcessing":
        return None
    single = post.get("single")
    if not isinstance(single, list) or len(single) != 3:
        return None
    first, middle, last = single
    if not (
        isinstance(middle, dict)
        and (middle.get("Sequence") or {}).get("id") == "A"
        and isinstance(first, dict)
        and "SpecialToken" in first
        and isinstance(last, dict)
        and "SpecialToken" in last
    ):
        return None
    tokens = post.get("special_tokens") or {}
    ids = []
    for part in (first, last):
        spec = tokens.get(part["SpecialToken"].get("id")) or {}
        one = spec.get("ids")
        if not (isinstance(one, list) and len(one) == 1 and isinstance(one[0], int)):
            return None
        ids.append(one[0])
    return ids[0], ids[1]
