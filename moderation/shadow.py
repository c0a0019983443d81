"""Shadow scoring: a candidate model scores what the live model scored, off the hot path.

``MODERATION_SHADOW_MODEL_DIR`` names the candidate. The live model decides every
verdict as before; after each verdict, the message's token ids are offered to the
shadow, and the inference thread scores them with the candidate only when it has no
live message to run (``InferenceEngine``'s idle work), one at a time, so a live
message waits at most for the one candidate inference already under way. Offers
beyond ``max_pending`` are dropped and counted, never queued without bound.

Each comparison counts agreement, decisions that would flip (by direction and by the
label that makes the difference), the absolute score difference per label, and the
candidate's latency: in Prometheus (``moderation_shadow_*``) and in a log line every
``report_every_s``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

from moderation import metrics
from moderation.classifier import Classifier, Encoded
from moderation.errors import ModelLoadError
from moderation.policy import Decision, Policy

log = logging.getLogger(__name__)

# Offers waiting for an idle moment: at ~1.5 ms per candidate inference, a thousand
# is over a second of idle time; beyond it the shadow samples rather than queues.
MAX_PENDING = 1000
# How often the comparison is summarised in the log.
REPORT_EVERY_S = 60.0


@dataclass(frozen=True, slots=True)
class _Offer:
    encoded: Encoded
    live: dict[str, float]
    decision: Decision


@dataclass(slots=True)
class ShadowStats:
    """What the comparison has seen so far (all counts since start)."""

    offered: int = 0
    skipped: int = 0  # dropped: the pending queue was full
    compared: int = 0
    agreed: int = 0
    flipped: int = 0  # compared = agreed + flipped
    failed: int = 0  # the candidate raised
    # ("allow->nudge" | "nudge->allow", label) -> messages
    flips: Counter[tuple[str, str]] = field(default_factory=Counter)
    diff_sum: dict[str, float] = field(default_factory=dict)
    diff_max: dict[str, float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)


class Shadow:
    """The candidate, its policy, the pending offers and the running comparison."""

    def __init__(
        self,
        candidate: Classifier,
        policy: Policy,
        *,
        max_pending: int = MAX_PENDING,
        report_every_s: float = REPORT_EVERY_S,
    ) -> None:
        self.candidate = candidate
        self.policy = policy
        self.max_pending = max_pending
        self.report_every_s = report_every_s
        self.stats = ShadowStats()
        self._pending: deque[_Offer] = deque()
        self._lock = threading.Lock()
        self._wake: threading.Condition | None = None
        self._last_report = time.monotonic()
        self._reported = 0
        metrics.SHADOW_INFO.info({"id": candidate.model_id})

    def check_compatible(self, live: Classifier) -> None:
        """The candidate must read the same token ids the live model was given."""
        if self.candidate.vocabulary() != live.vocabulary():
            raise ModelLoadError(
                f"shadow model {self.candidate.model_id} has another vocabulary than "
                f"{live.model_id}: it cannot score the same token ids"
            )
        if self.candidate.max_tokens != live.max_tokens:
            raise ModelLoadError("shadow and live models must truncate at the same length")

    def wake_with(self, cond: threading.Condition) -> None:
        """The inference thread's condition, notified when an offer arrives (the newest
        engine's: after a model swap, the new thread does the idle work)."""
        self._wake = cond

    # -- the event loop's side ---------------------------------------------------------

    def offer(self, encoded: Encoded, live: dict[str, float], decision: Decision) -> None:
        """A message the live model decided: score it with the candidate when idle."""
        with self._lock:
            self.stats.offered += 1
            if len(self._pending) >= self.max_pending:
                self.stats.skipped += 1
                metrics.SHADOW_SKIPPED.inc()
                return
            self._pending.append(_Offer(encoded, live, decision))
        cond = self._wake
        if cond is not None:
            with cond:
                cond.notify()

    def report_due(self) -> str | None:
        """The summary line, when ``report_every_s`` has passed and something was compared."""
        now = time.monotonic()
        if now - self._last_report < self.report_every_s:
            return None
        self._last_report = now
        with self._lock:
            if self.stats.compared == self._reported:
                return None
            self._reported = self.stats.compared
            return self.summary()

    def summary(self) -> str:
        s = self.stats
        flips = ", ".join(f"{d} by {label}: {n}" for (d, label), n in sorted(s.flips.items()))
        diffs = ", ".join(
            f"{label} mean {s.diff_sum[label] / max(1, s.compared):.4f} max {s.diff_max[label]:.4f}"
            for label in sorted(s.diff_sum)
        )
        p50 = float(np.percentile(s.latencies, 50)) * 1000 if s.latencies else 0.0
        p99 = float(np.percentile(s.latencies, 99)) * 1000 if s.latencies else 0.0
        agreement = s.agreed / s.compared if s.compared else 1.0
        return (
            f"shadow {self.candidate.model_id}: {s.compared} compared, agreement "
            f"{agreement:.2%}; would flip: {flips or 'none'}; |score difference|: "
            f"{diffs or 'n/a'}; candidate p50 {p50:.2f} ms, p99 {p99:.2f} ms; "
            f"{s.skipped} of {s.offered} offers skipped (queue full), {s.failed} failed"
        )

    # -- the inference thread's side ---------------------------------------------------

    def pending(self) -> bool:
        return bool(self._pending)

    def run_one(self) -> None:
        """Score the oldest offer with the candidate and compare (inference thread)."""
        with self._lock:
            if not self._pending:
                return
            offer = self._pending.popleft()
        start = time.perf_counter()
        try:
            row = self.candidate.scores(offer.encoded)
        except Exception:
            log.exception("shadow model failed on a message; the comparison skips it")
            with self._lock:
                self.stats.failed += 1
            return
        elapsed = time.perf_counter() - start
        self.compare(offer.live, offer.decision, self.candidate.label_scores(row), elapsed)

    def compare(
        self, live: dict[str, float], decision: Decision, cand: dict[str, float], elapsed_s: float
    ) -> None:
        """Count one comparison: agreement, a flip and its labels, score differences."""
        cand_decision = self.policy.decide(cand)
        with self._lock:
            s = self.stats
            s.compared += 1
            s.latencies.append(elapsed_s)
            if len(s.latencies) > 10_000:  # a recent window is enough for the percentiles
                del s.latencies[:5_000]
            if cand_decision == decision:
                s.agreed += 1
            else:
                s.flipped += 1
                direction = f"{decision}->{cand_decision}"
                # The labels that make the difference: over threshold on the nudging side.
                nudging = cand if cand_decision == "nudge" else live
                for label in self.policy.triggered(nudging):
                    s.flips[(direction, label)] += 1
                    metrics.SHADOW_FLIPS.labels(direction, label).inc()
            for label in set(live) & set(cand):
                d = abs(cand[label] - live[label])
                s.diff_sum[label] = s.diff_sum.get(label, 0.0) + d
                s.diff_max[label] = max(s.diff_max.get(label, 0.0), d)
                metrics.SHADOW_SCORE_DIFF.labels(label).observe(d)
        metrics.SHADOW_COMPARED.labels("agree" if cand_decision == decision else "flip").inc()
        metrics.SHADOW_LATENCY.observe(elapsed_s)
