"""Settings: the one place that reads environment variables and the TOML file.

Every setting has a default that works on a laptop. ``MODERATION_CONFIG`` may
name a TOML file whose keys are the variable names without the ``MODERATION_``
prefix, in lower case (``threads = 2``); environment variables win over it.
Values are validated here, and each error names the setting and what it wants.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moderation.errors import ConfigError

PREFIX = "MODERATION_"
DEFAULT_MODEL_NAME = "moderation-minilm-int8"
# The mission's figure: one process, four intra-op threads (clamped to the cores we have).
DEFAULT_THREADS = 4
# Chat messages are short; 128 tokens keeps a long paste's cost bounded.
DEFAULT_MAX_TOKENS = 128


def default_model_dir() -> Path:
    """The int8 model committed under ``models/`` beside the package."""
    return Path(__file__).resolve().parent.parent / "models" / DEFAULT_MODEL_NAME


@dataclass(frozen=True, slots=True)
class ClassifierSettings:
    """How the model is loaded and run."""

    model_dir: Path = field(default_factory=default_model_dir)
    threads: int = DEFAULT_THREADS
    max_tokens: int = DEFAULT_MAX_TOKENS
    # Spinning intra-op threads trade idle CPU for ~0.1 ms less wake-up latency;
    # chosen by `moderation bench model` (see docs/benchmarks.md).
    spinning: bool = True
    # Label -> threshold overrides; labels left out keep the model card's value.
    thresholds: Mapping[str, float] = field(default_factory=dict)


class Source:
    """Raw setting values: environment first, then the TOML file, then nothing."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env = dict(os.environ if env is None else env)
        self.file: dict[str, Any] = {}
        path = self.env.get(PREFIX + "CONFIG")
        if path:
            try:
                with open(path, "rb") as fh:
                    self.file = tomllib.load(fh)
            except OSError as exc:
                raise ConfigError(f"MODERATION_CONFIG={path}: cannot read: {exc}") from exc
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"MODERATION_CONFIG={path}: not valid TOML: {exc}") from exc

    def get(self, name: str) -> Any:
        """The raw value of ``MODERATION_<NAME>``, or None when unset."""
        key = PREFIX + name
        if key in self.env and self.env[key] != "":
            return self.env[key]
        return self.file.get(name.lower())

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        """An integer in [low, high]."""
        raw = self.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"{PREFIX}{name}={raw!r}: expected an integer") from None
        if not low <= value <= high:
            raise ConfigError(f"{PREFIX}{name}={value}: expected {low}..{high}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        """true/false, 1/0, yes/no, on/off."""
        raw = self.get(name)
        if raw is None:
            return default
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{PREFIX}{name}={raw!r}: expected true or false")

    def thresholds(self, name: str) -> dict[str, float]:
        """``label=value`` pairs separated by commas (or a TOML table)."""
        raw = self.get(name)
        if raw is None:
            return {}
        pairs = raw.items() if isinstance(raw, dict) else _split_pairs(name, str(raw))
        out = {}
        for label, value in pairs:
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise ConfigError(f"{PREFIX}{name}: {label}={value!r} is not a number") from None
            if not 0.0 <= v <= 1.0:
                raise ConfigError(f"{PREFIX}{name}: {label}={v} must lie in [0, 1]")
            out[str(label)] = v
        return out


def _split_pairs(name: str, text: str) -> list[tuple[str, str]]:
    pairs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        label, sep, value = part.partition("=")
        if not sep or not label.strip():
            raise ConfigError(f"{PREFIX}{name}: {part!r} is not label=value")
        pairs.append((label.strip(), value.strip()))
    return pairs


def classifier_settings(source: Source | None = None) -> ClassifierSettings:
    """Classifier settings from the environment and the config file."""
    src = source or Source()
    model_dir = src.get("MODEL_DIR")
    return ClassifierSettings(
        model_dir=Path(model_dir) if model_dir else default_model_dir(),
        threads=src.integer("THREADS", DEFAULT_THREADS, 1, 256),
        max_tokens=src.integer("MAX_TOKENS", DEFAULT_MAX_TOKENS, 8, 512),
        spinning=src.boolean("SPINNING", ClassifierSettings.spinning),
        thresholds=src.thresholds("THRESHOLDS"),
    )
