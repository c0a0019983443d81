"""The decision for one chat message: budget, cache, engine, policy, fallback.

No Kafka here. The worker, the benchmarks and `classify` hand a ``ChatMessage`` to
``Moderator.decide`` and get back what to answer (``Outcome.verdict``) and, when the
message could not be judged as sent, what to keep on the dead-letter topic
(``Outcome.problem``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from moderation import metrics
from moderation.cache import VerdictCache
from moderation.classifier import Classifier
from moderation.config import DecisionSettings
from moderation.engine import InferenceEngine, Scored
from moderation.errors import InvalidTextError
from moderation.policy import Decision, Policy
from moderation.schema import ChatMessage, InvalidRecord, Reason, Truncation, Verdict

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one message produces: a verdict (when it can be addressed) and/or a problem
    to keep on the dead-letter topic."""

    verdict: Verdict | None
    problem: InvalidRecord | None = None


def _start_ms(msg: ChatMessage, received_ms: float | None, now_ms: float | None = None) -> float:
    """Where the message's budget starts: its send time, else its arrival, else now."""
    if msg.sent_at_ms is not None:
        return msg.sent_at_ms
    if received_ms is not None:
        return received_ms
    return time.time() * 1000 if now_ms is None else now_ms


class Moderator:
    """Decides verdicts; owns the inference engine's thread between ``start`` and ``stop``."""

    def __init__(
        self,
        settings: DecisionSettings,
        classifier: Classifier,
        policy: Policy,
        cache: VerdictCache | None = None,
    ) -> None:
        self.settings = settings
        self.classifier = classifier
        self.policy = policy
        self.cache = cache
        self.engine = InferenceEngine(
            classifier,
            same_length_batching=settings.same_length_batching,
            cut_to_fit=settings.cut_to_fit,
        )

    @property
    def fallback(self) -> Decision:
        return self.settings.fallback

    @property
    def model_id(self) -> str:
        return self.classifier.model_id

    async def start(self) -> None:
        """Start the inference thread; connect the cache."""
        self.engine.start()
        if self.cache is not None:
            await self.cache.connect()

    async def stop(self) -> None:
        """Stop the inference thread; close the cache."""
        self.engine.stop()
        if self.cache is not None:
            await self.cache.close()

    # -- answers without the model ----------------------------------------------------

    def refuse(self, problem: InvalidRecord, received_ms: float) -> Outcome:
        """A record that is not a valid message: the fallback if it names its id."""
        if problem.message_id is None:
            return Outcome(None, problem)
        verdict = self._verdict(
            problem.message_id, received_ms, "invalid_input", self.fallback, error=problem.kind
        )
        return self._counted(Outcome(verdict, problem))

    def failed(self, message_id: str | None, received_ms: float, exc: BaseException) -> Outcome:
        """A bug on the way to a verdict: the fallback (when addressable), kept as a dead letter."""
        problem = InvalidRecord("internal_error", repr(exc)[:500], message_id)
        metrics.ERRORS.labels(problem.kind).inc()
        if message_id is None:
            return Outcome(None, problem)
        verdict = self._verdict(
            message_id, received_ms, "error", self.fallback, error="internal_error"
        )
        return self._counted(Outcome(verdict, problem))

    # -- the decision ----------------------------------------------------------------

    async def decide(self, msg: ChatMessage, received_ms: float | None = None) -> Outcome:
        """The verdict for one message, within its budget.

        The budget runs from ``msg.sent_at_ms`` (or ``received_ms``, when the message
        names no send time, or now); a message whose budget is spent gets the fallback.
        """
        try:
            return self._counted(await self._decide(msg, received_ms), msg.text)
        except Exception as exc:  # a bug must not strand the message: answer it
            log.exception("deciding failed for message %s", msg.id)
            return self.failed(msg.id, _start_ms(msg, received_ms), exc)

    async def _decide(self, msg: ChatMessage, received_ms: float | None) -> Outcome:
        now_ms = time.time() * 1000
        t0_ms = _start_ms(msg, received_ms, now_ms)
        budget_ms = msg.budget_ms or self.settings.budget_ms
        remaining_s = min(budget_ms, t0_ms + budget_ms - now_ms) / 1000
        conv = msg.conversation_id
        if remaining_s <= 0:
            return Outcome(self._verdict(msg.id, t0_ms, "budget_exceeded", self.fallback, conv))
        tokenize_start = time.perf_counter()
        try:
            encoded = self.classifier.encode(msg.text)
        except InvalidTextError as exc:
            problem = InvalidRecord(exc.code, str(exc), msg.id)
            verdict = self._verdict(
                msg.id, t0_ms, "invalid_input", self.fallback, conv, error=exc.code
            )
            return Outcome(verdict, problem)
        metrics.TOKENIZE.observe(time.perf_counter() - tokenize_start)
        cache = self.cache
        key = cache.key(encoded) if cache is not None else None
        if cache is not None and key is not None:
            hit = await cache.get(key)
            if hit is not None:
                # Decide afresh from cached scores: a threshold change applies at once.
                scores = self.classifier.label_scores(hit[0])
                verdict = self._verdict(
                    msg.id,
                    t0_ms,
                    "cache",
                    self.policy.decide(scores),
                    conv,
                    scores=scores,
                    cache=hit[1],
                    tokens=encoded.tokens,
                    truncated="max_tokens" if encoded.truncated else None,
                )
                return Outcome(verdict)
        try:
            out = await self.engine.score(encoded, time.monotonic() + remaining_s)
        except Exception as exc:  # the model failed: answer, and keep the message
            log.exception("inference failed for message %s", msg.id)
            metrics.ERRORS.labels("inference_error").inc()
            problem = InvalidRecord("inference_error", repr(exc)[:500], msg.id)
            verdict = self._verdict(
                msg.id, t0_ms, "error", self.fallback, conv, error="inference_error"
            )
            return Outcome(verdict, problem)
        if not isinstance(out, Scored):  # over budget: not even a short prefix fits
            return Outcome(self._verdict(msg.id, t0_ms, "budget_exceeded", self.fallback, conv))
        truncated: Truncation | None = None
        if out.cut_to_fit:
            # The scores are the prefix's: never cached under the whole message's key.
            truncated = "budget"
            metrics.CUT_TO_FIT.inc()
            metrics.CUT_TO_FIT_TOKENS.inc(encoded.tokens - out.tokens)
        else:
            if encoded.truncated:
                truncated = "max_tokens"
            if cache is not None and key is not None:
                cache.put(key, out.row)
        scores = self.classifier.label_scores(out.row)
        verdict = self._verdict(
            msg.id,
            t0_ms,
            "model",
            self.policy.decide(scores),
            conv,
            scores=scores,
            tokens=out.tokens,
            truncated=truncated,
        )
        return Outcome(verdict)

    def _verdict(
        self,
        mid: str,
        t0_ms: float,
        reason: Reason,
        decision: Decision,
        conversation_id: str | None = None,
        *,
        scores: dict[str, float] | None = None,
        error: str | None = None,
        cache: str | None = None,
        tokens: int | None = None,
        truncated: Truncation | None = None,
    ) -> Verdict:
        return Verdict(
            message_id=mid,
            decision=decision,
            reason=reason,
            model=self.classifier.model_id,
            latency_ms=max(0.0, time.time() * 1000 - t0_ms),
            scores=scores or {},
            conversation_id=conversation_id,
            error=error,
            cache=cache,
            tokens=tokens,
            truncated=truncated,
        )

    def _counted(self, outcome: Outcome, text: str | None = None) -> Outcome:
        """Count the verdict; log it (with the text only when the operator asked)."""
        v = outcome.verdict
        if v is None:
            return outcome
        if self.settings.log_text and text is not None:
            log.info(
                "verdict",
                extra={
                    "message_id": v.message_id,
                    "decision": v.decision,
                    "reason": v.reason,
                    "text": text,
                },
            )
        metrics.VERDICTS.labels(v.decision, v.reason).inc()
        metrics.VERDICT_LATENCY.observe(v.latency_ms / 1000)
        if v.reason == "budget_exceeded":
            metrics.BUDGET_EXCEEDED.inc()
        return outcome
