import pytest

from moderation.errors import ConfigError
from moderation.policy import Policy


def test_nudges_when_any_label_reaches_its_threshold() -> None:
    policy = Policy({"toxic": 0.5, "hate": 0.8})
    assert policy.decide({"toxic": 0.49, "hate": 0.79}) == "allow"
    assert policy.decide({"toxic": 0.5, "hate": 0.0}) == "nudge"
    assert policy.decide({"toxic": 0.1, "hate": 0.95}) == "nudge"


def test_label_without_threshold_never_nudges() -> None:
    assert Policy({"toxic": 0.5}).decide({"toxic": 0.1, "insult": 1.0}) == "allow"


def test_overrides_replace_card_values_and_unknown_labels_fail() -> None:
    p = Policy.for_model(("toxic", "hate"), {"toxic": 0.5, "hate": 0.7}, {"hate": 0.9})
    assert dict(p.thresholds) == {"toxic": 0.5, "hate": 0.9}
    with pytest.raises(ConfigError, match="spam"):
        Policy.for_model(("toxic",), {"toxic": 0.5}, {"spam": 0.2})
