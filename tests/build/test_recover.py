"""A built int8 graph read back into a DistilBERT checkpoint (rule 71)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs the `train` extra (torch)")
pytest.importorskip("transformers")

from moderation.build.recover import (
    RecoverError,
    dequantized,
    recover_checkpoint,
    recovered_from,
)

pytestmark = pytest.mark.train

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "moderation-minilm-int8"


def _initializers(path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


def test_the_shipped_file_read_back_and_quantized_again_is_the_shipped_file(
    tmp_path: Path,
) -> None:
    """Every int8 weight is its fp32 weight's rounding: recovered, exported and quantized
    by the same steps, each initializer comes back equal, the int8 ones bit for bit."""
    from moderation.build.export import build

    rec = tmp_path / "rec"
    model = recover_checkpoint(SHIPPED, rec)
    manifest = json.loads((SHIPPED / "model.json").read_text())
    assert model.config.recovered_from == manifest["id"]
    assert recovered_from(str(rec)) == manifest["id"]
    assert recovered_from("") == ""
    build(rec, tmp_path / "again", name="again", work_dir=tmp_path / "work", nfkc=True)
    want = _initializers(SHIPPED / "model.onnx")
    got = _initializers(tmp_path / "again" / "model.onnx")
    assert set(got) == set(want)
    for name, array in want.items():
        np.testing.assert_array_equal(got[name], array, err_msg=name)


def test_a_weight_without_its_scale_is_refused() -> None:
    q = np.ones((2, 3), dtype=np.int8)
    with pytest.raises(RecoverError, match="the graph lacks w_scale"):
        dequantized({"w_quantized": q}, "w_quantized")
    with pytest.raises(RecoverError, match="not an int8 weight"):
        dequantized({"w": q}, "w")
    scale = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    zero = np.zeros(3, dtype=np.int8)
    got = dequantized({"w_quantized": q, "w_scale": scale, "w_zero_point": zero}, "w_quantized")
    np.testing.assert_array_equal(got, np.tile(scale, (2, 1)))


def test_the_command_refuses_a_folder_with_no_built_model(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from moderation.cli import main

    code = main(["recover-checkpoint", "--model", str(tmp_path), "--out", str(tmp_path / "o")])
    assert code == 2
    assert "no model.json; give a built model's folder" in capfd.readouterr().err
    assert not (tmp_path / "o").exists()
