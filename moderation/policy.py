"""Scores to a decision: nudge when any label reaches its threshold."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from moderation.errors import ConfigError

Decision = Literal["nudge", "allow"]
DECISIONS: tuple[Decision, ...] = ("nudge", "allow")


@dataclass(frozen=True, slots=True)
class Policy:
    """Per-label thresholds; a label without one never nudges on its own."""

    thresholds: Mapping[str, float]

    @classmethod
    def for_model(
        cls, labels: tuple[str, ...], card: Mapping[str, float], overrides: Mapping[str, float]
    ) -> Policy:
        """The model card's thresholds with configured overrides; unknown labels are errors."""
        unknown = set(overrides) - set(labels)
        if unknown:
            raise ConfigError(
                f"MODERATION_THRESHOLDS names labels the model lacks: {sorted(unknown)}; "
                f"the model's labels are {list(labels)}"
            )
        merged = {label: float(card[label]) for label in labels if label in card}
        merged.update(overrides)
        return cls(merged)

    def triggered(self, scores: Mapping[str, float]) -> list[str]:
        """The labels whose score reaches their threshold (empty: ``allow``)."""
        return [
            label
            for label, threshold in self.thresholds.items()
            if scores.get(label, 0.0) >= threshold
        ]

    def decide(self, scores: Mapping[str, float]) -> Decision:
        """``nudge`` if any score is at or above its label's threshold, else ``allow``."""
        for label, threshold in self.thresholds.items():
            if scores.get(label, 0.0) >= threshold:
                return "nudge"
        return "allow"
