"""The child-process A/Bs (`bench amx`, `hugepages`, `tokenizer`) end alike: a note that
says what was timed and whether the arms scored alike, and a failing exit when not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moderation.bench.arms import conclude, parser


@pytest.mark.parametrize(("same", "status", "says"), [(True, 0, "identical"), (False, 1, "DIFFER")])
def test_the_note_and_the_exit_status_follow_the_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], same: bool, status: int, says: str
) -> None:
    ns = parser("x", None, paused=0).parse_args(
        ["--rounds", "4", "--docs", "", "--out", str(tmp_path)]
    )
    results = {"scores_identical": same, "arm": {"chat_p50_ms": 1.0}}
    assert conclude(ns, "probe", "| table |", results, "what was timed", "More.") == status
    printed = capsys.readouterr().out
    assert printed.startswith("| table |")
    assert "what was timed; 4 rounds of one child process per arm" in printed
    assert f"every round. More. Scores of the two arms {says}" in printed
    assert json.loads((tmp_path / "bench-probe.json").read_text()) == results
