"""The moving average of the trained weights (rule 101): its arithmetic, and a run that
keeps one beside the weights it trains, which must train exactly as without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="needs the `train` extra (torch)")

from moderation.build import datasets  # noqa: E402
from moderation.build.train import (  # noqa: E402
    TrainSettings,
    ema_dir,
    ema_update,
    keep_epoch,
    swapped_in,
    train,
)


def test_each_update_moves_the_average_a_share_of_the_way() -> None:
    average = [torch.zeros(3), torch.full((2, 2), 4.0)]
    current = [torch.ones(3), torch.zeros((2, 2))]
    ema_update(average, current, 0.75)
    assert torch.equal(average[0], torch.full((3,), 0.25))
    assert torch.equal(average[1], torch.full((2, 2), 3.0))
    ema_update(average, current, 0.75)
    assert torch.allclose(average[0], torch.full((3,), 0.4375))  # 1 - 0.75 ** 2
    assert torch.equal(current[0], torch.ones(3))  # what it averages is left alone


def test_weights_swapped_in_come_back_bit_for_bit() -> None:
    params = [torch.nn.Parameter(torch.randn(4, 3)), torch.nn.Parameter(torch.randn(5))]
    other = [torch.randn(4, 3), torch.randn(5)]
    before = [p.detach().clone() for p in params], [o.clone() for o in other]
    with swapped_in(params, other):
        assert all(torch.equal(p, o) for p, o in zip(params, before[1], strict=True))
    assert all(torch.equal(p, b) for p, b in zip(params, before[0], strict=True))
    assert all(torch.equal(o, b) for o, b in zip(other, before[1], strict=True))


@pytest.mark.parametrize("decay", [-0.1, 1.0, 1.5])
def test_a_decay_outside_zero_to_one_is_refused(decay: float) -> None:
    with pytest.raises(ValueError, match="ema_decay"):
        TrainSettings(ema_decay=decay)


def _saved(directory: Path, marker: str) -> None:
    directory.mkdir(parents=True)
    (directory / "config.json").write_text(json.dumps({"marker": marker}))


def test_the_kept_epoch_exports_its_average_when_the_run_kept_one(tmp_path: Path) -> None:
    for epoch in (1, 2):
        _saved(tmp_path / f"epoch-{epoch}", f"trained {epoch}")
        _saved(ema_dir(tmp_path, epoch), f"average {epoch}")
    history = [{"epoch": e, "offensive_val_macro_f1": f1} for e, f1 in ((1, 0.7), (2, 0.6))]
    record = {"settings": {"ema_decay": 0.999}, "history": history}
    (tmp_path / "training.json").write_text(json.dumps(record))
    best = keep_epoch(tmp_path, "best_offensive_val")  # the epoch is chosen as ever
    assert json.loads((best / "config.json").read_text())["marker"] == "average 1"
    assert json.loads((tmp_path / "training.json").read_text())["kept_weights"] == "moving average"
    record["settings"] = {"ema_decay": 0.0}
    (tmp_path / "training.json").write_text(json.dumps(record))
    best = keep_epoch(tmp_path, "last")
    assert json.loads((best / "config.json").read_text())["marker"] == "trained 2"


def _small_set(*_: object) -> list[datasets.Example]:
    """A few labelled lines in place of the data folder's: the loop is what is tested."""
    lines = [("you are a worthless idiot", 1), ("see you at the game tonight", 0)] * 24
    return [datasets.Example(t, (y, -1, -1, -1), "tweeteval-offensive") for t, y in lines]


@pytest.mark.train
@pytest.mark.timeout(600)
def test_a_run_keeping_an_average_trains_exactly_as_one_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from safetensors.torch import load_file

    monkeypatch.setattr(datasets, "training_set", _small_set)
    monkeypatch.setattr(datasets, "tweeteval", _small_set)
    plain = TrainSettings(epochs=1, max_steps=4, batch_size=8)
    averaged = TrainSettings(epochs=1, max_steps=4, batch_size=8, ema_decay=0.5)
    train(tmp_path / "no-data", tmp_path / "plain", plain)
    best = train(tmp_path / "no-data", tmp_path / "averaged", averaged)
    trained = load_file(tmp_path / "plain" / "epoch-1" / "model.safetensors")
    beside = load_file(tmp_path / "averaged" / "epoch-1" / "model.safetensors")
    average = load_file(tmp_path / "averaged" / "ema-1" / "model.safetensors")
    assert trained.keys() == beside.keys() == average.keys()
    # The same path, bit for bit: keeping the average drew no random number.
    assert all(torch.equal(trained[k], beside[k]) for k in trained)
    # The average lags the trained weights wherever training moved them.
    moved = [k for k in trained if not torch.equal(trained[k], average[k])]
    assert moved and "distilbert.embeddings.word_embeddings.weight" not in moved
    exported = load_file(best / "model.safetensors")
    assert all(torch.equal(exported[k], average[k]) for k in average)
    report = json.loads((tmp_path / "averaged" / "training.json").read_text())
    assert report["kept_weights"] == "moving average"
    assert 0.0 <= report["history"][0]["ema_offensive_val_macro_f1"] <= 1.0
