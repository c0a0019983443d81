"""Text to per-label scores: fast tokenizer plus one ONNX Runtime session.

A live message runs as a batch of one with no padding: its tensor is exactly as
long as its token count (dynamic shape), truncated to ``max_tokens``. The
session releases the GIL while it runs, so it may be called from a worker
thread while an asyncio loop keeps consuming and producing.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from moderation import metrics
from moderation.config import ClassifierSettings
from moderation.cpu import cpu_info, usable_cores
from moderation.errors import EmptyTextError, ModelLoadError
from moderation.hugepages import collapse_logged
from moderation.idioms import model_id as idioms_id
from moderation.normalize import (
    Normalizer,
    drops_leading_mentions,
    reads_upside_down,
    spaces_glued_symbols,
)
from moderation.screen import Screen, screen_id
from moderation.thread_choice import LengthTiming, limit_from, measure
from moderation.threat_reading import Readings, ThreatReading
from moderation.threat_reading import model_id as read_threat_id
from moderation.wordpiece import AsciiWordPiece

log = logging.getLogger(__name__)

MODEL_FILE = "model.onnx"
MANIFEST_FILE = "model.json"
TOKENIZER_FILE = "tokenizer.json"
# WordPiece never spends fewer than one character on a token and gives up on
# words over 100 characters, so a prefix this long always fills max_tokens
# unless the text is mostly whitespace; it bounds tokenizing 1 MB to microseconds.
CHARS_PER_TOKEN_BOUND = 64
# A long message is first read from a prefix this many characters per token long
# (English runs near 4.5): when that prefix alone overflows ``max_tokens``, its tokens
# are the whole message's, at a fraction of the cost (see ``Classifier._encode_prefix``).
PREFIX_CHARS_PER_TOKEN = 8
# How far back from the prefix length to look for a word boundary safe to cut at.
_CUT_SEARCH = 256
_CUT_SPACE = frozenset(" \t\n")
# What ends a line of a message (rule 116): the line breaks Python's str.splitlines knows
# but for the file, group and record separators, which no chat client writes.
_LINE_BREAK = re.compile("[\n\r\v\f\x85\u2028\u2029]+")
_SPECIAL_TOKENS = 2  # [CLS] ... [SEP]
_WARMUP_LENGTHS = (4, 16, 48)


@dataclass(frozen=True, slots=True)
class Encoded:
    """A tokenized message: int64 token ids with [CLS]/[SEP], whether text was cut, and
    where each of its lines after the first starts in ``ids`` (none: one line, or not
    looked for; the tokenizer reads a line break as a space, so the threat head's line
    reading needs them: docs/model.md, rule 116), and the token ids of the message without
    the sentences an idiom is read in (None: no idiom read, or no such rest; rule 122)."""

    ids: np.ndarray
    truncated: bool
    lines: tuple[int, ...] = ()
    rest: np.ndarray | None = None

    def key_bytes(self) -> bytes:
        """What tells this message's verdict apart from others': its token ids, where its
        lines start where it holds two or more ("a⏎b" and "a b" share ids, not verdicts),
        and its rest where it has one ("hit you up" is read "text you", and read apart from
        the rest of the message). A message of one line and no rest is keyed by its ids."""
        key = self.ids.astype("<i8", copy=False).tobytes()
        if self.lines:
            key += b"|lines|" + np.asarray(self.lines, dtype="<i8").tobytes()
        if self.rest is not None:
            key += b"|rest|" + self.rest.astype("<i8", copy=False).tobytes()
        return key

    @property
    def tokens(self) -> int:
        """Token count including the two special tokens."""
        return int(self.ids.shape[0])

    def feed(self) -> dict[str, np.ndarray]:
        """The session's inputs for this message alone: a batch of one, no padding."""
        ids = self.ids[None, :]
        return {"input_ids": ids, "attention_mask": np.ones_like(ids)}


@dataclass(frozen=True, slots=True)
class Classification:
    """Per-label scores in [0, 1] for one message, with what produced them."""

    scores: dict[str, float]
    tokens: int
    truncated: bool
    model_id: str


def read_id(base: str, labels: Sequence[str], settings: ClassifierSettings) -> str:
    """The id of the file ``base`` names as the classifier reads it under ``settings``:
    with the idioms' part (moderation/idioms.py), then the threat head's readings'
    (moderation/threat_reading.py); the screen's part follows once it is loaded. The
    replay names what it runs by this too, without loading the session."""
    base = idioms_id(base, settings.normalize, settings.read_idioms)
    return read_threat_id(base, labels, Readings.of(settings))


def sanitize(text: str) -> str:
    """Replace lone UTF-16 surrogates (invalid in UTF-8) with U+FFFD; pairs are joined."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def load_manifest(model_dir: Path) -> dict[str, Any]:
    """Read and check ``model.json`` beside the ONNX file."""
    path = model_dir / MANIFEST_FILE
    for required in (path, model_dir / MODEL_FILE, model_dir / TOKENIZER_FILE):
        if not required.is_file():
            raise ModelLoadError(f"model directory {model_dir} lacks {required.name}")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"{path}: unreadable manifest: {exc}") from exc
    if not isinstance(manifest, dict):
        raise ModelLoadError(f"{path}: the manifest is not a JSON object")
    for key in ("id", "labels", "thresholds"):
        if key not in manifest:
            raise ModelLoadError(f"{path}: manifest lacks {key!r}")
    return manifest


def session_threads(requested: int) -> int:
    """Intra-op threads: as requested, but never more than the cores we may use."""
    cores = usable_cores()
    if requested > cores:
        log.info(
            "asked for %d inference threads but this process may use %d cores; using %d "
            "(more threads than cores only adds contention)",
            requested,
            cores,
            cores,
        )
        return cores
    return max(1, requested)


# ORT fuses Add + LayerNormalization into SkipLayerNormalization at load; its CPU
# kernel took ~28 us per node for a 12-token message against ~4 us for the
# separate ops (docs/benchmarks.md).
DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


def make_session(
    path: Path,
    threads: int,
    spinning: bool,
    disabled_optimizers: tuple[str, ...] = DISABLED_OPTIMIZERS,
    spin_us: int = 0,
    spin_stop: bool = False,
) -> Any:
    """An ONNX Runtime CPU session tuned for batch-of-one latency.

    ``spin_us``: with ``spinning``, how long an idle intra-op thread spins before it
    sleeps (0: ONNX Runtime's own default). ``spin_stop``: with ``spinning``, the
    threads stop spinning as soon as a run returns (spinning between one op and the
    next, never between messages)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    so.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    if spinning and spin_us:
        so.add_session_config_entry("session.intra_op.spin_duration_us", str(spin_us))
    if spinning and spin_stop:
        so.add_session_config_entry("session.force_spinning_stop", "1")
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(
            str(path),
            so,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=list(disabled_optimizers),
        )
    except Exception as exc:  # ORT raises its own hierarchy; name the file
        raise ModelLoadError(f"{path}: ONNX Runtime cannot load it: {exc}") from exc


def _filler(tokens: int) -> Encoded:
    """A message of ``tokens`` ids for warming up and timing."""
    return Encoded(np.full((tokens,), 1000, dtype=np.int64), False)


def warm_up(run: Callable[[Encoded], object], max_tokens: int) -> None:
    """First runs allocate and pick kernels; pay for that at load, not on a message."""
    for n in (*_WARMUP_LENGTHS, max_tokens):
        run(_filler(min(n, max_tokens)))


def timed_one_thread_limit(one: Any, full: Any, max_tokens: int) -> tuple[int, list[LengthTiming]]:
    """Up to which length a one-thread session (``one``) runs a message no slower than
    the full one, timed here and now (moderation/thread_choice.py), and the timings."""

    def runner(session: Any) -> Callable[[int], object]:
        return lambda tokens: session.run(None, _filler(tokens).feed())

    warm_up(lambda e: one.run(None, e.feed()), max_tokens)
    timings = measure(runner(one), runner(full), max_tokens)
    return limit_from(timings), timings


class Classifier:
    """Loads the model once; ``classify`` turns one message into scores."""

    def __init__(self, settings: ClassifierSettings) -> None:
        from tokenizers import Tokenizer

        model_dir = settings.model_dir
        self.manifest = load_manifest(model_dir)
        self.model_id: str = self.manifest["id"]
        self.labels: tuple[str, ...] = tuple(self.manifest["labels"])
        self.max_tokens = settings.max_tokens
        self._model_file = model_dir / MODEL_FILE
        self.threads = session_threads(settings.threads)
        self._max_chars = self.max_tokens * CHARS_PER_TOKEN_BOUND
        self._prefix_chars = self.max_tokens * PREFIX_CHARS_PER_TOKEN
        self._softmax = self.manifest.get("problem_type") == "single_label_classification"
        try:
            tokenizer_json = (model_dir / TOKENIZER_FILE).read_text(encoding="utf-8")
            self._tokenizer = Tokenizer.from_str(tokenizer_json)
        except Exception as exc:
            raise ModelLoadError(f"{model_dir}: tokenizer.json unreadable: {exc}") from exc
        # Printable-ASCII text read in Python, id for id the library's (moderation/
        # wordpiece.py); None when off or when the file's pipeline is not BERT's.
        self._wordpiece = (
            AsciiWordPiece.from_config(json.loads(tokenizer_json), self.max_tokens)
            if settings.ascii_wordpiece
            else None
        )
        # Evasive spellings undone before tokenizing (moderation/normalize.py).
        self._normalize = (
            Normalizer(
                frozenset(self._tokenizer.get_vocab()),
                leading_mentions=drops_leading_mentions(self.manifest),
                glued_symbols=spaces_glued_symbols(self.manifest),
                idioms=settings.read_idioms,
            )
            if settings.normalize
            else None
        )
        # No padding ever: a batch of one is as long as its message.
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_tokens)
        self._session = make_session(
            model_dir / MODEL_FILE, self.threads, settings.spinning, spin_us=settings.spin_us
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._input_names:
            raise ModelLoadError(f"{model_dir}: model inputs {self._input_names} are not BERT's")
        self._output = self._session.get_outputs()[0].name
        # A smaller model in front (moderation/screen.py): its sessions mirror ours.
        self._screen: Screen | None = None
        self._screen_session: Any = None
        self._screen_one_thread: Any = None
        self._thresholds = np.array(
            [
                float(settings.thresholds.get(label, self.manifest["thresholds"][label]))
                for label in self.labels
            ]
        )
        # The threat head's further readings, past a final full stop, mentions, chat words,
        # emoji and final marks, each sentence and each line alone, each part a comma ends,
        # and closing words (moderation/threat_reading.py, rules 102-120); the id says
        # which, before the screen's part of it.
        readings = Readings.of(settings)
        self._threat_reading = ThreatReading.for_model(
            self.labels,
            self._thresholds,
            self.vocabulary(),
            readings,
            lambda word: self._token_ids(word)[0][1:-1].tolist(),
        )
        self.model_id = read_id(self.model_id, self.labels, settings)
        if settings.screen_dir is not None:
            self._load_screen(settings.screen_dir, settings.screen_ratio, settings.spinning)
        # Messages up to this many tokens run on a one-thread session of their own
        # (moderation/thread_choice.py); 0: every message on the full session.
        self.one_thread_up_to = 0
        self._one_thread_session: Any = None
        # The same for the screen's file, chosen for it alone.
        self.screen_one_thread_up_to = 0
        self._warm_up()
        one = self._one_thread_candidate(settings.one_thread_up_to)
        # Once every session holds its weights, and before any timing reads them.
        self.huge_pages = collapse_logged() if settings.huge_pages else None
        if one is not None:
            self._choose_one_thread(one, settings.one_thread_up_to)
        log.info(
            "model %s loaded: %d labels, %d threads%s%s, max %d tokens, spinning %s, "
            "ASCII tokenized %s, idioms read: %s, threat read past a final full stop: %s, "
            "past opening mentions: %s, past other mentions: %s, past chat words: %s, "
            "past emoji: %s, past final marks: %s, each sentence alone: %s (beside asides "
            "of up to %d words; an emoji ends one: %s, a comma: %s), each line alone: %s, "
            "past closing words: %s, none under %g",
            self.model_id,
            len(self.labels),
            self.threads,
            f" (one for messages up to {self.one_thread_up_to} tokens)"
            if self.one_thread_up_to
            else "",
            f" (the screen: one up to {self.screen_one_thread_up_to} tokens)"
            if self.screen_one_thread_up_to
            else "",
            self.max_tokens,
            settings.spinning,
            "in Python" if self._wordpiece is not None else "by the library",
            "yes" if self.reads_idioms else "no",
            "yes" if self.threat_past_full_stop else "no",
            "yes" if self.threat_past_mentions else "no",
            "yes" if self.threat_past_inner_mentions else "no",
            "yes" if self.threat_past_chat_words else "no",
            "yes" if self.threat_past_emoji else "no",
            "yes" if self.threat_past_final_marks else "no",
            "yes" if self.threat_sentences_alone else "no",
            self.threat_sentence_aside_words,
            "yes" if self.threat_sentences_past_emoji else "no",
            "yes" if self.threat_sentences_past_commas else "no",
            "yes" if self.threat_lines_alone else "no",
            "yes" if self.threat_past_closing_words else "no",
            self.threat_reading_floor,
        )

    def _one_thread_candidate(self, configured: int | None) -> Any:
        """A one-thread session beside the full one, or None where none is wanted: one
        thread in all, ``configured`` 0, or to be timed (None) on an emulated CPU."""
        if self.threads == 1 or configured == 0:
            return None
        if configured is None and cpu_info().emulated:
            # Under qemu or the CPUID mask the timings are not this CPU's, and under qemu
            # they would take a minute: every message on the full session.
            log.info(
                "CPU emulated: one-thread session not timed, every message on %d", self.threads
            )
            return None
        return make_session(self._model_file, 1, spinning=False)

    def _choose_one_thread(self, one: Any, configured: int | None) -> None:
        """Set up to which length the one-thread session ``one`` runs messages, and the
        same for the screen's file, chosen for it alone: it has fewer blocks, so one
        thread can win for it up to another length (on the Zen 4 EPYC one thread ran the
        screen faster up to 24-32 tokens in both regimes while the model's pick wandered
        between none and 16: docs/benchmarks.md). Configured, both take that length."""
        limit = self._one_thread_limit(one, self._session, configured, "model")
        if limit:
            self._one_thread_session = one
            self.one_thread_up_to = limit
        if self._screen is not None:
            screen_one = make_session(self._screen.model_file, 1, spinning=False)
            limit = self._one_thread_limit(screen_one, self._screen_session, configured, "screen")
            if limit:
                self._screen_one_thread = screen_one
                self.screen_one_thread_up_to = limit

    def _one_thread_limit(self, one: Any, full: Any, configured: int | None, what: str) -> int:
        """Up to which length the one-thread session ``one`` should run messages instead
        of ``full`` (of the same file): as configured, or (None) the longest length at
        which it was no slower when timed here and now (logged)."""
        if configured is None:
            limit, timings = timed_one_thread_limit(one, full, self.max_tokens)
            log.info(
                "%s: one inference thread against %d, timed at load: %s",
                what,
                self.threads,
                "; ".join(t.describe() for t in timings),
            )
            return limit
        warm_up(lambda e: one.run(None, e.feed()), self.max_tokens)
        return min(configured, self.max_tokens)

    def _load_screen(self, screen_dir: Path, ratio: float, spinning: bool) -> None:
        """Load the screen (moderation/screen.py) after checking it reads text, token
        ids and scores as this model does; the pair takes an id of its own."""
        from tokenizers import Tokenizer

        manifest = load_manifest(screen_dir)
        screen = Screen(screen_dir, manifest, ratio, MODEL_FILE)
        try:
            vocab = Tokenizer.from_file(str(screen_dir / TOKENIZER_FILE)).get_vocab()
        except Exception as exc:
            raise ModelLoadError(f"{screen_dir}: tokenizer.json unreadable: {exc}") from exc
        screen.check_fits(self.labels, self.manifest, self.vocabulary(), vocab)
        self._screen_session = make_session(screen.model_file, self.threads, spinning)
        warm_up(lambda e: self._screen_session.run(None, e.feed()), self.max_tokens)
        self._screen = screen
        self.model_id = screen_id(self.model_id, screen.model_id, screen.ratio)
        log.info(
            "screen %s in front: a message every head of which it scores below %g of its "
            "threshold is allowed without the model",
            screen.model_id,
            screen.ratio,
        )

    @property
    def screen(self) -> Screen | None:
        """The smaller model in front of this one, if any."""
        return self._screen

    def _warm_up(self, scores: Callable[[Encoded], np.ndarray] | None = None) -> None:
        """First runs allocate and pick kernels; pay for that at load, not on a message.
        By default the model's own session, screen or no screen."""
        warm_up(scores or (lambda e: self._infer(e.feed())), self.max_tokens)

    def encode(self, text: str, *, from_prefix: bool = True, python_ascii: bool = True) -> Encoded:
        """Tokenize once: ids for the model (and, later, for the cache key).

        ``from_prefix=False`` reads a long message whole even where a prefix would give
        the same tokens (for the benchmark and the test that compare the two).
        ``python_ascii=False`` tokenizes ASCII text with the library too, as when
        ``ascii_wordpiece`` is off (for the benchmark that compares the two).

        Raises EmptyTextError when nothing but whitespace, control or zero-width
        characters is left after normalisation.
        """
        cut = len(text) > self._max_chars
        if cut:
            text = text[: self._max_chars]
        text = sanitize(text)
        quick = self._encode_prefix(text, python_ascii) if from_prefix else None
        if quick is not None:
            return quick
        rest_text = None
        if self._normalize is not None:
            text, rest_text = self._normalize.with_rest(text)
        ids, overflowing = self._token_ids(text, python_ascii)
        if ids.shape[0] <= _SPECIAL_TOKENS:
            raise EmptyTextError(
                "text is empty or holds only whitespace, control or zero-width characters"
            )
        truncated = cut or overflowing
        if truncated:
            return Encoded(ids, True)
        rest = self._rest_ids(rest_text, python_ascii) if rest_text else None
        lines = (
            self._line_starts(text, ids, python_ascii)
            if self.threat_lines_alone and _LINE_BREAK.search(text)
            else ()
        )
        return Encoded(ids, False, lines, rest)

    def _rest_ids(self, rest: str, python_ascii: bool) -> np.ndarray | None:
        """The token ids of a message's rest (rule 122), where it has a token and fits."""
        ids, overflowing = self._token_ids(rest, python_ascii)
        return None if overflowing or ids.shape[0] <= _SPECIAL_TOKENS else ids

    def _line_starts(self, text: str, ids: np.ndarray, python_ascii: bool) -> tuple[int, ...]:
        """Where each line of ``text`` (normalized) after the first starts in its token ids
        ``ids``: each line tokenized alone, kept only where the lines' tokens put together
        are the message's; none where it holds fewer than two lines with a token."""
        starts: list[int] = []
        parts: list[np.ndarray] = []
        at = 1  # after [CLS]
        for line in _LINE_BREAK.split(text):
            tokens = self._token_ids(line, python_ascii)[0][1:-1] if line.strip() else None
            if tokens is None or not tokens.size:
                continue
            starts.append(at)
            parts.append(tokens)
            at += int(tokens.size)
        if len(starts) < 2 or at != ids.shape[0] - 1:
            return ()
        if not np.array_equal(np.concatenate(parts), ids[1:-1]):
            return ()
        return tuple(starts[1:])

    @property
    def ascii_wordpiece(self) -> bool:
        """Whether printable-ASCII text is tokenized by moderation/wordpiece.py."""
        return self._wordpiece is not None

    def _token_ids(self, text: str, python_ascii: bool = True) -> tuple[np.ndarray, bool]:
        """``[CLS]`` + ids + ``[SEP]`` (at most ``max_tokens``), and whether the text
        was cut to fit: in Python for printable ASCII, else by the library."""
        wordpiece = self._wordpiece if python_ascii else None
        quick = wordpiece.encode(text) if wordpiece is not None else None
        if quick is not None:
            return np.array(quick[0], dtype=np.int64), quick[1]
        enc = self._tokenizer.encode(text)
        return np.asarray(enc.ids, dtype=np.int64), bool(enc.overflowing)

    def _encode_prefix(self, text: str, python_ascii: bool = True) -> Encoded | None:
        """The whole message's encoding, read from a prefix; None when unsure.

        A long paste costs milliseconds to normalize and tokenize whole, only for all
        but its first ``max_tokens`` tokens to be dropped. The prefix ends at a space
        between two ASCII letters or digits on its left: no pass of the normalizer
        joins across such a space (spelled-out letters are single characters), but for
        a word cut in two by a space, whose pieces are never cut apart (rule 95); none
        of the tokenizer's does, and NFKC leaves ASCII alone, so every token before
        the cut is the whole message's. If the prefix still overflows, the truncated
        tokens are the same as the whole message's (``tests/model/test_classifier.py``
        compares the two on long and adversarial texts). A message with a turned
        character is read whole: text turned upside down is read backwards (rule 91).
        """
        limit = self._prefix_chars
        if len(text) <= limit:
            return None
        if self._normalize is not None and reads_upside_down(text):
            return None  # read backwards, the message's end opens it (rule 91)
        for end in range(limit, max(2, limit - _CUT_SEARCH), -1):
            if (
                text[end] in _CUT_SPACE
                and text[end - 1].isascii()
                and text[end - 1].isalnum()
                and text[end - 2].isascii()
                and text[end - 2].isalnum()
                and not (self._normalize is not None and self._normalize.joins_across(text, end))
            ):
                break
        else:
            return None
        prefix = text[:end]
        if self._normalize is not None:
            prefix = self._normalize(prefix, whole=text)
        ids, overflowing = self._token_ids(prefix, python_ascii)
        if not overflowing:
            return None
        return Encoded(ids, True)

    def _activate(self, logits: np.ndarray) -> np.ndarray:
        if self._softmax:
            z = np.exp(logits - logits.max(axis=-1, keepdims=True))
            return np.asarray(z / z.sum(axis=-1, keepdims=True))
        return np.asarray(1.0 / (1.0 + np.exp(-logits)))

    def _infer(self, feed: dict[str, np.ndarray], session: Any = None) -> np.ndarray:
        """One session run on (batch, tokens) inputs; a score row per message.
        ``session``: another session of this model (``second_session``); default ours."""
        logits: np.ndarray = (session or self._session).run([self._output], feed)[0]
        return self._activate(logits)

    def vocabulary(self) -> dict[str, int]:
        """Token -> id: two models with the same read the same token ids alike."""
        vocab: dict[str, int] = self._tokenizer.get_vocab()
        return vocab

    def _read(
        self, feed: dict[str, np.ndarray], screen: Any, model: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """Score rows for a batch: with a screen (run on the ``screen`` session), its
        carried rows where it allows a message alone and the model's (``model``; None:
        ours) for the rest, which are run as a smaller batch; without, the model's. With
        them, which rows the screen answered alone."""
        if self._screen is None:
            rows = self._infer(feed, model)
            return rows, np.zeros(rows.shape[0], dtype=bool)
        first = self._infer(feed, screen)
        allowed = [self._screen.allowed_row(row, self._thresholds) for row in first]
        alone = np.array([row is not None for row in allowed])
        out = np.empty_like(first)
        for i, row in enumerate(allowed):
            if row is not None:
                out[i] = row
        todo = np.flatnonzero(~alone)
        if todo.size:
            out[todo] = self._infer({k: v[todo] for k, v in feed.items()}, model)
        return out, alone

    def scores(self, encoded: Encoded, *, second_reading: bool = True) -> np.ndarray:
        """Scores for one message: a (1, tokens) tensor, no padding; on one thread when
        it is short enough (``one_thread_up_to``). Both sessions run the same graph with
        the same kernels, so the scores do not depend on which one ran. With a screen,
        the screen reads it first and may answer alone (moderation/screen.py), on one
        thread up to its own length (``screen_one_thread_up_to``).

        ``second_reading=False`` reads it as written even where the threat head would
        read it again (rules 102-120; for the benchmark that compares the two).
        """
        row, alone = self._scores_ids(encoded.ids)
        if not second_reading:
            return self._counted(row, alone)
        return self._message(encoded, row, alone, self._scores_ids)

    def _scores_ids(self, ids: np.ndarray) -> tuple[np.ndarray, bool]:
        """``scores`` of one message's token ids as written, and whether the screen
        answered them alone."""
        n = int(ids.shape[0])
        screen = (
            self._screen_one_thread if n <= self.screen_one_thread_up_to else self._screen_session
        )
        model = self._one_thread_session if n <= self.one_thread_up_to else None
        return self._read_one(ids, screen, model)

    def _read_one(self, ids: np.ndarray, screen: Any, model: Any) -> tuple[np.ndarray, bool]:
        """``_read`` of one message's token ids: its row, and whether the screen answered
        it alone."""
        rows, alone = self._read(Encoded(ids, False).feed(), screen, model)
        return rows[0], bool(alone[0])

    @staticmethod
    def _counted(row: np.ndarray, alone: bool) -> np.ndarray:
        """``row``, a message's; counted as screened where the screen answered it alone."""
        if alone:
            metrics.SCREENED.inc()
        return row

    def _message(
        self,
        encoded: Encoded,
        row: np.ndarray,
        alone: bool,
        read: Callable[[np.ndarray], tuple[np.ndarray, bool]],
    ) -> np.ndarray:
        """A message's scores from its first reading (``row``; ``alone``: the screen's
        alone), with the threat head's further readings where they apply (``read`` scores
        one reading's ids), and where it has a rest (rule 122) each head's higher score of
        the message and its rest, each read so; counted as screened only where the screen
        answered every reading of it alone, so a message counts once however often it is
        read."""
        out, model_read = self._further(encoded, row, alone, read)
        if encoded.rest is not None:
            rest_row, rest_alone = read(encoded.rest)
            rest_out, rest_model_read = self._further(
                Encoded(encoded.rest, False), rest_row, rest_alone, read
            )
            out = np.maximum(out, rest_out)
            model_read |= rest_model_read
        return self._counted(out, not model_read)

    def _further(
        self,
        encoded: Encoded,
        row: np.ndarray,
        alone: bool,
        read: Callable[[np.ndarray], tuple[np.ndarray, bool]],
    ) -> tuple[np.ndarray, bool]:
        """``_message``'s scores of one reading with the threat head's further readings,
        and whether the model (not the screen alone) read any of it."""
        if self._threat_reading is None:
            return row, not alone
        model_read = not alone

        def further(ids: np.ndarray) -> np.ndarray:
            nonlocal model_read
            out, by_screen = read(ids)
            model_read |= not by_screen
            return out

        out = self._threat_reading.apply(
            encoded.ids, encoded.truncated, row, further, encoded.lines
        )
        return out, model_read

    @property
    def reads_idioms(self) -> bool:
        """Whether chat's idioms of violent words are read as what they mean (rule 121)."""
        return self._normalize is not None and self._normalize.idioms

    @property
    def normalizer(self) -> Normalizer | None:
        """The passes text goes through before tokenizing; None with ``normalize`` off."""
        return self._normalize

    @property
    def threat_reads_further(self) -> bool:
        """Whether the threat head reads any message more than once (rules 102-120)."""
        return self._threat_reading is not None

    @property
    def threat_past_full_stop(self) -> bool:
        """Whether the threat head reads a message past its final full stop (rule 102)."""
        return self._threat_reading is not None and self._threat_reading.stop_id is not None

    @property
    def _readings(self) -> Readings:
        """The readings in force: none (every switch off, no floor) where the model reads
        no message again."""
        return Readings() if self._threat_reading is None else self._threat_reading.readings

    @property
    def threat_past_mentions(self) -> bool:
        """Whether the threat head reads a message past its opening mentions (rule 103)."""
        return self._readings.mentions

    @property
    def threat_past_inner_mentions(self) -> bool:
        """Whether the threat head reads a message past its other mentions (rule 104)."""
        return self._readings.inner_mentions

    @property
    def threat_past_chat_words(self) -> bool:
        """Whether the threat head reads past chat's greetings and laughs (rules 106-108)."""
        return self._readings.chat_words

    @property
    def threat_past_emoji(self) -> bool:
        """Whether the threat head reads past emoji and emoticons at the edges (rule 111)."""
        return self._readings.emoji

    @property
    def threat_past_final_marks(self) -> bool:
        """Whether the threat head reads past a final "!" run or ellipsis (rule 113)."""
        return self._readings.final_marks

    @property
    def threat_sentences_alone(self) -> bool:
        """Whether the threat head reads each sentence of a message alone (rule 114)."""
        return self._readings.sentences

    @property
    def threat_sentence_aside_words(self) -> int:
        """How many words each other sentence may hold where a sentence is read alone (rule
        115; 0: any)."""
        return self._readings.aside_words

    @property
    def threat_lines_alone(self) -> bool:
        """Whether the threat head reads each line of a message alone (rule 116)."""
        return self._readings.lines

    @property
    def threat_sentences_past_emoji(self) -> bool:
        """Whether an emoji between words ends a sentence the threat head reads alone
        (rule 117)."""
        return self._readings.sentences and self._readings.sentence_emoji

    @property
    def threat_sentences_past_commas(self) -> bool:
        """Whether the threat head reads each part a comma ends alone, after its other
        readings (rules 118-119)."""
        return self._readings.sentences and self._readings.sentence_commas

    @property
    def threat_past_closing_words(self) -> bool:
        """Whether the threat head reads a message past its closing words of address and
        hedges, after its other readings (rule 120)."""
        return self._readings.closing_words

    @property
    def threat_reading_floor(self) -> float:
        """The first threat score under which no further reading is made (rules 109-110)."""
        return self._readings.floor

    def second_session(self, threads: int) -> Callable[[Encoded], np.ndarray]:
        """``scores`` on a session of its own (and a screen session of its own, with a
        screen): the same model file, ``threads`` intra-op threads of its own, no
        spinning, warmed up. A second inference lane runs it beside the first without
        sharing (or waiting on) the first one's thread pool."""
        session = make_session(self._model_file, threads, spinning=False)
        screen = None
        if self._screen is not None:
            screen = make_session(self._screen.model_file, threads, spinning=False)
            warm_up(lambda e: screen.run(None, e.feed()), self.max_tokens)

        def scores_ids(ids: np.ndarray) -> tuple[np.ndarray, bool]:
            return self._read_one(ids, screen, session)

        def scores(encoded: Encoded) -> np.ndarray:
            return self._message(encoded, *scores_ids(encoded.ids), scores_ids)

        self._warm_up(lambda e: self._infer(e.feed(), session)[0])
        if self.huge_pages is not None:
            collapse_logged()
        return scores

    def scores_same_length(self, batch: Sequence[Encoded]) -> np.ndarray:
        """Scores for messages of equal token count, stacked without any padding."""
        ids = np.stack([e.ids for e in batch])
        rows, alone = self._read(
            {"input_ids": ids, "attention_mask": np.ones_like(ids)}, self._screen_session, None
        )
        return self._past_rows(batch, rows, alone)

    def _past_rows(
        self, batch: Sequence[Encoded], rows: np.ndarray, alone: np.ndarray
    ) -> np.ndarray:
        """A batch's rows, each with its message's threat further readings where they
        apply; those are the message's own, as ``scores`` reads them."""
        for i, encoded in enumerate(batch):
            rows[i] = self._message(encoded, rows[i], bool(alone[i]), self._scores_ids)
        return rows

    def scores_padded(self, batch: Sequence[Encoded]) -> np.ndarray:
        """Scores for messages of any lengths, padded to the longest (throughput mode)."""
        width = max(e.tokens for e in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, e in enumerate(batch):
            ids[row, : e.tokens] = e.ids
            mask[row, : e.tokens] = 1
        rows, alone = self._read(
            {"input_ids": ids, "attention_mask": mask}, self._screen_session, None
        )
        return self._past_rows(batch, rows, alone)

    def label_scores(self, row: np.ndarray) -> dict[str, float]:
        """A score row as a label-to-float mapping."""
        return {label: float(v) for label, v in zip(self.labels, row, strict=True)}

    def classify(self, text: str) -> Classification:
        """Tokenize and score one message."""
        encoded = self.encode(text)
        return Classification(
            self.label_scores(self.scores(encoded)),
            encoded.tokens,
            encoded.truncated,
            self.model_id,
        )
