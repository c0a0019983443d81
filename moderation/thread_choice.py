"""Which messages run on one intra-op thread: measured on this machine at load.

Whether a second intra-op thread pays depends on the CPU. On the Intel Xeons measured
(AVX-512 VNNI, and AMX) a chat message of a dozen tokens ran faster on one thread than
on two: waking the second thread and splitting a dozen rows between the two costs more
than the second core saves, up to about 96 tokens. On the AMD EPYCs two threads won
at every length. So the classifier keeps a one-thread session beside its usual one and,
at load, times the two on this machine at a few lengths: messages up to the longest
length at which one thread was no slower, both right after another run and after a
short pause (the worker meets both), run on one thread; longer ones on all of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import median

# Lengths (tokens, [CLS] and [SEP] included) timed at load, shortest first.
LENGTHS = (8, 16, 32, 64, 96, 128)
# Timed runs per session, length and regime; medians are compared.
ROUNDS = 9
# The pause before each run of the "after a pause" regime: the threads of a session
# with spinning off fall asleep between messages, as they do at 100 msg/s.
GAP_SECONDS = 0.003
# One thread is kept for a length when its median is at most this much of two threads'
# (a tie within noise keeps the core free for the event loop and the clients).
TIE = 1.02
# A loss ends the timing only once confirmed: that length is timed again, as many
# rounds more, and judged on all of its runs. Nine runs' medians at a millisecond are
# noisy beside the tie. On the AMX Xeon, 40 timings of the same two sessions each way,
# alternated (docs/benchmarks.md, stop 93): unconfirmed, the screen's limit stopped at
# 8 or 16 tokens 9 times (one thread is 1.3x faster there) and the model's at 0 four
# times; confirmed, once and never. A worker keeps its pick for its whole life.
CONFIRM = True


@dataclass(frozen=True, slots=True)
class LengthTiming:
    """Median seconds per run at one length, on one thread and on the full session."""

    tokens: int
    one_back_to_back: float
    full_back_to_back: float
    one_after_pause: float
    full_after_pause: float

    @property
    def one_thread_wins(self) -> bool:
        """One thread no slower (within the tie) right after a run and after a pause."""
        return (
            self.one_back_to_back <= self.full_back_to_back * TIE
            and self.one_after_pause <= self.full_after_pause * TIE
        )

    def describe(self) -> str:
        return (
            f"{self.tokens} tokens: one thread {self.one_back_to_back * 1e3:.2f} ms back to "
            f"back, {self.one_after_pause * 1e3:.2f} after a pause; all threads "
            f"{self.full_back_to_back * 1e3:.2f} and {self.full_after_pause * 1e3:.2f}"
        )


def limit_from(timings: Sequence[LengthTiming]) -> int:
    """The longest measured length at which, and at every shorter measured length,
    one thread was no slower; 0 when it lost at the shortest."""
    limit = 0
    for t in sorted(timings, key=lambda t: t.tokens):
        if not t.one_thread_wins:
            break
        limit = t.tokens
    return limit


def lengths_up_to(max_tokens: int) -> tuple[int, ...]:
    """The timed lengths a model reading at most ``max_tokens`` can meet."""
    inside = tuple(n for n in LENGTHS if n < max_tokens)
    return (*inside, max_tokens)


def measure(
    one: Callable[[int], object],
    full: Callable[[int], object],
    max_tokens: int,
    *,
    rounds: int = ROUNDS,
    confirm: bool = CONFIRM,
    gap_seconds: float = GAP_SECONDS,
    clock: Callable[[], float] = time.perf_counter,
    sleep: Callable[[float], None] = time.sleep,
) -> list[LengthTiming]:
    """Time ``one(tokens)`` against ``full(tokens)`` (each runs a message of that many
    tokens), the two interleaved run by run, shortest length first; stops after the
    first length at which one thread loses, since longer ones would lose too. With
    ``confirm``, a length one thread loses is timed ``rounds`` more times and judged on
    all of its runs before it stops the timing."""

    def timed(fn: Callable[[int], object], tokens: int, pause: bool) -> float:
        if pause:
            sleep(gap_seconds)
        start = clock()
        fn(tokens)
        return clock() - start

    def take(tokens: int, samples: dict[tuple[str, bool], list[float]]) -> LengthTiming:
        for _ in range(rounds):
            for pause in (False, True):
                samples[("one", pause)].append(timed(one, tokens, pause))
                samples[("full", pause)].append(timed(full, tokens, pause))
        return LengthTiming(
            tokens,
            median(samples[("one", False)]),
            median(samples[("full", False)]),
            median(samples[("one", True)]),
            median(samples[("full", True)]),
        )

    out: list[LengthTiming] = []
    for tokens in lengths_up_to(max_tokens):
        samples: dict[tuple[str, bool], list[float]] = {
            (k, p): [] for k in ("one", "full") for p in (False, True)
        }
        timing = take(tokens, samples)
        if confirm and not timing.one_thread_wins:
            timing = take(tokens, samples)  # judged again, on twice the runs
        out.append(timing)
        if not timing.one_thread_wins:
            break
    return out
