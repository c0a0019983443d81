"""Which lengths run on one thread: the rule, on made-up timings (a fake clock)."""

from collections.abc import Callable

import pytest

from moderation.thread_choice import LENGTHS, LengthTiming, lengths_up_to, limit_from, measure


def _t(tokens: int, one: float, full: float, one_paused: float, full_paused: float) -> LengthTiming:
    return LengthTiming(tokens, one, full, one_paused, full_paused)


def test_the_limit_is_the_last_length_of_the_run_one_thread_wins() -> None:
    timings = [
        _t(8, 1.0, 1.2, 1.5, 1.7),
        _t(16, 1.2, 1.4, 1.8, 1.9),
        _t(32, 2.0, 1.8, 2.2, 2.4),  # slower back to back
        _t(64, 3.0, 3.5, 3.5, 4.0),  # a win after a loss does not count
    ]
    assert limit_from(timings) == 16


def test_one_thread_must_win_in_both_regimes() -> None:
    assert limit_from([_t(8, 1.0, 1.2, 2.0, 1.5)]) == 0  # loses after a pause
    assert limit_from([_t(8, 1.5, 1.2, 1.0, 1.5)]) == 0  # loses back to back
    assert limit_from([_t(8, 1.01, 1.0, 1.0, 1.0)]) == 8  # a tie within noise keeps it


def test_lengths_stop_at_the_models_limit() -> None:
    assert lengths_up_to(128) == (8, 16, 32, 64, 96, 128)
    assert lengths_up_to(40) == (8, 16, 32, 40)
    assert lengths_up_to(8) == (8,)


class _Machine:
    """A fake clock on which a run's cost is a function of session, length and pause."""

    def __init__(self, cost: Callable[[str, int, bool], float]) -> None:
        self.now = 0.0
        self.cost = cost
        self.paused = False
        self.calls: list[tuple[str, int, bool]] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.paused = True

    def session(self, name: str) -> Callable[[int], object]:
        def run(tokens: int) -> object:
            self.calls.append((name, tokens, self.paused))
            self.now += self.cost(name, tokens, self.paused)
            self.paused = False
            return None

        return run


@pytest.mark.parametrize(("crossover", "expected"), [(0, 0), (20, 16), (70, 64), (1000, 128)])
def test_measure_finds_where_two_threads_start_to_pay(crossover: int, expected: int) -> None:
    # One thread: 0.1 ms per token; all threads: a 1 ms wake-up plus half of that, so
    # two pay from 20 tokens on; ``crossover`` moves the wake-up to shift it.
    def cost(name: str, tokens: int, paused: bool) -> float:
        wake = crossover * 0.05e-3
        base = tokens * 0.1e-3 if name == "one" else wake + tokens * 0.05e-3
        return base + (0.5e-3 if paused else 0.0)

    m = _Machine(cost)
    timings = measure(m.session("one"), m.session("full"), 128, clock=m.clock, sleep=m.sleep)
    assert limit_from(timings) == expected
    # It stops at the first length one thread loses; a pause precedes half the runs.
    first_loss = next((n for n in (8, 16, 32, 64, 96, 128) if n > expected), 128)
    assert timings[-1].tokens == first_loss
    assert {p for _, _, p in m.calls} == {True, False}
    assert timings[0].one_after_pause == pytest.approx(timings[0].one_back_to_back + 0.5e-3)


def test_measure_interleaves_the_two_sessions() -> None:
    m = _Machine(lambda name, tokens, paused: 1e-3)
    measure(m.session("one"), m.session("full"), 8, rounds=3, clock=m.clock, sleep=m.sleep)
    names = [n for n, _, _ in m.calls]
    assert names == ["one", "full"] * 6


def test_a_loss_is_timed_again_before_it_stops_the_timing() -> None:
    # One thread wins at every length but 128, yet a burst on the machine slows the
    # first six one-thread runs of each regime at 16 tokens: nine runs alone call that
    # a loss, eighteen do not.
    slow_left = {"n": 6 * 2}

    def cost(name: str, tokens: int, paused: bool) -> float:
        if name == "one" and tokens == 16 and slow_left["n"] > 0:
            slow_left["n"] -= 1
            return 5e-3
        if tokens == 128:
            return 2e-3 if name == "one" else 1e-3
        return 1e-3 if name == "one" else 1.3e-3

    unconfirmed = _Machine(cost)
    timings = measure(
        unconfirmed.session("one"),
        unconfirmed.session("full"),
        128,
        confirm=False,
        clock=unconfirmed.clock,
        sleep=unconfirmed.sleep,
    )
    assert limit_from(timings) == 8

    slow_left["n"] = 6 * 2
    m = _Machine(cost)
    timings = measure(m.session("one"), m.session("full"), 128, clock=m.clock, sleep=m.sleep)
    assert limit_from(timings) == 96  # 16 judged on eighteen runs a regime, six slow
    assert timings[-1].tokens == 128  # a true loss still stops it, confirmed
    runs_at = {n: sum(1 for name, t, _ in m.calls if name == "one" and t == n) for n in LENGTHS}
    assert runs_at == {8: 18, 16: 36, 32: 18, 64: 18, 96: 18, 128: 36}
