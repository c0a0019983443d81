"""Scoring processes for replay: one per core, each a single-threaded copy of the live path.

Why processes and batch-of-one, measured on this machine (docs/replay.md): a chat
message is ~16 tokens, and the int8 model is compute-bound even at batch of one, so
padded batches bought only 1.3-1.5x per core; and with dynamic int8 a batch shares
one activation scale, so a batched message's scores move with its neighbours (by up
to 0.19). Identical messages are scored once (the token ids are the key, as in the
live cache). ``batch_size > 1`` groups messages of equal token length (no padding)
for more speed, and gives up exact agreement with the live path.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from moderation.classifier import Classifier, Encoded
from moderation.config import ClassifierSettings
from moderation.errors import InvalidTextError

# Per-process memo of token ids -> scores; identical chat lines are common.
MEMO_ENTRIES = 200_000

_classifier: Classifier | None = None
_memo: dict[bytes, list[float]] = {}


@dataclass(frozen=True, slots=True)
class Scored:
    """One message's scores (in the model's label order), as the live path scores it."""

    scores: list[float]
    tokens: int
    truncated: bool


Result = Scored | tuple[str, str]  # scores, or (error code, detail)


def one_thread(settings: ClassifierSettings) -> ClassifierSettings:
    """The live settings for a process that owns one core: one intra-op thread, no
    spinning; the model, length limit and normaliser stay as configured, so scores
    stay the live path's. (For ~16-token messages a second thread in one session
    bought nothing here, while a second process doubles the work done.)"""
    return replace(settings, threads=1, spinning=False)


def load(settings: ClassifierSettings) -> Classifier:
    """Load this process's classifier (once per process; Spark executors call it too)."""
    global _classifier
    if _classifier is None:
        _classifier = Classifier(settings)
    return _classifier


def init(settings: ClassifierSettings) -> None:
    """Process initializer: load the model once; exit if the replay process dies.

    The parent is read and watched before the model loads: a replay killed while a
    scoring process is still loading (with a screen, two models) would otherwise leave
    it watching the process it was handed to instead, forever."""
    parent = os.getppid()

    def watch() -> None:
        # A SIGKILLed replay cannot shut its pool down; without this its scoring
        # processes would wait on their queue forever.
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    load(settings)


def _remember(key: bytes, scores: list[float]) -> None:
    if len(_memo) >= MEMO_ENTRIES:
        _memo.pop(next(iter(_memo)))
    _memo[key] = scores


def score_texts(texts: list[str], batch_size: int = 1) -> list[Result]:
    """Scores (or an error) for each text, in order."""
    c = _classifier
    if c is None:
        raise RuntimeError("scoring process not initialised")
    out: list[Result | None] = [None] * len(texts)
    encoded: list[Encoded | None] = [None] * len(texts)
    todo: dict[bytes, tuple[Encoded, list[int]]] = {}
    for i, text in enumerate(texts):
        try:
            enc = c.encode(text)
        except InvalidTextError as exc:
            out[i] = (exc.code, str(exc))
            continue
        encoded[i] = enc
        key = enc.key_bytes()
        hit = _memo.get(key)
        if hit is not None:
            out[i] = _scored(hit, enc)
        elif key in todo:
            todo[key][1].append(i)
        else:
            todo[key] = (enc, [i])
    if batch_size <= 1:
        for key, (enc, rows) in todo.items():
            scores = c.scores(enc).tolist()
            _remember(key, scores)
            for r in rows:
                out[r] = _scored(scores, encoded[r])
    else:
        by_length: dict[int, list[bytes]] = defaultdict(list)
        for key, (enc, _) in todo.items():
            by_length[enc.tokens].append(key)
        for keys in by_length.values():
            for start in range(0, len(keys), batch_size):
                group = keys[start : start + batch_size]
                batch_rows = c.scores_same_length([todo[k][0] for k in group])
                for k, row in zip(group, batch_rows, strict=True):
                    scores = row.tolist()
                    _remember(k, scores)
                    for r in todo[k][1]:
                        out[r] = _scored(scores, encoded[r])
    return [r if r is not None else ("internal_error", "not scored") for r in out]


def _scored(scores: list[float], enc: Encoded | None) -> Scored:
    # The same ids score the same; truncation belongs to the text that made them.
    assert enc is not None
    return Scored(scores, enc.tokens, enc.truncated)


def warn_if_batched(batch_size: int) -> None:
    """Batched scores are not the live path's: say so once per run, wherever it runs."""
    if batch_size > 1:
        logging.getLogger("moderation.replay").warning(
            "batch size %d: scores depend on batch neighbours with dynamic int8 and will not "
            "match the live path (docs/replay.md); use batch size 1 for audits and tuning",
            batch_size,
        )


def model_facts(settings: ClassifierSettings) -> dict[str, Any]:
    """Model id, labels, thresholds and the live policy, without loading the session.

    Raises ConfigError when the threshold overrides name a label the model lacks,
    exactly as the worker refuses to start.
    """
    from moderation.classifier import load_manifest, read_id
    from moderation.policy import Policy
    from moderation.screen import screen_id

    manifest = load_manifest(settings.model_dir)
    labels = tuple(manifest["labels"])
    policy = Policy.for_model(labels, manifest["thresholds"], settings.thresholds)
    # As the classifier names what it runs (moderation/classifier.py's read_id, screen.py).
    model_id = read_id(manifest["id"], labels, settings)
    screen = None
    if settings.screen_dir is not None:
        # The pair decides otherwise than the model alone: its id (moderation/screen.py).
        screen = load_manifest(settings.screen_dir)["id"]
        model_id = screen_id(model_id, screen, settings.screen_ratio)
    return {
        "id": model_id,
        "model_only_id": manifest["id"],
        "screen_id": screen,
        "labels": list(labels),
        "thresholds": dict(policy.thresholds),
        "policy": policy,
    }
