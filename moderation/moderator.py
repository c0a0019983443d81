"""The decision for one chat message: budget, cache, engine, policy, fallback.

No Kafka here. The worker, the benchmarks and `classify` hand a ``ChatMessage`` to
``Moderator.decide`` and get back what to answer (``Outcome.verdict``) and, when the
message could not be judged as sent, what to keep on the dead-letter topic
(``Outcome.problem``).

``Moderator.swap`` replaces the model while messages flow: the new one is loaded and
warmed beside the old, then put in place between two messages; each message is
decided wholly by the model that was live when it began, and the old model's thread
stops once its last message is answered. A model directory that cannot be loaded is
refused, and the old model keeps serving.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from moderation import metrics
from moderation.cache import VerdictCache
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, DecisionSettings
from moderation.engine import InferenceEngine, Scored
from moderation.errors import InvalidTextError, ModerationError
from moderation.policy import Decision, Policy
from moderation.schema import ChatMessage, InvalidRecord, Reason, Truncation, Verdict
from moderation.shadow import Shadow

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


@dataclass(slots=True)
class _Live:
    """One model in service: classifier, policy, its inference thread, its cache view."""

    classifier: Classifier
    policy: Policy
    engine: InferenceEngine
    cache: VerdictCache | None
    in_flight: int = 0
    retired: bool = False
    idle: asyncio.Event = field(default_factory=asyncio.Event)

    def leave(self) -> None:
        self.in_flight -= 1
        if self.retired and self.in_flight == 0:
            self.idle.set()


class Moderator:
    """Decides verdicts; owns the inference engine's thread between ``start`` and ``stop``."""

    def __init__(
        self,
        settings: DecisionSettings,
        classifier: Classifier,
        policy: Policy,
        cache: VerdictCache | None = None,
        shadow: Shadow | None = None,
    ) -> None:
        self.settings = settings
        self.shadow = shadow
        if shadow is not None:
            shadow.check_compatible(classifier)
        self._report_task: asyncio.Task[None] | None = None
        self._live = _Live(classifier, policy, self._engine(classifier), cache)
        self._swap_lock = asyncio.Lock()
        self.swaps = 0

    def _engine(self, classifier: Classifier) -> InferenceEngine:
        return InferenceEngine(
            classifier,
            same_length_batching=self.settings.same_length_batching,
            cut_to_fit=self.settings.cut_to_fit,
            idle_work=self.shadow,
            long_lane_tokens=self.settings.long_lane_tokens,
            long_lane_threads=self.settings.long_lane_threads,
            long_lane_nice=self.settings.long_lane_nice,
        )

    @property
    def fallback(self) -> Decision:
        return self.settings.fallback

    @property
    def classifier(self) -> Classifier:
        return self._live.classifier

    @property
    def policy(self) -> Policy:
        return self._live.policy

    @property
    def engine(self) -> InferenceEngine:
        return self._live.engine

    @property
    def cache(self) -> VerdictCache | None:
        return self._live.cache

    @property
    def model_id(self) -> str:
        return self._live.classifier.model_id

    async def start(self) -> None:
        """Start the inference thread; connect the cache."""
        self._live.engine.start()
        if self._live.cache is not None:
            await self._live.cache.connect()
        if self.shadow is not None:
            self._report_task = asyncio.create_task(self._report(self.shadow), name="shadow")

    async def _report(self, shadow: Shadow) -> None:
        while True:
            await asyncio.sleep(min(shadow.report_every_s, 5.0))
            line = shadow.report_due()
            if line is not None:
                log.info("%s", line)

    async def stop(self) -> None:
        """Stop the inference thread; close the cache; a last shadow report."""
        if self._report_task is not None:
            self._report_task.cancel()
        await asyncio.to_thread(self._live.engine.stop)
        if self.shadow is not None and self.shadow.stats.compared:
            log.info("%s", self.shadow.summary())
        if self._live.cache is not None:
            await self._live.cache.close()

    async def swap(self, settings: ClassifierSettings) -> bool:
        """Load ``settings.model_dir``, warm it, and serve it from the next message on.

        False (logged, counted) when it cannot be loaded: the old model keeps serving.
        Loading runs on a thread beside the live one, so verdicts slow a little while it
        loads but none waits for it.
        """
        async with self._swap_lock:
            old = self._live
            try:
                classifier = await asyncio.to_thread(Classifier, settings)
                policy = Policy.for_model(
                    classifier.labels, classifier.manifest["thresholds"], settings.thresholds
                )
                if self.shadow is not None:
                    self.shadow.check_compatible(classifier)
            except (ModerationError, OSError, ValueError, KeyError) as exc:
                metrics.MODEL_SWAPS.labels("refused").inc()
                log.error(
                    "model at %s refused (%s); %s keeps serving",
                    settings.model_dir,
                    exc,
                    old.classifier.model_id,
                )
                return False
            engine = self._engine(classifier)
            engine.start()
            cache = None
            if old.cache is not None:
                cache = old.cache.for_model(
                    classifier.model_id, classifier.labels, classifier.max_tokens
                )
            self._live = _Live(classifier, policy, engine, cache)  # between two messages
            self.swaps += 1
            metrics.MODEL_SWAPS.labels("swapped").inc()
            metrics.describe_model(classifier)
            log.info("model swapped: %s -> %s", old.classifier.model_id, classifier.model_id)
            old.retired = True
            if old.in_flight:
                await old.idle.wait()
            await asyncio.to_thread(old.engine.stop)
            if old.cache is not None:
                await old.cache.flush()
            return True

    # -- answers without the model ----------------------------------------------------

    def refuse(self, problem: InvalidRecord, received_ms: float) -> Outcome:
        """A record that is not a valid message: the fallback if it names its id."""
        if problem.message_id is None:
            return Outcome(None, problem)
        verdict = self._verdict(
            self._live,
            problem.message_id,
            received_ms,
            "invalid_input",
            self.fallback,
            error=problem.kind,
        )
        return self._counted(Outcome(verdict, problem))

    def failed(self, message_id: str | None, received_ms: float, exc: BaseException) -> Outcome:
        """A bug on the way to a verdict: the fallback (when addressable), kept as a dead letter."""
        problem = InvalidRecord("internal_error", repr(exc)[:500], message_id)
        metrics.ERRORS.labels(problem.kind).inc()
        if message_id is None:
            return Outcome(None, problem)
        verdict = self._verdict(
            self._live, message_id, received_ms, "error", self.fallback, error="internal_error"
        )
        return self._counted(Outcome(verdict, problem))

    # -- the decision ----------------------------------------------------------------

    async def decide(self, msg: ChatMessage, received_ms: float | None = None) -> Outcome:
        """The verdict for one message, within its budget.

        The budget runs from ``msg.sent_at_ms`` (or ``received_ms``, when the message
        names no send time, or now); a message whose budget is spent gets the fallback.
        """
        live = self._live  # this message is decided by the model live now, start to end
        live.in_flight += 1
        try:
            return self._counted(await self._decide(live, msg, received_ms), msg.text)
        except Exception as exc:  # a bug must not strand the message: answer it
            log.exception("deciding failed for message %s", msg.id)
            return self.failed(msg.id, _start_ms(msg, received_ms), exc)
        finally:
            live.leave()

    async def _decide(self, live: _Live, msg: ChatMessage, received_ms: float | None) -> Outcome:
        now_ms = time.time() * 1000
        t0_ms = _start_ms(msg, received_ms, now_ms)
        budget_ms = msg.budget_ms or self.settings.budget_ms
        remaining_s = min(budget_ms, t0_ms + budget_ms - now_ms) / 1000
        conv = msg.conversation_id
        if remaining_s <= 0:
            return Outcome(
                self._verdict(live, msg.id, t0_ms, "budget_exceeded", self.fallback, conv)
            )
        tokenize_start = time.perf_counter()
        try:
            encoded = live.classifier.encode(msg.text)
        except InvalidTextError as exc:
            problem = InvalidRecord(exc.code, str(exc), msg.id)
            verdict = self._verdict(
                live, msg.id, t0_ms, "invalid_input", self.fallback, conv, error=exc.code
            )
            return Outcome(verdict, problem)
        metrics.TOKENIZE.observe(time.perf_counter() - tokenize_start)
        cache = live.cache
        key = cache.key(encoded) if cache is not None else None
        if cache is not None and key is not None:
            hit = await cache.get(key)
            if hit is not None:
                # Decide afresh from cached scores: a threshold change applies at once.
                scores = live.classifier.label_scores(hit[0])
                decision = live.policy.decide(scores)
                if self.shadow is not None:
                    self.shadow.offer(encoded, scores, decision)
                verdict = self._verdict(
                    live,
                    msg.id,
                    t0_ms,
                    "cache",
                    decision,
                    conv,
                    scores=scores,
                    cache=hit[1],
                    tokens=encoded.tokens,
                    truncated="max_tokens" if encoded.truncated else None,
                )
                return Outcome(verdict)
        try:
            out = await live.engine.score(encoded, time.monotonic() + remaining_s)
        except Exception as exc:  # the model failed: answer, and keep the message
            log.exception("inference failed for message %s", msg.id)
            metrics.ERRORS.labels("inference_error").inc()
            problem = InvalidRecord("inference_error", repr(exc)[:500], msg.id)
            verdict = self._verdict(
                live, msg.id, t0_ms, "error", self.fallback, conv, error="inference_error"
            )
            return Outcome(verdict, problem)
        if not isinstance(out, Scored):  # over budget: not even a short prefix fits
            return Outcome(
                self._verdict(live, msg.id, t0_ms, "budget_exceeded", self.fallback, conv)
            )
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
        scores = live.classifier.label_scores(out.row)
        decision = live.policy.decide(scores)
        if self.shadow is not None and truncated != "budget":
            self.shadow.offer(encoded, scores, decision)
        verdict = self._verdict(
            live,
            msg.id,
            t0_ms,
            "model",
            decision,
            conv,
            scores=scores,
            tokens=out.tokens,
            truncated=truncated,
        )
        return Outcome(verdict)

    def _verdict(
        self,
        live: _Live,
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
            model=live.classifier.model_id,
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
