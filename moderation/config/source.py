"""Raw setting values: the one place that reads environment variables and the TOML file.

Every setting has a default that works on a laptop. ``MODERATION_CONFIG`` may
name a TOML file whose keys are the variable names without the ``MODERATION_``
prefix, in lower case (``threads = 2``); environment variables win over it.
Values are validated where they are read, and each error names the setting and
what it wants.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from typing import Any

from moderation.errors import ConfigError
from moderation.policy import Decision

PREFIX = "MODERATION_"


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

    def share(self, name: str, default: float, *, zero: bool) -> float:
        """A number below 1 and above 0 (or at 0 where ``zero`` allows it)."""
        raw = self.get(name)
        if raw is None:
            return default
        try:
            value = float(str(raw).strip())
        except ValueError:
            raise ConfigError(f"{PREFIX}{name}={raw!r}: expected a number") from None
        low = "0 (inclusive)" if zero else "0"
        if not (0.0 <= value < 1.0 if zero else 0.0 < value < 1.0):
            raise ConfigError(f"{PREFIX}{name}={value}: expected a number between {low} and 1")
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


def _choice(src: Source, name: str, default: str, allowed: tuple[str, ...]) -> str:
    raw = src.get(name)
    if raw is None:
        return default
    value = str(raw).strip()
    if value.upper() in (a.upper() for a in allowed):
        return next(a for a in allowed if a.upper() == value.upper())
    raise ConfigError(f"{PREFIX}{name}={value!r}: expected one of {', '.join(allowed)}")


def decision(src: Source, name: str, default: Decision) -> Decision:
    """``allow`` or ``nudge``, typed as the policy's decision."""
    return "nudge" if _choice(src, name, default, ("allow", "nudge")) == "nudge" else "allow"
