"""Every Prometheus metric, defined once; exposed from one registry.

Names and units follow Prometheus conventions (``_seconds``, ``_total``). Latency
buckets resolve p50 and p99 between 0.5 ms and 1 s.

The process, Python platform and GC collectors are always exposed. The worker's
series and the client library's join the registry only when that part starts
(``expose_worker()``, ``expose_client()``): a worker shows no empty client series, a
send-message API process no empty worker series, and one process running both (the
embedded example) shows both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
)
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

from moderation.config.model import THREAT_READING_SETTINGS, ReadingSwitches

REGISTRY = CollectorRegistry(auto_describe=True)
# CPU seconds, resident memory, open file descriptors; Python version; GC counts.
for _collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
    REGISTRY.register(_collector)

_WORKER: list[Collector] = []
_CLIENT: list[Collector] = []
_exposed: set[int] = set()
M = TypeVar("M", bound=Collector)


def _worker(metric: M) -> M:
    _WORKER.append(metric)
    return metric


_SHADOW: list[Collector] = []


def _shadow(metric: M) -> M:
    _SHADOW.append(metric)
    return metric


def _client(metric: M) -> M:
    _CLIENT.append(metric)
    return metric


def _expose(metrics: list[Collector]) -> None:
    for m in metrics:
        if id(m) not in _exposed:
            REGISTRY.register(m)
            _exposed.add(id(m))


def expose_worker() -> None:
    """Put the worker's series in the registry (idempotent)."""
    _expose(_WORKER)


def expose_shadow() -> None:
    """Put the shadow comparison's series in the registry (idempotent)."""
    _expose(_SHADOW)


def expose_client() -> None:
    """Put the client library's series in the registry (idempotent)."""
    _expose(_CLIENT)


def render(accept: str | None) -> tuple[bytes, str]:
    """The registry as the scraper asked (OpenMetrics or the text format): body, type."""
    encoder: Callable[[CollectorRegistry], bytes]
    encoder, content_type = choose_encoder(accept or "")
    return encoder(REGISTRY), content_type


# Dense where chat verdicts live (1-50 ms), coarser out to 1 s.
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0015,
    0.002,
    0.003,
    0.004,
    0.005,
    0.0065,
    0.008,
    0.01,
    0.0125,
    0.015,
    0.02,
    0.025,
    0.03,
    0.04,
    0.05,
    0.065,
    0.08,
    0.1,
    0.15,
    0.2,
    0.3,
    0.5,
    0.75,
    1.0,
)
STAGE_BUCKETS = (
    0.00005,
    0.0001,
    0.00025,
    0.0005,
    0.00075,
    0.001,
    0.0015,
    0.002,
    0.003,
    0.005,
    0.0075,
    0.01,
    0.02,
    0.05,
    0.1,
)

VERDICT_LATENCY = _worker(
    Histogram(
        "moderation_verdict_latency_seconds",
        "From sent_at (or the record timestamp) to the verdict being produced.",
        buckets=LATENCY_BUCKETS,
        registry=None,
    )
)
QUEUE_WAIT = _worker(
    Histogram(
        "moderation_inference_queue_wait_seconds",
        "Time a message waited in the worker for the model, by inference lane.",
        ["lane"],
        buckets=STAGE_BUCKETS,
        registry=None,
    )
)
TOKENIZE = _worker(
    Histogram(
        "moderation_tokenize_seconds",
        "Tokenizing one message.",
        buckets=STAGE_BUCKETS,
        registry=None,
    )
)
INFERENCE = _worker(
    Histogram(
        "moderation_inference_seconds",
        "One model run (one message, or one equal-length batch), by inference lane "
        "(main; long: MODERATION_LONG_LANE_TOKENS).",
        ["lane"],
        buckets=STAGE_BUCKETS,
        registry=None,
    )
)
CACHE_LOOKUP = _worker(
    Histogram(
        "moderation_cache_lookup_seconds",
        "One cache lookup, both tiers.",
        ["result"],
        buckets=STAGE_BUCKETS,
        registry=None,
    )
)
VERDICTS = _worker(
    Counter(
        "moderation_verdicts_total",
        "Verdicts produced.",
        ["decision", "reason"],
        registry=None,
    )
)
CACHE_HITS = _worker(
    Counter(
        "moderation_cache_hits_total",
        "Cache hits by tier.",
        ["tier"],
        registry=None,
    )
)
SCREENED = _worker(
    Counter(
        "moderation_screened_total",
        "Messages allowed on the screen's reading alone, without the model (moderation/screen.py).",
        registry=None,
    )
)
CACHE_MISSES = _worker(Counter("moderation_cache_misses_total", "Cache misses.", registry=None))
ERRORS = _worker(Counter("moderation_errors_total", "Errors by kind.", ["kind"], registry=None))
DEAD_LETTERS = _worker(
    Counter(
        "moderation_dead_letters_total",
        "Records copied to the dead-letter topic.",
        ["error"],
        registry=None,
    )
)
BUDGET_EXCEEDED = _worker(
    Counter(
        "moderation_budget_exceeded_total",
        "Messages answered with the fallback: budget spent.",
        registry=None,
    )
)
CUT_TO_FIT = _worker(
    Counter(
        "moderation_cut_to_fit_total",
        "Messages scored on a prefix because the whole would not fit the budget.",
        registry=None,
    )
)
CUT_TO_FIT_TOKENS = _worker(
    Counter(
        "moderation_cut_to_fit_tokens_dropped_total",
        "Tokens left unread by messages cut to fit the budget.",
        registry=None,
    )
)
IN_FLIGHT = _worker(
    Gauge("moderation_in_flight", "Messages taken in and not yet answered.", registry=None)
)
CONSUMER_LAG = _worker(
    Gauge(
        "moderation_consumer_lag",
        "Records behind the partition's end.",
        ["topic", "partition"],
        registry=None,
    )
)
BREAKER_OPEN = _worker(
    Gauge(
        "moderation_cache_breaker_open",
        "1 while the Redis circuit breaker is not closed.",
        registry=None,
    )
)
GC_PAUSE = _worker(
    Histogram(
        "moderation_gc_pause_seconds",
        "Pauses of Python's cyclic garbage collector (every Python thread waits), by "
        "generation; 2 is a full collection.",
        ["generation"],
        buckets=STAGE_BUCKETS,
        registry=None,
    )
)
MODEL_INFO = _worker(Info("moderation_model", "The model being served.", registry=None))
MODEL_SWAPS = _worker(
    Counter(
        "moderation_model_swaps",
        "Model reloads (SIGHUP): swapped in, or refused (the old model kept serving).",
        ["outcome"],
        registry=None,
    )
)
CPU_INFO = _worker(
    Info("moderation_cpu", "CPU features that matter for int8 inference.", registry=None)
)
REPLY_TO_REFUSED = _worker(
    Counter(
        "moderation_reply_to_refused_total",
        "Records whose reply-to header named a topic outside the verdict topic's family; "
        "their verdict went to the verdict topic instead.",
        registry=None,
    )
)
UNDELIVERABLE = _worker(
    Counter(
        "moderation_undeliverable_total",
        "Records the worker could not write: a verdict (its message then goes to the "
        "dead-letter topic) or a dead letter itself; by the produce error.",
        ["record", "error"],
        registry=None,
    )
)

# -- the client library (moderation.client), in the send-message API's process --------
CLIENT_CALLS = _client(
    Counter(
        "moderation_client_calls_total",
        "check() calls by outcome: sent; timeout (answered with the fallback); "
        "undeliverable (the broker refused the message for good: the fallback at once).",
        ["outcome"],
        registry=None,
    )
)
CLIENT_REPLIES = _client(
    Counter(
        "moderation_client_replies_total",
        "Verdicts read from the reply topic: routed to a waiting call, late (after its call "
        "timed out), unknown (no such call), or malformed.",
        ["kind"],
        registry=None,
    )
)
CLIENT_LATENCY = _client(
    Histogram(
        "moderation_client_check_seconds",
        "check() wall time as the send-message API sees it, timeouts included.",
        buckets=LATENCY_BUCKETS,
        registry=None,
    )
)


SHADOW_INFO = _shadow(
    Info("moderation_shadow_model", "The candidate model scored in shadow.", registry=None)
)
SHADOW_COMPARED = _shadow(
    Counter(
        "moderation_shadow_compared",
        "Messages the candidate scored after the live model: agree or flip (the decision).",
        ["outcome"],
        registry=None,
    )
)
SHADOW_FLIPS = _shadow(
    Counter(
        "moderation_shadow_flips",
        "Decisions the candidate would change, by direction and the label over threshold.",
        ["direction", "label"],
        registry=None,
    )
)
SHADOW_SCORE_DIFF = _shadow(
    Histogram(
        "moderation_shadow_score_difference",
        "Absolute difference between the candidate's and the live model's score.",
        ["label"],
        buckets=(0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
        registry=None,
    )
)
SHADOW_LATENCY = _shadow(
    Histogram(
        "moderation_shadow_inference_seconds",
        "One candidate model run, on the inference thread's idle time.",
        buckets=STAGE_BUCKETS,
        registry=None,
    )
)
SHADOW_SKIPPED = _shadow(
    Counter(
        "moderation_shadow_skipped",
        "Messages not scored in shadow: the pending queue was full (no idle time).",
        registry=None,
    )
)


class _DescribedModel(ReadingSwitches, Protocol):
    model_id: str
    threads: int
    one_thread_up_to: int
    screen_one_thread_up_to: int
    max_tokens: int
    manifest: dict[str, Any]

    @property
    def ascii_wordpiece(self) -> bool: ...

    @property
    def reads_idioms(self) -> bool: ...


def describe_model(classifier: _DescribedModel) -> None:
    """Point the model info metric at the model now serving."""
    MODEL_INFO.info(
        {
            "id": classifier.model_id,
            "quantization": str(classifier.manifest.get("quantization", "")),
            "threads": str(classifier.threads),
            "one_thread_up_to": str(classifier.one_thread_up_to),
            "screen_one_thread_up_to": str(classifier.screen_one_thread_up_to),
            "max_tokens": str(classifier.max_tokens),
            "ascii_wordpiece": str(classifier.ascii_wordpiece).lower(),
            "reads_idioms": str(classifier.reads_idioms).lower(),
            # Which readings the threat head makes, and its floor (moderation/threat_reading.py).
            **{name: str(getattr(classifier, name)).lower() for name in THREAT_READING_SETTINGS},
        }
    )
