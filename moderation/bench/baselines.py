"""The weights and runners the model benchmark compares ours against: PyTorch and a
plain ONNX export of the same checkpoint, the shared tokenizer, and a model of
DistilBERT-base width."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from moderation.build.pooling import logits as pooled_logits

PADDED_LENGTH = 128  # Roblox's fixed input length


class Tok:
    """The shared tokenizer: ids as int64 arrays, truncated to max_tokens, never padded."""

    def __init__(self, model_dir: Path, max_tokens: int) -> None:
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_tokens)

    def ids(self, text: str) -> np.ndarray:
        return np.asarray(self.tok.encode(text).ids, dtype=np.int64)[None, :]


def torch_fn(model: Any, tok: Tok, padded: bool) -> Callable[[str], Any]:
    """Tokenize and run a PyTorch model, padded to 128 or not."""
    import torch

    def run(text: str) -> Any:
        ids = tok.ids(text)
        mask = np.ones_like(ids)
        if padded:
            pad = PADDED_LENGTH - ids.shape[1]
            ids = np.pad(ids, ((0, 0), (0, pad)))
            mask = np.pad(mask, ((0, 0), (0, pad)))
        with torch.inference_mode():
            return pooled_logits(model, torch.from_numpy(ids), torch.from_numpy(mask))

    return run


def ort_fn(
    path: Path, tok: Tok, threads: int, spinning: bool, ours: bool = True
) -> Callable[[str], Any]:
    """Tokenize and run an ONNX model as a batch of one, no padding.

    Baselines (``ours=False``) get ONNX Runtime's default load-time optimizations.
    """
    from moderation.classifier import DISABLED_OPTIMIZERS, make_session

    sess = make_session(path, threads, spinning, DISABLED_OPTIMIZERS if ours else ())

    def run(text: str) -> Any:
        ids = tok.ids(text)
        return sess.run(["logits"], {"input_ids": ids, "attention_mask": np.ones_like(ids)})

    return run


def model_width(onnx_path: Path) -> int:
    """Hidden size of an exported DistilBERT: the word embedding's second dimension."""
    import onnx

    m = onnx.load(str(onnx_path), load_external_data=False)
    for init in m.graph.initializer:
        if "word_embeddings" in init.name:
            return int(init.dims[1])
    raise ValueError(f"{onnx_path}: no word embedding initializer")


def wide_model(work: Path) -> tuple[Path, Path, Path]:
    """A DistilBERT-base-sized model (hidden 768) with random weights, exported like ours."""
    import torch
    from transformers import AutoTokenizer, DistilBertConfig, DistilBertForSequenceClassification

    from moderation.build.convert import minilm_dir
    from moderation.build.export import build

    ckpt = work / "wide-checkpoint"
    if not (ckpt / "config.json").exists():
        torch.manual_seed(0)
        # num_labels and problem_type go through PretrainedConfig's **kwargs.
        options: dict[str, Any] = {
            "num_labels": 3,
            "problem_type": "multi_label_classification",
        }
        cfg = DistilBertConfig(
            dim=768,
            n_heads=12,
            n_layers=6,
            hidden_dim=3072,
            **options,
        )
        DistilBertForSequenceClassification(cfg).save_pretrained(ckpt)
        AutoTokenizer.from_pretrained(str(minilm_dir())).save_pretrained(ckpt)
    out = work / "wide-int8"
    if not (out / "model.onnx").exists():
        build(ckpt, out, name="distilbert-base-random", work_dir=work / "wide-onnx")
    return ckpt, out, work / "wide-onnx" / "fp32.onnx"


TRAINED_CHECKPOINT = Path("build/train/best")


TRAINED_FP32_ONNX = Path("build/onnx/fp32.onnx")


def baseline_weights(
    checkpoint: Path | None, fp32_onnx: Path | None, out: Path
) -> tuple[Path, Path, str]:
    """The fp32 checkpoint and plain export the baseline rows run, and a note saying which.

    The trained checkpoint when given or left by `moderation build-model`; otherwise the
    base MiniLM weights in the same DistilBERT shape with an untrained head, built once
    under ``out``. Latency does not depend on the weights' values, only on their shape.
    """
    if checkpoint is None and (TRAINED_CHECKPOINT / "config.json").is_file():
        checkpoint = TRAINED_CHECKPOINT
    if checkpoint is not None:
        if not (checkpoint / "config.json").is_file():
            raise SystemExit(f"--checkpoint {checkpoint}: no config.json there")
        plain = fp32_onnx or TRAINED_FP32_ONNX
        if not plain.is_file():
            from moderation.build.export import export_onnx, load_checkpoint

            plain = out / "trained-fp32.onnx"
            export_onnx(load_checkpoint(checkpoint), plain)
        return checkpoint, plain, f"Baseline rows (a)-(d): the trained checkpoint {checkpoint}."
    from transformers import AutoTokenizer

    from moderation.build.convert import distilbert_from_minilm, minilm_dir
    from moderation.build.export import export_onnx, load_checkpoint
    from moderation.classifier import load_manifest
    from moderation.config import default_model_dir

    base = out / "base-checkpoint"
    plain = out / "base-fp32.onnx"
    if not (base / "config.json").is_file() or not plain.is_file():
        labels = list(load_manifest(default_model_dir())["labels"])
        distilbert_from_minilm(labels).save_pretrained(base)
        AutoTokenizer.from_pretrained(str(minilm_dir())).save_pretrained(base)
        # Reloaded as the exporter loads any checkpoint (eager attention).
        export_onnx(load_checkpoint(base), plain)
    note = (
        "Baseline rows (a)-(d): no trained checkpoint was given, so they run the base "
        "MiniLM weights in the shipped model's shape (same layers, width and head), "
        "built here; latency depends on the shape, not the weights' values."
    )
    return base, plain, note
