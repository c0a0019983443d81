"""Retry delays: exponential, capped, with jitter.

Every retry loop waits through one of these. Jitter matters after an outage: replicas
that lost the broker (or Redis) at the same moment would otherwise retry in lockstep
and hit it together when it comes back.
"""

from __future__ import annotations

import random

# A broker blip is usually over in tens of milliseconds; a restart takes seconds.
FIRST_S = 0.05
# Long enough not to hammer a broker that is down, short enough that a returning one
# is noticed within a couple of seconds.
MAX_S = 2.0


class Backoff:
    """Delays for successive attempts: "equal jitter" (half fixed, half random).

    Attempt n waits between c/2 and c, where c = min(max_s, first_s * 2**n): never
    shorter than half the exponential step (so it backs off), never in lockstep.
    """

    def __init__(
        self, first_s: float = FIRST_S, max_s: float = MAX_S, rng: random.Random | None = None
    ) -> None:
        if not 0 < first_s <= max_s:
            raise ValueError(f"backoff needs 0 < first_s <= max_s, got {first_s}, {max_s}")
        self.first_s = first_s
        self.max_s = max_s
        self.attempt = 0
        self._rng = rng or random.Random()

    def next(self) -> float:
        """Seconds to wait before the next attempt."""
        ceiling = min(self.max_s, self.first_s * 2**self.attempt)
        self.attempt = min(self.attempt + 1, 62)
        return float(ceiling / 2 + self._rng.uniform(0, ceiling / 2))

    def reset(self) -> None:
        """After a success: the next failure starts from the first step again."""
        self.attempt = 0
