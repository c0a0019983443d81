"""moderation/metrics.py: the series the worker and the client expose, and how they render."""

from __future__ import annotations

from moderation import metrics


def test_exposing_twice_registers_each_series_once() -> None:
    metrics.expose_worker()
    metrics.expose_worker()  # prometheus_client raises on a duplicate registration
    metrics.expose_client()
    body, _ = metrics.render(None)
    text = body.decode()
    assert text.count("# TYPE moderation_verdicts_total counter") == 1
    assert "moderation_verdict_latency_seconds_bucket" in text


def test_render_speaks_the_format_the_scraper_asks_for() -> None:
    metrics.expose_worker()
    om, om_type = metrics.render("application/openmetrics-text; version=1.0.0")
    assert om_type.startswith("application/openmetrics-text")
    assert om.rstrip().endswith(b"# EOF")
    plain, plain_type = metrics.render("text/plain")
    assert plain_type.startswith("text/plain") and b"# EOF" not in plain
    assert metrics.render(None)[1] == plain_type


def test_a_verdict_counted_shows_with_its_labels() -> None:
    metrics.expose_worker()
    before, _ = metrics.render(None)
    metrics.VERDICTS.labels(decision="nudge", reason="model").inc()
    after, _ = metrics.render(None)
    line = 'moderation_verdicts_total{decision="nudge",reason="model"}'
    value = [float(x.split()[-1]) for x in after.decode().splitlines() if x.startswith(line)]
    old = [float(x.split()[-1]) for x in before.decode().splitlines() if x.startswith(line)]
    assert value and value[0] == (old[0] if old else 0.0) + 1
