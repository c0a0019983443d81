"""Run the fault suite and write its results table to docs/reliability.md.

python -m tests.faults.run            # the long scale (minutes)
python -m tests.faults.run --short    # what CI runs
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import sys
import tempfile
from pathlib import Path

from moderation.bench.stats import markdown_table, write_docs_section
from moderation.cpu import cpu_info
from tests.faults.harness import BUDGET_MS, RECOVERY_TARGET_S, Result
from tests.faults.scenarios import COMPARISONS, LONG, SCENARIOS, SHORT, Scale


def table(results: list[Result]) -> str:
    def ms(v: float) -> str:
        return "-" if math.isnan(v) else f"{v:.1f}"

    rows = [
        [
            r.scenario,
            r.sent,
            r.answered,
            r.lost,
            r.duplicates,
            r.fallback,
            ms(r.p99_fault_ms),
            f"{r.recovery_s:.1f}" + ("" if r.recovered_in_time else " (over target)"),
            "pass" if r.passed else "FAIL: " + ", ".join(k for k, ok in r.checks.items() if not ok),
        ]
        for r in results
    ]
    head = [
        "scenario",
        "sent",
        "answered",
        "lost",
        "duplicates",
        "fallback",
        "p99 during fault ms",
        "recovery s",
        "checks",
    ]
    notes = "\n".join(f"- **{r.scenario}**: {r.notes}" for r in results)
    return markdown_table(head, rows) + "\n\n" + notes


async def run_all(scale: Scale, only: list[str] | None, keep: Path | None) -> list[Result]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        logs = keep or Path(tmp)
        logs.mkdir(parents=True, exist_ok=True)
        for scenario in SCENARIOS + (COMPARISONS if only else []):
            if only and scenario.__name__ not in only:
                continue
            logging.info("scenario %s (%s)", scenario.__name__, scale.name)
            results.append(await scenario(scale, logs))
            logging.info("%s", results[-1])
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--short", action="store_true", help="the CI scale")
    p.add_argument("--only", nargs="*", help="scenario function names")
    p.add_argument("--docs", type=Path, default=Path("docs/reliability.md"))
    p.add_argument("--keep-logs", type=Path, help="keep the workers' logs in this folder")
    ns = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    scale = SHORT if ns.short else LONG
    results = asyncio.run(run_all(scale, ns.only, ns.keep_logs))
    body = (
        f"Command: `python -m tests.faults.run{' --short' if ns.short else ''}` "
        f"(scale: {scale.name}). CPU: {cpu_info().describe()}. Budget {BUDGET_MS} ms; "
        f"recovery target {RECOVERY_TARGET_S:.0f} s; "
        f"everything on 127.0.0.1, one machine shared by the broker, the workers and the "
        f"load.\n\n{table(results)}\n"
    )
    print(body)
    if ns.docs and not ns.only:
        write_docs_section(ns.docs, f"faults-{scale.name}", body)
    return 0 if all(r.passed and r.recovered_in_time for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
