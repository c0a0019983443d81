"""The screen's pure logic (moderation/screen.py) and its settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from moderation.config import Source, classifier_settings, default_model_dir
from moderation.config import model as model_config
from moderation.errors import ConfigError, ModelLoadError
from moderation.screen import Screen, check_ratio, screen_id

LABELS = ("toxic", "insult", "hate", "threat")
VOCAB = {"[CLS]": 0, "[SEP]": 1, "hello": 2}


def manifest(**changes: Any) -> dict[str, Any]:
    m: dict[str, Any] = {
        "id": "screen@abc",
        "labels": list(LABELS),
        "thresholds": {"toxic": 0.2, "insult": 0.5, "hate": 0.5, "threat": 0.25},
        "tokenizer_nfkc": True,
        "problem_type": "multi_label_classification",
    }
    m.update(changes)
    return m


def screen(ratio: float = 0.1, **changes: Any) -> Screen:
    return Screen(Path("/screen"), manifest(**changes), ratio, "model.onnx")


MODEL_THRESHOLDS = np.array([0.4, 0.4, 0.4, 0.3])


def test_a_message_below_the_ratio_on_every_head_is_allowed_on_the_screens_reading() -> None:
    row = np.array([0.019, 0.049, 0.01, 0.0])
    carried = screen().allowed_row(row, MODEL_THRESHOLDS)
    assert carried is not None
    # The same share of the model's threshold as of the screen's, head by head.
    np.testing.assert_allclose(carried, row / np.array([0.2, 0.5, 0.5, 0.25]) * MODEL_THRESHOLDS)
    assert (carried < 0.1 * MODEL_THRESHOLDS).all()


@pytest.mark.parametrize("head", range(4))
def test_one_head_at_the_ratio_sends_the_message_to_the_model(head: int) -> None:
    row = np.zeros(4)
    row[head] = 0.1 * np.array([0.2, 0.5, 0.5, 0.25])[head]
    assert screen().allowed_row(row, MODEL_THRESHOLDS) is None
    row[head] *= 0.999
    assert screen().allowed_row(row, MODEL_THRESHOLDS) is not None


@pytest.mark.parametrize("ratio", [0.0, 1.0, -0.1, 1.5])
def test_a_ratio_outside_zero_to_one_is_refused(ratio: float) -> None:
    with pytest.raises(ModelLoadError, match="between 0 and 1"):
        check_ratio(ratio)


def test_a_screen_without_a_threshold_for_a_label_or_with_a_zero_one_is_refused() -> None:
    with pytest.raises(ModelLoadError, match=r"no threshold for \['threat'\]"):
        screen(thresholds={"toxic": 0.2, "insult": 0.5, "hate": 0.5})
    with pytest.raises(ModelLoadError, match="above 0"):
        screen(thresholds={"toxic": 0.0, "insult": 0.5, "hate": 0.5, "threat": 0.2})


def test_the_pair_has_an_id_of_its_own_naming_both_files_and_the_ratio() -> None:
    assert screen_id("model@123", "screen@abc", 0.1) == "model@123+screen:screen@abc<0.1"
    assert screen_id("model@123", "screen@abc", 0.1) != screen_id("model@123", "screen@abc", 0.2)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"labels": ["toxic", "insult", "threat", "hate"]}, "labels"),
        ({"problem_type": "single_label_classification"}, "problem_type"),
        ({"tokenizer_nfkc": False}, "tokenizer_nfkc"),
        ({"normalizer": {"leading_mentions": "drop"}}, "leading mentions dropped"),
        ({"normalizer": {"glued_symbols": "space"}}, "glued symbols spaced off"),
    ],
)
def test_a_screen_that_reads_otherwise_than_the_model_is_refused(
    change: dict[str, Any], message: str
) -> None:
    s = screen(**change)
    with pytest.raises(ModelLoadError, match=message):
        s.check_fits(LABELS, manifest(id="model@123"), VOCAB, VOCAB)


def test_a_screen_of_another_vocabulary_is_refused_and_a_fitting_one_is_not() -> None:
    with pytest.raises(ModelLoadError, match="another vocabulary"):
        screen().check_fits(LABELS, manifest(id="model@123"), VOCAB, {**VOCAB, "bye": 3})
    screen().check_fits(LABELS, manifest(id="model@123"), VOCAB, dict(VOCAB))


def test_the_screen_is_on_by_default_only_on_the_cpu_kinds_it_was_scored_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from moderation.cpu import cpu_info

    kind = cpu_info().kind
    monkeypatch.setattr(model_config, "SCREENED_KINDS", ())
    assert classifier_settings(Source({})).screen_dir is None
    monkeypatch.setattr(model_config, "SCREENED_KINDS", (kind,))
    on = classifier_settings(Source({}))
    assert on.screen_dir == default_model_dir(model_config.DEFAULT_SCREEN_NAME)
    assert (on.screen_dir / "model.onnx").is_file()
    assert on.screen_ratio == model_config.DEFAULT_SCREEN_RATIO
    assert classifier_settings(Source({"MODERATION_SCREEN_DIR": "off"})).screen_dir is None


def test_screen_settings_refuse_a_missing_folder_and_a_ratio_out_of_range(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"SCREEN_DIR=.*no such directory"):
        classifier_settings(Source({"MODERATION_SCREEN_DIR": str(tmp_path / "none")}))
    assert classifier_settings(Source({"MODERATION_SCREEN_DIR": str(tmp_path)})).screen_dir == (
        tmp_path
    )
    for bad in ("0", "1", "x", "-0.2"):
        with pytest.raises(ConfigError, match="SCREEN_RATIO"):
            classifier_settings(Source({"MODERATION_SCREEN_RATIO": bad}))
    assert classifier_settings(Source({"MODERATION_SCREEN_RATIO": "0.25"})).screen_ratio == 0.25
