from pathlib import Path

import pytest

from moderation.config import DEFAULT_THREADS, Source, classifier_settings, default_model_dir
from moderation.errors import ConfigError


def test_defaults_work_without_any_setting() -> None:
    s = classifier_settings(Source({}))
    assert s.threads == DEFAULT_THREADS
    assert s.model_dir == default_model_dir()
    assert (s.model_dir / "model.onnx").is_file()


def test_environment_wins_over_toml(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text("threads = 3\nmax_tokens = 64\nthresholds = { toxic = 0.7 }\n")
    s = classifier_settings(Source({"MODERATION_CONFIG": str(cfg), "MODERATION_THREADS": "1"}))
    assert (s.threads, s.max_tokens, dict(s.thresholds)) == (1, 64, {"toxic": 0.7})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MODERATION_THREADS": "four"}, "MODERATION_THREADS='four': expected an integer"),
        ({"MODERATION_THREADS": "0"}, "MODERATION_THREADS=0: expected 1..256"),
        ({"MODERATION_MAX_TOKENS": "100000"}, "MODERATION_MAX_TOKENS=100000"),
        ({"MODERATION_SPINNING": "maybe"}, "expected true or false"),
        ({"MODERATION_THRESHOLDS": "toxic"}, "'toxic' is not label=value"),
        ({"MODERATION_THRESHOLDS": "toxic=high"}, "is not a number"),
        ({"MODERATION_THRESHOLDS": "toxic=1.5"}, r"must lie in \[0, 1\]"),
        ({"MODERATION_CONFIG": "/nonexistent/m.toml"}, "cannot read"),
    ],
)
def test_bad_values_name_the_setting(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        classifier_settings(Source(env))


def test_broken_toml_is_reported(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text("threads = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Source({"MODERATION_CONFIG": str(cfg)})
