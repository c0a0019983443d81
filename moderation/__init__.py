"""Real-time chat moderation: chat messages in, nudge/allow verdicts out."""

__version__ = "0.2.0"
