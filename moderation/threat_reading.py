"""The threat head's second reading: past a final full stop (docs/model.md, rule 102),
past the mentions a message opens with (rule 103), past every other mention in it
(rules 104-105), in a third reading of their own past chat's opening words and closing
laughs (rules 106-108), in a fourth past the emoji and emoticons at its edges (rules
111-112), in a fifth past a final run of exclamation marks or an ellipsis (rule 113) and,
sentence by sentence, in readings of each sentence alone beside short asides (rules
114-115), and line by line, each line read as a message of its own beside short asides
(rule 116), a sentence ending at an emoji too (rule 117), and after all those each part a
comma ends (rules 118-119); none under a floor on the first threat score (rules 109-110).

None of the shipped recipe's threat positives ends in a full stop, against 40% of the
threat head's negatives, and none holds a mention ("@sam ...", "hey @sam ...", "...
@sam"), which only tweets the head is not supervised on carry, or opens with "hey" or
ends in "lol", as chitchat among its negatives does; none opens or ends with an emoji or
ends with an emoticon (":)"), "!" or "...", which some chitchat negatives do; and 0.66% of
its positives hold two sentences, against 11.8% of its negatives. So the head
learned these as signs of harmlessness: "I will find you." can be allowed where "I will
find you" is nudged. Training them away cost negated hate, counter-speech and validation splits
(rules 10-13), which the other heads read with their full stops and mentions. So only
the threat head reads past them, at inference: a message whose tokens end in one full
stop or hold mentions, and whose threat score is under the threshold in force (but not
under the floor, where most chat lies), is scored a second time without them (chat
words in a third reading, emoji in a fourth, final marks in a fifth and each sentence
alone after those, so that leaving them out never costs a nudge an earlier reading gave),
and its threat score is the highest of the readings.
Every other head keeps the message as written. It works on token ids, so the verdict
cache (keyed by ids, and by where lines start: rule 116) stays exact.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from moderation.config.model import ReadingSwitches

LABEL = "threat"
# Verdicts and cache entries differ with each reading on, so the model id says so.
STOP_SUFFIX = "+threat-past-stop"
MENTION_SUFFIX = "+threat-past-mention"
INNER_MENTION_SUFFIX = "+threat-past-inner-mention"
CHAT_WORDS_SUFFIX = "+threat-past-chat-words"
EMOJI_SUFFIX = "+threat-past-emoji"
FINAL_MARKS_SUFFIX = "+threat-past-marks"
SENTENCES_SUFFIX = "+threat-sentences"
LINES_SUFFIX = "+threat-lines"
EMOJI_SENTENCES_SUFFIX = "+threat-emoji-sentences"
COMMA_SENTENCES_SUFFIX = "+threat-comma-sentences"
CLOSING_SUFFIX = "+threat-past-closing"
ASIDE_SUFFIX = ":{}"
FLOOR_SUFFIX = "+threat-floor:{:g}"
STOP = "."
COMMA = ","
AT = "@"
UNDERSCORE = "_"
# Chat's opening words, each with any of its marks after it, and its closing laughs,
# with any of theirs after or between them (rule 106). "jk" takes a threat back.
GREETINGS = ("hey", "hi", "hello", "yo", "bro", "bruh", "dude", "ok", "okay", "listen")
OPENING_WORDS = (*GREETINGS, "lol", "lmao", "omg")
AFTER_OPENING = (",", "!", ".")
LAUGHS = ("lol", "lmao", "lmfao", "haha", "hahaha", "hehe", "rofl")
AROUND_LAUGHS = (".", "!", "?", ",")
# Words of address and hedges a message closes on, read past after every other reading
# (rule 120), with the laughs (and the emoticons and emoji, where those are read past).
CLOSING_WORDS = (
    "bro", "bruh", "dude", "man", "mate", "fam", "buddy", "pal", "homie", "fr", "frfr",
    "ngl", "tbh", "honestly", "seriously", "literally", "istg", "deadass", "tho", "though",
    "imo", "btw", "smh", "for real", "no cap", "i swear", "trust me", "just saying",
)  # fmt: skip
# Emoji are the vocabulary's unknown token (the normalizer leaves them whole); the
# emoticons are matched as their whole tokens, read with the closing laughs (rule 111).
UNKNOWN = "[UNK]"
EMOTICONS = (":)", ":-)", ":(", ":D", ":P", ";)", ";-)", "xD", "<3", ":/")
# A final run of these is read past where it holds an "!" or two "." (rule 113).
BANG = "!"
QUERY = "?"
# Each sentence of a message read alone (rule 114): at most this many, from the edges in;
# the same for each line (rule 116).
MOST_SENTENCES = 4


@dataclass(frozen=True)
class Readings:
    """Which parts of a message the threat head's further readings leave out: a final full
    stop (rule 102), the mentions it opens with (rule 103), every other mention (rules
    104-105), chat's opening words and closing laughs (rules 106-108, a reading of their
    own), the emoji and emoticons at its edges (rules 111-112, a reading of their own), a
    final run of exclamation marks or an ellipsis (rule 113, a reading of its own), the
    rest of a message around each sentence (rule 114, a reading of each sentence alone,
    only beside asides of at most ``aside_words`` words, rule 115, where that is above 0),
    the rest of a message around each line (rule 116, a reading of each line alone and of
    its own further readings, beside asides of as many words), an emoji between words as
    the end of a sentence (rule 117, ``sentence_emoji``, where sentences are read alone),
    a comma as the end of a part read alone after every other reading (rules 118-119,
    ``sentence_commas``, where sentences are read alone); closing words of address and
    hedges, after all of those (rule 120, ``closing_words``); and the first threat score
    under which none is made (``floor``, rules 109-110)."""

    full_stop: bool = False
    mentions: bool = False
    inner_mentions: bool = False
    chat_words: bool = False
    emoji: bool = False
    final_marks: bool = False
    sentences: bool = False
    floor: float = 0.0
    aside_words: int = 0
    lines: bool = False
    sentence_emoji: bool = False
    sentence_commas: bool = False
    closing_words: bool = False

    @classmethod
    def of(cls, settings: ReadingSwitches) -> Readings:
        """The readings a classifier's settings switch on."""
        return cls(
            settings.threat_past_full_stop,
            settings.threat_past_mentions,
            settings.threat_past_inner_mentions,
            settings.threat_past_chat_words,
            settings.threat_past_emoji,
            settings.threat_past_final_marks,
            settings.threat_sentences_alone,
            settings.threat_reading_floor,
            settings.threat_sentence_aside_words,
            settings.threat_lines_alone,
            settings.threat_sentences_past_emoji,
            settings.threat_sentences_past_commas,
            settings.threat_past_closing_words,
        )

    @property
    def any(self) -> bool:
        return any(
            (
                self.full_stop,
                self.mentions,
                self.inner_mentions,
                self.chat_words,
                self.emoji,
                self.final_marks,
                self.sentences,
                self.lines,
                self.closing_words,
            )
        )

    @property
    def suffix(self) -> str:
        """What the model id gains: one part per reading on, and the floor where one is
        on, so that verdicts and cache entries of different readings never mix."""
        return (
            (STOP_SUFFIX if self.full_stop else "")
            + (MENTION_SUFFIX if self.mentions else "")
            + (INNER_MENTION_SUFFIX if self.inner_mentions else "")
            + (CHAT_WORDS_SUFFIX if self.chat_words else "")
            + (EMOJI_SUFFIX if self.emoji else "")
            + (FINAL_MARKS_SUFFIX if self.final_marks else "")
            + (SENTENCES_SUFFIX if self.sentences else "")
            + (ASIDE_SUFFIX.format(self.aside_words) if self.sentences and self.aside_words else "")
            + (EMOJI_SENTENCES_SUFFIX if self.sentences and self.sentence_emoji else "")
            + (COMMA_SENTENCES_SUFFIX if self.sentences and self.sentence_commas else "")
            + (LINES_SUFFIX if self.lines else "")
            + (ASIDE_SUFFIX.format(self.aside_words) if self.lines and self.aside_words else "")
            + (CLOSING_SUFFIX if self.closing_words else "")
            + (FLOOR_SUFFIX.format(self.floor) if self.floor > 0 and self.any else "")
        )


def model_id(base: str, labels: Sequence[str], readings: Readings) -> str:
    """The id of ``base`` as the classifier runs it: with a suffix for each reading on
    (where the model has a threat head)."""
    return base + readings.suffix if LABEL in labels else base


def without_final_stop(ids: np.ndarray, stop_id: int) -> np.ndarray | None:
    """``[CLS] ... [SEP]`` without the one full stop before ``[SEP]``; None where the
    message does not end in exactly one (an ellipsis is three) or is nothing else."""
    if ids.shape[0] < 4 or ids[-2] != stop_id or ids[-3] == stop_id:
        return None
    return np.concatenate([ids[:-2], ids[-1:]])


def past_final_stop(ids: np.ndarray, stop_id: int) -> np.ndarray:
    """``ids`` without their one final full stop where they end in one, else ``ids``."""
    stripped = without_final_stop(ids, stop_id)
    return ids if stripped is None else stripped


class TokenKinds:
    """Which of a vocabulary's tokens start a word of letters or digits, which go on one
    ("##" and letters or digits), and which go on anything ("##" and whatever)."""

    def __init__(self, vocab: Mapping[str, int]) -> None:
        self.words = np.zeros(max(vocab.values(), default=0) + 1, dtype=bool)
        self.pieces = np.zeros_like(self.words)
        self.continuations = np.zeros_like(self.words)
        for token, i in vocab.items():
            if token.startswith("##"):
                self.continuations[i] = True
                self.pieces[i] = token[2:].isalnum()
            elif token.isalnum():
                self.words[i] = True

    def word(self, i: int) -> bool:
        return 0 <= i < self.words.shape[0] and bool(self.words[i])

    def piece(self, i: int) -> bool:
        return 0 <= i < self.pieces.shape[0] and bool(self.pieces[i])

    def continuation(self, i: int) -> bool:
        return 0 <= i < self.continuations.shape[0] and bool(self.continuations[i])

    def any_word(self, ids: np.ndarray) -> bool:
        return any(self.word(int(i)) for i in ids)


class FinalMarks:
    """A message's final run of "!", "." and "?" tokens, read past where it holds an "!"
    or at least two "." (rule 113): "!!!", "...", "?!"; not "?" alone, a question, nor
    one "." (rule 102's)."""

    def __init__(self, vocab: Mapping[str, int], kinds: TokenKinds | None = None) -> None:
        self.kinds = kinds if kinds is not None else TokenKinds(vocab)
        self.bang = vocab.get(BANG, -1)
        self.stop = vocab.get(STOP, -1)
        self.marks = {vocab[m] for m in (BANG, STOP, QUERY) if m in vocab}

    def run_start(
        self, ids: np.ndarray, start: int, stop: int, ends: set[int] | None = None
    ) -> int:
        """Where the run of marks (or of ``ends``) that ends ``ids[start:stop]`` starts
        (``stop`` where it ends in none)."""
        tokens = self.marks if ends is None else ends
        k = stop
        while k > start and int(ids[k - 1]) in tokens:
            k -= 1
        return k

    def reads_past(self, run: list[int]) -> bool:
        """Whether a run of marks is one this reading leaves out: it holds an "!" or two
        "."."""
        return self.bang in run or run.count(self.stop) >= 2

    def without(self, ids: np.ndarray) -> np.ndarray | None:
        """``[CLS] ... [SEP]`` without its final run of marks, where it is one read past
        and a word remains; None where there is none."""
        end = ids.shape[0] - 1  # [SEP]
        k = self.run_start(ids, 1, end)
        if not self.reads_past(ids[k:end].tolist()):
            return None
        if not self.kinds.any_word(ids[1:k]):
            return None
        return np.concatenate([ids[:k], ids[end:]])


class Sentences:
    """A message's sentences (rule 114): a sentence ends at a run of ".", "!" and "?" with a
    token after it before ``[SEP]``. Each is read alone without the run that closes it
    where that run is one "." or one ``FinalMarks`` reads past (a question's "?" stays),
    and only where it holds a word; at most ``MOST_SENTENCES``, from the edges in. With
    ``aside_words`` above 0, a sentence is read alone only where every other one holds at
    most that many words (rule 115): a threat beside short asides, not a clause of a
    longer message. With ``emoji``, a run of emoji (the unknown token) ends one too, alone
    or among the marks, and a closing run that holds one is read past (rule 117); with
    ``commas``, a run of commas likewise (rule 118)."""

    def __init__(
        self,
        vocab: Mapping[str, int],
        kinds: TokenKinds | None = None,
        aside_words: int = 0,
        emoji: bool = False,
        commas: bool = False,
    ) -> None:
        self.kinds = kinds if kinds is not None else TokenKinds(vocab)
        self.aside_words = aside_words
        # A sentence's closing run is read past as a message's final one is (rule 113).
        self.closing = FinalMarks(vocab, self.kinds)
        self.emoji = vocab.get(UNKNOWN, -1) if emoji else -1
        self.comma = vocab.get(COMMA, -1) if commas else -1
        # Tokens a closing run that holds one is read past by (rules 117-118).
        self.past = {t for t in (self.emoji, self.comma) if t >= 0}
        self.ends = self.closing.marks | self.past

    def bounds(self, ids: np.ndarray) -> list[tuple[int, int]]:
        """Where each sentence of ``[CLS] ... [SEP]`` starts and ends (its closing run of
        marks, emoji or commas with it); none where there are fewer than two."""
        end = ids.shape[0] - 1  # [SEP]
        out: list[tuple[int, int]] = []
        start = j = 1
        while j < end:
            if int(ids[j]) not in self.ends:
                j += 1
                continue
            while j < end and int(ids[j]) in self.ends:
                j += 1
            if j < end:
                out.append((start, j))
                start = j
        if not out:
            return []
        out.append((start, end))
        return out

    def _alone(self, ids: np.ndarray, start: int, stop: int) -> np.ndarray | None:
        """``[CLS]``, the sentence ``ids[start:stop]`` (without its closing run where that
        is read past), ``[SEP]``; None where it holds no word."""
        k = self.closing.run_start(ids, start, stop, self.ends)
        if not self.kinds.any_word(ids[start:k]):
            return None
        run = ids[k:stop].tolist()
        past = (
            run == [self.closing.stop]
            or self.closing.reads_past(run)
            or not self.past.isdisjoint(run)
        )
        return np.concatenate([ids[:1], ids[start : k if past else stop], ids[-1:]])

    def alone(self, ids: np.ndarray) -> Iterator[np.ndarray]:
        """Each sentence of ``[CLS] ... [SEP]`` as a message of its own, the last first,
        then the first, the second last, the second; none where it holds one sentence."""
        bounds = aside_bounds(ids, self.bounds(ids), self.kinds, self.aside_words)
        for i in from_edges(len(bounds)):
            sentence = self._alone(ids, *bounds[i])
            if sentence is not None:
                yield sentence


def from_edges(n: int) -> list[int]:
    """Which of ``n`` parts of a message are read alone, in order (rules 114 and 116): the
    last, the first, the second last, the second; at most ``MOST_SENTENCES``."""
    order: list[int] = []
    lo, hi = 0, n - 1
    while lo <= hi:
        order += [hi] if lo == hi else [hi, lo]
        lo, hi = lo + 1, hi - 1
    return order[:MOST_SENTENCES]


def aside_bounds(
    ids: np.ndarray, bounds: list[tuple[int, int]], kinds: TokenKinds, aside_words: int
) -> list[tuple[int, int]]:
    """Of a message's parts (``bounds`` in ``ids``), those that may be read alone: every
    one where ``aside_words`` is 0; else the one part beside which every other holds at
    most ``aside_words`` words, or every part where each does (rules 115-116)."""
    if not aside_words:
        return bounds
    words = [sum(kinds.word(int(i)) for i in ids[a:b]) for a, b in bounds]
    long = [i for i, n in enumerate(words) if n > aside_words]
    if len(long) > 1:
        return []  # no part has only asides beside it
    if len(long) == 1:
        return [bounds[long[0]]]  # the one part the asides are beside
    return bounds


class Lines:
    """A message's lines (rule 116), as the positions in its token ids where each line
    after the first starts (``Encoded.lines``; the tokenizer reads a line break as a
    space, so only the text shows them). Each line is read alone as a message of its own,
    where it holds a word and, with ``aside_words`` above 0, where every other line is an
    aside of at most that many words; at most ``MOST_SENTENCES``, from the edges in."""

    def __init__(self, kinds: TokenKinds, aside_words: int = 0) -> None:
        self.kinds = kinds
        self.aside_words = aside_words

    @staticmethod
    def bounds(ids: np.ndarray, starts: Sequence[int]) -> list[tuple[int, int]]:
        """Where each line of ``[CLS] ... [SEP]`` starts and ends; none where ``starts``
        names no line start inside the message (one line)."""
        end = ids.shape[0] - 1  # [SEP]
        inner = [k for k in starts if 1 < k < end]
        if not inner:
            return []
        edges = [1, *inner, end]
        return list(itertools.pairwise(edges))

    def alone(self, ids: np.ndarray, starts: Sequence[int]) -> Iterator[np.ndarray]:
        """Each line of ``[CLS] ... [SEP]`` as a message of its own, ``[CLS]`` and
        ``[SEP]`` around it, the last first; none where it holds one line."""
        bounds = aside_bounds(ids, self.bounds(ids, starts), self.kinds, self.aside_words)
        for i in from_edges(len(bounds)):
            start, stop = bounds[i]
            if self.kinds.any_word(ids[start:stop]):
                yield np.concatenate([ids[:1], ids[start:stop], ids[-1:]])


class Handles:
    """What a mention's tokens are, from a vocabulary: "@", then a handle made of a word
    piece, its "##" pieces, and any "_" with the piece after it and that one's pieces
    ("@jess_92" is "@", "jess", "_", "92")."""

    def __init__(self, vocab: Mapping[str, int], kinds: TokenKinds | None = None) -> None:
        self.at = vocab.get(AT, -1)
        self.underscore = vocab.get(UNDERSCORE, -1)
        self.kinds = kinds if kinds is not None else TokenKinds(vocab)

    def _handle_end(self, ids: np.ndarray, j: int, end: int) -> int:
        """Where the handle starting at ``j`` ends; ``j`` if no handle starts there."""
        if j >= end or not self.kinds.word(int(ids[j])):
            return j
        j += 1
        while True:
            while j < end and self.kinds.piece(int(ids[j])):
                j += 1
            if j + 1 < end and ids[j] == self.underscore and self.kinds.word(int(ids[j + 1])):
                j += 2
                continue
            return j

    def without(self, ids: np.ndarray, *, leading: bool, inner: bool) -> np.ndarray | None:
        """``[CLS] ... [SEP]`` without the mentions it opens with (``leading``) and every
        other mention in it (``inner``: after a word, at the end), where a word remains;
        None where nothing is left out. On ids an address's "@" ("bob@example.com") is a
        mention too: no space tells them apart (docs/model.md, rule 104)."""
        end = ids.shape[0] - 1  # [SEP]
        ats = np.flatnonzero(ids[:end] == self.at)
        if ats.size == 0:
            return None
        keep = np.ones(ids.shape[0], dtype=bool)
        opening_end = 1  # where the run of mentions the message opens with ends
        for at in ats.tolist():
            after = self._handle_end(ids, at + 1, end)
            if after == at + 1:
                continue  # "@" and no handle: not a mention, and no longer the opening
            opening = at == opening_end
            if opening:
                opening_end = after
            if leading if opening else inner:
                keep[at:after] = False
        if keep.all():
            return None
        out = ids[keep]
        return out if self.kinds.any_word(out[1:-1]) else None


class ChatWords:
    """Chat's opening words and closing laughs (``OPENING_WORDS``, ``LAUGHS``; rule 106)
    and, with ``emoji``, emoji (the unknown token) at both edges and emoticons
    (``EMOTICONS``) with the laughs (rule 111); as the token ids a tokenizer gives them,
    matched as whole words. ``words=False`` leaves the chat words out; ``closing`` reads
    only the end, with the closing words of address and hedges (rule 120)."""

    def __init__(
        self,
        vocab: Mapping[str, int],
        tokens: Callable[[str], Sequence[int]],
        kinds: TokenKinds | None = None,
        *,
        words: bool = True,
        emoji: bool = False,
        closing: bool = False,
    ) -> None:
        self.kinds = kinds if kinds is not None else TokenKinds(vocab)
        self.closing = closing
        # Each matched as a whole word, so no spelling is read inside a longer one. With
        # ``closing`` (rule 120) the closing words are read past with the laughs, and no
        # opening word is.
        self.openers = self._spelled(OPENING_WORDS if words and not closing else (), tokens)
        closers = CLOSING_WORDS if closing else ()
        self.laughs = self._spelled([*closers, *(LAUGHS if words else ())], tokens)
        if emoji:
            unknown = [(vocab[UNKNOWN],)] if UNKNOWN in vocab else []
            if not closing:
                self.openers += unknown
            self.laughs += [*self._spelled(EMOTICONS, tokens), *unknown]
        self.after_opening = {vocab[m] for m in AFTER_OPENING if m in vocab}
        self.around_laughs = {vocab[m] for m in AROUND_LAUGHS if m in vocab}

    @staticmethod
    def _spelled(
        words: Sequence[str], tokens: Callable[[str], Sequence[int]]
    ) -> list[tuple[int, ...]]:
        spelled = (tuple(int(i) for i in tokens(w)) for w in words)
        return list(dict.fromkeys(s for s in spelled if s))

    def _whole(self, ids: np.ndarray, start: int, stop: int) -> bool:
        """Whether ``ids[start:stop]`` is a whole word: it starts none and goes on none."""
        return not self.kinds.continuation(int(ids[start])) and (
            stop >= ids.shape[0] or not self.kinds.continuation(int(ids[stop]))
        )

    def _opener_at(self, ids: np.ndarray, j: int, end: int) -> int:
        """How many tokens the opening word at ``j`` takes; 0 where none starts there."""
        for word in self.openers:
            stop = j + len(word)
            if stop <= end and tuple(ids[j:stop].tolist()) == word and self._whole(ids, j, stop):
                return len(word)
        return 0

    def _laugh_before(self, ids: np.ndarray, stop: int, start: int) -> int:
        """How many tokens the laugh that ends just before ``stop`` takes; 0 where none."""
        for word in self.laughs:
            j = stop - len(word)
            if j >= start and tuple(ids[j:stop].tolist()) == word and self._whole(ids, j, stop):
                return len(word)
        return 0

    def without(self, ids: np.ndarray) -> np.ndarray | None:
        """``[CLS] ... [SEP]`` without its opening chat words (and the marks after each)
        and its closing laughs (and the marks after or between them; with ``closing``,
        before them too), where a word remains; None where there are none."""
        end = ids.shape[0] - 1  # [SEP]
        j = 1
        while n := self._opener_at(ids, j, end):
            j += n
            while j < end and int(ids[j]) in self.after_opening:
                j += 1
        cut = end  # where the closing laughs start
        k = end
        while True:
            while k > j and int(ids[k - 1]) in self.around_laughs:
                k -= 1
            n = self._laugh_before(ids, k, j)
            if not n:
                break
            k -= n
            cut = k
        if self.closing:  # the marks before the closing words go with them (rule 120)
            while cut < end and cut > j and int(ids[cut - 1]) in self.around_laughs:
                cut -= 1
        if j == 1 and cut == end:
            return None
        if not self.kinds.any_word(ids[j:cut]):
            return None
        return np.concatenate([ids[:1], ids[j:cut], ids[end:]])


class ThreatReading:
    """Rules 102-120 for one model: its threat column, the threshold in force, the floor, and
    what each further reading leaves out."""

    def __init__(
        self,
        column: int,
        threshold: float,
        stop_id: int | None,
        handles: Handles | None,
        readings: Readings,
        chat: ChatWords | None = None,
        emoji: ChatWords | None = None,
        marks: FinalMarks | None = None,
        sentences: Sentences | None = None,
        lines: Lines | None = None,
        clauses: Sentences | None = None,
        closing: ChatWords | None = None,
    ) -> None:
        self.column = column
        self.threshold = threshold
        self.stop_id = stop_id
        self.handles = handles
        self.readings = readings
        self.chat = chat
        self.emoji = emoji
        self.marks = marks
        self.sentences = sentences
        self.clauses = clauses
        self.lines = lines
        self.closing = closing

    @classmethod
    def for_model(
        cls,
        labels: Sequence[str],
        thresholds: np.ndarray,
        vocab: Mapping[str, int],
        readings: Readings,
        tokens: Callable[[str], Sequence[int]] | None = None,
    ) -> ThreatReading | None:
        """The reading for a model with these labels, thresholds in force (one per label)
        and vocabulary; None where no reading is on or it has no threat head
        (``model_id``'s rule). ``tokens`` spells a word in the model's token ids (without
        ``[CLS]`` and ``[SEP]``), for the chat words and emoticons. A vocabulary without a
        full stop never reads past one."""
        if LABEL not in labels or not readings.any:
            return None
        column = list(labels).index(LABEL)
        stop_id = vocab.get(STOP, -1) if readings.full_stop else None
        kinds = TokenKinds(vocab)
        handles = None
        if readings.mentions or readings.inner_mentions:
            handles = Handles(vocab, kinds)
        chat = emoji = closing = None
        if readings.chat_words or readings.emoji or readings.closing_words:
            if tokens is None:
                raise ValueError(
                    "reading past chat words, emoji or closing words needs the model's tokens"
                )
            if readings.chat_words:
                chat = ChatWords(vocab, tokens, kinds)
            if readings.emoji:
                emoji = ChatWords(vocab, tokens, kinds, words=readings.chat_words, emoji=True)
            if readings.closing_words:
                closing = ChatWords(
                    vocab,
                    tokens,
                    kinds,
                    words=readings.chat_words,
                    emoji=readings.emoji,
                    closing=True,
                )
        marks = FinalMarks(vocab, kinds) if readings.final_marks else None
        sentences = clauses = None
        if readings.sentences:
            sentences = Sentences(vocab, kinds, readings.aside_words, readings.sentence_emoji)
            if readings.sentence_commas:
                clauses = Sentences(
                    vocab, kinds, readings.aside_words, readings.sentence_emoji, commas=True
                )
        lines = Lines(kinds, readings.aside_words) if readings.lines else None
        return cls(
            column,
            float(thresholds[column]),
            stop_id,
            handles,
            readings,
            chat,
            emoji,
            marks,
            sentences,
            lines,
            clauses,
            closing,
        )

    def second_ids(self, ids: np.ndarray) -> np.ndarray | None:
        """The ids the second reading scores (rules 102-105: the mentions and the final
        full stop left out); None where nothing is left out."""
        out: np.ndarray | None = None
        if self.handles is not None:
            out = self.handles.without(
                ids, leading=self.readings.mentions, inner=self.readings.inner_mentions
            )
        if self.stop_id is not None:
            stripped = without_final_stop(ids if out is None else out, self.stop_id)
            if stripped is not None:
                out = stripped
        return out

    def third_ids(self, ids: np.ndarray, second: np.ndarray | None) -> np.ndarray | None:
        """The ids the third reading scores (rule 108): what the second reads (the message
        where it reads nothing) without its chat words, then without a final full stop
        they left last; None where no chat word is left out."""
        if self.chat is None:
            return None
        return self._past_stop_left_last(self.chat.without(ids if second is None else second))

    def fourth_ids(self, latest: np.ndarray) -> np.ndarray | None:
        """The ids the fourth reading scores (rule 111): what the latest reading before it
        reads (``latest``; the message where none does) without the emoji at its edges and
        the emoticons at its end (and the chat words, where those are read past), then
        without a final full stop they left last; None where no emoji or emoticon is
        left out."""
        return None if self.emoji is None else self._past_stop_left_last(self.emoji.without(latest))

    def _past_stop_left_last(self, out: np.ndarray | None) -> np.ndarray | None:
        """``out`` (a reading's ids, or None) without the final full stop that leaving
        words out of it left last, where the full stop is read past."""
        if out is None or self.stop_id is None:
            return out
        return past_final_stop(out, self.stop_id)

    def fifth_ids(self, latest: np.ndarray) -> np.ndarray | None:
        """The ids the fifth reading scores (rule 113): what the latest reading before it
        reads (``latest``; the message where none does) without its final run of
        exclamation marks or its ellipsis; None where it ends in neither."""
        return None if self.marks is None else self.marks.without(latest)

    def sentence_ids(self, latest: np.ndarray) -> Iterator[np.ndarray]:
        """The ids of the readings of each sentence alone (rule 114): of what the latest
        reading before them reads (``latest``; the message where none does), where it
        holds two sentences or more."""
        if self.sentences is not None:
            yield from self.sentences.alone(latest)

    def _narrower(self, ids: np.ndarray) -> Iterator[np.ndarray]:
        """The second to fifth readings, narrowest first; each made only when asked for.
        The fourth and the fifth read what the latest reading before them left, so the
        last one yielded is the latest (the message where none is)."""
        second = self.second_ids(ids)
        if second is not None:
            yield second
        latest = ids if second is None else second
        third = self.third_ids(ids, second)
        if third is not None:
            yield third
            latest = third
        fourth = self.fourth_ids(latest)
        if fourth is not None:
            yield fourth
            latest = fourth
        fifth = self.fifth_ids(latest)
        if fifth is not None:
            yield fifth

    def _latest_narrower(self, ids: np.ndarray) -> np.ndarray:
        """The latest of the narrower readings (the message where none is made), made
        again for the readings after the sentences' (rules 119-120)."""
        narrower = list(self._narrower(ids))
        return narrower[-1] if narrower else ids

    def _further(self, ids: np.ndarray) -> Iterator[np.ndarray]:
        """The readings after the first (rules 102-117): the narrower ones, then each
        sentence of the latest of them alone."""
        latest = ids
        for reading in self._narrower(ids):
            yield reading
            latest = reading
        yield from self.sentence_ids(latest)

    def _parts(self, ids: np.ndarray) -> Iterator[np.ndarray]:
        """Each part of the latest narrower reading that a comma ends too, alone, where it
        was not read as a sentence (rule 119): read after every reading of rules 102-117,
        never in their place, so that turning it on cannot lower the threat score."""
        if self.clauses is None or self.sentences is None:
            return
        latest = self._latest_narrower(ids)
        read = {sentence.tobytes() for sentence in self.sentences.alone(latest)}
        for part in self.clauses.alone(latest):
            if part.tobytes() not in read:
                yield part

    def _closing(self, ids: np.ndarray) -> Iterator[np.ndarray]:
        """The latest narrower reading without its closing words of address and hedges
        (and the laughs, emoticons and emoji among them, where those are read past), then
        without a final full stop they left last (rule 120): read after every other
        reading, never in place of one, so that turning it on cannot lower the threat
        score; none where it closes on none."""
        if self.closing is None:
            return
        out = self._past_stop_left_last(self.closing.without(self._latest_narrower(ids)))
        if out is not None:
            yield out

    def _line_readings(self, ids: np.ndarray, starts: Sequence[int]) -> Iterator[np.ndarray]:
        """Each line alone (rule 116), as written and then in its own further readings,
        after every reading of the whole message; none where it holds one line or the
        reading is off."""
        if self.lines is None:
            return
        for line in self.lines.alone(ids, starts):
            yield line
            yield from self._further(line)

    def _each_line(
        self,
        ids: np.ndarray,
        starts: Sequence[int],
        read: Callable[[np.ndarray], Iterator[np.ndarray]],
        on: bool,
    ) -> Iterator[np.ndarray]:
        """``read``'s readings of each line alone, after the whole message's: a comma's
        parts (rule 119) or the closing words (rule 120); none where that reading (``on``)
        or the lines' is off."""
        if self.lines is None or not on:
            return
        for line in self.lines.alone(ids, starts):
            yield from read(line)

    def apply(
        self,
        ids: np.ndarray,
        truncated: bool,
        row: np.ndarray,
        score: Callable[[np.ndarray], np.ndarray],
        lines: Sequence[int] = (),
    ) -> np.ndarray:
        """``row`` (the message's scores as written) with the highest threat score of its
        further readings where they apply, read until one reaches the threshold; ``score``
        scores token ids as one message; ``lines``: where each line after the first starts
        in ``ids`` (rule 116). None is made where the threat score as written is under the
        floor (rule 109). The threat score never falls, other scores never move."""
        first = row[self.column]
        if truncated or first >= self.threshold or first < self.readings.floor:
            return row  # cut to fit, its last token is not the message's end; or no need
        best = first
        readings = itertools.chain(
            self._further(ids),
            self._line_readings(ids, lines),
            self._parts(ids),
            self._each_line(ids, lines, self._parts, self.clauses is not None),
            self._closing(ids),
            self._each_line(ids, lines, self._closing, self.closing is not None),
        )
        for reading in readings:
            best = max(best, score(reading)[self.column])
            if best >= self.threshold:
                break
        if best <= first:
            return row
        out = row.copy()
        out[self.column] = best
        return out
