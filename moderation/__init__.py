"""Real-time chat moderation: chat messages in, nudge/allow verdicts out."""

__version__ = "0.1.0"
