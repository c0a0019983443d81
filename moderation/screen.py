"""A smaller model in front of the shipped one: plainly benign messages answered early.

Almost all chat is plainly benign. A screen is a four-block student of the shipped
model (docs/model.md, rule 56): the same vocabulary, labels and normalizer, about 1.5x
faster. Each message is scored by the screen first; when every head's score is below
``ratio`` times the screen's own threshold for that head, the message is allowed on the
screen's reading alone, and otherwise the model scores it as it would without a screen.
The screen can only turn a nudge into an allow, so every decision it does not take is
the model's own.

Every path that scores reads through the screen alike: one message, a batch (the
screen reads it whole, the model the messages it did not allow, as a smaller batch) and
the long-message lane (a screen session of its own).

A screened message's scores are the screen's, each divided by the screen's threshold
and multiplied by the model's: the same ratio to the threshold the policy applies, so
each stays below the model's threshold (and below any override raising it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from moderation.errors import ModelLoadError
from moderation.normalize import drops_leading_mentions, spaces_glued_symbols


def screen_id(model_id: str, screen_model_id: str, ratio: float) -> str:
    """The id of a model with a screen in front: both files' ids and the ratio. Verdicts,
    cache keys and the model info metric carry it, since the pair decides otherwise
    than the model alone."""
    return f"{model_id}+screen:{screen_model_id}<{ratio:g}"


def check_ratio(ratio: float) -> float:
    """A screen ratio in (0, 1): at 1 the screen would decide at its own thresholds."""
    if not 0.0 < ratio < 1.0:
        raise ModelLoadError(f"screen ratio {ratio}: expected a number between 0 and 1")
    return ratio


class Screen:
    """The screen's manifest (read by the caller, ``classifier.load_manifest``) and
    thresholds; the caller runs its sessions."""

    def __init__(
        self, screen_dir: Path, manifest: dict[str, Any], ratio: float, model_file: str
    ) -> None:
        self.dir = screen_dir
        self.model_file = screen_dir / model_file
        self.manifest = manifest
        self.model_id: str = manifest["id"]
        self.labels: tuple[str, ...] = tuple(manifest["labels"])
        self.ratio = check_ratio(ratio)
        thresholds = self.manifest["thresholds"]
        missing = [label for label in self.labels if label not in thresholds]
        if missing:
            raise ModelLoadError(f"screen {screen_dir}: no threshold for {missing}")
        self._thresholds = np.array([float(thresholds[label]) for label in self.labels])
        if not (self._thresholds > 0).all():
            raise ModelLoadError(f"screen {screen_dir}: thresholds must be above 0: {thresholds}")

    def check_fits(
        self,
        labels: tuple[str, ...],
        manifest: dict[str, Any],
        vocab: dict[str, int],
        screen_vocab: dict[str, int],
    ) -> None:
        """Refuse a screen that cannot read the model's text and token ids as the model
        does, or whose scores mean something else (softmax against sigmoid)."""
        if self.labels != labels:
            raise ModelLoadError(
                f"screen {self.dir}: labels {list(self.labels)} are not the model's {list(labels)}"
            )
        if screen_vocab != vocab:
            raise ModelLoadError(
                f"screen {self.dir}: another vocabulary than the model's; it cannot read the "
                "same token ids"
            )
        for what, ours, theirs in (
            _reading("leading mentions dropped", drops_leading_mentions, self.manifest, manifest),
            _reading("glued symbols spaced off", spaces_glued_symbols, self.manifest, manifest),
            _reading("tokenizer_nfkc", _nfkc, self.manifest, manifest),
            _reading("problem_type", _problem_type, self.manifest, manifest),
        ):
            if ours != theirs:
                raise ModelLoadError(
                    f"screen {self.dir}: {what} is {ours!r} for the screen and {theirs!r} "
                    "for the model: the two read text or scores differently"
                )

    def allowed_row(self, row: np.ndarray, model_thresholds: np.ndarray) -> np.ndarray | None:
        """The screen's score ``row`` carried onto the model's thresholds when the
        screen allows the message on its own (every head below ``ratio`` of its
        threshold); None when the model must score it."""
        relative = row / self._thresholds
        if float(relative.max()) >= self.ratio:
            return None
        carried: np.ndarray = relative * model_thresholds
        return carried


def _nfkc(manifest: Mapping[str, Any]) -> bool:
    return bool(manifest.get("tokenizer_nfkc"))


def _problem_type(manifest: Mapping[str, Any]) -> object:
    return manifest.get("problem_type")


def _reading(
    what: str,
    read: Callable[[Mapping[str, Any]], object],
    screen: Mapping[str, Any],
    model: Mapping[str, Any],
) -> tuple[str, object, object]:
    """How the screen's manifest and the model's answer one question of reading."""
    return what, read(screen), read(model)
