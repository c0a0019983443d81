"""The garbage collector, kept off the verdict path's tail, and measured.

CPython's cyclic collector holds the interpreter while it runs: the event loop stops,
and so does the inference thread as soon as it needs Python (ONNX Runtime's own
threads compute on, but their result waits). A full (generation 2) collection walks every tracked
object, and after start-up that is mostly what never dies: modules, the tokenizer,
the clients. ``freeze_startup()`` collects once and then moves every object alive
into the permanent generation (``gc.freeze()``), so a later full collection walks only
what the worker made since. ``watch()`` records every collection's pause by
generation in ``moderation_gc_pause_seconds`` so that an operator sees whether the
collector is behind a latency tail.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from typing import Any

from moderation import metrics

log = logging.getLogger(__name__)

_started = threading.local()
_watching = False


def _on_gc(phase: str, info: dict[str, Any]) -> None:
    # Collections run on whichever thread allocated last; each thread times its own.
    if phase == "start":
        _started.at = time.perf_counter()
        return
    at = getattr(_started, "at", None)
    if at is not None:
        metrics.GC_PAUSE.labels(str(info.get("generation", "?"))).observe(time.perf_counter() - at)
        _started.at = None


def watch() -> None:
    """Time every collection from now on (once per process)."""
    global _watching
    if not _watching:
        gc.callbacks.append(_on_gc)
        _watching = True


def freeze_startup() -> int:
    """Collect, then exempt every object alive now from later collections; return how
    many objects were frozen."""
    start = time.perf_counter()
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.info(
        "garbage collector: %d start-up objects frozen (collect and freeze took %.1f ms)",
        frozen,
        (time.perf_counter() - start) * 1000,
    )
    return frozen
