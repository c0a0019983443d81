"""Chat text is user data: what we log or key on is a hash, never the text."""

from __future__ import annotations

import hashlib


def text_bytes(text: str) -> bytes:
    """UTF-8 bytes of ``text``; undecodable input bytes (surrogate escapes) come back as sent."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # A lone surrogate from JSON (\\ud800) is not an escaped byte; keep it addressable.
        return text.encode("utf-8", "surrogatepass")


def text_sha256(text: str) -> str:
    """Hex SHA-256 of the message's bytes: lets operators correlate without reading it."""
    return hashlib.sha256(text_bytes(text)).hexdigest()
