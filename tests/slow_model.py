"""Teach an inference engine a slow model, for the cut-to-fit tests.

The engine learns the model's time per length as it runs. A test that hands it half a
long message's real time as a deadline races the scheduler: about 1 ms on an AMX
Xeon, lost to one thread hand-off on a busy machine. Fed 1 ms per token instead,
several times the real model on any CPU kind, half a full message's time is a budget
of tens of milliseconds, which a prefix fits whatever the CPU or the load; cutting is
then decided on the estimates alone.
"""

from __future__ import annotations

from moderation.engine import MIN_FIT_TOKENS, InferenceEngine


def teach_a_slow_model(engine: InferenceEngine, tokens: int) -> None:
    """Fold 1 ms per token into the estimates of the lane a ``tokens``-long message
    runs on, at every 8-token length up to it, until they have all but converged."""
    for _ in range(60):
        for n in range(MIN_FIT_TOKENS, tokens + 1, 8):
            engine.service_times(tokens).observe(n, n / 1000)
