"""Every Prometheus metric, defined once, in one registry.

Names and units follow Prometheus conventions (``_seconds``, ``_total``). Latency
buckets resolve p50 and p99 between 0.5 ms and 1 s.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info

REGISTRY = CollectorRegistry(auto_describe=True)

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

VERDICT_LATENCY = Histogram(
    "moderation_verdict_latency_seconds",
    "From sent_at (or the record timestamp) to the verdict being produced.",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
QUEUE_WAIT = Histogram(
    "moderation_inference_queue_wait_seconds",
    "Time a message waited in the worker for the model.",
    buckets=STAGE_BUCKETS,
    registry=REGISTRY,
)
TOKENIZE = Histogram(
    "moderation_tokenize_seconds",
    "Tokenizing one message.",
    buckets=STAGE_BUCKETS,
    registry=REGISTRY,
)
INFERENCE = Histogram(
    "moderation_inference_seconds",
    "One model run (one message, or one equal-length batch).",
    buckets=STAGE_BUCKETS,
    registry=REGISTRY,
)
CACHE_LOOKUP = Histogram(
    "moderation_cache_lookup_seconds",
    "One cache lookup, both tiers.",
    ["result"],
    buckets=STAGE_BUCKETS,
    registry=REGISTRY,
)
VERDICTS = Counter(
    "moderation_verdicts_total",
    "Verdicts produced.",
    ["decision", "reason"],
    registry=REGISTRY,
)
CACHE_HITS = Counter(
    "moderation_cache_hits_total",
    "Cache hits by tier.",
    ["tier"],
    registry=REGISTRY,
)
CACHE_MISSES = Counter("moderation_cache_misses_total", "Cache misses.", registry=REGISTRY)
ERRORS = Counter("moderation_errors_total", "Errors by kind.", ["kind"], registry=REGISTRY)
DEAD_LETTERS = Counter(
    "moderation_dead_letters_total",
    "Records copied to the dead-letter topic.",
    ["error"],
    registry=REGISTRY,
)
BUDGET_EXCEEDED = Counter(
    "moderation_budget_exceeded_total",
    "Messages answered with the fallback: budget spent.",
    registry=REGISTRY,
)
IN_FLIGHT = Gauge(
    "moderation_in_flight", "Messages taken in and not yet answered.", registry=REGISTRY
)
CONSUMER_LAG = Gauge(
    "moderation_consumer_lag",
    "Records behind the partition's end.",
    ["topic", "partition"],
    registry=REGISTRY,
)
BREAKER_OPEN = Gauge(
    "moderation_cache_breaker_open",
    "1 while the Redis circuit breaker is not closed.",
    registry=REGISTRY,
)
MODEL_INFO = Info("moderation_model", "The model being served.", registry=REGISTRY)
CPU_INFO = Info("moderation_cpu", "CPU features that matter for int8 inference.", registry=REGISTRY)
REPLY_TO_REFUSED = Counter(
    "moderation_reply_to_refused_total",
    "Records whose reply-to header named a topic outside the verdict topic's family; "
    "their verdict went to the verdict topic instead.",
    registry=REGISTRY,
)

# -- the client library (moderation.client), in the send-message API's process --------
CLIENT_CALLS = Counter(
    "moderation_client_calls_total",
    "check() calls by outcome: sent, or timeout (answered with the fallback).",
    ["outcome"],
    registry=REGISTRY,
)
CLIENT_REPLIES = Counter(
    "moderation_client_replies_total",
    "Verdicts read from the reply topic: routed to a waiting call, late (after its call "
    "timed out), unknown (no such call), or malformed.",
    ["kind"],
    registry=REGISTRY,
)
CLIENT_LATENCY = Histogram(
    "moderation_client_check_seconds",
    "check() wall time as the send-message API sees it, timeouts included.",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
