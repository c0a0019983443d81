"""`moderation bench amx` runs each arm as labelled and both score alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from moderation import cpu
from moderation.bench import amx

HAS_TILES = cpu.cpu_info().amx and bool(shutil.which("cc") or shutil.which("gcc"))


@pytest.mark.skipif(not HAS_TILES, reason="needs AMX int8 tiles and a C compiler")
def test_both_arms_run_as_labelled_and_score_bit_for_bit_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--messages", "60", "--repeats", "5", "--rounds", "2", "--docs", ""]
    assert amx.main([*args, "--out", str(tmp_path)]) == 0
    out = json.loads((tmp_path / "bench-amx.json").read_text())
    assert out["scores_identical"] is True
    assert set(amx.ARMS) <= set(out)
    assert "| VNNI kernels (tiles refused) | " in capsys.readouterr().out


def test_without_tiles_there_is_nothing_to_compare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = cpu.CpuInfo(2, True, True, "Intel(R) Xeon(R) Processor", avx2=True)
    monkeypatch.setattr(cpu, "cpu_info", lambda: plain)
    assert amx.main(["--out", str(tmp_path), "--docs", ""]) == 2
    assert not (tmp_path / "bench-amx.json").exists()
