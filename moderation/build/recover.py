"""Read a built int8 graph's weights back into a DistilBERT checkpoint.

The shipped file is the one kept of several seeded builds (docs/model.md, rule 40); its
fp32 checkpoint is not kept. A lever that should be judged against that file, not against
a fresh draw of the recipe, has to start from its weights (rule 71). Every int8 weight
times its per-channel scale (minus its zero point) gives the fp32 weight back up to the
quantization's rounding; the fused attention's packed q, k and v are split apart again;
the float tensors (embeddings, biases, layer norms) are the checkpoint's own. The head
comes back with whatever rows a refit wrote into it.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from moderation.errors import ModerationError

if TYPE_CHECKING:
    from transformers import DistilBertForSequenceClassification

log = logging.getLogger(__name__)

# The exporter's names: the traced module is wrapped, so every name starts "inner.".
_PREFIX = "inner."
# A quantized MatMul's node name says which linear layer it is.
_LINEAR = re.compile(
    r"^/inner/distilbert/transformer/layer\.(\d+)/(attention/out_lin|ffn/lin1|ffn/lin2)/"
    r"MatMul_quant$"
)
_ATTENTION = re.compile(r"^Attention_(\d+)_quant$")


class RecoverError(ModerationError):
    """The graph is not one this step knows how to read back."""


def dequantized(inits: dict[str, np.ndarray], quantized: str) -> np.ndarray:
    """The fp32 ``[in, out]`` matrix of an int8 initializer named ``X_quantized``, from
    its ``X_scale`` and ``X_zero_point`` (one per output column, or one for all)."""
    stem = quantized.removesuffix("_quantized")
    if stem == quantized:
        raise RecoverError(f"{quantized}: not an int8 weight the quantizer named")
    try:
        q, scale, zero = (inits[quantized], inits[stem + "_scale"], inits[stem + "_zero_point"])
    except KeyError as exc:
        raise RecoverError(f"{quantized}: the graph lacks {exc.args[0]}") from None
    return ((q.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)).astype(
        np.float32
    )


def state_dict_of(model_path: Path) -> dict[str, np.ndarray]:
    """Every parameter of a DistilBertForSequenceClassification, in its own names and
    layouts (a Linear's weight is ``[out, in]``), read from the int8 graph."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model_path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    out = {k.removeprefix(_PREFIX): v for k, v in inits.items() if k.startswith(_PREFIX)}
    out = {k: v for k, v in out.items() if not k.endswith(("_quantized", "_scale", "_zero_point"))}
    for node in graph.node:
        attention = _ATTENTION.match(node.name)
        linear = _LINEAR.match(node.name)
        if attention and node.op_type == "QAttention":
            i = attention.group(1)
            packed = dequantized(inits, node.input[1])
            bias = inits[node.input[2]]
            width = packed.shape[1] // 3
            for k, part in enumerate(("q_lin", "k_lin", "v_lin")):
                cols = slice(k * width, (k + 1) * width)
                out[f"distilbert.transformer.layer.{i}.attention.{part}.weight"] = packed[:, cols].T
                out[f"distilbert.transformer.layer.{i}.attention.{part}.bias"] = bias[cols]
        elif linear and node.op_type == "MatMulInteger":
            i, which = linear.groups()
            name = which.replace("/", ".")
            out[f"distilbert.transformer.layer.{i}.{name}.weight"] = dequantized(
                inits, node.input[1]
            ).T
    for head in ("pre_classifier", "classifier"):
        out[f"{head}.weight"] = dequantized(inits, f"{_PREFIX}{head}.weight_quantized").T
    return {k: np.ascontiguousarray(v) for k, v in out.items()}


def recover_checkpoint(model_dir: Path, out_dir: Path) -> DistilBertForSequenceClassification:
    """Write ``out_dir`` (config.json, weights, tokenizer): the fp32 DistilBERT whose int8
    graph is ``model_dir/model.onnx``, pooled by its [CLS] row as it was trained."""
    import torch
    from transformers import AutoTokenizer

    from moderation.build.convert import distilbert_from_minilm, minilm_dir
    from moderation.build.export import MANIFEST_FILE, MODEL_FILE
    from moderation.build.pooling import set_pooling

    manifest_path = model_dir / MANIFEST_FILE
    if not manifest_path.is_file():
        raise RecoverError(f"{model_dir}: no {MANIFEST_FILE}; give a built model's folder")
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("pooling", "cls") != "cls":
        raise RecoverError(f"{model_dir}: pooled by {manifest['pooling']!r}; only [CLS] reads back")
    labels = list(manifest["labels"])
    model = distilbert_from_minilm(labels)
    state = {k: torch.from_numpy(v) for k, v in state_dict_of(model_dir / MODEL_FILE).items()}
    own = model.state_dict()
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    if missing or unexpected:
        raise RecoverError(
            f"{model_dir / MODEL_FILE}: the graph does not read back whole "
            f"(missing {missing[:4]}, unexpected {unexpected[:4]})"
        )
    shapes = [k for k, v in state.items() if tuple(v.shape) != tuple(own[k].shape)]
    if shapes:
        raise RecoverError(f"{model_dir / MODEL_FILE}: shapes differ for {shapes[:4]}")
    model.load_state_dict(state, strict=True)
    set_pooling(model, "cls")
    model.config.recovered_from = manifest["id"]
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    AutoTokenizer.from_pretrained(str(minilm_dir())).save_pretrained(out_dir)
    log.info("recovered %s into %s", manifest["id"], out_dir)
    return model


def recovered_from(checkpoint: str) -> str:
    """The built model a checkpoint was read back from (`moderation
    recover-checkpoint`), by its id; "" for any other start."""
    if not checkpoint:
        return ""
    config = Path(checkpoint) / "config.json"
    if not config.is_file():
        return ""
    return str(json.loads(config.read_text()).get("recovered_from", ""))
