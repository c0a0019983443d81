"""`moderation bench hugepages` runs each arm as labelled and both score alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moderation.bench import hugepages
from moderation.hugepages import thp_mode


@pytest.mark.skipif(thp_mode() in ("never", "unavailable"), reason="no huge pages here")
def test_both_arms_run_as_labelled_and_score_bit_for_bit_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--messages", "40", "--paused", "5", "--repeats", "3", "--rounds", "2"]
    assert hugepages.main([*args, "--docs", "", "--out", str(tmp_path)]) == 0
    out = json.loads((tmp_path / "bench-hugepages.json").read_text())
    assert out["scores_identical"] is True
    assert {arm.name for arm in hugepages.ARMS} <= set(out)
    printed = capsys.readouterr().out
    assert "| 4 KB pages (as shipped) | " in printed and "chat after a pause p50 ms" in printed


def test_without_huge_pages_there_is_nothing_to_compare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hugepages, "thp_mode", lambda: "never")
    assert hugepages.main(["--out", str(tmp_path), "--docs", ""]) == 2
    assert not (tmp_path / "bench-hugepages.json").exists()


def test_a_child_that_ran_otherwise_is_refused() -> None:
    with pytest.raises(RuntimeError, match="huge_pages=False"):
        hugepages._check(hugepages.ARMS[0], {"huge_pages": False})
