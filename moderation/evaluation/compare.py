"""`moderation eval-diff`: two models' stored `moderation eval` reports, row by row.

How a retrain is judged against the shipped model (docs/model.md): the same rows,
measured on the same CPU kind, side by side with the change in each. Nothing is
scored again; both reports must exist (`moderation eval --write`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from moderation.errors import ModerationError
from moderation.evaluation.run import eval_path

Report = dict[str, Any]
# One table row: its name, and its value in a report (None: the report lacks it).
Row = tuple[str, Callable[[Report], float | None], str]


def load(model_dir: Path, kind: str) -> Report:
    """The report measured on CPU kind ``kind`` beside the model in ``model_dir``."""
    import json

    path = eval_path(model_dir, kind)
    if not path.is_file():
        raise ModerationError(
            f"no {path.name} in {model_dir}: run `MODERATION_MODEL_DIR={model_dir} "
            f"moderation eval --write` on a {kind} machine first"
        )
    report: Report = json.loads(path.read_text())
    return report


def _get(*keys: str) -> Callable[[Report], float | None]:
    def read(report: Report) -> float | None:
        node: Any = report
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return float(node)

    return read


def _rows(base: Report, candidate: Report) -> Iterator[Row]:
    """Every row either report has, in the base report's order, then the candidate's."""

    def names(*path: str) -> list[str]:
        """The keys either report holds under ``path``, the base report's first."""
        seen: dict[str, None] = {}
        for report in (base, candidate):
            node: Any = report
            for key in path:
                node = node.get(key, {}) if isinstance(node, dict) else {}
            seen.update(dict.fromkeys(node))
        return list(seen)

    for name in names("behaviour"):
        yield (f"{name} (passed)", _get("behaviour", name, "passed"), "count")
    groups: dict[tuple[str, str], None] = {}
    for report in (base, candidate):
        for name, row in report.get("behaviour", {}).items():
            groups.update(dict.fromkeys((name, g) for g in row.get("by_group", {})))
    for name, group in groups:
        yield (f"{name}: {group}", _get("behaviour", name, "by_group", group, "passed"), "count")
    for name in names("splits"):
        yield (f"{name} macro-F1", _get("splits", name, "macro_f1"), "f1")
    for name in names("evasion"):
        yield (f"evasion {name} (kept)", _get("evasion", name, "retention"), "share")
    yield ("benign chat nudged", _get("benign_chat", "nudge_rate"), "share")
    yield (
        "benign chat naming a group nudged",
        _get("benign_chat_groups", "nudge_rate"),
        "share",
    )
    yield ("final full stop: flips", _get("final_period", "flips"), "count")
    for probe in names("mentions", "probes"):
        yield (f"mention `{probe}`: flips", _get("mentions", "probes", probe, "flips"), "count")
    yield ("chat shorthand: flips", _get("shorthand", "flips"), "count")
    yield ("chat shorthand: away from expected", _get("shorthand", "away_from_expected"), "count")
    yield ("spaces taken out: flips", _get("spaces_taken_out", "flips"), "count")
    yield (
        "spaces taken out: away from expected",
        _get("spaces_taken_out", "away_from_expected"),
        "count",
    )
    yield ("spaces taken out: passed", _get("spaces_taken_out", "passed"), "count")
    for name in names("spaces_taken_out", "capabilities"):
        yield (
            f"spaces taken out: {name} (passed)",
            _get("spaces_taken_out", "capabilities", name, "passed"),
            "count",
        )
    for key in names("labels", "off_label"):
        yield (f"off-label {key}", _get("labels", "off_label", key), "count")


def _cell(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "count":
        return f"{value:.0f}"
    if unit == "f1":
        return f"{value:.4f}"
    return f"{value:.2%}"


def _change(a: float | None, b: float | None, unit: str) -> str:
    if a is None or b is None:
        return ""
    d = b - a
    if abs(d) < 1e-12:
        return "="
    if unit == "count":
        return f"{d:+.0f}"
    # F1 and shares in points (hundredths), as the rules in docs/model.md count them.
    return f"{100 * d:+.2f} pt"


def diff_table(base: Report, candidate: Report, *, changed_only: bool = False) -> str:
    """A markdown table: every row of the two reports, with the change from base to
    candidate (counts in examples, macro-F1 and shares in points). ``changed_only``:
    the rows whose value differs, or that one report lacks."""
    if base.get("cpu_kind") != candidate.get("cpu_kind"):
        raise ModerationError(
            f"the reports were measured on {base.get('cpu_kind')} and "
            f"{candidate.get('cpu_kind')}: int8 scores differ between CPU kinds, compare "
            "reports of one kind"
        )
    lines = [
        f"CPU kind {base['cpu_kind']}; thresholds "
        + " / ".join(
            f"{label} {base['thresholds'].get(label, '-')} -> {t}"
            for label, t in candidate["thresholds"].items()
        ),
        "",
        f"| row | {base['model']} | {candidate['model']} | change |",
        "|---|---|---|---|",
    ]
    for name, read, unit in _rows(base, candidate):
        a, b = read(base), read(candidate)
        if a is None and b is None:
            continue
        change = _change(a, b, unit)
        if changed_only and change == "=":
            continue
        lines.append(f"| {name} | {_cell(a, unit)} | {_cell(b, unit)} | {change} |")
    return "\n".join(lines) + "\n"
