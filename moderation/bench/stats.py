"""Latency summaries and report writing shared by the benchmarks."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def summarize(seconds: Sequence[float]) -> dict[str, float]:
    """p50/p90/p99/mean in milliseconds and single-stream throughput in messages/s."""
    a = np.asarray(seconds, dtype=np.float64)
    return {
        "n": int(a.size),
        "p50_ms": float(np.percentile(a, 50) * 1e3),
        "p90_ms": float(np.percentile(a, 90) * 1e3),
        "p99_ms": float(np.percentile(a, 99) * 1e3),
        "mean_ms": float(a.mean() * 1e3),
        "throughput_per_s": float(a.size / a.sum()),
    }


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured table, numbers already formatted by the caller."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def replace_section(doc: str, marker: str, body: str, sibling: str | None = None) -> str:
    """Swap the text between ``<!-- marker:start -->`` and ``<!-- marker:end -->``.

    A new section goes after the last section whose marker starts with ``sibling``
    (the same benchmark on another CPU kind), else at the end.
    """
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    if start in doc and end in doc:
        head, _, rest = doc.partition(start)
        _, _, tail = rest.partition(end)
        return head + block + tail
    if sibling is not None:
        ends = [m.end() for m in re.finditer(rf"<!-- {re.escape(sibling)}[^ ]*:end -->", doc)]
        if ends:
            return doc[: ends[-1]] + "\n\n" + block + doc[ends[-1] :]
    return doc.rstrip() + "\n\n" + block + "\n"


VENDOR_NAMES = {"intel": "Intel", "amd": "AMD", "other": "other vendors"}


def write_docs_section(docs: Path, marker: str, body: str, png: Path | None = None) -> None:
    """Put ``body`` into its marked section of the docs page, with its plot beside it.

    Figures compare only within one CPU kind (int8 speed differs several times between
    AVX2 and AVX-512 VNNI) and one vendor's machines of it, so each keeps its own
    section (``marker-<kind>[-amx]-<vendor>``), headed by the CPU's model name and flags, and
    its own plot file.
    """
    from moderation.cpu import cpu_info

    cpu = cpu_info()
    if cpu.emulated:
        raise RuntimeError(
            f"not writing {docs}: this CPU is emulated ({cpu.describe()}); its timings "
            "say nothing about the CPU it imitates (pass --docs '' to print only)"
        )
    if cpu.amx_refused:
        raise RuntimeError(
            f"not writing {docs}: this process was refused the CPU's AMX tiles "
            f"({cpu.describe()}); its figures belong to neither section of this CPU "
            "(pass --docs '' to print only)"
        )
    line = f"CPU: {cpu.describe()}."
    if line not in body:
        body = f"{line}\n\n{body}"
    tiles = " with AMX" if cpu.amx else ""
    body = f"#### On {cpu.kind}{tiles}, {VENDOR_NAMES[cpu.vendor]}\n\n{body}"
    if png is not None:
        kind_png = png.with_name(f"{png.stem}-{cpu.section}{png.suffix}")
        body = body.replace(f"]({png.name})", f"]({kind_png.name})")
    docs.parent.mkdir(parents=True, exist_ok=True)
    doc = docs.read_text() if docs.exists() else "# Benchmarks\n"
    docs.write_text(replace_section(doc, f"{marker}-{cpu.section}", body, sibling=marker))
    if png is not None:
        shutil.copyfile(png, docs.parent / kind_png.name)
