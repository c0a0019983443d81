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


class ClientError(ModerationError):
    """The send-message client was used out of order, or its reply topic is missing."""

    code = "client"


class InvalidMessageError(ClientError, ValueError):
    """A message the worker would refuse (no id, a non-string text, a bad timeout), or an
    id already being checked: refused before it is sent."""

    code = "invalid_message"
