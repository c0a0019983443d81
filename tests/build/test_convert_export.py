"""Model building: MiniLM -> DistilBERT conversion, and export of a user's checkpoint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the `train` extra (torch)")
transformers = pytest.importorskip("transformers")

from moderation.build.convert import distilbert_from_minilm, minilm_dir  # noqa: E402
from moderation.classifier import Classifier  # noqa: E402
from moderation.config import ClassifierSettings  # noqa: E402

pytestmark = pytest.mark.train


def test_converted_encoder_reproduces_minilm_hidden_states() -> None:
    from transformers import AutoTokenizer, BertModel

    src = minilm_dir()
    bert = BertModel.from_pretrained(str(src), add_pooling_layer=False).eval()
    ours = distilbert_from_minilm(["toxic"]).eval()
    tok = AutoTokenizer.from_pretrained(str(src))
    enc = tok(
        ["hello there, how are you?", "a much longer message " * 8, "ok"],
        padding=True,
        return_tensors="pt",
    )
    with torch.inference_mode():
        want = bert(**enc).last_hidden_state
        got = ours.distilbert(
            input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]
        ).last_hidden_state
    mask = enc["attention_mask"].bool()
    assert float((want - got)[mask].abs().max()) < 1e-5


@pytest.fixture(scope="module")
def user_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small randomly initialised DistilBERT, saved like a user's fine-tuned one."""
    from transformers import AutoTokenizer, DistilBertConfig, DistilBertForSequenceClassification

    path = tmp_path_factory.mktemp("user-ckpt")
    torch.manual_seed(3)
    cfg = DistilBertConfig(
        dim=64,
        n_layers=2,
        n_heads=4,
        hidden_dim=128,
        num_labels=2,
        id2label={0: "ok", 1: "toxic"},
        label2id={"ok": 0, "toxic": 1},
    )
    DistilBertForSequenceClassification(cfg).save_pretrained(path)
    AutoTokenizer.from_pretrained(str(minilm_dir())).save_pretrained(path)
    return path


def test_export_command_builds_a_fused_int8_model(user_checkpoint: Path, tmp_path: Path) -> None:
    out = tmp_path / "model"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "moderation.cli",
            "export",
            str(user_checkpoint),
            "--out",
            str(out),
            "--name",
            "user",
        ],
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    import onnx

    ops = {n.op_type for n in onnx.load(str(out / "model.onnx")).graph.node}
    assert {"QAttention", "LayerNormalization", "BiasGelu", "MatMulInteger"} <= ops
    assert "SkipLayerNormalization" not in ops  # measured slower on CPU; kept apart
    names = [n.name for n in onnx.load(str(out / "model.onnx")).graph.node]
    assert sum(n.startswith("ClassifierRowOnly") for n in names) == 2

    # In fp32 the classifier-row cut changes nothing: same logits with and without it.
    import onnxruntime as ort

    work = tmp_path / "user-work"
    every_row = ort.InferenceSession(str(work / "fp32-fused.onnx"))
    row_only = ort.InferenceSession(str(work / "fp32-fused-cls-row.onnx"))
    ids = np.array([[101, 7592, 2045, 2003, 1037, 2936, 4471, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    np.testing.assert_allclose(row_only.run(None, feed)[0], every_row.run(None, feed)[0], atol=1e-5)

    clf = Classifier(ClassifierSettings(model_dir=out, threads=1))
    assert clf.labels == ("ok", "toxic")
    from transformers import DistilBertForSequenceClassification

    ref = DistilBertForSequenceClassification.from_pretrained(str(user_checkpoint)).eval()
    texts = ["hello there friend", "this is a somewhat longer chat message to score", "no"]
    for text in texts:
        enc = clf.encode(text)
        with torch.inference_mode():
            logits = ref(input_ids=torch.from_numpy(enc.ids[None])).logits[0].numpy()
        want = np.exp(logits) / np.exp(logits).sum()  # single-label: softmax
        np.testing.assert_allclose(clf.scores(enc), want, atol=0.02)


def test_a_mean_pooled_checkpoint_exports_every_row_and_scores_as_in_pytorch(
    user_checkpoint: Path, tmp_path: Path
) -> None:
    import onnx
    import onnxruntime as ort
    from transformers import DistilBertForSequenceClassification

    from moderation.build.export import build
    from moderation.build.pooling import logits, pooling_of, set_pooling

    ckpt = tmp_path / "mean-ckpt"
    model = DistilBertForSequenceClassification.from_pretrained(str(user_checkpoint))
    set_pooling(model, "mean")
    model.save_pretrained(ckpt)
    (ckpt / "tokenizer.json").write_bytes((user_checkpoint / "tokenizer.json").read_bytes())
    for extra in user_checkpoint.glob("*token*"):
        (ckpt / extra.name).write_bytes(extra.read_bytes())
    reloaded = DistilBertForSequenceClassification.from_pretrained(str(ckpt)).eval()
    assert pooling_of(reloaded) == "mean"

    out, work = tmp_path / "model", tmp_path / "work"
    manifest = build(ckpt, out, name="mean", work_dir=work)
    assert manifest["pooling"] == "mean"
    names = [n.name for n in onnx.load(str(out / "model.onnx")).graph.node]
    assert not any(n.startswith("ClassifierRowOnly") for n in names)

    # The fp32 graph computes the masked mean PyTorch trained with, padding included.
    ids = np.array(
        [[101, 7592, 2045, 2003, 1037, 2936, 4471, 102], [101, 7592, 102, 0, 0, 0, 0, 0]],
        dtype=np.int64,
    )
    mask = (ids != 0).astype(np.int64)
    got = ort.InferenceSession(str(work / "fp32-fused.onnx")).run(
        None, {"input_ids": ids, "attention_mask": mask}
    )[0]
    with torch.inference_mode():
        want = logits(reloaded, torch.from_numpy(ids), torch.from_numpy(mask)).numpy()
        cls = reloaded(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask))
    np.testing.assert_allclose(got, want, atol=1e-4)
    assert float(np.abs(cls.logits.numpy() - want).max()) > 1e-3  # not the [CLS] head


def test_an_unknown_pooling_in_a_checkpoint_is_refused(user_checkpoint: Path) -> None:
    from transformers import DistilBertForSequenceClassification

    from moderation.build.pooling import pooling_of, set_pooling

    model = DistilBertForSequenceClassification.from_pretrained(str(user_checkpoint))
    assert pooling_of(model) == "cls"  # checkpoints from before the key
    model.config.moderation_pooling = "max"
    with pytest.raises(ValueError, match="moderation_pooling='max'"):
        pooling_of(model)
    with pytest.raises(ValueError, match="unknown pooling 'max'"):
        set_pooling(model, "max")  # type: ignore[arg-type]


def test_export_rejects_a_directory_that_is_no_checkpoint(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "moderation.cli",
            "export",
            str(tmp_path),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert b"no config.json; not a transformers checkpoint" in proc.stderr


def test_quant_settings_keep_the_tail_fp32_or_calibrate_statically(
    user_checkpoint: Path, tmp_path: Path
) -> None:
    import onnx
    import onnxruntime as ort

    from moderation.build.export import build
    from moderation.build.quantize import QuantizeError, quantize, tail_nodes

    work = tmp_path / "work"
    build(user_checkpoint, tmp_path / "model", name="user", work_dir=work)
    fused = work / "fp32-fused-cls-row.onnx"
    graph = onnx.load(str(fused))
    tail = tail_nodes(graph)
    # The last block's projection and two feed-forward MatMuls, then the two head
    # Gemms (each also under the name the quantizer gives its MatMul half).
    assert len([n for n in graph.graph.node if n.name in tail]) == 5
    assert [n for n in tail if n.endswith("_MatMul")] == [
        f"{n.name}_MatMul" for n in graph.graph.node if n.op_type == "Gemm"
    ]

    rng = np.random.default_rng(5)
    feeds = []
    for n in (6, 9, 14, 20):
        ids = rng.integers(1000, 20000, size=(1, n), dtype=np.int64)
        ids[0, 0], ids[0, -1] = 101, 102
        feeds.append({"input_ids": ids, "attention_mask": np.ones_like(ids)})
    ref = ort.InferenceSession(str(fused))

    def logits(path: Path) -> list[np.ndarray]:
        s = ort.InferenceSession(str(path))
        return [s.run(None, f)[0] for f in feeds]

    want = [ref.run(None, f)[0] for f in feeds]

    tailed = tmp_path / "tail.onnx"
    quantize(fused, tailed, "s8-fp32-tail")
    nodes = onnx.load(str(tailed)).graph.node
    fp32_matmuls = {n.name for n in nodes if n.op_type == "MatMul"}
    assert fp32_matmuls == {n for n in tail if "Gemm" not in n} | {
        n for n in tail if n.endswith("_MatMul")
    }
    assert any(n.op_type == "MatMulInteger" for n in nodes)  # the rest is int8
    for got, w in zip(logits(tailed), want, strict=True):
        np.testing.assert_allclose(got, w, atol=0.05)

    with pytest.raises(QuantizeError, match="needs calibration inputs"):
        quantize(fused, tmp_path / "static.onnx", "static-s8")
    with pytest.raises(QuantizeError, match="unknown int8 setting 'fast'"):
        quantize(fused, tmp_path / "x.onnx", "fast")
    quantize(fused, tmp_path / "static.onnx", "static-s8", feeds)
    ops = {n.op_type for n in onnx.load(str(tmp_path / "static.onnx")).graph.node}
    assert {"QLinearMatMul", "QAttention"} <= ops
    for got, w in zip(logits(tmp_path / "static.onnx"), want, strict=True):
        np.testing.assert_allclose(got, w, atol=0.05)
