"""Re-running history through the model: the native engine (``run``) and its parts."""

from moderation.errors import ModerationError


class ReplayError(ModerationError):
    """A replay that cannot start (bad options, a checkpoint that does not match)."""
