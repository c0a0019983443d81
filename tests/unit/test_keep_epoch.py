"""Which saved epoch a build ships, and re-picking it without training again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from moderation.build.train import keep_epoch, kept_epoch

HISTORY = [
    {"epoch": 1, "offensive_val_macro_f1": 0.7747, "seconds": 1.0},
    {"epoch": 2, "offensive_val_macro_f1": 0.7630, "seconds": 1.0},
    {"epoch": 3, "offensive_val_macro_f1": 0.7747, "seconds": 1.0},
]


def test_last_keeps_the_last_epoch_and_best_the_first_with_the_highest_score() -> None:
    assert kept_epoch(HISTORY, "last") == 3
    assert kept_epoch(HISTORY, "best_offensive_val") == 1
    assert kept_epoch(HISTORY[1:], "best_offensive_val") == 3
    with pytest.raises(ValueError, match="no epoch"):
        kept_epoch([], "last")


def _work_dir(tmp_path: Path, *, kept: int) -> Path:
    """A training directory as stop-39 builds left it: each epoch's weights, and
    ``best`` holding the kept epoch's weights and the tokenizer."""
    out = tmp_path / "train"
    for h in HISTORY:
        d = out / f"epoch-{h['epoch']}"
        d.mkdir(parents=True)
        (d / "config.json").write_text(json.dumps({"epoch": h["epoch"]}))
        (d / "model.safetensors").write_bytes(bytes([h["epoch"]]) * 8)
    best = out / "best"
    best.mkdir()
    (best / "config.json").write_text(json.dumps({"epoch": kept}))
    (best / "model.safetensors").write_bytes(bytes([kept]) * 8)
    (best / "vocab.txt").write_text("[PAD]\n[UNK]\n")
    record: dict[str, Any] = {"history": HISTORY, "kept_epoch": kept, "kept_by": "last"}
    (out / "training.json").write_text(json.dumps(record))
    return out


def _epoch_in(d: Path) -> int:
    return int(json.loads((d / "config.json").read_text())["epoch"])


def test_keep_epoch_re_picks_among_saved_epochs_and_records_the_choice(
    tmp_path: Path,
) -> None:
    out = _work_dir(tmp_path, kept=3)
    best = keep_epoch(out, "best_offensive_val")
    assert best == out / "best"
    assert _epoch_in(best) == 1
    assert (best / "model.safetensors").read_bytes() == bytes([1]) * 8
    # The tokenizer the old copy held is carried over; nothing is left staged.
    assert (best / "vocab.txt").read_text() == "[PAD]\n[UNK]\n"
    assert sorted(p.name for p in out.iterdir()) == [
        "best",
        "epoch-1",
        "epoch-2",
        "epoch-3",
        "training.json",
    ]
    record = json.loads((out / "training.json").read_text())
    assert (record["kept_epoch"], record["kept_by"]) == (1, "best_offensive_val")
    assert record["kept_offensive_val_macro_f1"] == 0.7747
    assert record["history"] == HISTORY
    # And back: the saved epochs are untouched by the first choice.
    assert _epoch_in(keep_epoch(out, "last")) == 3
    assert (out / "best" / "vocab.txt").is_file()
    assert json.loads((out / "training.json").read_text())["kept_epoch"] == 3


def test_an_epoch_that_was_not_saved_is_refused_and_best_is_left_alone(
    tmp_path: Path,
) -> None:
    out = _work_dir(tmp_path, kept=3)
    (out / "epoch-1" / "config.json").unlink()
    with pytest.raises(FileNotFoundError, match="epoch 1 was not saved"):
        keep_epoch(out, "best_offensive_val")
    assert _epoch_in(out / "best") == 3
    assert json.loads((out / "training.json").read_text())["kept_epoch"] == 3


def test_build_model_with_skip_training_exports_the_epoch_keep_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import moderation.build.pipeline as pipeline

    out = _work_dir(tmp_path, kept=3)
    exported: list[int] = []

    class Stop(Exception):
        pass

    def fake_build(checkpoint: Path, *args: object, **kwargs: object) -> None:
        exported.append(_epoch_in(checkpoint))
        raise Stop  # export, quantization and scoring are the trained model's path

    def no_training(*args: object) -> None:
        raise AssertionError("--skip-training trained")

    monkeypatch.setattr(pipeline, "build", fake_build)
    monkeypatch.setattr(pipeline, "train", no_training)
    for keep in ("best_offensive_val", "last"):
        with pytest.raises(Stop):
            pipeline.build_model(
                tmp_path, tmp_path / "m", work_dir=out.parent, skip_training=True, keep=keep
            )
    assert exported == [1, 3]
