"""Export a DistilBERT classifier to ONNX, fuse it for ONNX Runtime, quantize to int8.

Works for our converted MiniLM model and for any user checkpoint directory that
holds a ``DistilBertForSequenceClassification`` and its tokenizer.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any

from moderation.build.pooling import logits as pooled_logits
from moderation.build.pooling import pooling_of
from moderation.build.quantize import SHIPPED_QUANT, quantize, setting
from moderation.errors import ModerationError

log = logging.getLogger(__name__)

OPSET = 17
MODEL_FILE = "model.onnx"
MANIFEST_FILE = "model.json"
# The export traces with this many tokens; axes stay dynamic.
_TRACE_TOKENS = 12


class ExportError(ModerationError):
    """The checkpoint cannot be exported, fused or quantized as asked."""


def load_checkpoint(checkpoint: Path) -> Any:
    """Load a DistilBertForSequenceClassification with eager attention for export.

    Eager attention keeps the MatMul/Softmax pattern that ONNX Runtime's optimizer
    fuses into one Attention op; SDPA exports as a shape the fuser does not know.
    """
    from transformers import AutoConfig, DistilBertForSequenceClassification

    if not (checkpoint / "config.json").is_file():
        raise ExportError(f"{checkpoint}: no config.json; not a transformers checkpoint")
    config = AutoConfig.from_pretrained(str(checkpoint), local_files_only=True)
    if config.model_type != "distilbert":
        raise ExportError(f"{checkpoint}: model_type {config.model_type!r}, expected 'distilbert'")
    model: Any = DistilBertForSequenceClassification.from_pretrained(
        str(checkpoint), local_files_only=True, attn_implementation="eager"
    )
    return model.eval()


def export_onnx(model: Any, path: Path) -> None:
    """Plain ONNX export: inputs input_ids and attention_mask, output logits, all axes dynamic."""
    import torch

    ids = torch.ones((1, _TRACE_TOKENS), dtype=torch.long)
    mask = torch.ones((1, _TRACE_TOKENS), dtype=torch.long)

    class LogitsOnly(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return pooled_logits(self.inner, input_ids, attention_mask)

    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.inference_mode():
        torch.onnx.export(
            LogitsOnly(model),
            (ids, mask),
            str(path),
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "logits": {0: "batch"},
            },
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )


def optimize(
    src: Path, dst: Path, num_heads: int, hidden_size: int, skip_layer_norm: bool = False
) -> dict[str, int]:
    """Apply ONNX Runtime's transformer fusions; return the fused op counts.

    ``skip_layer_norm=True`` is the optimizer's stock recipe, kept for the benchmark.
    """
    from onnxruntime.transformers import optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions

    options = FusionOptions("bert")
    # Keep the fused graph portable: no tanh GELU approximation (changes scores).
    options.enable_gelu_approximation = False
    # Residual adds stay apart from their LayerNorms: ORT's CPU SkipLayerNormalization
    # kernel took ~28 us per node at 12x384 where Add + LayerNormalization take ~4 us
    # (docs/benchmarks.md); the session must not re-fuse them either (classifier.py).
    options.enable_skip_layer_norm = skip_layer_norm
    options.enable_bias_skip_layer_norm = skip_layer_norm
    opt = optimizer.optimize_model(
        str(src),
        model_type="bert",
        num_heads=num_heads,
        hidden_size=hidden_size,
        optimization_options=options,
        opt_level=0,
    )
    opt.save_model_to_file(str(dst))
    counts = dict(Counter(n.op_type for n in opt.model.graph.node))
    norm = "SkipLayerNormalization" if skip_layer_norm else "LayerNormalization"
    for op in ("Attention", "EmbedLayerNormalization", norm, "BiasGelu"):
        if counts.get(op, 0) == 0:
            raise ExportError(f"optimizer fused no {op}: export pattern not recognised ({counts})")
    return counts


def classifier_row_only(src: Path, dst: Path) -> None:
    """Run the last block after its attention on the [CLS] row alone.

    The classifier head reads only the first position of the last block's output, and
    everything after that block's attention (output projection, residual, LayerNorm,
    feed-forward) works row by row: the other rows are computed and thrown away. Two
    Slices ([:, 0:1, :]) on the attention's output and on the residual it is added to
    leave that work to one row; the attention itself still reads every token. fp32
    outputs are unchanged; after dynamic int8 the activation scales of those layers come
    from the [CLS] row alone, so int8 scores move slightly (docs/benchmarks.md).
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    nodes = list(graph.node)
    attn = [i for i, n in enumerate(nodes) if n.op_type == "Attention"]
    if not attn:
        raise ExportError(f"{src}: no fused Attention node to cut after")
    at = attn[-1]
    out, residual = nodes[at].output[0], nodes[at].input[0]
    consts = {"cls_row_starts": 0, "cls_row_ends": 1, "cls_row_axes": 1}
    for name, value in consts.items():
        graph.initializer.append(numpy_helper.from_array(np.array([value], np.int64), name))
    cut = {out: f"{out}_cls_row", residual: f"{residual}_cls_row"}
    slices = [
        helper.make_node("Slice", [name, *consts], [row], name=f"ClassifierRowOnly_{k}")
        for k, (name, row) in enumerate(cut.items())
    ]
    for node in nodes[at + 1 :]:
        for k, name in enumerate(node.input):
            if name in cut:
                node.input[k] = cut[name]
    if any(o.name in cut for o in graph.output):
        raise ExportError(f"{src}: the last attention feeds a graph output directly")
    del graph.node[:]
    graph.node.extend([*nodes[: at + 1], *slices, *nodes[at + 1 :]])
    onnx.checker.check_model(model)
    onnx.save(model, str(dst))


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file: the model id is derived from the bytes that run."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build(
    checkpoint: Path,
    out_dir: Path,
    *,
    name: str,
    max_tokens: int = 128,
    thresholds: dict[str, float] | None = None,
    work_dir: Path | None = None,
    nfkc: bool = False,
    quant: str = SHIPPED_QUANT,
    drop_leading_mentions: bool = False,
    space_glued_symbols: bool = False,
) -> dict[str, Any]:
    """Export, optimize and quantize ``checkpoint`` into ``out_dir``; return the manifest.

    ``work_dir`` keeps the fp32 intermediates (plain export and fused graph) that
    the benchmark compares against; by default they go to ``out_dir/../<name>-work``.
    """
    from transformers import AutoTokenizer

    model = load_checkpoint(checkpoint)
    cfg = model.config
    labels = [cfg.id2label[i] for i in range(cfg.num_labels)]
    work = work_dir or out_dir.parent / f"{name}-work"
    work.mkdir(parents=True, exist_ok=True)
    plain, fused = work / "fp32.onnx", work / "fp32-fused.onnx"
    row_only = work / "fp32-fused-cls-row.onnx"
    export_onnx(model, plain)
    counts = optimize(plain, fused, cfg.n_heads, cfg.dim)
    pooling = pooling_of(model)
    if pooling == "cls":
        classifier_row_only(fused, row_only)
        counts["Slice"] = counts.get("Slice", 0) + 2
        last_block = "classifier row only after attention"
    else:
        # A mean over every row needs every row of the last block.
        row_only = fused
        last_block = "every row (mean pooling)"
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / MODEL_FILE
    quantize(row_only, final, quant)
    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint), local_files_only=True)
    if not getattr(tokenizer, "is_fast", False):
        raise ExportError(f"{checkpoint}: tokenizer has no fast (tokenizer.json) version")
    tokenizer.save_pretrained(str(out_dir))
    for stale in ("special_tokens_map.json", "vocab.txt"):
        # tokenizer.json is all the classifier reads; keep the directory small.
        p = out_dir / stale
        if p.exists() and (out_dir / "tokenizer.json").exists():
            p.unlink()
    prepare_tokenizer(out_dir / "tokenizer.json", nfkc=nfkc)
    sha = file_sha256(final)
    manifest = {
        "name": name,
        "id": f"{name}@{sha[:12]}",
        "sha256": sha,
        "labels": labels,
        "architecture": "DistilBertForSequenceClassification",
        "hidden_size": cfg.dim,
        "layers": cfg.n_layers,
        "heads": cfg.n_heads,
        "quantization": setting(quant).describe(),
        "pooling": pooling,
        "last_block": last_block,
        "fused_ops": {k: v for k, v in sorted(counts.items()) if v},
        "max_tokens": max_tokens,
        "tokenizer_nfkc": nfkc,
        "problem_type": cfg.problem_type or "single_label_classification",
        "thresholds": thresholds or {label: 0.5 for label in labels},
    }
    normalizer: dict[str, str] = {}
    if drop_leading_mentions:
        # Trained without them: the classifier must read past them too (normalize.py).
        normalizer["leading_mentions"] = "drop"
    if space_glued_symbols:
        # Trained with glued emoji spaced off: the classifier must space them off too.
        normalizer["glued_symbols"] = "space"
    if normalizer:
        manifest["normalizer"] = normalizer
    (out_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    log.info("built %s: %s", out_dir, manifest["id"])
    return manifest


def prepare_tokenizer(path: Path, *, nfkc: bool) -> None:
    """Strip saved padding/truncation (the classifier sets its own: never pad).

    With ``nfkc``, fold compatibility characters first, so that full-width or
    styled letters (a common filter evasion) reach the vocabulary as plain ones.
    """
    from tokenizers import Tokenizer, normalizers

    tok = Tokenizer.from_file(str(path))
    tok.no_padding()
    tok.no_truncation()
    if nfkc and tok.normalizer is not None:
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), tok.normalizer])
    tok.save(str(path))
