"""Which labels the behaviour suite's examples trip, as written.

A verdict carries every label's score, and clients, dashboards and the analysts' replay
read them. A threat score over its threshold on "you are a moron" tells them that an
insult is a threat, the label a trust-and-safety team escalates, even where the decision
(nudge) is right; the pass rates, which count decisions, cannot see it (docs/model.md,
rules 16-18). ``OFF_LABELS``: per capability, the labels its examples are not about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from moderation.evaluation.behaviour import suite

# An insult to a person threatens no one and names no group; a threat to a person names
# no group. (Hate toward a group often wishes it harm, so no off-label is set there.)
OFF_LABELS: dict[str, tuple[str, ...]] = {
    "insult_to_person": ("threat", "hate"),
    "threat_to_person": ("hate",),
}


def off_label_key(capability: str, label: str) -> str:
    """The report's name for one off-label count."""
    return f"{capability}: {label}"


def labels_tripped(trips: Callable[[str], Sequence[str]], labels: Sequence[str]) -> dict[str, Any]:
    """Per capability, on how many of its examples (as written) each label reaches its
    threshold (``trips``: the labels that do, for one text); and the ``OFF_LABELS``
    counts on their own."""
    capabilities: dict[str, dict[str, int]] = {}
    for cap in suite():
        tripped = [set(trips(text)) for text in cap.examples]
        capabilities[cap.name] = {
            "n": len(cap.examples),
            **{label: sum(label in t for t in tripped) for label in labels},
        }
    off = {
        off_label_key(name, label): capabilities[name][label]
        for name, off_labels in OFF_LABELS.items()
        for label in off_labels
        if name in capabilities and label in labels
    }
    return {"labels": list(labels), "capabilities": capabilities, "off_label": off}
