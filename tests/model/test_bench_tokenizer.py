"""`moderation bench tokenizer` runs each arm as labelled and both score alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moderation.bench import tokenizer


def test_both_arms_run_as_labelled_and_score_bit_for_bit_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--messages", "40", "--paused", "5", "--repeats", "3", "--rounds", "1"]
    assert tokenizer.main([*args, "--docs", "", "--out", str(tmp_path)]) == 0
    out = json.loads((tmp_path / "bench-tokenizer.json").read_text())
    assert out["scores_identical"] is True
    assert {arm.name for arm in tokenizer.ARMS} <= set(out)
    printed = capsys.readouterr().out
    assert "| the tokenizers library for all text | " in printed and "x library" in printed


def test_a_child_that_ran_otherwise_is_refused() -> None:
    with pytest.raises(RuntimeError, match="ascii_wordpiece=False"):
        tokenizer._check(tokenizer.ARMS[0], {"ascii_wordpiece": False})
    tokenizer._check(tokenizer.ARMS[1], {"ascii_wordpiece": False})
