"""The training recipe runs end to end on the real data, for a few steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs the `train` extra (torch)")

from moderation.build import datasets
from moderation.build.train import TrainSettings, train

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
pytestmark = [pytest.mark.train, pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
def test_a_few_steps_of_the_recipe_train_every_label(tmp_path: Path) -> None:
    settings = TrainSettings(epochs=1, max_steps=3, chitchat_train=500)
    best = train(DATA, tmp_path, settings)
    config = json.loads((best / "config.json").read_text())
    assert [config["id2label"][str(i)] for i in range(len(datasets.LABELS))] == list(
        datasets.LABELS
    )
    report = json.loads((tmp_path / "training.json").read_text())
    assert (best, report["kept_epoch"], report["kept_by"]) == (tmp_path / "best", 1, "last")
    # Every saved epoch carries its tokenizer, so any of them can be re-picked later.
    assert (tmp_path / "epoch-1" / "tokenizer.json").is_file()
    sources = report["train_sources"]
    for source in ("convabuse", "toxigen", "templates-threat", "templates-benign-identity"):
        assert sources.get(source, 0) > 0, source
    assert any(s.endswith("+evasion") for s in sources)
