"""moderation/gcpause.py: collections timed by generation; start-up objects frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from moderation import gcpause, metrics
from moderation.config import Source, worker_settings


def _count(generation: str) -> float:
    for family in metrics.GC_PAUSE.collect():
        for sample in family.samples:
            if sample.name.endswith("_count") and sample.labels["generation"] == generation:
                return sample.value
    return 0.0


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the test process keeps collecting what it made


def test_every_collection_is_timed_under_its_generation() -> None:
    gcpause.watch()
    gcpause.watch()  # once per process: a second call adds no second callback
    assert gc.callbacks.count(gcpause._on_gc) == 1
    gc.disable()  # only the collections asked for below, none triggered by allocation
    try:
        before = {g: _count(g) for g in "012"}
        gc.collect(0)
        gc.collect(2)
        gc.collect(2)
        after = {g: _count(g) for g in "012"}
    finally:
        gc.enable()
    assert after == {"0": before["0"] + 1, "1": before["1"], "2": before["2"] + 2}


def test_freezing_exempts_what_lives_now_from_collections(unfrozen: None) -> None:
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    kept = Cycle()
    frozen = gcpause.freeze_startup()
    # Only the sign of the count is stable: a frozen object that dies later (a frame,
    # a logging record of another thread) leaves the permanent generation again.
    assert frozen > 0 and gc.get_freeze_count() > 0
    assert not gc.is_finalized(kept)
    # Frozen objects are no longer in any generation the collector walks.
    assert all(o is not kept for o in gc.get_objects())


def test_freezing_is_on_by_default_and_can_be_turned_off() -> None:
    assert worker_settings(Source({})).gc_freeze is True
    assert worker_settings(Source({"MODERATION_GC_FREEZE": "false"})).gc_freeze is False
