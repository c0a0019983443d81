"""`moderation bench spin` on the shipped model: every variant timed, both ways."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moderation.bench import spin


def test_every_variant_is_timed_back_to_back_and_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--messages", "40", "--rounds", "2", "--gap-ms", "2", "--out", str(tmp_path)]
    assert spin.main([*argv, "--docs", ""]) == 0
    table = capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split(" | ")[0][2:] for r in rows[1:]] == [v.label for v in spin.VARIANTS]
    shipped = rows[1].split(" | ")
    assert shipped[2] == "1.00" and shipped[6] == "1.00"  # the ratios' own base
    results = json.loads((tmp_path / "bench-spin.json").read_text())
    assert set(results) == {v.label for v in spin.VARIANTS}
    for r in results.values():
        assert r["back_to_back_p50_ms"] > 0 and r["apart_p50_ms"] > 0
        assert r["cpu_ms_per_message_apart"] > 0
