"""A message whose whole length cannot make its deadline is scored on the longest
prefix that can, with the shipped model and the engine's own measured times."""

from __future__ import annotations

import asyncio
import time

import numpy as np

from moderation.classifier import Classifier
from moderation.engine import MIN_FIT_TOKENS, InferenceEngine, OverBudget, Scored, cut

LONG = "we walked along the river and talked about the weekend plans for a while " * 12


def _score(engine: InferenceEngine, text: str, fraction: float, clf: Classifier) -> object:
    enc = clf.encode(text)
    allowed = fraction * engine.times.estimate(enc.tokens)

    async def go() -> object:
        return await engine.score(enc, time.monotonic() + allowed)

    return asyncio.run(go())


def test_a_long_message_is_cut_to_fit_and_scored_as_that_prefix(classifier: Classifier) -> None:
    engine = InferenceEngine(classifier)
    engine.start()
    try:
        full = classifier.encode(LONG)
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
