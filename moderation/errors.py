"""Errors a caller can act on; each names what was wrong with the input."""

from __future__ import annotations


class ModerationError(Exception):
    """Base of every error this package raises on purpose."""

    code = "error"


class InvalidTextError(ModerationError, ValueError):
    """The text cannot be classified as given."""

    code = "invalid_text"


class EmptyTextError(InvalidTextError):
    """Empty, or nothing but whitespace, control or zero-width characters."""

    code = "empty_text"


class ModelLoadError(ModerationError):
    """The model directory is missing, incomplete or does not match its manifest."""

    code = "model_load"


class ConfigError(ModerationError, ValueError):
    """A setting is missing or out of range; the message names the setting."""

    code = "config"


class TopicSetupError(ModerationError):
    """A topic could not be created (the broker refused, or said why)."""

    code = "topic_setup"


class TlsError(ModerationError):
    """A TLS peer's certificate is not trusted, or the handshake failed."""

    code = "tls"
