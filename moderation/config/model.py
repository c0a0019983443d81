"""How the model is loaded and run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from moderation.config.source import PREFIX, Source
from moderation.errors import ConfigError

DEFAULT_MODEL_NAME = "moderation-minilm-int8"
# A four-block student in front of the model (moderation/screen.py, docs/model.md rule
# 56), and the share of its own thresholds below which it answers alone (chosen on the
# validation splits: rule 56's choice).
DEFAULT_SCREEN_NAME = "moderation-minilm-int8-screen"
DEFAULT_SCREEN_RATIO = 0.1
# The CPU kinds on which the screen was scored and held rule 56 (docs/model.md; AVX2
# by rule 65, with AVX2's kernels on an AVX-512 CPU): on by default there; elsewhere
# the model alone until scored there.
SCREENED_KINDS: tuple[str, ...] = ("avx512-vnni", "avx2")
# The mission's figure: one process, four intra-op threads (clamped to the cores we have).
DEFAULT_THREADS = 4
# Chat messages are short; 128 tokens keeps a long paste's cost bounded.
DEFAULT_MAX_TOKENS = 128


def default_model_dir(name: str = DEFAULT_MODEL_NAME) -> Path:
    """A shipped int8 model: inside an installed package (``moderation/models``), or
    under ``models/`` beside the package in a checkout (and an editable install)."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "models" / name
    if installed.is_dir():
        return installed
    return package.parent / "models" / name


# The threat head's readings past what its training threats never hold
# (moderation/threat_reading.py), by their settings' names; the model info metric
# exports each.
THREAT_READING_SETTINGS = (
    "threat_past_full_stop",
    "threat_past_mentions",
    "threat_past_inner_mentions",
    "threat_past_chat_words",
    "threat_past_emoji",
    "threat_past_final_marks",
    "threat_sentences_alone",
    "threat_sentence_aside_words",
    "threat_lines_alone",
    "threat_sentences_past_emoji",
    "threat_sentences_past_commas",
    "threat_past_closing_words",
    "threat_reading_floor",
)
# The first threat score under which no further reading is made (docs/model.md, rules
# 109-110): a third of the lowest first score among the validation splits' crossings,
# for the shipped model; 0 reads every message the readings apply to.
DEFAULT_THREAT_READING_FLOOR = 0.0001
# A sentence is read alone by the threat head only where each other sentence of the
# message holds at most this many words (docs/model.md, rule 115: the longest aside rule
# 114's premise named, "good luck on the test"); 0: beside any sentence (rule 114).
DEFAULT_THREAT_SENTENCE_ASIDE_WORDS = 5


class ReadingSwitches(Protocol):
    """What says which of the threat head's readings are on, and under which first
    score none is made: the settings, or a classifier."""

    @property
    def threat_past_full_stop(self) -> bool: ...

    @property
    def threat_past_mentions(self) -> bool: ...

    @property
    def threat_past_inner_mentions(self) -> bool: ...

    @property
    def threat_past_chat_words(self) -> bool: ...

    @property
    def threat_past_emoji(self) -> bool: ...

    @property
    def threat_past_final_marks(self) -> bool: ...

    @property
    def threat_sentences_alone(self) -> bool: ...

    @property
    def threat_sentence_aside_words(self) -> int: ...

    @property
    def threat_lines_alone(self) -> bool: ...

    @property
    def threat_sentences_past_emoji(self) -> bool: ...

    @property
    def threat_sentences_past_commas(self) -> bool: ...

    @property
    def threat_past_closing_words(self) -> bool: ...

    @property
    def threat_reading_floor(self) -> float: ...


@dataclass(frozen=True, slots=True)
class ClassifierSettings:
    """How the model is loaded and run."""

    model_dir: Path = field(default_factory=default_model_dir)
    threads: int = DEFAULT_THREADS
    max_tokens: int = DEFAULT_MAX_TOKENS
    # Off, by measurement: spinning intra-op threads make the model alone ~0.2 ms
    # faster, but inside the worker they take the cores the event loop, the client
    # and the broker need; in every `moderation bench e2e` run, p99 at 100 and 200
    # msg/s was lower with spinning off (docs/benchmarks.md).
    spinning: bool = False
    # With spinning: how long (microseconds) an idle intra-op thread spins before it
    # sleeps; 0 leaves ONNX Runtime's default.
    spin_us: int = 0
    # Messages up to this many tokens run on one intra-op thread, longer ones on all
    # ``threads``; None: the longest length at which one thread was no slower, timed on
    # this machine at load (moderation/thread_choice.py); 0: all on ``threads``.
    one_thread_up_to: int | None = None
    # Move the sessions' weights onto 2 MB pages once loaded (moderation/hugepages.py).
    # Off, by measurement: on the AMX Xeon 1.02-1.07x at p50, 1.05-1.10x after a pause,
    # but chat p99 longer in two runs of three (`moderation bench hugepages`).
    huge_pages: bool = False
    # Label -> threshold overrides; labels left out keep the model card's value.
    thresholds: Mapping[str, float] = field(default_factory=dict)
    # Undo evasive spellings (look-alike letters, leetspeak, spaced-out letters,
    # stretched vowels) before tokenizing: moderation/normalize.py.
    normalize: bool = True
    # With ``normalize``: chat's idioms of violent words ("i'll hit you up later", "i'll
    # shoot you a text", "break a leg") read as what they mean, and a message holding one
    # read without its sentence too, each head taking the higher score (moderation/idioms.py;
    # docs/model.md, rules 121-125, which it passed: on six frames of a suite line beside an
    # idiom, benign lines nudged 6,124 -> 1,590 in the pair, threats lost 64 -> 40; chitchat
    # train 7 -> 0 of the 37 utterances it changes; 4.7% of the normalizer's time). Rules
    # 126-128 read more idioms ("knock yourself out", "you're a lifesaver"): on six fresh
    # frames 4,889 -> 1,248 and 193 -> 50 in the pair; 5.3% of the normalizer's time.
    # Rules 129-130 read slogans of support where one is the whole message ("black lives
    # matter", "trans women are women"): 27 -> 10 of 40 such lines nudged, no suite,
    # validation or chitchat line changed, the pair's chat p50 1.005x. Rules 131-132 read
    # threats said without a violent word where one ends the message ("i know where you
    # live" -> "i will come to your house and hurt you"): 9 -> 31 of 40 such threats
    # nudged in the pair, 7 -> 7 of 40 benign twins; no validation or chitchat line
    # changed; 0.74 us a message, 0.07% of the pair's p50. Rules 133-134 read direct
    # threats whose verb the model reads as harmless ("i'll beat you up", "i'll hang you",
    # "i'll hurt you"): 21 -> 38 of 40 nudged, benign twins 1 -> 1; 0.13 us a message.
    # Rules 135-136 read rule 131's threats before closing mentions too. Rules 137-138 read
    # "jump" / "rough up" after a will-form, and threats of pursuit and reprisal where one
    # ends the message ("i'll find you", "keep talking and see what happens"): 5 -> 34 of 40
    # nudged, benign twins 3 -> 3; 0.34 us a message. Rules 139-140 read threats of being
    # caught or of reprisal by others' hands ("don't let me catch you alone", "you messed with
    # the wrong person"): 7 -> 26 of 40 nudged, benign twins 2 -> 2; 0.23 us a message.
    # Rule 141 reads death wishes said softly ("please die", "go play in traffic") and "lay
    # out", "put hands on", "deck": 11 -> 29 of 40 nudged, benign twins 1 -> 1; 0.16 us.
    # Rule 142 reads warnings of an attack on a school or workplace ("i'm bringing a knife to
    # school", "don't come to school tomorrow"): 3 -> 30 of 40, benign twins 0 -> 1; 0.14 us.
    # Rule 143 reads praise of a group said whole as support ("gay people are awesome",
    # "lesbians are valid", "protect trans kids"): 11 -> 2 of 40 nudged, hate 35 -> 35;
    # 0.41 us. Rule 144 reads death and harm wished on a group with "deserve" ("muslims
    # deserve to die", "refugees belong in camps") as "all {group} should die" where the
    # group begins a sentence: 24 -> 38 of 40 nudged, benign twins 7 -> 7; nothing measurable.
    # Rule 145 reads hate said of a group behind a hedge of opinion ("i think muslims are
    # terrorists") without the hedge: 21 -> 33 of 40 nudged, benign twins 9 -> 9; 0.30 us.
    # Rule 146 reads a group's humanity denied ("black people are not people", "black lives
    # don't matter") as "{group} are subhuman": 17 -> 36 of 40, benign twins 11 -> 11; 0.15 us.
    # Rule 147 reads harm and hate denied to a group ("trans people don't deserve to die",
    # "jews are not greedy") as "we stand with {group}": 25 -> 6 of 40 defences nudged,
    # hateful twins 35 -> 36; 0.08 us.
    # Rule 149 reads hate quoted or reported to reject it ('"muslims are violent" is a lie',
    # "being gay is not a sin") with the hate put as "that", where its sentence ends the
    # message: 15 -> 6 of 40 nudged, hateful twins 21 -> 21; 0.07 us.
    # Rule 150 reads veiled threats that end the message ("don't make me hurt you", "count
    # your days", "you're not safe anywhere"): 15 -> 35 of 40, benign twins 4 -> 4; 0.13 us.
    # Rule 151 reads distrust and exclusion of a group ("i don't trust jews", "i'd never hire
    # a muslim", "no muslims allowed") as "i hate {group}": 18 -> 36 of 40, twins 2 -> 2.
    # Rule 153 reads threats of reprisal said bare or by others' hands where one ends the
    # message ("i'll make you pay", "my brother will deal with you", "someone should teach
    # you a lesson"; not a bare "you'll pay"): 2 -> 19 of 40, twins 0 -> 0; 0.29 us.
    # Rule 155 reads a defence turned into hate in the next sentence ("jews don't deserve
    # hate. they deserve to die.") as the hate: 23 -> 37 of 40, twins 3 -> 3; 0.05 us.
    # Rule 156 writes support and defences the table reads without the mentions their
    # sentence opens with ("@kim gay people are awesome"): 10 -> 2 of 40, hate 37 -> 37.
    # Rule 157 reads hate condemned ("homophobia is disgusting", "i hate racists") as a
    # stand against it where its sentence ends the message: 28 -> 6 of 40, hate 32 -> 32.
    read_idioms: bool = True
    # Tokenize printable-ASCII text with moderation/wordpiece.py (the same ids as the
    # tokenizers library, 1.08x per chat message on the AMX Xeon); other text, and all
    # text when off, through the library.
    ascii_wordpiece: bool = True
    # The threat head reads a message past its final full stop: a second reading without
    # it where the first is under the threat threshold (moderation/threat_reading.py; rule 102
    # in docs/model.md, which it passed: threats' full-stop flips 29 -> 14 on the suite,
    # nothing as written moved, chat p50 1.06x on the AMX Xeon).
    threat_past_full_stop: bool = True
    # The same second reading also leaves out the mentions a message opens with ("@sam
    # ..."; rule 103 in docs/model.md, which it passed: threats flipped by an opening
    # mention 66 -> 16, nothing as written moved, 3 more of 865 TweetEval negatives nudged).
    threat_past_mentions: bool = True
    # ... and every other mention in it ("hey @sam ...", "... @sam"; rules 104-105 in
    # docs/model.md: threats flipped by a mention on five fresh frames 25-68 -> 3-15,
    # nothing as written lost, no validation line moved).
    threat_past_inner_mentions: bool = True
    # ... and, in a third reading of their own, chat's opening words and closing laughs
    # ("hey ...", "... lol"; rules 106-108 in docs/model.md: threats a chat word let
    # through on seventeen frames 7-99 -> 1-14, no line lost, chat p50 1.04x).
    threat_past_chat_words: bool = True
    # ... and, in a fourth reading of their own, the emoji and emoticons at its edges
    # ("... 😂", "... :)"; rules 111-112 in docs/model.md, which it passed: threats lost to
    # twelve emoji frames 601 -> 169, no line lost, one validation negative more nudged;
    # bench chat p50 0.995x).
    threat_past_emoji: bool = True
    # ... and, in a fifth, a final run of exclamation marks or an ellipsis ("...!!",
    # "..."; rule 113 in docs/model.md, which it passed: threats lost to ten such frames
    # 403 -> 122, no line lost, no validation line moved; bench chat p50 0.996x).
    threat_past_final_marks: bool = True
    # ... and each sentence of a message alone, where it holds two or more ("nice game
    # everyone. go hang yourself"), beside asides of at most the words below (rules 114-115
    # in docs/model.md; beside any sentence it failed rule 114, four Davidson negatives
    # more nudged of 400; beside asides it passed rule 115: threats lost to ten such frames
    # 608 -> 143, no suite, validation or benign-chat line moved; bench chat p50 0.986x).
    threat_sentences_alone: bool = True
    # ... and then only beside asides of at most this many words (rule 115; 0: beside any
    # sentence, as rule 114 scored it).
    threat_sentence_aside_words: int = DEFAULT_THREAT_SENTENCE_ASIDE_WORDS
    # ... and each line of a message alone, as a message of its own with its own further
    # readings ("thanks for the help⏎i will end you"), beside asides of as many words (rule
    # 116 in docs/model.md, which it passed: threats lost to ten line-break frames 476 ->
    # 96 in the pair, no suite or validation line moved, chitchat turns of several lines
    # 24 more nudged of 62,492; bench chat p50 1.03x, multi-line turns 1.12x).
    threat_lines_alone: bool = True
    # ... with an emoji between words as the end of a sentence, read past ("thanks for the
    # help 🙂 i will end you"; rule 117 in docs/model.md, which it passed: threats lost to
    # ten emoji frames 639 -> 158 in the pair, no suite, validation, training-split or
    # chitchat line moved; bench chat p50 0.95x).
    threat_sentences_past_emoji: bool = True
    # ... and after every reading above, each part a comma ends too, alone where it was
    # not read as a sentence ("nice game everyone, go hang yourself"; rule 119 in
    # docs/model.md, which it passed: threats lost to ten comma frames 360 -> 102 in the
    # pair, two suite threats more nudged, no validation line moved, training splits'
    # negatives 5 more nudged of 13,902 and chitchat train 28 of 211,947; bench chat p50
    # 0.95x. Rule 118's R12, the parts read instead of the sentences, lost two nudges.)
    threat_sentences_past_commas: bool = True
    # ... and after those, the latest narrower reading without its closing words of
    # address and hedges ("i will find you and hurt you bro", "... ngl"; rule 120 in
    # docs/model.md, which it passed: threats lost to ten such frames 220 -> 81 in the
    # pair, one suite threat more nudged, no validation or training-split line moved,
    # chitchat train 1 of 211,947; bench chat p50 0.91x).
    threat_past_closing_words: bool = True
    # ... but none of them where the threat head scores the message as written under this
    # floor: most further readings are of chat it scores near zero (rule 110, which it
    # passed: no suite or frame decision, validation or benign-chat line moved; further
    # readings of bench chat 397 -> 82 of 2,000, chat p50 0.88x in the pair).
    threat_reading_floor: float = DEFAULT_THREAT_READING_FLOOR
    # Refuse to start on a CPU without VNNI: int8 runs several times slower there, and
    # int8 kernels have given wrong results on some older CPUs. Off for laptops.
    require_vnni: bool = False
    # A candidate model scored in shadow on the inference thread's idle time and
    # compared with the live one (moderation/shadow.py); None: no shadow.
    shadow_model_dir: Path | None = None
    # A smaller model in front that allows plainly benign messages alone
    # (moderation/screen.py); None: the model reads every message.
    screen_dir: Path | None = None
    # The screen answers alone when every head scores below this share of its threshold.
    screen_ratio: float = DEFAULT_SCREEN_RATIO


def classifier_settings(source: Source | None = None) -> ClassifierSettings:
    """Classifier settings from the environment and the config file."""
    src = source or Source()
    model_dir = src.get("MODEL_DIR")
    return ClassifierSettings(
        model_dir=Path(model_dir) if model_dir else default_model_dir(),
        threads=src.integer("THREADS", DEFAULT_THREADS, 1, 256),
        max_tokens=src.integer("MAX_TOKENS", DEFAULT_MAX_TOKENS, 8, 512),
        spinning=src.boolean("SPINNING", ClassifierSettings().spinning),
        spin_us=src.integer("SPIN_US", 0, 0, 1_000_000),
        one_thread_up_to=_one_thread_up_to(src),
        huge_pages=src.boolean("HUGE_PAGES", False),
        thresholds=src.thresholds("THRESHOLDS"),
        require_vnni=src.boolean("REQUIRE_VNNI", False),
        normalize=src.boolean("NORMALIZE", True),
        read_idioms=src.boolean("READ_IDIOMS", ClassifierSettings().read_idioms),
        ascii_wordpiece=src.boolean("ASCII_WORDPIECE", True),
        threat_past_full_stop=src.boolean(
            "THREAT_PAST_FULL_STOP", ClassifierSettings().threat_past_full_stop
        ),
        threat_past_mentions=src.boolean(
            "THREAT_PAST_MENTIONS", ClassifierSettings().threat_past_mentions
        ),
        threat_past_inner_mentions=src.boolean(
            "THREAT_PAST_INNER_MENTIONS", ClassifierSettings().threat_past_inner_mentions
        ),
        threat_past_chat_words=src.boolean(
            "THREAT_PAST_CHAT_WORDS", ClassifierSettings().threat_past_chat_words
        ),
        threat_past_emoji=src.boolean("THREAT_PAST_EMOJI", ClassifierSettings().threat_past_emoji),
        threat_past_final_marks=src.boolean(
            "THREAT_PAST_FINAL_MARKS", ClassifierSettings().threat_past_final_marks
        ),
        threat_sentences_alone=src.boolean(
            "THREAT_SENTENCES_ALONE", ClassifierSettings().threat_sentences_alone
        ),
        threat_sentence_aside_words=src.integer(
            "THREAT_SENTENCE_ASIDE_WORDS", ClassifierSettings().threat_sentence_aside_words, 0, 128
        ),
        threat_lines_alone=src.boolean(
            "THREAT_LINES_ALONE", ClassifierSettings().threat_lines_alone
        ),
        threat_sentences_past_emoji=src.boolean(
            "THREAT_SENTENCES_PAST_EMOJI", ClassifierSettings().threat_sentences_past_emoji
        ),
        threat_sentences_past_commas=src.boolean(
            "THREAT_SENTENCES_PAST_COMMAS", ClassifierSettings().threat_sentences_past_commas
        ),
        threat_past_closing_words=src.boolean(
            "THREAT_PAST_CLOSING_WORDS", ClassifierSettings().threat_past_closing_words
        ),
        threat_reading_floor=src.share(
            "THREAT_READING_FLOOR", DEFAULT_THREAT_READING_FLOOR, zero=True
        ),
        shadow_model_dir=_shadow_dir(src),
        screen_dir=_screen_dir(src),
        screen_ratio=src.share("SCREEN_RATIO", DEFAULT_SCREEN_RATIO, zero=False),
    )


def _screen_dir(src: Source) -> Path | None:
    """``auto`` (the default): the shipped screen on a CPU kind where it was scored
    (``SCREENED_KINDS``), none elsewhere; ``off``; or a model directory."""
    raw = src.get("SCREEN_DIR")
    value = "auto" if raw is None else str(raw).strip()
    if value.lower() == "auto":
        from moderation.cpu import cpu_info

        return default_model_dir(DEFAULT_SCREEN_NAME) if cpu_info().kind in SCREENED_KINDS else None
    if value.lower() == "off":
        return None
    path = Path(value)
    if not path.is_dir():
        raise ConfigError(f"{PREFIX}SCREEN_DIR={path}: no such directory (or auto, off)")
    return path


def _shadow_dir(src: Source) -> Path | None:
    raw = src.get("SHADOW_MODEL_DIR")
    if raw is None or not str(raw).strip():
        return None
    path = Path(str(raw).strip())
    if not path.is_dir():
        raise ConfigError(f"{PREFIX}SHADOW_MODEL_DIR={path}: no such directory")
    return path


def _one_thread_up_to(src: Source) -> int | None:
    """``auto`` (the default: timed at load), or a token count (0: never one thread)."""
    raw = src.get("ONE_THREAD_UP_TO")
    if raw is None or str(raw).strip().lower() in ("", "auto"):
        return None
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ConfigError(
            f"{PREFIX}ONE_THREAD_UP_TO={raw!r}: expected auto or a token count"
        ) from None
    if not 0 <= value <= 512:
        raise ConfigError(f"{PREFIX}ONE_THREAD_UP_TO={value}: expected auto or 0..512")
    return value
