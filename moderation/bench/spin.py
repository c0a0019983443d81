"""`moderation bench spin`: what the inference threads do between messages, measured.

The worker's messages rarely come back to back: at 100 msg/s there are ~10 ms between
them, and ONNX Runtime's intra-op threads either spin through the gap (fast, and
they burn a core) or sleep and are woken again op by op. This times the shipped model
per chat message (tokenized beforehand; model only) under each thread setting, once
back to back and once with a pause before every message, the settings interleaved in
rounds in one run; and the CPU time each setting spends per message, pauses included,
so that the price of spinning shows beside its gain.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from moderation.bench.model import chat_messages
from moderation.bench.stats import markdown_table, write_docs_section
from moderation.classifier import MODEL_FILE, Classifier, make_session
from moderation.config import ClassifierSettings, default_model_dir


@dataclass(frozen=True)
class Variant:
    """One intra-op thread setting."""

    label: str
    threads: int
    spinning: bool
    spin_us: int = 0
    spin_stop: bool = False


VARIANTS = (
    Variant("2 threads, spinning off (shipped)", 2, False),
    Variant("2 threads, spinning (ONNX Runtime's default duration)", 2, True),
    Variant("2 threads, spinning 100 us", 2, True, 100),
    Variant("2 threads, spinning 3 ms", 2, True, 3000),
    Variant("2 threads, spinning inside a run only", 2, True, spin_stop=True),
    Variant("1 thread", 1, False),
)


def _measure(
    sessions: dict[str, Any], feeds: list[dict[str, np.ndarray]], gap_s: float, rounds: int
) -> dict[str, tuple[list[float], float]]:
    """Per variant: latencies (s) and CPU seconds per message, variants interleaved."""
    times: dict[str, list[float]] = {k: [] for k in sessions}
    cpu: dict[str, float] = dict.fromkeys(sessions, 0.0)
    for s in sessions.values():
        for f in feeds[:30]:
            s.run(None, f)
    for r in range(rounds):
        chunk = feeds[r::rounds]
        for name, s in sessions.items():
            c0 = time.process_time()
            for f in chunk:
                if gap_s:
                    time.sleep(gap_s)
                t = time.perf_counter()
                s.run(None, f)
                times[name].append(time.perf_counter() - t)
            # Spinning threads go on burning CPU after the last run of a chunk; the
            # next variant's first pause would bill it to the wrong one without this.
            time.sleep(max(gap_s, 0.02))
            cpu[name] += time.process_time() - c0
    return {k: (v, cpu[k] / len(v)) for k, v in times.items()}


def main(argv: list[str] | None = None) -> int:
    """Time each variant back to back and with pauses; print and store the table."""
    p = argparse.ArgumentParser(prog="moderation bench spin", description=__doc__)
    p.add_argument("--messages", type=int, default=1000)
    p.add_argument("--gap-ms", type=float, default=10.0, help="pause before each message")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--model-dir", type=Path, default=None)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    model_dir = ns.model_dir or default_model_dir()
    tok = Classifier(ClassifierSettings(model_dir=model_dir, threads=1))
    feeds = [tok.encode(text).feed() for text in chat_messages(ns.messages, 0.0, 21)]
    sessions = {
        v.label: make_session(
            model_dir / MODEL_FILE, v.threads, v.spinning, spin_us=v.spin_us, spin_stop=v.spin_stop
        )
        for v in VARIANTS
    }
    gap_s = ns.gap_ms / 1000
    together = _measure(sessions, feeds, 0.0, ns.rounds)
    apart = _measure(sessions, feeds, gap_s, ns.rounds)
    base = VARIANTS[0].label
    rows, results = [], {}
    for v in VARIANTS:
        (t, cpu_t), (a, cpu_a) = together[v.label], apart[v.label]
        p_t, p_a = float(np.median(t)) * 1000, float(np.median(a)) * 1000
        b_t, b_a = np.median(together[base][0]) * 1000, np.median(apart[base][0]) * 1000
        rows.append(
            [
                v.label,
                f"{p_t:.2f}",
                f"{p_t / b_t:.2f}",
                f"{cpu_t * 1000:.1f}",
                f"{p_a:.2f}",
                f"{np.percentile(a, 99) * 1000:.2f}",
                f"{p_a / b_a:.2f}",
                f"{cpu_a * 1000:.1f}",
            ]
        )
        results[v.label] = {
            "back_to_back_p50_ms": p_t,
            "apart_p50_ms": p_a,
            "apart_p99_ms": float(np.percentile(a, 99) * 1000),
            "cpu_ms_per_message_back_to_back": cpu_t * 1000,
            "cpu_ms_per_message_apart": cpu_a * 1000,
        }
    gap = f"{ns.gap_ms:g} ms apart"
    headers = [
        "intra-op threads",
        "back to back p50 ms",
        "x shipped",
        "CPU ms per message",
        f"{gap} p50 ms",
        "p99 ms",
        "x shipped",
        "CPU ms per message (pause included)",
    ]
    table = markdown_table(headers, rows)
    note = (
        f"Model only (tokenized beforehand), {len(feeds)} chat messages, the variants "
        f"interleaved in {ns.rounds} rounds; *{gap}*: a {ns.gap_ms:g} ms sleep before "
        "each message, as between messages at 100 msg/s. CPU: process CPU time per "
        "message, spinning after the run included."
    )
    print(table + "\n\n" + note)
    ns.out.mkdir(parents=True, exist_ok=True)
    (ns.out / "bench-spin.json").write_text(json.dumps(results, indent=2))
    if ns.docs:
        cmd = f"moderation bench spin --messages {ns.messages} --gap-ms {ns.gap_ms:g}"
        write_docs_section(Path(ns.docs), "bench-spin", f"Command: `{cmd}`.\n\n{table}\n\n{note}\n")
    return 0
