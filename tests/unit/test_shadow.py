"""Shadow scoring's pure logic: the comparison's arithmetic, the bounded queue, and the
inference thread running idle work only when no live message waits (fake models)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import numpy as np

from moderation.classifier import Encoded
from moderation.engine import InferenceEngine
from moderation.policy import Policy
from moderation.shadow import Shadow

LABELS = ("toxic", "threat")


class FakeModel:
    """Scores every message alike; records which model ran, in order."""

    def __init__(self, name: str, log: list[str], row: list[float], model_id: str) -> None:
        self.name, self.log, self.row, self.model_id = name, log, row, model_id
        self.max_tokens = 128
        self.labels = LABELS
        self.lock = threading.Lock()

    def scores(self, encoded: Encoded) -> np.ndarray:
        time.sleep(0.002)
        with self.lock:
            self.log.append(self.name)
        return np.asarray(self.row, dtype=np.float32)

    def label_scores(self, row: np.ndarray) -> dict[str, float]:
        return {label: float(v) for label, v in zip(self.labels, row, strict=True)}


def enc(n: int = 5) -> Encoded:
    return Encoded(np.arange(n, dtype=np.int64), False)


def shadow(row: list[float], log: list[str] | None = None, **kw: Any) -> Shadow:
    model: Any = FakeModel("shadow", log if log is not None else [], row, "cand@1")
    return Shadow(model, Policy({"toxic": 0.5, "threat": 0.3}), **kw)


def test_comparisons_add_up_and_flips_name_the_label_that_decides() -> None:
    s = shadow([0.0, 0.0])
    live_allow = {"toxic": 0.1, "threat": 0.1}
    s.compare(live_allow, "allow", {"toxic": 0.2, "threat": 0.1}, 0.001)  # agree
    s.compare(live_allow, "allow", {"toxic": 0.9, "threat": 0.4}, 0.001)  # -> nudge, both
    s.compare({"toxic": 0.7, "threat": 0.0}, "nudge", {"toxic": 0.4, "threat": 0.0}, 0.001)
    st = s.stats
    assert (st.compared, st.agreed, st.flipped) == (3, 1, 2)
    assert st.compared == st.agreed + st.flipped
    assert st.flips == {
        ("allow->nudge", "toxic"): 1,
        ("allow->nudge", "threat"): 1,
        ("nudge->allow", "toxic"): 1,  # the live model nudged on toxic
    }
    assert st.diff_max["toxic"] == np.float32(0.8) or abs(st.diff_max["toxic"] - 0.8) < 1e-9
    assert abs(st.diff_sum["threat"] - 0.3) < 1e-9
    assert "3 compared, agreement 33.33%" in s.summary()


def test_offers_beyond_the_bound_are_skipped_and_counted() -> None:
    s = shadow([0.0, 0.0], max_pending=3)
    for _ in range(5):
        s.offer(enc(), {"toxic": 0.0, "threat": 0.0}, "allow")
    assert (s.stats.offered, s.stats.skipped) == (5, 2)
    while s.pending():
        s.run_one()
    assert s.stats.compared == 3 and s.stats.agreed == 3
    assert s.stats.offered == s.stats.compared + s.stats.skipped


def test_the_thread_runs_idle_work_only_when_no_live_message_waits() -> None:
    log: list[str] = []
    sh = shadow([0.0, 0.0], log)
    live: Any = FakeModel("live", log, [0.1, 0.1], "live@1")
    engine = InferenceEngine(live, idle_work=sh)
    log.clear()  # calibration runs

    async def scenario() -> int:
        engine.start()
        try:
            for _ in range(20):
                sh.offer(enc(), {"toxic": 0.1, "threat": 0.1}, "allow")
            deadline = time.monotonic() + 60
            done_before = log.count("shadow")  # candidate runs finished before live work
            await asyncio.gather(*(engine.score(enc(), deadline) for _ in range(10)))
            while sh.pending():
                await asyncio.sleep(0.01)
        finally:
            await asyncio.to_thread(engine.stop)
        return done_before

    done_before = asyncio.run(scenario())
    # Live messages went ahead of the pending candidate work: before the first of them
    # ran, at most the one candidate run under way when they arrived.
    assert log.index("live") <= done_before + 1
    first, last = log.index("live"), len(log) - 1 - log[::-1].index("live")
    # Once live messages were queued, each ran before any more candidate work: at most
    # the one candidate run already under way when they arrived comes between them.
    assert log[first : last + 1].count("shadow") <= 1
    assert log.count("live") == 10 and log.count("shadow") == 20
    assert sh.stats.compared == 20
