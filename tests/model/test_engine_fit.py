"""A message whose whole length cannot make its deadline is scored on the longest
prefix that can, with the shipped model and the engine's own measured times."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time

import numpy as np
import pytest

from moderation import metrics
from moderation.classifier import Classifier
from moderation.engine import MIN_FIT_TOKENS, InferenceEngine, OverBudget, Scored, cut
from tests.slow_model import teach_a_slow_model

LONG = "we walked along the river and talked about the weekend plans for a while " * 12


def _score(engine: InferenceEngine, text: str, fraction: float, clf: Classifier) -> object:
    enc = clf.encode(text)
    allowed = fraction * engine.estimate(enc.tokens)

    async def go() -> object:
        return await engine.score(enc, time.monotonic() + allowed)

    return asyncio.run(go())


def _threads() -> dict[int, int]:
    """This process's threads and their nice values (Linux; empty elsewhere)."""
    if not sys.platform.startswith("linux"):
        return {}
    out = {}
    for name in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError, FileNotFoundError):
            out[int(name)] = os.getpriority(os.PRIO_PROCESS, int(name))
    return out


def _runs_by_lane() -> dict[str, float]:
    return {
        s.labels["lane"]: s.value
        for m in metrics.INFERENCE.collect()
        for s in m.samples
        if s.name == "moderation_inference_seconds_count"
    }


@pytest.mark.parametrize("long_lane_tokens", [0, 64], ids=["one lane", "long lane"])
def test_a_long_message_is_cut_to_fit_and_scored_as_that_prefix(
    classifier: Classifier, long_lane_tokens: int
) -> None:
    engine = InferenceEngine(classifier, long_lane_tokens=long_lane_tokens)
    assert engine.lanes == (2 if long_lane_tokens else 1)
    engine.start()
    try:
        full = classifier.encode(LONG)
        teach_a_slow_model(engine, full.tokens)
        assert engine.estimate(full.tokens) >= 0.9 * full.tokens / 1000
        out = _score(engine, LONG, 0.5, classifier)
        roomy = _score(engine, LONG, 5.0, classifier)
        hopeless = _score(engine, LONG, 0.0, classifier)
    finally:
        engine.stop()
    assert full.tokens == classifier.max_tokens
    assert isinstance(out, Scored) and out.cut_to_fit
    assert MIN_FIT_TOKENS <= out.tokens < full.tokens
    # Exactly what the model gives for that prefix read alone.
    expected = classifier.scores(cut(full, out.tokens))
    np.testing.assert_allclose(out.row, expected, rtol=0, atol=1e-6)
    assert isinstance(roomy, Scored) and not roomy.cut_to_fit and roomy.tokens == full.tokens
    assert isinstance(hopeless, OverBudget)


def test_with_cutting_off_the_same_deadline_gets_the_fallback(classifier: Classifier) -> None:
    engine = InferenceEngine(classifier, cut_to_fit=False)
    engine.start()
    try:
        out = _score(engine, LONG, 0.5, classifier)
    finally:
        engine.stop()
    assert isinstance(out, OverBudget)


def test_the_long_lane_scores_as_the_main_lane_and_short_messages_stay_on_the_main_one(
    classifier: Classifier,
) -> None:
    tasks = _threads()
    engine = InferenceEngine(classifier, long_lane_tokens=32, long_lane_threads=2, long_lane_nice=3)
    # The long session's own intra-op threads were started at the lower priority too.
    pool = {tid: nice for tid, nice in _threads().items() if tid not in tasks}
    engine.start()
    before = _runs_by_lane()
    texts = [LONG, "see you at 7", "you are such an idiot " * 4, "the traffic is killing me " * 3]

    async def go() -> list[object]:
        far = time.monotonic() + 60
        return list(await asyncio.gather(*(engine.score(classifier.encode(t), far) for t in texts)))

    try:
        out = asyncio.run(go())
        lanes = [lane.messages_run for lane in engine._lanes]
        niceness = [lane.thread_nice for lane in engine._lanes]
        after = _runs_by_lane()
    finally:
        engine.stop()
    for text, got in zip(texts, out, strict=True):
        assert isinstance(got, Scored) and not got.cut_to_fit
        np.testing.assert_allclose(
            got.row, classifier.scores(classifier.encode(text)), rtol=0, atol=1e-5
        )
    lengths = [classifier.encode(t).tokens for t in texts]
    assert lanes == [sum(n <= 32 for n in lengths), sum(n > 32 for n in lengths)]
    # Operators see each lane's runs apart (moderation_inference_seconds{lane}).
    runs = {lane: after.get(lane, 0) - before.get(lane, 0) for lane in ("main", "long")}
    assert runs == {"main": lanes[0], "long": lanes[1]}
    # Only the long lane's thread was lowered (per thread on Linux; a lowered priority
    # changes no score, checked above).
    if sys.platform.startswith("linux"):
        lowered = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 3)
        assert niceness[0] is None
        assert niceness[1] == lowered
        assert pool and set(pool.values()) == {lowered}
